//! pending-ack-lab: per-consumer pending-ack map designs behind one trait.
//!
//! Re-creates Pulsar's `PendingAcksMap` (entries dispatched to a consumer and not yet acked, keyed
//! by (ledgerId, entryId)): the merged nested ordered tree against the primitive-bucketed layout of
//! draft PR #26024, plus designs of our own. Every design is one file under [`implementations`];
//! [`with_implementations!`] is the one list that tests, benches, allocation and footprint runs
//! iterate. Datasets and scenarios live once in [`workload`].

extern crate self as pending_ack_lab;

// Every design, the baseline first: the one list that tests, benches, allocation and footprint
// runs iterate. A new design is one file under `implementations/` and one line here.
lab_registry::designs! {
    crate pending_ack_lab; trait PendingAcks;
    nested_tree => NestedTree,
    nested_node_tree => NestedNodeTree,
    primitive_bucketed => PrimitiveBucketed,
    primitive_bucketed_ahash => PrimitiveBucketedAhash,
    primitive_bucketed_roaring => PrimitiveBucketedRoaring,
    primitive_unindexed => PrimitiveUnindexed,
    dense_window => DenseWindow,
    striped_window => StripedWindow,
    ; floor harness_floor => HarnessFloor
}

pub mod concurrent;
pub mod implementations;
pub mod lab;
pub mod report;
mod runners;
pub mod shared;
pub mod value;
pub mod workload;

pub use value::{Mark, PendingAck, PendingAckError};

/// A pending-ack map for one consumer, keyed by (ledger id, entry id).
///
/// Single-threaded (`&mut self` for writes), so the single-thread tables measure the data
/// structure alone; [`PendingAcks::Shared`] is the same design as the broker's threads share it.
pub trait PendingAcks: Default + Send + Sync + 'static {
    /// The implementation's name in tables and on the command line.
    const NAME: &'static str;

    /// The design shared between threads: [`shared::RwLocked<Self>`] (Pulsar's one
    /// reader/writer lock around the map) unless the design brings its own.
    type Shared: shared::SharedPendingAcks;

    /// Stores `ack` at (ledger, entry), replacing any value there. Returns whether the key was new
    /// (Pulsar's `addPendingAckIfAllowed` without the Key_Shared add handler).
    fn add_or_replace(&mut self, ledger: u64, entry: u64, ack: PendingAck) -> bool;

    fn get(&self, ledger: u64, entry: u64) -> Option<PendingAck>;

    /// The stored value, for in-place updates with a single lookup.
    fn get_mut(&mut self, ledger: u64, entry: u64) -> Option<&mut PendingAck>;

    /// Removes the entry and returns its value (`removeAndGetRemainingUnacked`).
    fn remove(&mut self, ledger: u64, entry: u64) -> Option<PendingAck>;

    /// Removes every entry at or before `mark`, calling `on_removed` for each in ascending
    /// (ledger, entry) order.
    fn remove_all_up_to(&mut self, mark: Mark, on_removed: &mut impl FnMut(u64, u64, PendingAck));

    /// Visits every entry in ascending (ledger, entry) order.
    fn for_each(&self, visit: &mut impl FnMut(u64, u64, PendingAck));

    /// Visits every entry in ascending order and leaves the map empty (`forEachAndClear`).
    fn drain(&mut self, visit: &mut impl FnMut(u64, u64, PendingAck));

    /// Number of entries, in O(1).
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn contains(&self, ledger: u64, entry: u64) -> bool {
        self.get(ledger, entry).is_some()
    }

    /// The remaining unacked count, or `None` when absent (Pulsar returns -1).
    fn get_remaining(&self, ledger: u64, entry: u64) -> Option<u32> {
        self.get(ledger, entry).map(PendingAck::remaining)
    }

    /// Removes the entry only if its stored value equals `expected` (Pulsar's checked `remove`).
    fn remove_if_equal(&mut self, ledger: u64, entry: u64, expected: PendingAck) -> bool {
        if self.get(ledger, entry) == Some(expected) {
            self.remove(ledger, entry);
            true
        } else {
            false
        }
    }

    /// Subtracts `acked` from the remaining count, keeping the sticky-key hash. Returns false and
    /// changes nothing when the entry is absent or the result would leave `0..=i32::MAX` (a
    /// negative `acked` adds); a result of zero is stored.
    fn update_remaining_unacked(&mut self, ledger: u64, entry: u64, acked: i32) -> bool {
        let Some(value) = self.get_mut(ledger, entry) else {
            return false;
        };
        match value.with_acked(acked) {
            Some(updated) => {
                *value = updated;
                true
            }
            None => false,
        }
    }
}
