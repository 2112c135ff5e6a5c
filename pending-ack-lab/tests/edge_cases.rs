//! Edge cases every implementation must get right, and the adversarial shapes used against the
//! dense-window design (sparse ids, reverse and shuffled order, ledgers out of order), each checked
//! against a `BTreeMap` oracle.

use std::collections::BTreeMap;

use pending_ack_lab::{
    ImplementationVisitor, Mark, PendingAck, PendingAcks, for_each_implementation,
};

fn ack(remaining: i32) -> PendingAck {
    PendingAck::new(remaining, remaining.wrapping_mul(31)).unwrap()
}

fn contents<M: PendingAcks>(map: &M) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    map.for_each(&mut |l, e, _| out.push((l, e)));
    out
}

fn removed_by<M: PendingAcks>(map: &mut M, mark: Mark) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    map.remove_all_up_to(mark, &mut |l, e, _| out.push((l, e)));
    out
}

/// Runs `test` for every implementation.
fn for_all(test: impl Fn(&mut dyn FnMut() -> Box<dyn Check>)) {
    struct Run<'a, F>(&'a F);
    impl<F: Fn(&mut dyn FnMut() -> Box<dyn Check>)> ImplementationVisitor for Run<'_, F> {
        fn visit<M: PendingAcks>(&mut self) {
            (self.0)(&mut || Box::new(Checked::<M>::default()));
        }
    }
    for_each_implementation(&mut Run(&test));
}

/// An implementation paired with the oracle; every call is checked against it.
trait Check {
    fn name(&self) -> &'static str;
    fn add(&mut self, l: u64, e: u64, a: PendingAck);
    fn remove(&mut self, l: u64, e: u64) -> Option<PendingAck>;
    fn update(&mut self, l: u64, e: u64, acked: i32) -> bool;
    fn get_remaining(&mut self, l: u64, e: u64) -> Option<u32>;
    fn remove_all_up_to(&mut self, mark: Mark) -> Vec<(u64, u64)>;
    fn drain(&mut self) -> Vec<(u64, u64)>;
    fn contents(&self) -> Vec<(u64, u64)>;
    fn len(&self) -> usize;
}

#[derive(Default)]
struct Checked<M> {
    map: M,
    oracle: BTreeMap<(u64, u64), PendingAck>,
}

impl<M: PendingAcks> Checked<M> {
    fn verify(&self) {
        assert_eq!(self.map.len(), self.oracle.len(), "{}: len", M::NAME);
        let expected: Vec<(u64, u64)> = self.oracle.keys().copied().collect();
        assert_eq!(contents(&self.map), expected, "{}: contents", M::NAME);
    }
}

impl<M: PendingAcks> Check for Checked<M> {
    fn name(&self) -> &'static str {
        M::NAME
    }
    fn add(&mut self, l: u64, e: u64, a: PendingAck) {
        let new = self.oracle.insert((l, e), a).is_none();
        assert_eq!(self.map.add_or_replace(l, e, a), new, "{}: add", M::NAME);
        assert_eq!(self.map.get(l, e), Some(a), "{}: get after add", M::NAME);
    }
    fn remove(&mut self, l: u64, e: u64) -> Option<PendingAck> {
        let removed = self.map.remove(l, e);
        assert_eq!(removed, self.oracle.remove(&(l, e)), "{}: remove", M::NAME);
        removed
    }
    fn update(&mut self, l: u64, e: u64, acked: i32) -> bool {
        let updated = self.map.update_remaining_unacked(l, e, acked);
        if let Some(v) = self.oracle.get(&(l, e)).and_then(|a| a.with_acked(acked)) {
            self.oracle.insert((l, e), v);
        }
        assert_eq!(self.map.get(l, e), self.oracle.get(&(l, e)).copied());
        updated
    }
    fn get_remaining(&mut self, l: u64, e: u64) -> Option<u32> {
        self.map.get_remaining(l, e)
    }
    fn remove_all_up_to(&mut self, mark: Mark) -> Vec<(u64, u64)> {
        let got = removed_by(&mut self.map, mark);
        let expected: Vec<(u64, u64)> = self
            .oracle
            .keys()
            .copied()
            .take_while(|&(l, e)| mark.covers(l, e))
            .collect();
        for k in &expected {
            self.oracle.remove(k);
        }
        assert_eq!(got, expected, "{}: remove_all_up_to({mark:?})", M::NAME);
        self.verify();
        got
    }
    fn drain(&mut self) -> Vec<(u64, u64)> {
        let mut got = Vec::new();
        self.map.drain(&mut |l, e, _| got.push((l, e)));
        let expected: Vec<(u64, u64)> = std::mem::take(&mut self.oracle).into_keys().collect();
        assert_eq!(got, expected, "{}: drain", M::NAME);
        self.verify();
        got
    }
    fn contents(&self) -> Vec<(u64, u64)> {
        self.verify();
        contents(&self.map)
    }
    fn len(&self) -> usize {
        self.map.len()
    }
}

const HUGE_IDS: [u64; 6] = [0, (1 << 20) + 1, (1 << 32) + 5, u64::MAX - 1, u64::MAX, 7];

#[test]
fn entry_ids_at_zero_above_2_20_above_2_32_and_near_the_top() {
    for_all(|new| {
        let mut m = new();
        for (i, e) in HUGE_IDS.into_iter().enumerate() {
            m.add(3, e, ack(i as i32));
        }
        let mut sorted = HUGE_IDS;
        sorted.sort_unstable();
        assert_eq!(m.contents(), sorted.map(|e| (3, e)), "{}", m.name());
        assert_eq!(
            m.remove_all_up_to(Mark::at(3, (1 << 32) + 5)).len(),
            4,
            "{}",
            m.name()
        );
        assert_eq!(m.remove(3, u64::MAX), Some(ack(4)), "{}", m.name());
        assert_eq!(
            m.remove_all_up_to(Mark::at(3, u64::MAX)),
            [(3, u64::MAX - 1)]
        );
        assert_eq!(m.len(), 0);
    });
}

/// A dense run that ends at `u64::MAX`, then entry 0 of the same ledger: 0 is not the entry after
/// `u64::MAX` (dense-window once appended it as if ids wrapped; found by the model test).
#[test]
fn a_run_ending_at_the_top_id_does_not_wrap_to_zero() {
    for_all(|new| {
        let mut m = new();
        for e in u64::MAX - 70..=u64::MAX {
            m.add(0, e, ack(1));
        }
        m.add(0, 0, ack(2));
        m.add(0, 1, ack(3));
        assert_eq!(m.len(), 73, "{}", m.name());
        let contents = m.contents();
        assert_eq!(contents[..2], [(0, 0), (0, 1)], "{}", m.name());
        assert_eq!(contents.last(), Some(&(0, u64::MAX)), "{}", m.name());
        assert_eq!(m.get_remaining(0, 0), Some(2), "{}", m.name());
        assert_eq!(m.remove_all_up_to(Mark::at(0, 1)), [(0, 0), (0, 1)]);
        assert_eq!(m.drain().len(), 71, "{}", m.name());
    });
}

#[test]
fn marks_before_after_inside_gaps_and_in_missing_ledgers() {
    for_all(|new| {
        let mut m = new();
        for l in [2, 5, 9] {
            for e in [10, 11, 12, 40, 41] {
                m.add(l, e, ack(1));
            }
        }
        let name = m.name();
        assert!(m.remove_all_up_to(Mark::before(2)).is_empty(), "{name}");
        assert!(
            m.remove_all_up_to(Mark::at(2, 9)).is_empty(),
            "{name}: before the first"
        );
        assert_eq!(
            m.remove_all_up_to(Mark::at(2, 30)).len(),
            3,
            "{name}: inside a gap"
        );
        assert_eq!(
            m.remove_all_up_to(Mark::at(4, 0)).len(),
            2,
            "{name}: missing ledger"
        );
        assert_eq!(m.remove_all_up_to(Mark::before(9)).len(), 5, "{name}");
        assert_eq!(
            m.remove_all_up_to(Mark::at(u64::MAX, u64::MAX)).len(),
            5,
            "{name}: after the last"
        );
        assert!(m.remove_all_up_to(Mark::at(u64::MAX, u64::MAX)).is_empty());
    });
}

#[test]
fn ledgers_added_out_of_order_come_back_in_order() {
    for_all(|new| {
        let mut m = new();
        for l in [7, 3, u64::MAX, 0, 5, 4, 6] {
            m.add(l, 1, ack(1));
            m.add(l, 0, ack(2));
        }
        let ledgers: Vec<u64> = m.contents().iter().map(|p| p.0).step_by(2).collect();
        assert_eq!(ledgers, [0, 3, 4, 5, 6, 7, u64::MAX], "{}", m.name());
        assert_eq!(m.remove(5, 0), Some(ack(2)));
        assert_eq!(m.remove(5, 1), Some(ack(1)));
        assert_eq!(m.drain().len(), 12, "{}", m.name());
    });
}

#[test]
fn zero_remaining_is_kept_and_going_negative_changes_nothing() {
    for_all(|new| {
        let mut m = new();
        m.add(1, 1, ack(2));
        let name = m.name();
        assert!(m.update(1, 1, 2), "{name}: down to zero");
        assert_eq!(m.get_remaining(1, 1), Some(0), "{name}: zero is kept");
        assert!(!m.update(1, 1, 1), "{name}: would go negative");
        assert_eq!(m.get_remaining(1, 1), Some(0), "{name}: unchanged");
        assert!(!m.update(1, 2, 1), "{name}: absent");
        assert!(m.update(1, 1, -5), "{name}: a negative ack adds");
        assert_eq!(m.get_remaining(1, 1), Some(5));
        assert_eq!(m.len(), 1);
    });
    assert!(PendingAck::new(-1, 0).is_err());
}

#[test]
fn operations_on_an_empty_map_are_defined() {
    for_all(|new| {
        let mut m = new();
        assert_eq!(m.remove(0, 0), None);
        assert_eq!(m.get_remaining(0, 0), None);
        assert!(!m.update(0, 0, 1));
        assert!(m.remove_all_up_to(Mark::at(u64::MAX, u64::MAX)).is_empty());
        assert!(m.drain().is_empty());
        assert!(m.contents().is_empty());
        m.add(0, 0, ack(1)); // usable after a drain
        assert_eq!(m.len(), 1, "{}", m.name());
    });
}

/// Deterministic pseudo-random permutation of `0..n` (an LCG-driven Fisher–Yates).
fn shuffled(n: u64, seed: u64) -> Vec<u64> {
    let mut v: Vec<u64> = (0..n).collect();
    let mut x = seed;
    for i in (1..v.len()).rev() {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        v.swap(i, (x >> 33) as usize % (i + 1));
    }
    v
}

#[test]
fn adversarial_shapes_sparse_reverse_and_shuffled_ids() {
    for_all(|new| {
        let mut m = new();
        // Sparse: stride 1,000 (a ring would be 1,000× too big), then a dense run in the gap.
        for i in 0..3_000u64 {
            m.add(1, i * 1_000, ack(1));
        }
        for e in 500..700 {
            m.add(1, e, ack(2));
        }
        // Reverse dispatch order in one ledger, shuffled acks in another.
        for e in (0..2_000u64).rev() {
            m.add(2, e, ack(3));
        }
        for e in 0..2_000u64 {
            m.add(3, e + (1 << 40), ack(4));
        }
        for e in shuffled(2_000, 7) {
            if e % 3 != 0 {
                assert!(m.remove(3, e + (1 << 40)).is_some(), "{}", m.name());
            }
        }
        // Thin a dense ledger to every 100th entry, which makes a ring too sparse.
        for e in 0..2_000u64 {
            if e % 100 != 0 {
                m.remove(2, e);
            }
        }
        m.contents();
        assert_eq!(m.remove_all_up_to(Mark::at(1, 1_500_000)).len(), 1_701);
        assert_eq!(m.remove_all_up_to(Mark::at(2, 1_000)).len(), 1_499 + 11);
        assert_eq!(
            m.remove_all_up_to(Mark::at(3, (1 << 40) + 999)).len(),
            9 + 334
        );
        assert_eq!(m.drain().len(), 333, "{}", m.name());
    });
}

#[test]
fn a_rolling_window_through_the_top_of_the_id_range() {
    for_all(|new| {
        let mut m = new();
        let start = u64::MAX - 5_000;
        for e in start..start + 1_000 {
            m.add(0, e, ack(1));
        }
        for e in start + 1_000..=u64::MAX {
            assert!(m.remove(0, e - 1_000).is_some(), "{}", m.name());
            m.add(0, e, ack(1));
        }
        assert_eq!(m.len(), 1_000);
        assert_eq!(m.remove_all_up_to(Mark::at(0, u64::MAX - 10)).len(), 990);
        assert_eq!(m.contents().len(), 10);
    });
}
