//! What drives a per-entry experiment's ops: the write-up's `RollingWindowState` (a dispatch/ack
//! window rolling over ledgers) and `CursorState` (round-robin over every populated position).

use super::{Dataset, Scenario, seed_value};
use crate::PendingAcks;

// Every function a driver's op calls is `#[inline]`: this module may land in another codegen unit
// than the loop in `Workload::run`, and a call there would be counted in every cell's op (the
// harness floor's cycle went from 52 to 74 instructions when `step` was not inlined).

/// Division by a divisor fixed at setup, with one multiply instead of a 64-bit `div` (tens of
/// cycles, which would otherwise dominate the fastest designs' cycle). Exact for dividends below
/// 2^32 (Lemire et al., "Faster remainder by direct computation"); larger ones divide normally.
#[derive(Debug, Clone, Copy)]
struct Divisor {
    divisor: u64,
    /// ceil(2^64 / divisor), for divisors in 2..2^32.
    reciprocal: Option<u64>,
}

impl Divisor {
    fn new(divisor: u64) -> Self {
        let reciprocal = (2..1 << 32)
            .contains(&divisor)
            .then(|| u64::MAX / divisor + 1);
        Self {
            divisor,
            reciprocal,
        }
    }

    /// `(n / divisor, n % divisor)`.
    #[inline]
    fn div_rem(self, n: u64) -> (u64, u64) {
        let quotient = match self.reciprocal {
            Some(m) if n < 1 << 32 => ((u128::from(n) * u128::from(m)) >> 64) as u64,
            _ => n / self.divisor,
        };
        (quotient, n - quotient * self.divisor)
    }
}

/// The write-up's `RollingWindowState`: a window of `window` pending sequence numbers, sequence `s`
/// at `(s / per_ledger, s % per_ledger)`.
pub(super) struct RollingWindow {
    experiment: Scenario,
    window: u64,
    per_ledger: Divisor,
    /// Ops done; the window holds sequences `ops .. ops + window` in FIFO order.
    ops: u64,
    /// Odd multiplier coprime to `window`, permuting ack order within a block.
    multiplier: u64,
    window_divisor: Divisor,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl RollingWindow {
    pub(super) fn start<M: PendingAcks>(experiment: Scenario, dataset: Dataset) -> (M, Self) {
        let window = dataset.entries;
        let mut multiplier = 4051;
        while gcd(multiplier, window) != 1 {
            multiplier += 2;
        }
        let state = Self {
            experiment,
            window,
            per_ledger: Divisor::new(window.div_ceil(dataset.ledgers)),
            ops: 0,
            multiplier,
            window_divisor: Divisor::new(window),
        };
        let mut map = M::default();
        for s in 0..window {
            let (l, e) = state.position(s);
            map.add_or_replace(l, e, seed_value(s));
        }
        (map, state)
    }

    #[inline]
    fn position(&self, sequence: u64) -> (u64, u64) {
        self.per_ledger.div_rem(sequence)
    }

    /// One op: ack one pending entry, dispatch the next sequence.
    #[inline]
    pub(super) fn step<M: PendingAcks>(&mut self, map: &mut M) -> u64 {
        let n = self.ops;
        self.ops += 1;
        let acked = match self.experiment {
            Scenario::ShuffledAckCycle => {
                let (_, in_block) = self.window_divisor.div_rem(n);
                let (_, permuted) = self.window_divisor.div_rem(in_block * self.multiplier);
                n - in_block + permuted
            }
            _ => n,
        };
        let (l, e) = self.position(acked);
        let removed = map.remove(l, e).expect("the window holds the acked entry");
        let dispatched = n + self.window;
        let (l, e) = self.position(dispatched);
        map.add_or_replace(l, e, seed_value(dispatched));
        let mut sum = u64::from(removed.remaining());
        if self.experiment == Scenario::DispatchAckAndPartialAckCycle && n & 15 == 0 {
            let (l, e) = self.position(n + 1 + self.window / 2);
            if map.get_remaining(l, e).is_some_and(|r| r > 1) {
                sum += u64::from(map.update_remaining_unacked(l, e, 1));
            }
        }
        sum
    }
}

/// The write-up's `CursorState`: round-robin over every populated position.
pub(super) struct Cursor {
    experiment: Scenario,
    dataset: Dataset,
    index: u64,
    ledger: u64,
    entry: u64,
    ledger_len: u64,
    /// Even passes ack one, odd passes un-ack one, so `update-remaining` stays in range.
    pass: u64,
}

impl Cursor {
    pub(super) fn new(experiment: Scenario, dataset: Dataset) -> Self {
        Self {
            experiment,
            dataset,
            index: 0,
            ledger: 0,
            entry: 0,
            ledger_len: dataset.entries_in_ledger(0),
            pass: 0,
        }
    }

    #[inline]
    pub(super) fn step<M: PendingAcks>(&mut self, map: &mut M) -> u64 {
        let (l, e) = (self.ledger, self.entry);
        let result = match self.experiment {
            Scenario::AddOrReplace => u64::from(map.add_or_replace(l, e, seed_value(self.index))),
            Scenario::RemoveAndAdd => {
                let ack = map.remove(l, e).expect("round-robin keys are present");
                map.add_or_replace(l, e, ack);
                u64::from(ack.remaining())
            }
            Scenario::UpdateRemaining => {
                let acked = if self.pass.is_multiple_of(2) { 1 } else { -1 };
                u64::from(map.update_remaining_unacked(l, e, acked))
            }
            Scenario::ContainsHit => u64::from(map.contains(l, e)),
            _ => u64::from(map.get_remaining(l, e).unwrap_or(0)),
        };
        self.index += 1;
        self.entry += 1;
        if self.entry == self.ledger_len {
            self.entry = 0;
            self.ledger += 1;
            if self.ledger == self.dataset.ledgers {
                self.ledger = 0;
                self.index = 0;
                self.pass += 1;
            }
            self.ledger_len = self.dataset.entries_in_ledger(self.ledger);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::implementations::nested_tree::NestedTree;
    use crate::workload::Workload;

    #[test]
    fn fast_division_matches_div_and_rem() {
        let mut n = 0x9e37_79b9_7f4a_7c15u64;
        for d in [
            1,
            2,
            3,
            7,
            10,
            64,
            2_500,
            50_000,
            65_535,
            (1 << 32) - 1,
            1 << 32,
            u64::MAX,
        ] {
            let divisor = Divisor::new(d);
            for probe in [0, 1, d - 1, d, (1 << 32) - 1, 1 << 32, u64::MAX] {
                assert_eq!(
                    divisor.div_rem(probe),
                    (probe / d, probe % d),
                    "{probe} / {d}"
                );
            }
            for _ in 0..10_000 {
                n = n.wrapping_mul(6364136223846793005).wrapping_add(1);
                let probe = n >> 32;
                assert_eq!(
                    divisor.div_rem(probe),
                    (probe / d, probe % d),
                    "{probe} / {d}"
                );
            }
        }
    }

    #[test]
    fn cycles_keep_the_window_size_and_roll_ledgers() {
        for experiment in [
            Scenario::DispatchAndAckCycle,
            Scenario::DispatchAckAndPartialAckCycle,
            Scenario::ShuffledAckCycle,
        ] {
            let d = Dataset::find("1k-in-100").unwrap();
            let mut w: Workload<NestedTree> = Workload::prepare(experiment, d);
            w.run(5_500);
            assert_eq!(w.map.len(), 1_000, "{experiment:?}");
            let mut first = None;
            w.map.for_each(&mut |l, _, _| {
                first.get_or_insert(l);
            });
            assert!(first.unwrap() >= 450, "{experiment:?}: old ledgers drained");
        }
    }

    #[test]
    fn shuffled_acks_are_not_fifo() {
        let d = Dataset::find("1k-in-100").unwrap();
        let mut w: Workload<NestedTree> = Workload::prepare(Scenario::ShuffledAckCycle, d);
        w.run(2);
        // Op 1 acks sequence 4051 mod 1000 = 51 (ledger 5, entry 1), not sequence 1.
        assert!(w.map.contains(0, 1) && !w.map.contains(5, 1));
    }

    #[test]
    fn update_remaining_stays_in_range_over_passes() {
        let d = Dataset::find("1k-in-1").unwrap();
        let mut w: Workload<NestedTree> = Workload::prepare(Scenario::UpdateRemaining, d);
        assert_eq!(w.run(4_000), 4_000, "every update applies");
    }
}
