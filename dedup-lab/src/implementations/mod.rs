//! One file per design. The list that benches and tests iterate is
//! [`with_implementations!`](crate::with_implementations).

pub mod atomic_slot;
pub mod per_key_cas;
pub mod producer_handle;
pub mod sharded_lock;
pub mod topic_mutex;

use std::sync::Arc;

/// The hasher every map-based design uses, so designs differ in structure, not hashing.
pub type Hasher = foldhash::fast::RandomState;

/// A producer name as map designs key it: cloning is a reference-count increment, so a
/// compare-and-replace that must hand the map an owned key does not allocate.
pub type ProducerName = Arc<str>;

/// Watermarks of one producer for designs that keep both under one lock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Watermarks {
    pub pushed: Option<u64>,
    pub persisted: Option<u64>,
}

impl Watermarks {
    /// The admission decision and write on a locked entry.
    pub fn admit(&mut self, batch: crate::SequenceBatch) -> crate::DupStatus {
        let status = crate::sequence::classify(batch, self.pushed, self.persisted);
        if status == crate::DupStatus::NotDup {
            self.pushed = Some(batch.high());
        }
        status
    }
}
