//! Producers coming and going while others publish: where users of the topic-wide lock report
//! publish-latency spikes (Pulsar #20647) and deduplication state that grows until it is purged
//! (Pulsar #3535). Two runners, both recording the publishers' admission latencies:
//!
//! - [`Churn`]: publishers admit round-robin over their live producers while a churner thread,
//!   once per [`CHURN_EVERY`] admissions, connects a new producer (its first admission creates its
//!   state), reconnects the previous one with overlap (a second connection of the name while the
//!   first still admits, then both go) and purges the producer that went inactive
//!   [`KEPT_INACTIVE`] steps earlier — always an inactive one, as the trait's contract asks.
//! - [`PurgeSweep`]: one publisher admits while a purger purges [`INACTIVE`] inactive producers
//!   in one sweep; the sweep's time is the operation, the publisher's admissions the latencies.
//!   Between sweeps the purged producers come back, untimed.
//!
//! Every answer is checked against what the contract promises (live producers' increasing ids
//! are NotDup, so are a new connection's and an overlapping reconnection's next ids); any other
//! answer is counted as [`UNEXPECTED`], which the tests and the report show as zero.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use labkit::lab::{Runner, Window};
use labkit::latency::LatencyRecorder;
use labkit::record::EventName;
use labkit::threads::{StartLine, TimedThread, timed_threads};

use crate::workload::{Worker, batch};
use crate::{DupStatus, SequenceDedup};

/// One churn step (a connect, an overlapping reconnect, a purge) per this many admissions.
pub const CHURN_EVERY: u64 = 1_000;
/// A churned producer is purged this many steps after it disconnected.
pub const KEPT_INACTIVE: u64 = 1_000;
/// Live producers per publishing thread.
pub const LIVE_PER_PUBLISHER: usize = 250;
/// Inactive producers a purge sweep removes.
pub const INACTIVE: usize = 100_000;

/// Churn steps taken (each a connect, an overlapping reconnect and, once steady, a purge).
pub const CONNECTS: EventName = EventName::new("producer-connects");
/// Answers other than the contract's (expected: zero).
pub const UNEXPECTED: EventName = EventName::new("unexpected-answers");

/// A counter on a cache line of its own, so publishers reporting progress do not share lines.
#[repr(align(128))]
#[derive(Default)]
struct Padded(AtomicU64);

/// Publishers report progress every this many admissions.
const REPORT_EVERY: u64 = 16;

/// One admission of `worker`'s next id, timed when recording; whether the answer was NotDup, as
/// the contract promises for a live producer's increasing ids.
fn admit_recorded<D: SequenceDedup>(
    dedup: &D,
    worker: &mut Worker<D>,
    recorder: Option<&mut LatencyRecorder>,
) -> bool {
    let status = match recorder {
        Some(recorder) => recorder.timed(|| worker.admit_next(dedup)),
        None => worker.admit_next(dedup),
    };
    status == DupStatus::NotDup
}

/// Waits (spinning, then yielding the core: the publishers may need it) until `ready` holds.
fn wait_until(ready: impl Fn() -> bool) {
    let mut spins = 0u32;
    while !ready() {
        spins += 1;
        if spins < 64 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// The churner's producers: `churn-<k>` for step k.
struct Churner<D: SequenceDedup> {
    step: u64,
    /// The newest churned producer, still connected.
    connected: Option<D::Producer>,
    name: String,
}

impl<D: SequenceDedup> Churner<D> {
    fn new() -> Self {
        Self {
            step: 0,
            connected: None,
            name: String::new(),
        }
    }

    fn name(&mut self, step: u64) -> &str {
        self.name.clear();
        write!(self.name, "churn-{step}").expect("writing to a String cannot fail");
        &self.name
    }

    /// One step; returns the answers that were not the contract's.
    fn step(&mut self, dedup: &D) -> u64 {
        let k = self.step;
        let mut unexpected = 0;
        let mut expect_new =
            |status: DupStatus| unexpected += u64::from(status != DupStatus::NotDup);
        let fresh = dedup.connect(self.name(k));
        expect_new(dedup.admit(&fresh, batch(0)));
        dedup.record_persisted(&fresh, batch(0));
        if let Some(previous) = self.connected.replace(fresh) {
            // The reconnect overlap: a second connection of the previous name while the first one
            // still admits; the two continue one id sequence, then both disconnect.
            let again = dedup.connect(self.name(k - 1));
            expect_new(dedup.admit(&previous, batch(1)));
            expect_new(dedup.admit(&again, batch(2)));
            dedup.record_persisted(&again, batch(2));
        }
        if let Some(gone) = k.checked_sub(1 + KEPT_INACTIVE) {
            dedup.purge(self.name(gone));
        }
        self.step += 1;
        unexpected
    }
}

/// Publishers admitting while producers connect, reconnect and are purged.
pub struct Churn<D: SequenceDedup> {
    dedup: D,
    publishers: Vec<Worker<D>>,
    churner: Churner<D>,
}

impl<D: SequenceDedup> Churn<D> {
    /// `publishers` workers with [`LIVE_PER_PUBLISHER`] producers each, and a churner that has
    /// gone through [`KEPT_INACTIVE`] steps, so purges happen from the first measured step on.
    pub fn prepare(publishers: usize) -> Self {
        let dedup = D::default();
        let publishers = crate::workload::Shape::Iot {
            producers: publishers * LIVE_PER_PUBLISHER,
            threads: publishers,
        }
        .prepare(&dedup);
        let mut churner = Churner::new();
        for _ in 0..=KEPT_INACTIVE {
            churner.step(&dedup);
        }
        Self {
            dedup,
            publishers,
            churner,
        }
    }
}

impl<D: SequenceDedup> Runner for Churn<D> {
    /// `warm_up` untimed admissions per publisher, then `ops` per publisher with the churner
    /// taking one step per [`CHURN_EVERY`] admissions of all of them.
    fn run(&mut self, warm_up: u64, ops: u64, window: &mut dyn Window) -> Duration {
        let sink = window.latencies();
        let Self {
            dedup,
            publishers,
            churner,
        } = self;
        let dedup = &*dedup;
        let progress: Vec<Padded> = publishers.iter().map(|_| Padded::default()).collect();
        let steps = ops * publishers.len() as u64 / CHURN_EVERY;
        let unexpected = AtomicU64::new(0);
        let (progress, unexpected_ref) = (&progress, &unexpected);
        let mut threads: Vec<TimedThread<'_>> = publishers
            .iter_mut()
            .zip(progress)
            .map(|(worker, progress)| {
                let sink = sink.clone();
                Box::new(move |start: &StartLine<'_>| {
                    std::hint::black_box(worker.run(dedup, warm_up));
                    let mut recorder = sink.as_ref().map(|s| s.recorder());
                    start.pass();
                    let mut wrong = 0;
                    for done in 1..=ops {
                        wrong += u64::from(!admit_recorded(dedup, worker, recorder.as_mut()));
                        if done % REPORT_EVERY == 0 || done == ops {
                            progress.0.store(done, Ordering::Release);
                        }
                    }
                    unexpected_ref.fetch_add(wrong, Ordering::Relaxed);
                }) as TimedThread<'_>
            })
            .collect();
        threads.push(Box::new(move |start: &StartLine<'_>| {
            start.pass();
            let mut wrong = 0;
            for step in 1..=steps {
                let due = step * CHURN_EVERY;
                wait_until(|| {
                    progress
                        .iter()
                        .map(|p| p.0.load(Ordering::Acquire))
                        .sum::<u64>()
                        >= due
                });
                wrong += churner.step(dedup);
            }
            unexpected_ref.fetch_add(wrong, Ordering::Relaxed);
        }));
        let elapsed = timed_threads(window, threads);
        window.count(CONNECTS, steps);
        window.count(UNEXPECTED, unexpected.into_inner());
        elapsed
    }
}

/// One publisher beside [`INACTIVE`] inactive producers, which a purge sweep may remove.
pub struct PurgeSweep<D: SequenceDedup> {
    dedup: D,
    publisher: Worker<D>,
    inactive: Vec<String>,
    /// Whether a run is purge sweeps (else the publisher admits alone).
    purging: bool,
    /// The inactive producers were purged and are not back yet.
    purged: bool,
}

impl<D: SequenceDedup> PurgeSweep<D> {
    /// [`LIVE_PER_PUBLISHER`] live producers on one publisher and [`INACTIVE`] producers that
    /// each published one message and disconnected; runs are purge sweeps when `purging`.
    pub fn prepare(purging: bool) -> Self {
        let dedup = D::default();
        let publisher = crate::workload::Shape::Iot {
            producers: LIVE_PER_PUBLISHER,
            threads: 1,
        }
        .prepare(&dedup)
        .pop()
        .expect("one publisher");
        let sweep = Self {
            dedup,
            publisher,
            inactive: (0..INACTIVE).map(|i| format!("inactive-{i}")).collect(),
            purging,
            purged: false,
        };
        sweep.register_inactive();
        sweep
    }

    fn register_inactive(&self) {
        for name in &self.inactive {
            let producer = self.dedup.connect(name);
            self.dedup.admit(&producer, batch(0));
            self.dedup.record_persisted(&producer, batch(0));
        }
    }

    /// The publisher alone (no purge): `ops` admissions, latencies recorded when asked.
    fn admit_alone(&mut self, warm_up: u64, ops: u64, window: &mut dyn Window) -> Duration {
        let sink = window.latencies();
        let (dedup, publisher) = (&self.dedup, &mut self.publisher);
        let mut wrong = 0;
        let elapsed = timed_threads(
            window,
            vec![Box::new(|start: &StartLine<'_>| {
                std::hint::black_box(publisher.run(dedup, warm_up));
                let mut recorder = sink.as_ref().map(|s| s.recorder());
                start.pass();
                for _ in 0..ops {
                    wrong += u64::from(!admit_recorded(dedup, publisher, recorder.as_mut()));
                }
            })],
        );
        window.count(UNEXPECTED, wrong);
        elapsed
    }

    /// `sweeps` purges of every inactive producer, each timed alone, with the publisher admitting
    /// until each ends; the inactive producers come back, untimed, before every sweep after the
    /// first.
    fn sweep(&mut self, warm_up: u64, sweeps: u64, window: &mut dyn Window) -> Duration {
        let sink = window.latencies();
        let mut wrong = 0;
        let mut timed = Duration::ZERO;
        window.open();
        for _ in 0..sweeps {
            if self.purged {
                self.register_inactive();
            }
            let (dedup, publisher, inactive) = (&self.dedup, &mut self.publisher, &self.inactive);
            let swept = AtomicBool::new(false);
            let (swept, wrong_ref, sink) = (&swept, &mut wrong, &sink);
            let threads: Vec<TimedThread<'_>> = vec![
                Box::new(move |start: &StartLine<'_>| {
                    std::hint::black_box(publisher.run(dedup, warm_up));
                    let mut recorder = sink.as_ref().map(|s| s.recorder());
                    start.pass();
                    while !swept.load(Ordering::Acquire) {
                        *wrong_ref +=
                            u64::from(!admit_recorded(dedup, publisher, recorder.as_mut()));
                    }
                }),
                Box::new(move |start: &StartLine<'_>| {
                    start.pass();
                    for name in inactive {
                        dedup.purge(name);
                    }
                    swept.store(true, Ordering::Release);
                }),
            ];
            timed += timed_threads(&mut (), threads);
            self.purged = true;
        }
        window.close();
        window.count(UNEXPECTED, wrong);
        timed
    }
}

impl<D: SequenceDedup> Runner for PurgeSweep<D> {
    /// Steady admissions of the publisher alone, or `ops` one-shot purge sweeps.
    fn run(&mut self, warm_up: u64, ops: u64, window: &mut dyn Window) -> Duration {
        if self.purging {
            self.sweep(warm_up, ops, window)
        } else {
            self.admit_alone(warm_up, ops, window)
        }
    }
}

#[cfg(test)]
mod tests {
    use labkit::lab::EventTally;

    use super::*;
    use crate::{ImplementationVisitor, for_each_implementation};

    struct EveryAnswerAsPromised;

    impl ImplementationVisitor for EveryAnswerAsPromised {
        fn visit<D: SequenceDedup>(&mut self) {
            let mut churn = Churn::<D>::prepare(2);
            let mut counts = EventTally::default();
            churn.run(100, 5_000, &mut counts);
            churn.run(100, 5_000, &mut counts);
            assert_eq!(counts.total(UNEXPECTED), 0, "{} churn", D::NAME);
            assert_eq!(counts.total(CONNECTS), 2 * 2 * 5_000 / CHURN_EVERY);
            // Steps so far: the prepared ones and the measured ones; the purged producers are
            // gone, the ones still inside the inactive window are not.
            let steps = churn.churner.step;
            let purged = steps - 1 - KEPT_INACTIVE - 1;
            assert_eq!(churn.dedup.highest_pushed(&format!("churn-{purged}")), None);
            assert_eq!(
                churn.dedup.highest_pushed(&format!("churn-{}", purged + 1)),
                Some(2),
                "{}",
                D::NAME
            );
            let mut sweep = PurgeSweep::<D>::prepare(true);
            let mut counts = EventTally::default();
            sweep.run(10, 2, &mut counts);
            assert_eq!(counts.total(UNEXPECTED), 0, "{} sweep", D::NAME);
            assert_eq!(sweep.dedup.highest_persisted("inactive-0"), None);
            assert!(sweep.dedup.highest_pushed("producer-0").is_some());
        }
    }

    #[test]
    fn churn_and_purge_runs_get_the_contract_s_answers_in_every_design() {
        for_each_implementation(&mut EveryAnswerAsPromised);
    }
}
