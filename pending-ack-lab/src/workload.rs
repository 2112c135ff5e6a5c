//! The write-up's datasets and scenarios (draft #26024's `PendingAcksMapBenchmark`), defined once and
//! used by the wall-time passes, gungraun, allocation, footprint and dhat runs, so every implementation sees
//! the same deterministic input stream.

use crate::{Mark, PendingAck, PendingAcks};

mod drivers;
mod retained;
mod runner;

use drivers::{Cursor, RollingWindow};
pub use retained::{RETAINED_CASES, RetainedCase};
pub use runner::WorkloadRunner;

/// `entries` pending entries spread over ledgers `0..ledgers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dataset {
    pub name: &'static str,
    pub entries: u64,
    pub ledgers: u64,
    /// Its name in the draft's JMH benchmark (`PendingAcksMapBenchmark.Dataset`), when it has one.
    pub benchmark_name: Option<&'static str>,
}

const fn dataset(name: &'static str, entries: u64, ledgers: u64) -> Dataset {
    Dataset {
        name,
        entries,
        ledgers,
        benchmark_name: None,
    }
}

/// A dataset of the draft's JMH benchmark, under its name there.
const fn benchmark(
    name: &'static str,
    benchmark: &'static str,
    entries: u64,
    ledgers: u64,
) -> Dataset {
    Dataset {
        benchmark_name: Some(benchmark),
        ..dataset(name, entries, ledgers)
    }
}

/// Every dataset of the seed (entries / ledgers), in its order.
pub const DATASETS: [Dataset; 16] = [
    benchmark("100-in-1", "batchedReceiverQueue100Entries1Ledger", 100, 1),
    benchmark("1k-in-1", "receiverQueue1kEntries1Ledger", 1_000, 1),
    dataset("25k-in-1", 25_000, 1),
    benchmark("50k-in-1", "defaultUnacked50kEntries1Ledger", 50_000, 1),
    benchmark("50k-in-2", "defaultUnacked50kEntries2Ledgers", 50_000, 2),
    benchmark("50k-in-5", "defaultUnacked50kEntries5Ledgers", 50_000, 5),
    benchmark("50k-in-10", "defaultUnacked50kEntries10Ledgers", 50_000, 10),
    benchmark("50k-in-20", "defaultUnacked50kEntries20Ledgers", 50_000, 20),
    benchmark("1k-in-5", "residual1kEntries5Ledgers", 1_000, 5),
    benchmark("1k-in-100", "residual1kEntries100Ledgers", 1_000, 100),
    dataset("1k-in-500", 1_000, 500),
    dataset("1k-in-1000", 1_000, 1_000),
    dataset("200k-in-100", 200_000, 100),
    dataset("200k-in-500", 200_000, 500),
    benchmark("64k-in-1k", "64kEntries1kLedgers", 65_536, 1_024),
    benchmark("1m-in-16k", "1mEntries16kLedgers", 1_048_576, 16_384),
];

/// The value the seed stores for the i-th entry: remaining `(i & 15) + 1`, hash `i × 31`.
/// `#[inline]` for the drivers' ops (see `drivers`).
#[inline]
pub fn seed_value(i: u64) -> PendingAck {
    PendingAck::new((i & 15) as i32 + 1, (i as i32).wrapping_mul(31))
        .expect("1..=16 is a valid remaining count")
}

impl Dataset {
    pub fn find(name: &str) -> Result<Dataset, String> {
        DATASETS
            .iter()
            .find(|d| d.name == name)
            .copied()
            .ok_or_else(|| {
                let valid: Vec<&str> = DATASETS.iter().map(|d| d.name).collect();
                format!("unknown dataset `{name}`; valid: {}", valid.join(", "))
            })
    }

    /// "50,000 entries / 20 ledgers".
    pub fn label(&self) -> String {
        let group = |n: u64| {
            let digits = n.to_string();
            let mut out = String::new();
            for (i, c) in digits.chars().enumerate() {
                if i > 0 && (digits.len() - i).is_multiple_of(3) {
                    out.push(',');
                }
                out.push(c);
            }
            out
        };
        let plural = if self.ledgers == 1 { "" } else { "s" };
        format!(
            "{} entries / {} ledger{plural}",
            group(self.entries),
            group(self.ledgers)
        )
    }

    /// Even split, the remainder going to the first ledgers.
    /// `#[inline]` for the drivers' ops (see `drivers`).
    #[inline]
    pub fn entries_in_ledger(&self, ledger: u64) -> u64 {
        self.entries / self.ledgers + u64::from(ledger < self.entries % self.ledgers)
    }

    /// Every (ledger, entry) in ledger-major order, entry ids contiguous from 0 in each ledger.
    pub fn positions(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        (0..self.ledgers).flat_map(move |l| (0..self.entries_in_ledger(l)).map(move |e| (l, e)))
    }

    /// A map holding the whole dataset with the write-up's values.
    pub fn populate<M: PendingAcks>(&self) -> M {
        let mut map = M::default();
        for (i, (l, e)) in self.positions().enumerate() {
            map.add_or_replace(l, e, seed_value(i as u64));
        }
        map
    }
}

/// Single-entry ops per instruction-count (gungraun) run; cleanups do one, scans at most
/// [`Scenario::max_ops`].
pub const COUNTED_OPS: u64 = 1_000;

/// Every measured scenario. Names are the `<experiment>` part of bench ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    DispatchAndAckCycle,
    DispatchAckAndPartialAckCycle,
    ShuffledAckCycle,
    RemoveAllUpTo,
    SameLedgerSmallPrefix,
    SameLedgerBeforeWindow,
    AddOrReplace,
    RemoveAndAdd,
    UpdateRemaining,
    ContainsHit,
    GetRemainingHit,
    ForEachScan,
}

const CYCLE_DATASETS: &[&str] = &[
    "50k-in-1",
    "50k-in-5",
    "50k-in-10",
    "50k-in-20",
    "1k-in-100",
    "64k-in-1k",
];
const CLEANUP_DATASETS: &[&str] = &["50k-in-1", "50k-in-5", "50k-in-10", "50k-in-20"];
const SAME_LEDGER_DATASETS: &[&str] = &["1k-in-1", "50k-in-1"];
const FOCUSED_DATASETS: &[&str] = &["50k-in-1", "50k-in-20"];

impl Scenario {
    pub const ALL: [Scenario; 12] = [
        Self::DispatchAndAckCycle,
        Self::DispatchAckAndPartialAckCycle,
        Self::ShuffledAckCycle,
        Self::RemoveAllUpTo,
        Self::SameLedgerSmallPrefix,
        Self::SameLedgerBeforeWindow,
        Self::AddOrReplace,
        Self::RemoveAndAdd,
        Self::UpdateRemaining,
        Self::ContainsHit,
        Self::GetRemainingHit,
        Self::ForEachScan,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::DispatchAndAckCycle => "dispatch-and-ack-cycle",
            Self::DispatchAckAndPartialAckCycle => "dispatch-ack-and-partial-ack-cycle",
            Self::ShuffledAckCycle => "shuffled-ack-cycle",
            Self::RemoveAllUpTo => "remove-all-up-to",
            Self::SameLedgerSmallPrefix => "same-ledger-small-prefix",
            Self::SameLedgerBeforeWindow => "same-ledger-before-window",
            Self::AddOrReplace => "add-or-replace",
            Self::RemoveAndAdd => "remove-and-add",
            Self::UpdateRemaining => "update-remaining",
            Self::ContainsHit => "contains-hit",
            Self::GetRemainingHit => "get-remaining-hit",
            Self::ForEachScan => "for-each-scan",
        }
    }

    /// What one op is, for report headings.
    pub fn description(self) -> &'static str {
        match self {
            Self::DispatchAndAckCycle => {
                "a FIFO window of constant size: remove the oldest entry, add the next one (ledgers roll over)"
            }
            Self::DispatchAckAndPartialAckCycle => {
                "the FIFO cycle, plus every 16th op a partial ack (remaining − 1) half a window ahead"
            }
            Self::ShuffledAckCycle => {
                "acks in a permuted order inside each window-sized block (slot (n × 4051) mod window), dispatch in order"
            }
            Self::RemoveAllUpTo => {
                "one `remove_all_up_to(L/2, entriesInLedger(L/2)/2)` removing about half; rebuild not timed"
            }
            Self::SameLedgerSmallPrefix => {
                "one same-ledger `remove_all_up_to` removing the first 2 % of ledger 0; rebuild not timed"
            }
            Self::SameLedgerBeforeWindow => {
                "one same-ledger `remove_all_up_to` with the mark just before the pending window (removes nothing)"
            }
            Self::AddOrReplace => "add-or-replace of an existing key, round-robin over all entries",
            Self::RemoveAndAdd => "remove an entry and add it back, round-robin",
            Self::UpdateRemaining => {
                "update_remaining_unacked by +1 / −1 on alternate passes, round-robin (stays in range)"
            }
            Self::ContainsHit => "`contains` of a present key, round-robin",
            Self::GetRemainingHit => "`get_remaining` of a present key, round-robin",
            Self::ForEachScan => "one full ascending `for_each`, summing remaining and hash",
        }
    }

    /// The datasets this scenario runs on, as in the write-up.
    pub fn datasets(self) -> Vec<Dataset> {
        let names = match self {
            Self::DispatchAndAckCycle
            | Self::DispatchAckAndPartialAckCycle
            | Self::ShuffledAckCycle => CYCLE_DATASETS,
            Self::RemoveAllUpTo => CLEANUP_DATASETS,
            Self::SameLedgerSmallPrefix | Self::SameLedgerBeforeWindow => SAME_LEDGER_DATASETS,
            _ => FOCUSED_DATASETS,
        };
        names
            .iter()
            .map(|n| Dataset::find(n).expect("listed datasets exist"))
            .collect()
    }

    /// Whether one op consumes its setup (a cleanup), so each op needs a freshly built map.
    pub fn is_one_shot(self) -> bool {
        matches!(
            self,
            Self::RemoveAllUpTo | Self::SameLedgerSmallPrefix | Self::SameLedgerBeforeWindow
        )
    }

    /// At most this many ops in one measured run, whatever the measurement's budget: three
    /// whole-map scans; no cap for the others (a cleanup is one op by its kind).
    pub fn max_ops(self) -> Option<u64> {
        (self == Self::ForEachScan).then_some(3)
    }

    pub fn is_cycle(self) -> bool {
        matches!(
            self,
            Self::DispatchAndAckCycle
                | Self::DispatchAckAndPartialAckCycle
                | Self::ShuffledAckCycle
        )
    }
}

/// A map prepared for one experiment on one dataset, and the state that drives its ops.
pub struct Workload<M> {
    pub map: M,
    driver: Driver,
}

enum Driver {
    Cycle(RollingWindow),
    Cursor(Cursor),
    Scan,
    Cleanup(Cleanup),
}

/// A one-shot `remove_all_up_to` and the population it cleans up.
struct Cleanup {
    mark: Mark,
    dataset: Dataset,
    /// `Some(first)`: all entries in ledger 0 from `first` on (the same-ledger cases); `None`: the
    /// dataset's own layout.
    same_ledger_from: Option<u64>,
}

impl Cleanup {
    /// The cleanup `experiment` runs on `dataset`, if it is one.
    fn of(experiment: Scenario, dataset: Dataset) -> Option<Self> {
        use Scenario::*;
        let prefix = (dataset.entries / 50).max(1);
        let half = dataset.ledgers / 2;
        Some(match experiment {
            RemoveAllUpTo => Cleanup {
                mark: Mark::at(half, dataset.entries_in_ledger(half) / 2),
                dataset,
                same_ledger_from: None,
            },
            SameLedgerSmallPrefix => Cleanup {
                mark: Mark::at(0, prefix - 1),
                dataset,
                same_ledger_from: Some(0),
            },
            SameLedgerBeforeWindow => Cleanup {
                mark: Mark::at(0, prefix - 1),
                dataset,
                same_ledger_from: Some(prefix),
            },
            _ => return None,
        })
    }

    /// The entries at or before the mark: what one cleanup removes.
    fn removed(&self) -> u64 {
        let covered = |l: u64, e: u64| {
            l < self.mark.ledger
                || (l == self.mark.ledger && self.mark.entry.is_some_and(|m| e <= m))
        };
        self.population().filter(|&(l, e, _)| covered(l, e)).count() as u64
    }

    /// Every (ledger, entry, value) the cleanup's map is built from.
    fn population(&self) -> Box<dyn Iterator<Item = (u64, u64, PendingAck)> + '_> {
        match self.same_ledger_from {
            Some(first) => {
                Box::new((0..self.dataset.entries).map(move |i| (0, first + i, seed_value(i))))
            }
            None => Box::new(
                self.dataset
                    .positions()
                    .enumerate()
                    .map(|(i, (l, e))| (l, e, seed_value(i as u64))),
            ),
        }
    }
}

/// Entries one op of `experiment` visits, for the experiments whose op is one call over many
/// entries (a cleanup: those it removes; a scan: every entry); `None` for per-entry ops.
pub fn entries_per_op(experiment: Scenario, dataset: Dataset) -> Option<u64> {
    match experiment {
        Scenario::ForEachScan => Some(dataset.entries),
        _ => Cleanup::of(experiment, dataset).map(|c| c.removed()),
    }
}

impl<M: PendingAcks> Workload<M> {
    /// Builds the map and driver; nothing here is timed.
    pub fn prepare(experiment: Scenario, dataset: Dataset) -> Self {
        use Scenario::*;
        let (map, driver) = match experiment {
            DispatchAndAckCycle | DispatchAckAndPartialAckCycle | ShuffledAckCycle => {
                let (map, window) = RollingWindow::start(experiment, dataset);
                (map, Driver::Cycle(window))
            }
            RemoveAllUpTo | SameLedgerSmallPrefix | SameLedgerBeforeWindow => {
                let cleanup = Cleanup::of(experiment, dataset)
                    .expect("the three cleanup experiments have a cleanup");
                let mut map = M::default();
                for (l, e, ack) in cleanup.population() {
                    map.add_or_replace(l, e, ack);
                }
                (map, Driver::Cleanup(cleanup))
            }
            ForEachScan => (dataset.populate(), Driver::Scan),
            AddOrReplace | RemoveAndAdd | UpdateRemaining | ContainsHit | GetRemainingHit => (
                dataset.populate(),
                Driver::Cursor(Cursor::new(experiment, dataset)),
            ),
        };
        Self { map, driver }
    }

    /// After a cleanup op, puts the removed entries back (in dispatch order), so the next op
    /// measures the same cleanup without rebuilding the whole map. A no-op for other drivers.
    pub fn restore(&mut self) {
        if let Driver::Cleanup(cleanup) = &self.driver {
            for (l, e, ack) in cleanup.population() {
                if !cleanup.mark.covers(l, e) {
                    break;
                }
                self.map.add_or_replace(l, e, ack);
            }
        }
    }

    /// Runs `ops` operations and returns a checksum of what they read, for `black_box`. A cleanup
    /// op is one `remove_all_up_to`; repeating it on the same map removes nothing more.
    pub fn run(&mut self, ops: u64) -> u64 {
        let map = &mut self.map;
        let mut sum = 0u64;
        match &mut self.driver {
            Driver::Cycle(window) => {
                for _ in 0..ops {
                    sum = sum.wrapping_add(window.step(map));
                }
            }
            Driver::Cursor(cursor) => {
                for _ in 0..ops {
                    sum = sum.wrapping_add(cursor.step(map));
                }
            }
            Driver::Scan => {
                for _ in 0..ops {
                    map.for_each(&mut |_, _, ack| {
                        sum = sum
                            .wrapping_add(u64::from(ack.remaining()))
                            .wrapping_add(ack.sticky_key_hash() as u64);
                    });
                }
            }
            Driver::Cleanup(cleanup) => {
                for _ in 0..ops {
                    map.remove_all_up_to(cleanup.mark, &mut |_, entry, ack| {
                        sum = sum.wrapping_add(entry ^ u64::from(ack.remaining()));
                    });
                }
            }
        }
        sum
    }

    /// Ops a steady-state run must do first so every design is past its build-up (cycles: three
    /// windows, so rolling ledgers have recycled their storage; others: one pass).
    pub fn warm_up_ops(experiment: Scenario, dataset: Dataset) -> u64 {
        if experiment.is_cycle() {
            3 * dataset.entries
        } else if experiment.is_one_shot() || experiment == Scenario::ForEachScan {
            0
        } else {
            dataset.entries
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::implementations::nested_tree::NestedTree;

    #[test]
    fn datasets_split_like_the_write_up() {
        let d = Dataset::find("1k-in-1000").unwrap();
        assert_eq!(d.positions().count(), 1_000);
        let d = Dataset::find("64k-in-1k").unwrap();
        assert_eq!(d.positions().count(), 65_536);
        let d = dataset("x", 10, 3);
        assert_eq!(
            (0..3).map(|l| d.entries_in_ledger(l)).collect::<Vec<_>>(),
            [4, 3, 3]
        );
        assert_eq!(
            Dataset::find("50k-in-20").unwrap().label(),
            "50,000 entries / 20 ledgers"
        );
        assert!(Dataset::find("nope").unwrap_err().contains("50k-in-1"));
    }

    #[test]
    fn remove_all_up_to_removes_about_half_as_the_write_up_counts() {
        for (name, removed) in [
            ("50k-in-1", 25_001),
            ("50k-in-5", 25_001),
            ("50k-in-20", 26_251),
        ] {
            let d = Dataset::find(name).unwrap();
            let mut w: Workload<NestedTree> = Workload::prepare(Scenario::RemoveAllUpTo, d);
            w.run(1);
            assert_eq!(d.entries as usize - w.map.len(), removed, "{name}");
            let per_op = entries_per_op(Scenario::RemoveAllUpTo, d);
            assert_eq!(per_op, Some(removed as u64), "{name}");
        }
    }

    #[test]
    fn same_ledger_cases_remove_two_percent_or_nothing() {
        let d = Dataset::find("50k-in-1").unwrap();
        let mut w: Workload<NestedTree> = Workload::prepare(Scenario::SameLedgerSmallPrefix, d);
        w.run(1);
        assert_eq!(w.map.len(), 49_000);
        w.restore();
        assert_eq!(w.map.len(), 50_000);
        assert_eq!(w.run(1), {
            let mut fresh: Workload<NestedTree> =
                Workload::prepare(Scenario::SameLedgerSmallPrefix, d);
            fresh.run(1)
        });
        let mut w: Workload<NestedTree> = Workload::prepare(Scenario::SameLedgerBeforeWindow, d);
        w.run(1);
        assert_eq!(w.map.len(), 50_000);
    }
}
