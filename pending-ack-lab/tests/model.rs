//! One model-based property suite for every implementation: random operation sequences applied to
//! the design and to a `BTreeMap<(ledger, entry), value>` oracle, comparing every answer, every
//! callback sequence (contents and order) and `len` after every op.

use std::collections::BTreeMap;

use pending_ack_lab::{
    ImplementationVisitor, Mark, PendingAck, PendingAcks, for_each_implementation,
};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Add(u64, u64, PendingAck),
    /// Contiguous entries `start..start + count`, as a ledger is dispatched.
    AddRun(u64, u64, u16),
    Get(u64, u64),
    Remove(u64, u64),
    RemoveIfEqual(u64, u64, PendingAck),
    Update(u64, u64, i32),
    RemoveAllUpTo(Mark),
    ForEach,
    Drain,
}

type Oracle = BTreeMap<(u64, u64), PendingAck>;
type Visited = Vec<(u64, u64, PendingAck)>;

fn ledger() -> impl Strategy<Value = u64> {
    prop_oneof![8 => 0..6u64, 1 => Just(u64::MAX), 1 => any::<u64>()]
}

/// Entry ids that hit every representation: dense small ids, the draft's 2^20 limit, above 2^32,
/// the top of the range, and anything.
fn entry() -> impl Strategy<Value = u64> {
    prop_oneof![
        8 => 0..300u64,
        2 => (1u64 << 20) - 4..(1 << 20) + 4,
        2 => (1u64 << 32) - 4..(1 << 32) + 200,
        2 => u64::MAX - 70..=u64::MAX,
        1 => any::<u64>(),
    ]
}

fn ack() -> impl Strategy<Value = PendingAck> {
    (0..20i32, any::<i32>()).prop_map(|(r, h)| PendingAck::new(r, h).unwrap())
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (ledger(), entry(), ack()).prop_map(|(l, e, a)| Op::Add(l, e, a)),
        2 => (ledger(), entry(), 1..400u16).prop_map(|(l, e, n)| Op::AddRun(l, e, n)),
        3 => (ledger(), entry()).prop_map(|(l, e)| Op::Get(l, e)),
        5 => (ledger(), entry()).prop_map(|(l, e)| Op::Remove(l, e)),
        1 => (ledger(), entry(), ack()).prop_map(|(l, e, a)| Op::RemoveIfEqual(l, e, a)),
        2 => (ledger(), entry(), -3..4i32).prop_map(|(l, e, d)| Op::Update(l, e, d)),
        2 => (ledger(), proptest::option::weighted(0.9, entry()))
            .prop_map(|(l, e)| Op::RemoveAllUpTo(Mark { ledger: l, entry: e })),
        1 => Just(Op::ForEach),
        1 => Just(Op::Drain),
    ]
}

fn oracle_remove_up_to(oracle: &mut Oracle, mark: Mark) -> Visited {
    let removed: Vec<(u64, u64)> = oracle
        .keys()
        .copied()
        .take_while(|&(l, e)| mark.covers(l, e))
        .collect();
    removed
        .into_iter()
        .map(|k| (k.0, k.1, oracle.remove(&k).unwrap()))
        .collect()
}

fn visited_by<M: PendingAcks>(map: &M) -> Visited {
    let mut out = Vec::new();
    map.for_each(&mut |l, e, a| out.push((l, e, a)));
    out
}

/// Applies `ops` to a fresh `M` and to the oracle; panics (failing the property) on the first
/// difference.
fn check<M: PendingAcks>(ops: &[Op]) {
    let mut map = M::default();
    let mut oracle = Oracle::new();
    for (step, op) in ops.iter().enumerate() {
        let context = || format!("{} at step {step}: {op:?}", M::NAME);
        match *op {
            Op::Add(l, e, a) => {
                assert_eq!(
                    map.add_or_replace(l, e, a),
                    oracle.insert((l, e), a).is_none(),
                    "{}",
                    context()
                );
            }
            Op::AddRun(l, start, count) => {
                for (i, e) in (start..=u64::MAX).take(count as usize).enumerate() {
                    let a = PendingAck::new(i as i32 & 15, i as i32).unwrap();
                    assert_eq!(
                        map.add_or_replace(l, e, a),
                        oracle.insert((l, e), a).is_none(),
                        "{}",
                        context()
                    );
                }
            }
            Op::Get(l, e) => {
                let expected = oracle.get(&(l, e)).copied();
                assert_eq!(map.get(l, e), expected, "{}", context());
                assert_eq!(map.contains(l, e), expected.is_some(), "{}", context());
                assert_eq!(
                    map.get_remaining(l, e),
                    expected.map(PendingAck::remaining),
                    "{}",
                    context()
                );
            }
            Op::Remove(l, e) => {
                assert_eq!(map.remove(l, e), oracle.remove(&(l, e)), "{}", context());
            }
            Op::RemoveIfEqual(l, e, a) => {
                let present = oracle.get(&(l, e)) == Some(&a);
                if present {
                    oracle.remove(&(l, e));
                }
                assert_eq!(map.remove_if_equal(l, e, a), present, "{}", context());
            }
            Op::Update(l, e, delta) => {
                let updated = oracle.get(&(l, e)).and_then(|a| a.with_acked(delta));
                if let Some(u) = updated {
                    oracle.insert((l, e), u);
                }
                assert_eq!(
                    map.update_remaining_unacked(l, e, delta),
                    updated.is_some(),
                    "{}",
                    context()
                );
            }
            Op::RemoveAllUpTo(mark) => {
                let mut got = Vec::new();
                map.remove_all_up_to(mark, &mut |l, e, a| got.push((l, e, a)));
                assert_eq!(got, oracle_remove_up_to(&mut oracle, mark), "{}", context());
            }
            Op::ForEach => {
                let expected: Visited = oracle.iter().map(|(&(l, e), &a)| (l, e, a)).collect();
                assert_eq!(visited_by(&map), expected, "{}", context());
            }
            Op::Drain => {
                let expected: Visited = oracle.iter().map(|(&(l, e), &a)| (l, e, a)).collect();
                oracle.clear();
                let mut got = Vec::new();
                map.drain(&mut |l, e, a| got.push((l, e, a)));
                assert_eq!(got, expected, "{}", context());
            }
        }
        assert_eq!(map.len(), oracle.len(), "len after {}", context());
        assert_eq!(map.is_empty(), oracle.is_empty(), "{}", context());
    }
    let expected: Visited = oracle.iter().map(|(&(l, e), &a)| (l, e, a)).collect();
    assert_eq!(visited_by(&map), expected, "{}: final contents", M::NAME);
}

struct CheckAll<'a>(&'a [Op]);

impl ImplementationVisitor for CheckAll<'_> {
    fn visit<M: PendingAcks>(&mut self) {
        check::<M>(self.0);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_implementation_matches_the_oracle(ops in proptest::collection::vec(op(), 1..120)) {
        for_each_implementation(&mut CheckAll(&ops));
    }
}
