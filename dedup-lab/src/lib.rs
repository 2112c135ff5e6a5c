//! dedup-lab: producer sequence-id deduplication designs behind one trait.
//!
//! Re-creates Pulsar's `MessageDeduplication.isDuplicateNormal` (PR #26763): a topic-wide lock
//! against per-producer compare-and-swap designs, each answering NotDup / Dup / Unknown exactly as
//! Pulsar does, for sequence ids and for replicated messages' (ledger, entry) source positions. Every design is one file under [`implementations`]; [`with_implementations!`] is
//! the one list of them that tests, benches, allocation and footprint runs all iterate.

extern crate self as dedup_lab;

// Every design, the baseline first: the one list that tests, benches, allocation and footprint
// runs iterate. A new design is one file under `implementations/` and one line here.
lab_registry::designs! {
    crate dedup_lab; trait SequenceDedup;
    topic_mutex => TopicMutex,
    chm_monitor_unboxed => ChmMonitorUnboxed,
    chm_replace_unboxed => ChmReplaceUnboxed,
    papaya_cas => PapayaCas,
    atomic_slot => AtomicSlot,
    sharded_lock => ShardedLock,
    producer_handle => ProducerHandle,
    packed_handle => PackedHandle,
    ; floor harness_floor => HarnessFloor
}

pub mod churn;
pub mod footprint;
pub mod implementations;
pub mod lab;
pub mod report;
mod runners;
pub mod sequence;
pub mod workload;

pub use sequence::{DedupError, DupStatus, MAX_SEQUENCE_ID, Position, SequenceBatch};

/// A producer-sequence deduplicator for one topic.
///
/// A caller first [`connect`](SequenceDedup::connect)s a producer name and keeps the handle for
/// the life of the connection; two connections with the same name (the reconnect overlap) get two
/// handles and must stay linearizable with each other.
///
/// # Concurrency contract
///
/// - `connect`, `admit`, `record_persisted`, their replicated counterparts and the `highest_*`
///   reads may run at once from any threads, for one producer or many (`tests/race.rs`: 32
///   threads on one producer, by sequence id and by position: nothing admitted twice, pushed
///   never going backwards).
/// - [`reset_pushed_to_persisted`](SequenceDedup::reset_pushed_to_persisted) runs only while the
///   topic is fenced: no `admit` or `record_persisted` of any producer is in flight, as in
///   Pulsar's add-failure path. It is not atomic with respect to admission: racing it,
///   `papaya-cas` answered NotDup for ids at or below the persisted one (its reset clears the
///   pushed map, then refills it), and a slot reset that reads persisted before a racing record
///   can leave pushed below persisted.
/// - [`purge`](SequenceDedup::purge) of a producer runs only while that producer is inactive (no
///   connection of it admits or records; Pulsar purges producers inactive for a while); other
///   producers may publish meanwhile. An admission of the same producer overlapping its purge
///   may answer Unknown (`papaya-cas`, `producer-handle`, `packed-handle`).
///
/// `tests/contract.rs` checks exactly these promises for every design.
pub trait SequenceDedup: Default + Send + Sync + 'static {
    /// The implementation's name in tables and on the command line.
    const NAME: &'static str;
    /// Whether admission allocates nothing once a producer has admitted its first message
    /// (asserted by the dhat tests).
    const ZERO_ALLOC_STEADY_STATE: bool;

    /// What a connection keeps: the producer's name for map designs, a slot for handle designs.
    type Producer: Send + 'static;

    /// Resolves a producer when it connects.
    fn connect(&self, producer: &str) -> Self::Producer;

    /// The admission check: NotDup (and pushed becomes `batch.high()`) when `batch.low()` is above
    /// pushed; otherwise Dup when `batch.low()` is at or below persisted, else Unknown. The Dup and
    /// Unknown paths write nothing.
    fn admit(&self, producer: &Self::Producer, batch: SequenceBatch) -> DupStatus;

    /// The add completed: persisted becomes `batch.high()`.
    fn record_persisted(&self, producer: &Self::Producer, batch: SequenceBatch);

    /// Replication (Pulsar's `isDuplicateReplV2`): the admission check of a replicated message
    /// by its position in the source cluster, by `admit`'s rule with positions compared
    /// lexicographically (ledger id, then entry id). A producer's pushed and persisted positions
    /// are kept apart from its sequence ids, each read and replaced as one unit: an answer never
    /// mixes the ledger of one position with the entry of another.
    fn admit_replicated(&self, producer: &Self::Producer, position: Position) -> DupStatus;

    /// The replicated add completed: the persisted position becomes `position`.
    fn record_replicated_persisted(&self, producer: &Self::Producer, position: Position);

    /// The add-failure path: every producer's pushed id and pushed position go back to the
    /// persisted ones (or to none). Only while the topic is fenced (see the concurrency contract).
    fn reset_pushed_to_persisted(&self);

    fn highest_pushed(&self, producer: &str) -> Option<u64>;

    fn highest_persisted(&self, producer: &str) -> Option<u64>;

    fn highest_replicated_pushed(&self, producer: &str) -> Option<Position>;

    fn highest_replicated_persisted(&self, producer: &str) -> Option<Position>;

    /// Forgets an inactive producer's watermarks, ids and positions (see the concurrency
    /// contract).
    fn purge(&self, producer: &str);

    /// The producer's pushed id plus one (0 when it has none), installed in one call whatever
    /// other callers of the producer do; returns that id. Not a broker operation (a client
    /// chooses its ids): the shared case of the PR's JMH benchmark, whose callers each add one to
    /// `producer-0` (`put(get + 1)` under the monitor, `replace(prev, prev + 1)` until it holds).
    /// Concurrent increments of a producer are never lost (`tests/race.rs`).
    fn increment_pushed(&self, producer: &Self::Producer) -> u64;
}
