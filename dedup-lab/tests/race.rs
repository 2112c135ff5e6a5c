//! 32 threads race on one producer (the reconnect overlap taken to the extreme), over every
//! implementation, with a recorded history: no id is ever admitted twice, pushed never goes
//! backwards, the final pushed id is the highest admitted one, and it covers every id sent.

use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};

use dedup_lab::{DupStatus, ImplementationVisitor, SequenceBatch, SequenceDedup};

const THREADS: usize = 32;
const BATCHES_PER_THREAD: u64 = 400;

/// Thread `t` sends overlapping batches: low = 4j + t mod 3, high = low + t mod 4.
fn batch_of(thread: usize, j: u64) -> SequenceBatch {
    let low = 4 * j + (thread % 3) as u64;
    SequenceBatch::new(low, low + (thread % 4) as u64).unwrap()
}

struct Race;

impl ImplementationVisitor for Race {
    fn visit<D: SequenceDedup>(&mut self) {
        let dedup = D::default();
        let start = Barrier::new(THREADS + 1);
        let stop = AtomicBool::new(false);
        let (history, observed) = std::thread::scope(|scope| {
            let sampler = scope.spawn(|| {
                let mut seen = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    seen.push(dedup.highest_pushed("racer"));
                }
                seen
            });
            let callers: Vec<_> = (0..THREADS)
                .map(|t| {
                    let (dedup, start) = (&dedup, &start);
                    scope.spawn(move || {
                        let handle = dedup.connect("racer");
                        start.wait();
                        (0..BATCHES_PER_THREAD)
                            .map(|j| (batch_of(t, j), dedup.admit(&handle, batch_of(t, j))))
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

        let mut admitted: Vec<SequenceBatch> = history
            .iter()
            .filter(|(_, s)| *s == DupStatus::NotDup)
            .map(|(b, _)| *b)
            .collect();
        assert!(!admitted.is_empty(), "{}: nothing admitted", D::NAME);
        assert!(
            history.iter().all(|(_, s)| *s != DupStatus::Dup),
            "{}: Dup without any persisted id",
            D::NAME
        );
        admitted.sort_by_key(|b| b.low());
        for pair in admitted.windows(2) {
            assert!(
                pair[1].low() > pair[0].high(),
                "{}: ids admitted twice: {:?} and {:?}",
                D::NAME,
                pair[0],
                pair[1]
            );
        }
        let observed: Vec<u64> = observed.into_iter().flatten().collect();
        assert!(
            observed.windows(2).all(|w| w[0] <= w[1]),
            "{}: highest pushed went backwards",
            D::NAME
        );
        let max_admitted = admitted.iter().map(|b| b.high()).max();
        assert_eq!(
            dedup.highest_pushed("racer"),
            max_admitted,
            "{}: lost update",
            D::NAME
        );
        // Every batch was either admitted or rejected because pushed had reached its low id.
        let max_low = history.iter().map(|(b, _)| b.low()).max();
        assert!(
            max_admitted >= max_low,
            "{}: pushed below a rejected batch",
            D::NAME
        );
    }
}

#[test]
fn thirty_two_callers_on_one_producer_never_admit_an_id_twice() {
    dedup_lab::for_each_implementation(&mut Race);
}
