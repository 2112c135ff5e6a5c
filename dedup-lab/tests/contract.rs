//! The concurrency contract of `SequenceDedup` (see the trait's documentation), checked over every
//! implementation exactly as stated: a purge of inactive producers leaves live producers' answers
//! exactly as a sequential model gives them, and a reset while the topic is fenced puts every
//! producer's pushed id back to its persisted one, after which resends behave as Pulsar's
//! add-failure path expects.

use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};

use dedup_lab::{DupStatus, ImplementationVisitor, SequenceBatch, SequenceDedup};

fn single(id: u64) -> SequenceBatch {
    SequenceBatch::single(id).expect("test ids are in range")
}

/// Two live producers publish (every seventh call a resend of a persisted id) while a third
/// thread connects, admits, records and purges a stream of other, by then inactive, producers.
struct PurgeOfInactiveProducers;

const LIVE: usize = 2;
const LIVE_IDS: u64 = 20_000;
const PURGED: usize = 5_000;

impl ImplementationVisitor for PurgeOfInactiveProducers {
    fn visit<D: SequenceDedup>(&mut self) {
        let dedup = D::default();
        let start = Barrier::new(LIVE + 1);
        let live_done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let live: Vec<_> = (0..LIVE)
                .map(|t| {
                    let (dedup, start) = (&dedup, &start);
                    scope.spawn(move || {
                        let name = format!("live-{t}");
                        let handle = dedup.connect(&name);
                        start.wait();
                        for id in 0..LIVE_IDS {
                            let answer = dedup.admit(&handle, single(id));
                            assert_eq!(answer, DupStatus::NotDup, "{}: {name} id {id}", D::NAME);
                            dedup.record_persisted(&handle, single(id));
                            if id % 7 == 6 {
                                let resent = dedup.admit(&handle, single(id - 3));
                                assert_eq!(
                                    resent,
                                    DupStatus::Dup,
                                    "{}: {name} resent {}",
                                    D::NAME,
                                    id - 3
                                );
                            }
                        }
                        assert_eq!(
                            dedup.highest_persisted(&name),
                            Some(LIVE_IDS - 1),
                            "{}",
                            D::NAME
                        );
                    })
                })
                .collect();
            let (dedup, start, live_done) = (&dedup, &start, &live_done);
            let purger = scope.spawn(move || {
                start.wait();
                let mut purged = 0;
                while purged < PURGED || !live_done.load(Ordering::Relaxed) {
                    let name = format!("gone-{purged}");
                    {
                        let handle = dedup.connect(&name);
                        assert_eq!(
                            dedup.admit(&handle, single(0)),
                            DupStatus::NotDup,
                            "{}",
                            D::NAME
                        );
                        dedup.record_persisted(&handle, single(0));
                    } // the connection closes: the producer is inactive from here on
                    dedup.purge(&name);
                    assert_eq!(
                        dedup.highest_pushed(&name),
                        None,
                        "{}: {name} survived its purge",
                        D::NAME
                    );
                    purged += 1;
                }
            });
            // The purger keeps going until both live producers are done (or failed).
            let outcomes: Vec<_> = live.into_iter().map(|h| h.join()).collect();
            live_done.store(true, Ordering::Relaxed);
            let purged = purger.join();
            for outcome in outcomes.into_iter().chain([purged]) {
                if let Err(panic) = outcome {
                    std::panic::resume_unwind(panic);
                }
            }
        });
    }
}

#[test]
fn purging_inactive_producers_leaves_live_producers_exact() {
    dedup_lab::for_each_implementation(&mut PurgeOfInactiveProducers);
}

/// Rounds of concurrent publishing (ids admitted, only some recorded as persisted), then a fence
/// (no call in flight), a reset, and checks: pushed equals persisted for every producer, an id in
/// the failed range can be resent (NotDup), a persisted one cannot (Dup).
struct ResetWhileFenced;

const PRODUCERS: usize = 3;
const ROUNDS: u64 = 300;
const PER_ROUND: u64 = 20;

impl ImplementationVisitor for ResetWhileFenced {
    fn visit<D: SequenceDedup>(&mut self) {
        let dedup = D::default();
        let fence = Barrier::new(PRODUCERS + 1);
        // Violations are collected, not asserted on the spot: a thread that stopped early would
        // leave the others waiting at the fence for ever.
        let violations = std::thread::scope(|scope| {
            let producers: Vec<_> = (0..PRODUCERS)
                .map(|p| {
                    let (dedup, fence) = (&dedup, &fence);
                    scope.spawn(move || {
                        let mut violations = Vec::new();
                        let mut expect = |what: String, answer: DupStatus, expected: DupStatus| {
                            if answer != expected {
                                violations.push(format!("{what}: {answer:?}, not {expected:?}"));
                            }
                        };
                        let handle = dedup.connect(&format!("p{p}"));
                        let mut next = 0;
                        for round in 0..ROUNDS {
                            // Publish; the last five adds of the round fail (never persisted).
                            for k in 0..PER_ROUND {
                                let answer = dedup.admit(&handle, single(next));
                                expect(
                                    format!("p{p} round {round} id {next}"),
                                    answer,
                                    DupStatus::NotDup,
                                );
                                if k < PER_ROUND - 5 {
                                    dedup.record_persisted(&handle, single(next));
                                }
                                next += 1;
                            }
                            fence.wait(); // fenced: the main thread resets
                            fence.wait(); // reopened
                            // The failed ids go again (the next round starts with the first of
                            // them, new again); the last persisted one stays a duplicate.
                            let failed = next - 5;
                            let answer = dedup.admit(&handle, single(failed - 1));
                            expect(
                                format!("p{p} round {round} resent {}", failed - 1),
                                answer,
                                DupStatus::Dup,
                            );
                            next = failed;
                        }
                        violations
                    })
                })
                .collect();
            let mut violations = Vec::new();
            for round in 0..ROUNDS {
                fence.wait();
                dedup.reset_pushed_to_persisted();
                for p in 0..PRODUCERS {
                    let name = format!("p{p}");
                    let (pushed, persisted) =
                        (dedup.highest_pushed(&name), dedup.highest_persisted(&name));
                    if pushed != persisted {
                        violations.push(format!("{name} round {round}: pushed {pushed:?}, persisted {persisted:?} after a reset"));
                    }
                }
                fence.wait();
            }
            for producer in producers {
                violations.extend(
                    producer
                        .join()
                        .expect("producers record violations, never panic"),
                );
            }
            violations
        });
        assert!(violations.is_empty(), "{}: {violations:#?}", D::NAME);
    }
}

#[test]
fn a_reset_while_fenced_takes_every_producer_back_to_its_persisted_id() {
    dedup_lab::for_each_implementation(&mut ResetWhileFenced);
}
