//! One file per design. The list that benches and tests iterate is
//! [`with_implementations!`](crate::with_implementations).

pub mod atomic_slot;
pub mod per_key_cas;
pub mod producer_handle;
pub mod sharded_lock;
pub mod topic_mutex;

use std::sync::Arc;

use crate::sequence::{Watermark, classify};
use crate::{DupStatus, SequenceBatch};

/// The hasher every map-based design uses, so designs differ in structure, not hashing.
pub type Hasher = foldhash::fast::RandomState;

/// A producer name as map designs key it: cloning is a reference-count increment, so a
/// compare-and-replace that must hand the map an owned key does not allocate.
pub type ProducerName = Arc<str>;

/// Watermarks of one producer for designs that keep both under one lock: sequence ids, or a
/// replicator's source positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watermarks<W = u64> {
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

impl Watermarks {
    /// The admission decision and write of a sequence batch on a locked entry.
    pub fn admit(&mut self, batch: SequenceBatch) -> DupStatus {
        self.admit_span(batch.low(), batch.high())
    }
}
