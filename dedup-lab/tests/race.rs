//! 32 threads race on one producer (the reconnect overlap taken to the extreme), over every
//! implementation, with a recorded history, once by sequence id and once by replicated source
//! position: nothing is ever admitted twice, pushed never goes backwards, the final pushed value
//! is the highest admitted one, and it covers everything sent.

use std::fmt::Debug;
use std::marker::PhantomData;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};

use dedup_lab::{DupStatus, ImplementationVisitor, Position, SequenceBatch, SequenceDedup};

const THREADS: usize = 32;
const SENDS_PER_THREAD: u64 = 400;

/// What the racers send: sequence batches or source positions.
trait Sent: Copy + Debug + Send + 'static {
    type Watermark: Ord + Copy + Debug + Send;
    /// Thread `t`'s `j`-th send; the threads' sends overlap.
    fn of(thread: usize, j: u64) -> Self;
    fn low(self) -> Self::Watermark;
    fn high(self) -> Self::Watermark;
    fn admit<D: SequenceDedup>(self, dedup: &D, producer: &D::Producer) -> DupStatus;
    fn pushed<D: SequenceDedup>(dedup: &D, producer: &str) -> Option<Self::Watermark>;
}

/// Thread `t` sends overlapping batches: low = 4j + t mod 3, high = low + t mod 4.
impl Sent for SequenceBatch {
    type Watermark = u64;
    fn of(thread: usize, j: u64) -> Self {
        let low = 4 * j + (thread % 3) as u64;
        SequenceBatch::new(low, low + (thread % 4) as u64).unwrap()
    }
    fn low(self) -> u64 {
        SequenceBatch::low(self)
    }
    fn high(self) -> u64 {
        SequenceBatch::high(self)
    }
    fn admit<D: SequenceDedup>(self, dedup: &D, producer: &D::Producer) -> DupStatus {
        dedup.admit(producer, self)
    }
    fn pushed<D: SequenceDedup>(dedup: &D, producer: &str) -> Option<u64> {
        dedup.highest_pushed(producer)
    }
}

/// Thread `t` sends positions 16 to a ledger, entries overlapping between threads: a torn
/// (ledger, entry) pair would show as a pushed position nobody sent, or one going backwards.
impl Sent for Position {
    type Watermark = Position;
    fn of(thread: usize, j: u64) -> Self {
        Position::new(j / 16, (j % 16) * 4 + (thread % 3) as u64).unwrap()
    }
    fn low(self) -> Position {
        self
    }
    fn high(self) -> Position {
        self
    }
    fn admit<D: SequenceDedup>(self, dedup: &D, producer: &D::Producer) -> DupStatus {
        dedup.admit_replicated(producer, self)
    }
    fn pushed<D: SequenceDedup>(dedup: &D, producer: &str) -> Option<Position> {
        dedup.highest_replicated_pushed(producer)
    }
}

struct Race<S>(PhantomData<S>);

impl<S: Sent> ImplementationVisitor for Race<S> {
    fn visit<D: SequenceDedup>(&mut self) {
        let dedup = D::default();
        let start = Barrier::new(THREADS + 1);
        let stop = AtomicBool::new(false);
        let (history, observed) = std::thread::scope(|scope| {
            let sampler = scope.spawn(|| {
                let mut seen = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    seen.push(S::pushed(&dedup, "racer"));
                }
                seen
            });
            let callers: Vec<_> = (0..THREADS)
                .map(|t| {
                    let (dedup, start) = (&dedup, &start);
                    scope.spawn(move || {
                        let handle = dedup.connect("racer");
                        start.wait();
                        (0..SENDS_PER_THREAD)
                            .map(|j| (S::of(t, j), S::of(t, j).admit(dedup, &handle)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            start.wait();
            let history: Vec<_> = callers
                .into_iter()
                .flat_map(|c| c.join().unwrap())
                .collect();
            stop.store(true, Ordering::Relaxed);
            (history, sampler.join().unwrap())
        });

        let mut admitted: Vec<S> = history
            .iter()
            .filter(|(_, s)| *s == DupStatus::NotDup)
            .map(|(b, _)| *b)
            .collect();
        assert!(!admitted.is_empty(), "{}: nothing admitted", D::NAME);
        assert!(
            history.iter().all(|(_, s)| *s != DupStatus::Dup),
            "{}: Dup without anything persisted",
            D::NAME
        );
        admitted.sort_by_key(|b| b.low());
        for pair in admitted.windows(2) {
            assert!(
                pair[1].low() > pair[0].high(),
                "{}: admitted twice: {:?} and {:?}",
                D::NAME,
                pair[0],
                pair[1]
            );
        }
        let observed: Vec<S::Watermark> = observed.into_iter().flatten().collect();
        assert!(
            observed.windows(2).all(|w| w[0] <= w[1]),
            "{}: highest pushed went backwards",
            D::NAME
        );
        let highs: Vec<S::Watermark> = admitted.iter().map(|b| b.high()).collect();
        // `admitted` is sorted and never overlaps, so its high ends are sorted too.
        assert!(
            observed
                .iter()
                .all(|seen| highs.binary_search(seen).is_ok()),
            "{}: a pushed value nobody admitted was seen",
            D::NAME
        );
        let max_admitted = highs.iter().max().copied();
        assert_eq!(
            S::pushed(&dedup, "racer"),
            max_admitted,
            "{}: lost update",
            D::NAME
        );
        // Everything sent was either admitted or rejected because pushed had reached its low end.
        let max_low = history.iter().map(|(b, _)| b.low()).max();
        assert!(
            max_admitted >= max_low,
            "{}: pushed below a rejected send",
            D::NAME
        );
    }
}

#[test]
fn thirty_two_callers_on_one_producer_never_admit_an_id_twice() {
    dedup_lab::for_each_implementation(&mut Race::<SequenceBatch>(PhantomData));
}

#[test]
fn thirty_two_callers_on_one_replicator_never_admit_a_position_twice_or_tear_one() {
    dedup_lab::for_each_implementation(&mut Race::<Position>(PhantomData));
}

/// 32 callers increment one producer ([`SequenceDedup::increment_pushed`], the PR's JMH shared
/// case), with a recorded history: every increment returns a value no other got, together they
/// are 0..N with no gap, and pushed ends at the last.
struct Increments;

impl ImplementationVisitor for Increments {
    fn visit<D: SequenceDedup>(&mut self) {
        if D::NAME == labkit::record::FLOOR {
            return; // keeps nothing: not a design
        }
        let dedup = D::default();
        let start = Barrier::new(THREADS);
        let mut returned: Vec<u64> = std::thread::scope(|scope| {
            let callers: Vec<_> = (0..THREADS)
                .map(|_| {
                    let (dedup, start) = (&dedup, &start);
                    scope.spawn(move || {
                        let handle = dedup.connect("counter");
                        start.wait();
                        (0..SENDS_PER_THREAD)
                            .map(|_| dedup.increment_pushed(&handle))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            callers
                .into_iter()
                .flat_map(|c| c.join().unwrap())
                .collect()
        });
        returned.sort_unstable();
        let expected: Vec<u64> = (0..THREADS as u64 * SENDS_PER_THREAD).collect();
        assert_eq!(
            returned,
            expected,
            "{}: an increment lost or repeated",
            D::NAME
        );
        assert_eq!(
            dedup.highest_pushed("counter"),
            expected.last().copied(),
            "{}: pushed is not the last increment",
            D::NAME
        );
    }
}

#[test]
fn thirty_two_callers_incrementing_one_producer_lose_no_increment() {
    dedup_lab::for_each_implementation(&mut Increments);
}
