//! The write-up's retained-capacity cases: what a cleaned-up map keeps.

use super::Dataset;
use crate::{Mark, PendingAcks};

/// The write-up's retained-capacity cases: a peak dataset cleaned up by `remove_all_up_to` until only
/// `keep` entries (the newest, in the last ledger) remain.
#[derive(Debug, Clone, Copy)]
pub struct RetainedCase {
    pub name: &'static str,
    pub dataset: &'static str,
    pub keep: u64,
}

pub const RETAINED_CASES: [RetainedCase; 5] = [
    RetainedCase {
        name: "50k-in-1-clear-all",
        dataset: "50k-in-1",
        keep: 0,
    },
    RetainedCase {
        name: "50k-in-1-keep-1",
        dataset: "50k-in-1",
        keep: 1,
    },
    RetainedCase {
        name: "50k-in-1-keep-1k",
        dataset: "50k-in-1",
        keep: 1_000,
    },
    RetainedCase {
        name: "50k-in-5-keep-1k",
        dataset: "50k-in-5",
        keep: 1_000,
    },
    RetainedCase {
        name: "50k-in-20-keep-1k",
        dataset: "50k-in-20",
        keep: 1_000,
    },
];

impl RetainedCase {
    /// Builds the peak, then cleans it up; returns the map that remains.
    pub fn build<M: PendingAcks>(&self) -> M {
        let dataset = Dataset::find(self.dataset).expect("listed datasets exist");
        let mut map: M = dataset.populate();
        let last = dataset.ledgers - 1;
        let mark = match dataset.entries_in_ledger(last).checked_sub(self.keep + 1) {
            Some(entry) => Mark::at(last, entry),
            None => Mark::before(last),
        };
        map.remove_all_up_to(mark, &mut |_, _, _| {});
        map
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::implementations::nested_tree::NestedTree;

    #[test]
    fn retained_cases_keep_what_they_say() {
        for case in RETAINED_CASES {
            let map: NestedTree = case.build();
            assert_eq!(map.len() as u64, case.keep, "{}", case.name);
        }
    }
}
