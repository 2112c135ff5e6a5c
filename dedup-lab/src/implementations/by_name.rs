//! The designs keyed by producer name: where each keeps one kind of watermark for every
//! producer ([`WatermarkStore`]), and the adapter that makes a pair of stores a deduplicator.

use std::sync::Arc;

use crate::sequence::{Position, Watermark, classify, next_id};
use crate::{DupStatus, SequenceBatch, SequenceDedup};

/// The hasher every map-based design uses, so designs differ in structure, not hashing.
pub type Hasher = foldhash::fast::RandomState;

/// A producer name as map designs key it: cloning is a reference-count increment, so a
/// compare-and-replace that must hand the map an owned key does not allocate.
pub type ProducerName = Arc<str>;

/// Watermarks of one producer for designs that keep both under one lock: sequence ids, or a
/// replicator's source positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watermarks<W> {
    pub pushed: Option<W>,
    pub persisted: Option<W>,
}

impl<W> Default for Watermarks<W> {
    fn default() -> Self {
        Self {
            pushed: None,
            persisted: None,
        }
    }
}

impl<W: Watermark> Watermarks<W> {
    /// The admission decision and write of `low..=high` on a locked entry.
    pub fn admit_span(&mut self, low: W, high: W) -> DupStatus {
        let status = classify(low, self.pushed, self.persisted);
        if status == DupStatus::NotDup {
            self.pushed = Some(high);
        }
        status
    }
}

/// Where a design keyed by producer name keeps one kind of watermark (sequence ids or source
/// positions) for every producer: a topic-wide monitor, a sharded map, compare-and-swap maps, a
/// map of atomic slots.
pub trait WatermarkStore<W: Watermark>: Default + Send + Sync + 'static {
    /// The admission decision and write of `low..=high` for `producer`.
    fn admit(&self, producer: &ProducerName, low: W, high: W) -> DupStatus;
    fn record_persisted(&self, producer: &ProducerName, high: W);
    /// Every producer's pushed watermark back to its persisted one.
    fn reset_pushed_to_persisted(&self);
    fn pushed(&self, producer: &str) -> Option<W>;
    fn persisted(&self, producer: &str) -> Option<W>;
    fn purge(&self, producer: &str);
    /// `producer`'s pushed watermark becomes `next(pushed)` in one step, however other callers
    /// race it; returns the value installed.
    fn advance(&self, producer: &ProducerName, next: fn(Option<W>) -> W) -> W;
}

/// A design keyed by producer name: its name, and the stores it keeps sequence ids and replicated
/// positions in (the same kind of store for both, unless the design keeps positions as Pulsar's
/// replication path does whatever the sequence path is).
pub trait StoreDesign: Send + Sync + 'static {
    const NAME: &'static str;
    const ZERO_ALLOC_STEADY_STATE: bool;
    type Ids: WatermarkStore<u64>;
    type Positions: WatermarkStore<Position>;
}

/// A [`StoreDesign`] as a deduplicator: sequence ids in one store, replicated positions in
/// another, apart as Pulsar keeps them (separate maps, and for the topic-wide monitor a separate
/// lock); a connection is the producer's name.
pub struct ByName<D: StoreDesign> {
    ids: D::Ids,
    positions: D::Positions,
}

impl<D: StoreDesign> Default for ByName<D> {
    fn default() -> Self {
        Self {
            ids: Default::default(),
            positions: Default::default(),
        }
    }
}

impl<D: StoreDesign> SequenceDedup for ByName<D> {
    const NAME: &'static str = D::NAME;
    const ZERO_ALLOC_STEADY_STATE: bool = D::ZERO_ALLOC_STEADY_STATE;
    type Producer = ProducerName;

    fn connect(&self, producer: &str) -> ProducerName {
        producer.into()
    }

    fn admit(&self, producer: &ProducerName, batch: SequenceBatch) -> DupStatus {
        self.ids.admit(producer, batch.low(), batch.high())
    }

    fn record_persisted(&self, producer: &ProducerName, batch: SequenceBatch) {
        self.ids.record_persisted(producer, batch.high());
    }

    fn admit_replicated(&self, producer: &ProducerName, position: Position) -> DupStatus {
        self.positions.admit(producer, position, position)
    }

    fn record_replicated_persisted(&self, producer: &ProducerName, position: Position) {
        self.positions.record_persisted(producer, position);
    }

    fn reset_pushed_to_persisted(&self) {
        self.ids.reset_pushed_to_persisted();
        self.positions.reset_pushed_to_persisted();
    }

    fn highest_pushed(&self, producer: &str) -> Option<u64> {
        self.ids.pushed(producer)
    }

    fn highest_persisted(&self, producer: &str) -> Option<u64> {
        self.ids.persisted(producer)
    }

    fn highest_replicated_pushed(&self, producer: &str) -> Option<Position> {
        self.positions.pushed(producer)
    }

    fn highest_replicated_persisted(&self, producer: &str) -> Option<Position> {
        self.positions.persisted(producer)
    }

    fn purge(&self, producer: &str) {
        self.ids.purge(producer);
        self.positions.purge(producer);
    }

    fn increment_pushed(&self, producer: &ProducerName) -> u64 {
        self.ids.advance(producer, next_id)
    }
}
