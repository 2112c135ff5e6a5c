//! Every design's shared forms (`PendingAcks::Shared`, and the map behind a mutex) against the contract of
//! `SharedPendingAcks`: a model-based property test like the single-threaded suite's, run
//! through the shared methods against the same kind of oracle; a multi-thread stress test whose recorded history is checked
//! against what the contract promises; and cleanup callbacks that call back into the map.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};

use pending_ack_lab::shared::{Mutexed, SharedPendingAcks};
use pending_ack_lab::workload::seed_value;
use pending_ack_lab::{
    ImplementationVisitor, Mark, PendingAck, PendingAcks, for_each_implementation,
};
use proptest::prelude::*;

/// Something to run on one design's shared form.
trait SharedCheck {
    fn check<S: SharedPendingAcks>(&mut self, name: &str);
}

/// Every design's own shared form, and the design behind one mutex (the `mutex-*` shapes).
fn each_shared(check: &mut impl SharedCheck) {
    struct Visit<'a, C>(&'a mut C);
    impl<C: SharedCheck> ImplementationVisitor for Visit<'_, C> {
        fn visit<M: PendingAcks>(&mut self) {
            self.0.check::<M::Shared>(M::NAME);
            self.0
                .check::<Mutexed<M>>(&format!("{} behind a mutex", M::NAME));
        }
    }
    for_each_implementation(&mut Visit(check));
}

#[derive(Debug, Clone)]
enum Op {
    Add(u64, u64, PendingAck),
    Remove(u64, u64),
    RemoveBatch(Vec<(u64, u64)>),
    Contains(u64, u64),
    RemoveAllUpTo(Mark),
    Len,
    Drain,
}

fn key() -> impl Strategy<Value = (u64, u64)> {
    let entry = prop_oneof![8 => 0..200u64, 1 => u64::MAX - 40..=u64::MAX, 1 => any::<u64>()];
    (0..4u64, entry)
}

fn op() -> impl Strategy<Value = Op> {
    let ack = (0..20i32, any::<i32>()).prop_map(|(r, h)| PendingAck::new(r, h).unwrap());
    prop_oneof![
        8 => (key(), ack).prop_map(|((l, e), a)| Op::Add(l, e, a)),
        4 => key().prop_map(|(l, e)| Op::Remove(l, e)),
        2 => proptest::collection::vec(key(), 0..40).prop_map(Op::RemoveBatch),
        3 => key().prop_map(|(l, e)| Op::Contains(l, e)),
        2 => (0..5u64, proptest::option::weighted(0.9, 0..220u64))
            .prop_map(|(l, e)| Op::RemoveAllUpTo(Mark { ledger: l, entry: e })),
        1 => Just(Op::Len),
        1 => Just(Op::Drain),
    ]
}

type Visited = Vec<(u64, u64, PendingAck)>;

struct Model(Vec<Op>);

impl SharedCheck for Model {
    fn check<S: SharedPendingAcks>(&mut self, name: &str) {
        let mut map = S::default();
        let mut oracle: BTreeMap<(u64, u64), PendingAck> = BTreeMap::new();
        for op in &self.0 {
            match op {
                Op::Add(l, e, a) => {
                    assert_eq!(
                        map.add(*l, *e, *a),
                        oracle.insert((*l, *e), *a).is_none(),
                        "{name}: {op:?}"
                    )
                }
                Op::Remove(l, e) => assert_eq!(
                    map.remove(*l, *e),
                    oracle.remove(&(*l, *e)),
                    "{name}: {op:?}"
                ),
                Op::RemoveBatch(keys) => {
                    let mut got = Visited::new();
                    map.remove_batch(keys, &mut |l, e, a| got.push((l, e, a)));
                    let want: Visited = keys
                        .iter()
                        .filter_map(|&(l, e)| oracle.remove(&(l, e)).map(|a| (l, e, a)))
                        .collect();
                    assert_eq!(got, want, "{name}: {op:?}");
                }
                Op::Contains(l, e) => {
                    assert_eq!(
                        map.contains(*l, *e),
                        oracle.contains_key(&(*l, *e)),
                        "{name}: {op:?}"
                    )
                }
                Op::RemoveAllUpTo(mark) => {
                    let mut got = Visited::new();
                    map.remove_all_up_to(*mark, &mut |l, e, a| got.push((l, e, a)));
                    let covered: Vec<(u64, u64)> = oracle
                        .keys()
                        .copied()
                        .take_while(|&(l, e)| mark.covers(l, e))
                        .collect();
                    let want: Visited = covered
                        .into_iter()
                        .map(|k| (k.0, k.1, oracle.remove(&k).unwrap()))
                        .collect();
                    assert_eq!(got, want, "{name}: {op:?}");
                }
                Op::Len => assert_eq!(map.len(), oracle.len(), "{name}"),
                Op::Drain => {
                    let mut got = Visited::new();
                    map.drain(&mut |l, e, a| got.push((l, e, a)));
                    let want: Visited = std::mem::take(&mut oracle)
                        .into_iter()
                        .map(|((l, e), a)| (l, e, a))
                        .collect();
                    assert_eq!(got, want, "{name}: drain");
                }
            }
        }
        assert_eq!(map.len(), oracle.len(), "{name}: final len");
    }
}

proptest! {
    #[test]
    fn shared_forms_agree_with_the_oracle(ops in proptest::collection::vec(op(), 1..120)) {
        each_shared(&mut Model(ops));
    }
}

/// Cleanup callbacks run with no lock of the map held: a callback may add to, probe and count
/// the map it is being called from (Pulsar #23854 fixed a deadlock of exactly this).
#[test]
fn cleanup_callbacks_may_call_back_into_the_map() {
    struct Reenter;
    impl SharedCheck for Reenter {
        fn check<S: SharedPendingAcks>(&mut self, name: &str) {
            let map = S::default();
            for e in 0..100 {
                map.add(1, e, seed_value(e));
            }
            let (mut calls, mut nested) = (0, 0);
            map.remove_all_up_to(Mark::at(1, 49), &mut |l, e, a| {
                calls += 1;
                assert!(
                    !map.contains(l, e),
                    "{name}: {e} reported before its removal"
                );
                if e == 10 {
                    // A cleanup from inside a cleanup's callback: ledger 1's entries 50..=60.
                    map.remove_all_up_to(Mark::at(1, 60), &mut |_, _, _| nested += 1);
                }
                assert!(map.add(l + 1, e, a), "{name}");
                let _ = map.len();
            });
            map.remove_batch(&[(1, 70), (1, 71)], &mut |l, e, _| {
                assert!(map.remove(l + 1, e - 70).is_some(), "{name}");
            });
            assert_eq!((calls, nested), (50, 11), "{name}");
            assert_eq!(map.len(), (100 - 50 - 11 - 2) + (50 - 2), "{name}");
        }
    }
    each_shared(&mut Reenter);
}

/// Entries per ledger in the stress test: a few ledger boundaries, mostly dense rings.
const PER_LEDGER: u64 = 700;
const ENTRIES: u64 = 12_000;

fn stress_key(i: u64) -> (u64, u64) {
    (i / PER_LEDGER, i % PER_LEDGER)
}

fn stress_index(ledger: u64, entry: u64) -> u64 {
    ledger * PER_LEDGER + entry
}

/// Who removed an entry, as the history records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Remover {
    Ack,
    Batch,
    Cleanup,
    Drain,
}

/// One dispatcher; two ackers (one individual, one in batches of 7) that leave every fifth entry;
/// a cleanup whose mark runs up to 40 entries ahead of the slower acker, so it races them; an
/// owner prober. Every call's outcome is recorded, then checked against the contract.
#[test]
fn a_recorded_multi_thread_history_keeps_the_contract() {
    struct Stress;
    impl SharedCheck for Stress {
        fn check<S: SharedPendingAcks>(&mut self, name: &str) {
            let mut map = S::default();
            let progress = Progress::new(name);
            let probe_violations = std::thread::scope(|s| {
                s.spawn(|| progress.dispatch(&map));
                s.spawn(|| progress.ack_each(&map));
                s.spawn(|| progress.ack_in_batches(&map));
                s.spawn(|| progress.clean(&map));
                let prober = s.spawn(|| progress.probe(&map));
                // Stop the cleaner and the prober once both ackers are through.
                while progress.acked.iter().any(|a| a.load(SeqCst) < ENTRIES) {
                    std::thread::yield_now();
                }
                progress.done.store(true, SeqCst);
                prober.join().expect("the prober")
            });
            assert_eq!(
                probe_violations, 0,
                "{name}: a probe found an entry absent before any removal of it started"
            );
            let mut history = progress.history.into_inner().unwrap();
            let before_drain = map.len();
            map.drain(&mut |l, e, a| history.push((stress_index(l, e), Remover::Drain, a)));
            assert_eq!(map.len(), 0, "{name}: drained");
            let missed = progress.missed.into_inner().unwrap();
            check_history(name, &history, &missed, before_drain);
        }
    }
    each_shared(&mut Stress);
}

/// The stress test's shared state: how far each thread got, and the recorded history.
struct Progress<'a> {
    name: &'a str,
    dispatched: AtomicU64,
    acked: [AtomicU64; 2],
    /// Set before a removal of the entry starts (ackers).
    removing: Vec<AtomicBool>,
    /// Raised before a cleanup up to it starts.
    cleaning_below: AtomicU64,
    done: AtomicBool,
    history: Mutex<Vec<(u64, Remover, PendingAck)>>,
    /// The entries an ack found absent.
    missed: Mutex<Vec<u64>>,
}

impl<'a> Progress<'a> {
    fn new(name: &'a str) -> Self {
        Progress {
            name,
            dispatched: AtomicU64::new(0),
            acked: [AtomicU64::new(0), AtomicU64::new(0)],
            removing: (0..ENTRIES).map(|_| AtomicBool::new(false)).collect(),
            cleaning_below: AtomicU64::new(0),
            done: AtomicBool::new(false),
            history: Mutex::new(Vec::new()),
            missed: Mutex::new(Vec::new()),
        }
    }

    fn wait(&self, i: u64) {
        while self.dispatched.load(SeqCst) <= i {
            std::thread::yield_now();
        }
    }

    fn record(&self, i: u64, by: Remover, ack: Option<PendingAck>) {
        match ack {
            Some(ack) => self.history.lock().unwrap().push((i, by, ack)),
            None => self.missed.lock().unwrap().push(i),
        }
    }

    fn dispatch<S: SharedPendingAcks>(&self, map: &S) {
        for i in 0..ENTRIES {
            let (l, e) = stress_key(i);
            assert!(
                map.add(l, e, seed_value(i)),
                "{}: {i} added twice",
                self.name
            );
            self.dispatched.store(i + 1, SeqCst);
        }
    }

    /// Acks the even entries one by one, but every fifth.
    fn ack_each<S: SharedPendingAcks>(&self, map: &S) {
        for i in (0..ENTRIES).filter(|i| i % 2 == 0 && i % 5 != 4) {
            self.wait(i);
            self.removing[i as usize].store(true, SeqCst);
            let (l, e) = stress_key(i);
            self.record(i, Remover::Ack, map.remove(l, e));
            self.acked[0].store(i + 1, SeqCst);
        }
        self.acked[0].store(ENTRIES, SeqCst);
    }

    /// Acks the odd entries in batches of 7, but every fifth.
    fn ack_in_batches<S: SharedPendingAcks>(&self, map: &S) {
        let mine: Vec<u64> = (0..ENTRIES).filter(|i| i % 2 == 1 && i % 5 != 4).collect();
        for chunk in mine.chunks(7) {
            let last = *chunk.last().unwrap();
            self.wait(last);
            for &i in chunk {
                self.removing[i as usize].store(true, SeqCst);
            }
            let keys: Vec<(u64, u64)> = chunk.iter().map(|&i| stress_key(i)).collect();
            let mut got = Vec::new();
            map.remove_batch(&keys, &mut |l, e, a| got.push((stress_index(l, e), a)));
            for &i in chunk {
                let ack = got.iter().find(|(j, _)| *j == i).map(|&(_, ack)| ack);
                self.record(i, Remover::Batch, ack);
            }
            self.acked[1].store(last + 1, SeqCst);
        }
        self.acked[1].store(ENTRIES, SeqCst);
    }

    /// Cleans up to 40 entries past the slower acker, until done.
    fn clean<S: SharedPendingAcks>(&self, map: &S) {
        let name = self.name;
        while !self.done.load(SeqCst) {
            let frontier = self.acked.iter().map(|a| a.load(SeqCst)).min().unwrap();
            let below = (frontier + 40).min(self.dispatched.load(SeqCst));
            if below > 0 {
                self.cleaning_below.fetch_max(below, SeqCst);
                let (l, e) = stress_key(below - 1);
                let mut last = None;
                map.remove_all_up_to(Mark::at(l, e), &mut |l, e, a| {
                    let i = stress_index(l, e);
                    assert!(last < Some(i), "{name}: cleanup callbacks out of order");
                    assert!(i < below, "{name}: cleanup removed {i} past its mark");
                    last = Some(i);
                    self.record(i, Remover::Cleanup, Some(a));
                });
            }
            std::thread::yield_now();
        }
    }

    /// Probes random dispatched entries until done: how many were absent though no removal of
    /// them had started before the probe nor after it.
    fn probe<S: SharedPendingAcks>(&self, map: &S) -> u64 {
        let mut violations = 0;
        let mut state = 0x2545_f491_4f6c_dd1du64;
        while !self.done.load(SeqCst) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let d = self.dispatched.load(SeqCst);
            if d == 0 {
                continue;
            }
            let i = state % d;
            let started = |i: u64| {
                self.removing[i as usize].load(SeqCst) || self.cleaning_below.load(SeqCst) > i
            };
            let before = started(i);
            let (l, e) = stress_key(i);
            if !map.contains(l, e) && !before && !started(i) {
                violations += 1;
            }
        }
        violations
    }
}

/// The contract a recorded history keeps: every entry removed exactly once, with its own value;
/// an ack that found nothing lost its entry to a cleanup; `len` at quiescence counts what the
/// drain then returned.
fn check_history(
    name: &str,
    history: &[(u64, Remover, PendingAck)],
    missed: &[u64],
    before_drain: usize,
) {
    let mut removals: Vec<Vec<Remover>> = vec![Vec::new(); ENTRIES as usize];
    for &(i, by, ack) in history {
        assert_eq!(
            ack,
            seed_value(i),
            "{name}: {i} removed with another entry's value"
        );
        removals[i as usize].push(by);
    }
    for (i, by) in removals.iter().enumerate() {
        assert_eq!(by.len(), 1, "{name}: entry {i} removed {by:?}");
    }
    let drained = history
        .iter()
        .filter(|(_, by, _)| *by == Remover::Drain)
        .count();
    assert_eq!(before_drain, drained, "{name}: len at quiescence");
    for &i in missed {
        assert_eq!(
            removals[i as usize],
            [Remover::Cleanup],
            "{name}: ack of {i} found nothing, yet no cleanup took it"
        );
    }
}
