//! Retained heap footprint: the live-bytes delta across building a structure, measured with the
//! counting allocator, the Rust analogue of JOL's `GraphLayout.totalSize()`.

use crate::alloc::AllocDelta;
use crate::record::{BenchId, Metric, Record};

/// Heap retained by a structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retained {
    /// Requested bytes (sum of `Layout::size`).
    pub bytes: u64,
    /// Bytes the allocator reserved for them, so allocator slack is visible.
    pub usable_bytes: u64,
}

impl Retained {
    /// The live heap gained across `delta` (none if it shrank).
    pub fn of(delta: &AllocDelta) -> Self {
        Self {
            bytes: delta.live_bytes.max(0) as u64,
            usable_bytes: delta.live_usable_bytes.max(0) as u64,
        }
    }

    /// The two records of a footprint measurement: requested and usable bytes.
    pub fn records(&self, id: BenchId) -> [Record; 2] {
        [
            Record::new(id.clone(), Metric::RetainedBytes, self.bytes as f64),
            Record::new(id, Metric::RetainedUsableBytes, self.usable_bytes as f64),
        ]
    }
}
