//! The broker's concurrency, as shapes run on a design's shared form
//! ([`crate::shared::SharedPendingAcks`]): a dispatcher adding entries in dispatch order while
//! ackers remove them, with owner probes, cumulative cleanup or burst acks beside them.
//!
//! A map starts holding a dataset's entries, numbered in dispatch order (index `i` is entry
//! `i mod n` of ledger `i / n`, `n` the dataset's entries per ledger). One measured run cycles
//! `ops` entries: the dispatcher adds the next `ops` indices at the back while the ackers remove
//! the oldest `ops` at the front, so the map keeps the dataset's size; an acker never acks an index
//! the dispatcher has not published yet. An operation is one entry's cycle (its add and its
//! removal); owner probes (one per cycled entry) and cleanups run beside them, counted as the
//! lab's events.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use labkit::lab::{Runner, Window};
use labkit::latency::LatencyRecorder;
use labkit::record::EventName;
use labkit::threads::{StartLine, TimedThread, timed_threads};

use crate::shared::{Mutexed, SharedPendingAcks};
use crate::workload::{Dataset, seed_value};
use crate::{Mark, PendingAck, PendingAcks};

/// Owner probes made during a run.
pub const PROBES: EventName = EventName::new("owner-probes");
/// Entries a cumulative cleanup removed (those the ackers left as holes, or raced them for).
pub const CLEANED: EventName = EventName::new("cleaned-entries");

/// How many burst acks arrive at once (a client's batch ack).
pub const BURST: usize = 16;
/// In the cleanup shape, the acker leaves every this many-th entry for the cleanup.
pub const HOLE_EVERY: u64 = 16;
/// The cleanup thread's period.
const CLEANUP_PERIOD: Duration = Duration::from_micros(50);

/// The datasets every shape runs on: one ledger, twenty, and a thousand small ones.
pub const SHAPE_DATASETS: [&str; 3] = ["50k-in-1", "50k-in-20", "64k-in-1k"];

/// One concurrent shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// The `<experiment>` part of ids.
    pub name: &'static str,
    pub description: &'static str,
    pub ackers: usize,
    /// Acks arrive this many at a time (1: individual acks).
    pub burst: usize,
    /// A thread probing for entries' owners, one probe per cycled entry.
    pub prober: bool,
    /// A thread running cumulative cleanup every [`CLEANUP_PERIOD`], the acker leaving holes.
    pub cleaner: bool,
    /// Whose operations the extra latency sample times.
    pub timed: Timed,
    /// Which shared form of each design the shape runs.
    pub lock: Lock,
}

/// The shared form a shape runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lock {
    /// The design's own ([`crate::PendingAcks::Shared`]).
    Design,
    /// The single-threaded map behind one mutex ([`crate::shared::Mutexed`]).
    MapMutex,
}

/// The operations a shape's latency histogram holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timed {
    /// Each individual ack, or each burst.
    Acks,
    /// Each dispatch add.
    Adds,
}

pub const SHAPES: [Shape; 7] = [
    Shape {
        name: "shared-dispatch-and-ack",
        description: "one dispatcher adding while one acker removes (one entry's add and ack)",
        ackers: 1,
        burst: 1,
        prober: false,
        cleaner: false,
        timed: Timed::Acks,
        lock: Lock::Design,
    },
    Shape {
        name: "shared-ackers-and-probe",
        description: "one dispatcher, three ackers and an owner-probing reader (one entry's add and ack)",
        ackers: 3,
        burst: 1,
        prober: true,
        cleaner: false,
        timed: Timed::Acks,
        lock: Lock::Design,
    },
    Shape {
        name: "shared-acks-and-cleanup",
        description: "individual acks leaving every 16th entry to a cumulative cleanup every 50 µs, one dispatcher (one entry's add and removal)",
        ackers: 1,
        burst: 1,
        prober: false,
        cleaner: true,
        timed: Timed::Acks,
        lock: Lock::Design,
    },
    Shape {
        name: "shared-burst-acks",
        description: "acks arriving 16 at a time (a batch ack), one dispatcher (one entry's add and ack)",
        ackers: 1,
        burst: BURST,
        prober: false,
        cleaner: false,
        timed: Timed::Acks,
        lock: Lock::Design,
    },
    Shape {
        name: "shared-dispatch-latency",
        description: "`shared-dispatch-and-ack` again, its latencies those of the dispatcher's adds",
        ackers: 1,
        burst: 1,
        prober: false,
        cleaner: false,
        timed: Timed::Adds,
        lock: Lock::Design,
    },
    Shape {
        name: "mutex-dispatch-and-ack",
        description: "`shared-dispatch-and-ack` with every design's map behind one mutex",
        ackers: 1,
        burst: 1,
        prober: false,
        cleaner: false,
        timed: Timed::Acks,
        lock: Lock::MapMutex,
    },
    Shape {
        name: "mutex-ackers-and-probe",
        description: "`shared-ackers-and-probe` with every design's map behind one mutex",
        ackers: 3,
        burst: 1,
        prober: true,
        cleaner: false,
        timed: Timed::Acks,
        lock: Lock::MapMutex,
    },
];

impl Shape {
    pub fn find(name: &str) -> Option<Shape> {
        SHAPES.into_iter().find(|s| s.name == name)
    }

    /// Threads running at once.
    pub fn threads(&self) -> usize {
        1 + self.ackers + usize::from(self.prober) + usize::from(self.cleaner)
    }

    /// What one recorded latency is, for report headings.
    pub fn timed_operation(&self) -> &'static str {
        match (self.timed, self.burst) {
            (Timed::Adds, _) => "dispatch add",
            (Timed::Acks, 1) => "ack",
            (Timed::Acks, _) => "burst of acks",
        }
    }

    /// Whether index `i` is left to the cleanup rather than acked individually.
    fn hole(&self, i: u64) -> bool {
        self.cleaner && i % HOLE_EVERY == HOLE_EVERY - 1
    }
}

/// Entry indices in dispatch order, as (ledger, entry).
#[derive(Debug, Clone, Copy)]
struct Keys {
    per_ledger: u64,
}

impl Keys {
    fn of(dataset: &Dataset) -> Self {
        Self {
            per_ledger: (dataset.entries / dataset.ledgers).max(1),
        }
    }

    fn key(&self, i: u64) -> (u64, u64) {
        (i / self.per_ledger, i % self.per_ledger)
    }
}

/// What one run's threads share besides the map.
struct Progress {
    /// Indices below this are added.
    dispatched: AtomicU64,
    /// Per acker, indices of its share below this are acked (or left as holes).
    acked: Vec<AtomicU64>,
    /// Dispatcher and ackers still running; the cleanup stops at zero.
    cycling: AtomicUsize,
    probes: AtomicU64,
    cleaned: AtomicU64,
}

/// A shared map in the middle of a dispatch/ack cycle, between measured runs.
pub struct Cycle<S> {
    map: S,
    shape: Shape,
    keys: Keys,
    /// The oldest index not yet acked.
    front: u64,
    /// The next index to dispatch.
    back: u64,
}

impl<S: SharedPendingAcks> Cycle<S> {
    /// A map holding `dataset`'s entries in dispatch order.
    pub fn prepare(shape: Shape, dataset: &Dataset) -> Self {
        let (map, keys) = (S::default(), Keys::of(dataset));
        for i in 0..dataset.entries {
            let (ledger, entry) = keys.key(i);
            map.add(ledger, entry, seed_value(i));
        }
        Self {
            map,
            shape,
            keys,
            front: 0,
            back: dataset.entries,
        }
    }

    /// Cycles `ops` entries with `window` open around them; their wall time.
    fn cycle(&mut self, ops: u64, window: &mut dyn Window) -> Duration {
        let shape = self.shape;
        let (front, back) = (self.front, self.back);
        let progress = Progress {
            dispatched: AtomicU64::new(back),
            acked: (0..shape.ackers).map(|_| AtomicU64::new(front)).collect(),
            cycling: AtomicUsize::new(1 + shape.ackers),
            probes: AtomicU64::new(0),
            cleaned: AtomicU64::new(0),
        };
        let sink = window.latencies();
        let (map, keys, progress) = (&self.map, self.keys, &progress);
        let mut roles = vec![Role::Dispatcher {
            from: back,
            to: back + ops,
        }];
        roles.extend((0..shape.ackers).map(|acker| Role::Acker {
            acker,
            from: front,
            to: front + ops,
        }));
        if shape.prober {
            roles.push(Role::Prober {
                window: back - front,
                probes: ops,
            });
        }
        if shape.cleaner {
            roles.push(Role::Cleaner);
        }
        let threads = roles
            .into_iter()
            .map(|role| {
                let timed = match role {
                    Role::Dispatcher { .. } => shape.timed == Timed::Adds,
                    Role::Acker { .. } => shape.timed == Timed::Acks,
                    Role::Prober { .. } | Role::Cleaner => false,
                };
                let sink = sink.clone().filter(|_| timed);
                Box::new(move |start: &StartLine<'_>| {
                    let mut recorder = sink.as_ref().map(|s| s.recorder());
                    start.pass();
                    role.run(map, keys, shape, progress, recorder.as_mut());
                }) as TimedThread<'_>
            })
            .collect();
        let elapsed = timed_threads(window, threads);
        window.count(PROBES, progress.probes.load(Ordering::Relaxed));
        window.count(CLEANED, progress.cleaned.load(Ordering::Relaxed));
        self.front += ops;
        self.back += ops;
        elapsed
    }
}

/// `M`'s shared form the shape runs, holding `dataset`, as a runner.
pub fn open<M: PendingAcks>(shape: Shape, dataset: &Dataset) -> Box<dyn Runner> {
    match shape.lock {
        Lock::Design => Box::new(Cycle::<M::Shared>::prepare(shape, dataset)),
        Lock::MapMutex => Box::new(Cycle::<Mutexed<M>>::prepare(shape, dataset)),
    }
}

impl<S: SharedPendingAcks> Runner for Cycle<S> {
    /// Cycles `warm_up` entries untimed, then `ops` with `window` open around them.
    fn run(&mut self, warm_up: u64, ops: u64, window: &mut dyn Window) -> Duration {
        if warm_up > 0 {
            self.cycle(warm_up, &mut ());
        }
        self.cycle(ops, window)
    }
}

/// What one thread of a shape does.
#[derive(Debug, Clone, Copy)]
enum Role {
    Dispatcher {
        from: u64,
        to: u64,
    },
    /// Acks the indices `from..to` that are its share (`acker`-th of every `ackers`).
    Acker {
        acker: usize,
        from: u64,
        to: u64,
    },
    /// Probes `probes` recently dispatched entries (half of them already acked): one owner
    /// probe per cycled entry, so every design does the same work.
    Prober {
        window: u64,
        probes: u64,
    },
    Cleaner,
}

/// Waits until index `i` is dispatched.
fn wait_dispatched(progress: &Progress, i: u64) {
    let mut spins = 0u32;
    while progress.dispatched.load(Ordering::Acquire) <= i {
        spins += 1;
        if spins < 64 {
            std::hint::spin_loop();
        } else {
            // On two cores the dispatcher may not be running: give it the core.
            std::thread::yield_now();
        }
    }
}

impl Role {
    fn run<S: SharedPendingAcks>(
        self,
        map: &S,
        keys: Keys,
        shape: Shape,
        progress: &Progress,
        mut recorder: Option<&mut LatencyRecorder>,
    ) {
        match self {
            Role::Dispatcher { from, to } => {
                for i in from..to {
                    let (ledger, entry) = keys.key(i);
                    let add = || map.add(ledger, entry, seed_value(i));
                    std::hint::black_box(match recorder.as_deref_mut() {
                        Some(recorder) => recorder.timed(add),
                        None => add(),
                    });
                    progress.dispatched.store(i + 1, Ordering::Release);
                }
                progress.cycling.fetch_sub(1, Ordering::Release);
            }
            Role::Acker { acker, from, to } => {
                let mine = |i: u64| (i % shape.ackers as u64) as usize == acker && !shape.hole(i);
                let mut burst = [(0, 0); BURST];
                let mut pending = 0;
                for i in from..to {
                    if !mine(i) {
                        continue;
                    }
                    wait_dispatched(progress, i);
                    burst[pending] = keys.key(i);
                    pending += 1;
                    if pending == shape.burst {
                        ack(map, &burst[..pending], recorder.as_deref_mut());
                        pending = 0;
                        progress.acked[acker].store(i + 1, Ordering::Release);
                    }
                }
                if pending > 0 {
                    ack(map, &burst[..pending], recorder);
                }
                progress.acked[acker].store(to, Ordering::Release);
                progress.cycling.fetch_sub(1, Ordering::Release);
            }
            Role::Prober { window, probes } => {
                let mut state = 0x9e37_79b9_7f4a_7c15u64;
                for _ in 0..probes {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    let newest = progress.dispatched.load(Ordering::Acquire);
                    let i = newest.saturating_sub(1 + state % (2 * window));
                    let (ledger, entry) = keys.key(i);
                    std::hint::black_box(map.contains(ledger, entry));
                }
                progress.probes.store(probes, Ordering::Relaxed);
            }
            Role::Cleaner => {
                let mut cleaned = 0;
                loop {
                    let running = progress.cycling.load(Ordering::Acquire) > 0;
                    let frontier = progress
                        .acked
                        .iter()
                        .map(|a| a.load(Ordering::Acquire))
                        .min()
                        .expect("a shape has an acker");
                    if frontier > 0 {
                        let (ledger, entry) = keys.key(frontier - 1);
                        map.remove_all_up_to(Mark::at(ledger, entry), &mut |_, _, _| cleaned += 1);
                    }
                    if !running {
                        break;
                    }
                    std::thread::sleep(CLEANUP_PERIOD);
                }
                progress.cleaned.store(cleaned, Ordering::Relaxed);
            }
        }
    }
}

/// Acks `keys` (one individual ack, or a burst), timing it when recording.
fn ack<S: SharedPendingAcks>(map: &S, keys: &[(u64, u64)], recorder: Option<&mut LatencyRecorder>) {
    let mut removed = 0u32;
    let mut apply = || match keys {
        [(ledger, entry)] => removed += u32::from(map.remove(*ledger, *entry).is_some()),
        _ => map.remove_batch(keys, &mut |_, _, _: PendingAck| removed += 1),
    };
    match recorder {
        Some(recorder) => recorder.timed(apply),
        None => apply(),
    }
    std::hint::black_box(removed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use labkit::lab::EventTally;

    use crate::implementations::nested_tree::NestedTree;
    use crate::implementations::striped_window::StripedWindow;

    fn cycles_keep_the_dataset_s_size<S: SharedPendingAcks>() {
        let dataset = Dataset::find("1k-in-5").unwrap();
        for shape in SHAPES {
            let mut cycle = Cycle::<S>::prepare(shape, &dataset);
            let mut counts = EventTally::default();
            cycle.run(100, 3_000, &mut counts);
            // Every entry dispatched in the runs was acked or cleaned up, the holes included: the
            // cleanup's last pass runs after the ackers are through.
            assert_eq!(cycle.map.len(), 1_000, "{}", shape.name);
            let counted = |event| counts.total(event);
            assert_eq!(counted(PROBES) > 0, shape.prober, "{}", shape.name);
            if shape.cleaner {
                assert!(
                    counted(CLEANED) >= 3_000 / HOLE_EVERY,
                    "the holes were cleaned"
                );
            }
        }
    }

    #[test]
    fn cycles_keep_the_dataset_s_size_under_every_shape() {
        cycles_keep_the_dataset_s_size::<<NestedTree as PendingAcks>::Shared>();
        cycles_keep_the_dataset_s_size::<Mutexed<NestedTree>>();
        cycles_keep_the_dataset_s_size::<<StripedWindow as PendingAcks>::Shared>();
    }

    #[test]
    fn keys_run_through_the_ledgers_in_dispatch_order() {
        let keys = Keys::of(&Dataset::find("50k-in-20").unwrap());
        assert_eq!(keys.key(0), (0, 0));
        assert_eq!(keys.key(2_499), (0, 2_499));
        assert_eq!(keys.key(2_500), (1, 0));
        assert_eq!(SHAPES.map(|s| s.threads()), [2, 5, 3, 2, 2, 2, 5]);
    }
}
