//! The footprint workload: state grown by many producers admitting one message each, some of
//! them then purged, and the heap it retains.

use labkit::lab::Retained;
use labkit::table::format_count;

use crate::{SequenceBatch, SequenceDedup};

/// State growth: `producers` producers each admit one message; all but the newest `kept` are
/// then purged (`kept == producers`: no purge).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Growth {
    pub producers: usize,
    pub kept: usize,
}

pub(crate) const GROWTH: [Growth; 7] = [
    Growth::all(1),
    Growth::all(500),
    Growth::all(10_000),
    Growth::all(100_000),
    Growth::all(1_000_000),
    Growth {
        producers: 100_000,
        kept: 10_000,
    },
    Growth {
        producers: 1_000_000,
        kept: 10_000,
    },
];

impl Growth {
    const fn all(producers: usize) -> Self {
        Self {
            producers,
            kept: producers,
        }
    }

    pub fn name(self) -> String {
        if self.kept == self.producers {
            format!("{}-producers", self.producers)
        } else {
            format!("{}-producers-purged-to-{}", self.producers, self.kept)
        }
    }

    pub fn label(self) -> String {
        let n = format_count(self.producers as u64);
        if self.kept == self.producers {
            format!("{n} producers")
        } else {
            let kept = format_count(self.kept as u64);
            format!("{n} producers, all but the newest {kept} then purged")
        }
    }
}

impl Growth {
    /// A runner that builds, in its window, a deduplicator that has admitted one message from each
    /// of the case's producers, then purged all but the newest it keeps (their names are made
    /// beforehand).
    pub(crate) fn runner<D: SequenceDedup>(self) -> Retained<D> {
        let names: Vec<String> = (0..self.producers)
            .map(|i| format!("producer-{i}"))
            .collect();
        let purged = self.producers - self.kept;
        let first = SequenceBatch::single(0).expect("0 is a valid id");
        Retained::new(move || {
            let dedup = D::default();
            for name in &names {
                dedup.admit(&dedup.connect(name), first);
            }
            for name in &names[..purged] {
                dedup.purge(name);
            }
            dedup
        })
    }
}
