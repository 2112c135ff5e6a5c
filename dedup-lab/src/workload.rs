//! The admission workloads ("shapes"), defined once and driven identically for every
//! implementation by the wall-time passes, gungraun, allocation and dhat runs.
//!
//! Every operation stream is deterministic (no RNG): each producer's ids simply increase, so
//! every implementation sees exactly the same input.

use std::sync::Barrier;
use std::time::Duration;

use labkit::lab::{Runner, Window};
use labkit::threads::{StartLine, TimedThread, timed_threads};

use crate::{DupStatus, Position, SequenceBatch, SequenceDedup};

/// How the calls are spread over threads and producers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One thread, one producer, every call new (the accept path).
    Single,
    /// One thread, one producer, every call a duplicate: alternately below persisted (Dup) and
    /// between persisted and pushed (Unknown). Nothing is written.
    Duplicate,
    /// `threads` threads, each with its own producer.
    Distinct { threads: usize },
    /// `threads` connections of one producer sending the same ids (the reconnect overlap): each
    /// id is admitted once, the other callers get Unknown.
    Shared { threads: usize },
    /// `threads` callers of one producer, each call adding one to its pushed id
    /// ([`SequenceDedup::increment_pushed`]): every call writes the one contended key, as the
    /// write-up's JMH shared case does (`put(get + 1)` under the monitor, `replace(prev, prev + 1)`
    /// until it holds).
    SharedIncrement { threads: usize },
    /// Pulsar's `iot-telemetry` scenario: `producers` producers spread round-robin over `threads`.
    Iot { producers: usize, threads: usize },
}

/// Every shape the lab measures. Thread counts: 2 is this machine's core count; 16 mirrors the
/// seed's JMH runs and is oversubscribed on 2 cores.
pub const SHAPES: [Shape; 9] = [
    Shape::Single,
    Shape::Duplicate,
    Shape::Distinct { threads: 2 },
    Shape::Distinct { threads: 16 },
    Shape::Shared { threads: 2 },
    Shape::Shared { threads: 16 },
    Shape::SharedIncrement { threads: 2 },
    Shape::SharedIncrement { threads: 16 },
    Shape::Iot {
        producers: 500,
        threads: 2,
    },
];

/// Duplicate shape: pushed and persisted watermarks set up before measuring.
const DUPLICATE_PUSHED: u64 = 1 << 20;
const DUPLICATE_PERSISTED: u64 = 1 << 19;

impl Shape {
    /// The `<parameter>` part of bench ids.
    pub fn name(self) -> String {
        match self {
            Self::Single => "single".into(),
            Self::Duplicate => "duplicate".into(),
            Self::Distinct { threads } => format!("distinct-{threads}"),
            Self::Shared { threads } => format!("shared-{threads}"),
            Self::SharedIncrement { threads } => format!("shared-increment-{threads}"),
            Self::Iot { producers, .. } => format!("iot-{producers}"),
        }
    }

    pub fn threads(self) -> usize {
        match self {
            Self::Single | Self::Duplicate => 1,
            Self::Distinct { threads }
            | Self::Shared { threads }
            | Self::SharedIncrement { threads }
            | Self::Iot { threads, .. } => threads,
        }
    }

    /// One line for report tables.
    pub fn description(self) -> String {
        match self {
            Self::Single => "1 thread, 1 producer, every call new".into(),
            Self::Duplicate => "1 thread, every call Dup or Unknown (no write)".into(),
            Self::Distinct { threads } => format!("{threads} threads, one producer each"),
            Self::Shared { threads } => {
                format!("{threads} connections of one producer sending the same ids")
            }
            Self::SharedIncrement { threads } => format!(
                "{threads} callers of one producer, each call adding one to its pushed id \
                 (the PR's JMH shared case)"
            ),
            Self::Iot { producers, threads } => {
                format!("{producers} producers round-robin over {threads} threads")
            }
        }
    }

    /// Connects the shape's producers, admits each one's first message (so the map entries exist
    /// and every measured call is steady state) and returns one worker per thread.
    pub fn prepare<D: SequenceDedup>(self, dedup: &D) -> Vec<Worker<D>> {
        self.prepare_ids(dedup, Ids::Sequence)
    }

    /// [`Shape::prepare`] with admissions of `ids`: sequence ids, or replicated positions.
    pub fn prepare_ids<D: SequenceDedup>(self, dedup: &D, ids: Ids) -> Vec<Worker<D>> {
        let name = |i: usize| format!("producer-{i}");
        let workers: Vec<Worker<D>> = match self {
            Self::Single | Self::Duplicate => vec![Worker::new(vec![dedup.connect(&name(0))])],
            Self::Distinct { threads } => (0..threads)
                .map(|t| Worker::new(vec![dedup.connect(&name(t))]))
                .collect(),
            Self::Shared { threads } => (0..threads)
                .map(|_| Worker::new(vec![dedup.connect(&name(0))]))
                .collect(),
            Self::SharedIncrement { threads } => (0..threads)
                .map(|_| Worker {
                    increments: true,
                    ..Worker::new(vec![dedup.connect(&name(0))])
                })
                .collect(),
            Self::Iot { producers, threads } => (0..threads)
                .map(|t| {
                    let own = (t..producers).step_by(threads);
                    Worker::new(own.map(|p| dedup.connect(&name(p))).collect())
                })
                .collect(),
        };
        for worker in &workers {
            for producer in &worker.producers {
                ids.admit(dedup, producer, 0);
            }
        }
        if self == Self::Duplicate {
            let producer = &workers[0].producers[0];
            ids.admit(dedup, producer, DUPLICATE_PUSHED);
            ids.record_persisted(dedup, producer, DUPLICATE_PERSISTED);
        }
        let duplicate = self == Self::Duplicate;
        workers
            .into_iter()
            .map(|w| Worker {
                duplicate,
                ids,
                ..w
            })
            .collect()
    }
}

pub(crate) fn batch(id: u64) -> SequenceBatch {
    SequenceBatch::single(id).expect("workload ids stay far below MAX_SEQUENCE_ID")
}

/// Workload id `id` as a source position, 2^16 entries per ledger: positions grow as ids do.
pub fn position(id: u64) -> Position {
    Position::new(id >> 16, id & 0xFFFF).expect("a shifted id is a valid ledger id")
}

/// Which watermark a workload's admissions check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ids {
    /// Producer sequence ids (`admit`).
    Sequence,
    /// Replicated messages' source positions (`admit_replicated`), id `i` as [`position`]`(i)`.
    Replicated,
}

impl Ids {
    #[inline]
    fn admit<D: SequenceDedup>(self, dedup: &D, producer: &D::Producer, id: u64) -> DupStatus {
        match self {
            Self::Sequence => dedup.admit(producer, batch(id)),
            Self::Replicated => dedup.admit_replicated(producer, position(id)),
        }
    }

    fn record_persisted<D: SequenceDedup>(self, dedup: &D, producer: &D::Producer, id: u64) {
        match self {
            Self::Sequence => dedup.record_persisted(producer, batch(id)),
            Self::Replicated => dedup.record_replicated_persisted(producer, position(id)),
        }
    }
}

/// One thread's share of a shape: its producer handles and where each producer's ids are.
pub struct Worker<D: SequenceDedup> {
    producers: Vec<D::Producer>,
    next_ids: Vec<u64>,
    cursor: usize,
    duplicate: bool,
    ids: Ids,
    /// Whether each op is an increment of the producer's pushed id (the increment shape).
    increments: bool,
}

impl<D: SequenceDedup> Worker<D> {
    fn new(producers: Vec<D::Producer>) -> Self {
        let next_ids = vec![1; producers.len()];
        Self {
            producers,
            next_ids,
            cursor: 0,
            duplicate: false,
            ids: Ids::Sequence,
            increments: false,
        }
    }

    /// Runs `ops` admissions; returns how many were NotDup (so the work cannot be optimised away
    /// and callers can sanity-check the mix); every increment counts as one.
    pub fn run(&mut self, dedup: &D, ops: u64) -> u64 {
        // A worker's shape is fixed: it is tested once here, not per admission (the test inside
        // the loop cost every shape about 9 instructions an admission, callgrind).
        if self.increments {
            let producer = &self.producers[0];
            (0..ops)
                .map(|_| {
                    u64::from(std::hint::black_box(dedup.increment_pushed(producer)) != u64::MAX)
                })
                .sum()
        } else {
            self.run_in_turn(dedup, ops)
        }
    }

    /// The loop of every shape but the increment one, in a function of its own so that its code
    /// does not depend on the other loop's (sharing one function cost 1 to 2 instructions an
    /// admission, callgrind).
    #[inline(never)]
    fn run_in_turn(&mut self, dedup: &D, ops: u64) -> u64 {
        (0..ops)
            .map(|_| u64::from(self.admit_next(dedup) == DupStatus::NotDup))
            .sum()
    }

    /// The admission of the next producer's next id, round-robin over the worker's producers.
    #[inline(always)]
    pub fn admit_next(&mut self, dedup: &D) -> DupStatus {
        let i = self.cursor;
        let id = self.next_ids[i];
        let id = if self.duplicate {
            // even steps: below persisted (Dup); odd steps: between persisted and pushed.
            (id % DUPLICATE_PERSISTED) + (id & 1) * DUPLICATE_PERSISTED
        } else {
            id
        };
        let status = self.ids.admit(dedup, &self.producers[i], id);
        self.next_ids[i] += 1;
        self.cursor = if i + 1 == self.producers.len() {
            0
        } else {
            i + 1
        };
        status
    }
}

/// Runs `warm_up_ops` then `ops` calls on every worker, on the same threads, with `window` open
/// around the measured ones only; returns their wall time ([`timed_threads`]). All workers warm
/// up together, so per-thread lazy state (papaya's reclamation slot, a lock's parking data) is
/// created under the same contention before the window opens. A single worker runs on the calling
/// thread.
pub fn run_window<D: SequenceDedup>(
    dedup: &D,
    workers: &mut [Worker<D>],
    warm_up_ops: u64,
    ops: u64,
    window: &mut dyn Window,
) -> Duration {
    let warm_up = Barrier::new(workers.len());
    let threads = workers
        .iter_mut()
        .map(|worker| {
            let warm_up = &warm_up;
            Box::new(move |start: &StartLine<'_>| {
                warm_up.wait();
                std::hint::black_box(worker.run(dedup, warm_up_ops));
                start.pass();
                std::hint::black_box(worker.run(dedup, ops));
            }) as TimedThread<'_>
        })
        .collect();
    timed_threads(window, threads)
}

/// A deduplicator with a shape's producers connected, each having admitted its first message.
pub(crate) struct Admission<D: SequenceDedup> {
    dedup: D,
    workers: Vec<Worker<D>>,
}

impl<D: SequenceDedup> Admission<D> {
    /// A new deduplicator with `shape`'s producers connected, by sequence ids or positions.
    pub(crate) fn prepare(shape: Shape, ids: Ids) -> Self {
        let dedup = D::default();
        let workers = shape.prepare_ids(&dedup, ids);
        Self { dedup, workers }
    }
}

impl<D: SequenceDedup> Runner for Admission<D> {
    fn run(&mut self, warm_up: u64, ops: u64, window: &mut dyn Window) -> Duration {
        run_window(&self.dedup, &mut self.workers, warm_up, ops, window)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::implementations::topic_mutex::TopicMutex;

    #[test]
    fn shape_names_are_distinct() {
        let names: std::collections::BTreeSet<String> = SHAPES.iter().map(|s| s.name()).collect();
        assert_eq!(names.len(), SHAPES.len());
    }

    #[test]
    fn streams_give_the_intended_answers() {
        let dedup = TopicMutex::default();
        let mut workers = Shape::Single.prepare(&dedup);
        assert_eq!(workers[0].run(&dedup, 100), 100, "single: every call new");

        let dedup = TopicMutex::default();
        let mut workers = Shape::Duplicate.prepare(&dedup);
        assert_eq!(workers[0].run(&dedup, 1000), 0, "duplicate: nothing new");
        assert_eq!(dedup.highest_pushed("producer-0"), Some(DUPLICATE_PUSHED));

        let dedup = TopicMutex::default();
        let mut workers = Shape::Iot {
            producers: 500,
            threads: 2,
        }
        .prepare(&dedup);
        assert_eq!(workers.len(), 2);
        assert_eq!(workers[0].producers.len() + workers[1].producers.len(), 500);
        assert_eq!(workers[1].run(&dedup, 500), 500);
        assert_eq!(
            dedup.highest_pushed("producer-1"),
            Some(2),
            "two rounds over 250 producers"
        );
    }

    #[test]
    fn increment_callers_each_add_one() {
        let dedup = TopicMutex::default();
        let mut workers = Shape::SharedIncrement { threads: 4 }.prepare(&dedup);
        run_window(&dedup, &mut workers, 10, 1000, &mut ());
        // Every op added one: 4 × 1,010 after the first message's id 0.
        assert_eq!(dedup.highest_pushed("producer-0"), Some(4 * 1010));
    }

    #[test]
    fn shared_window_admits_each_id_exactly_once() {
        let dedup = TopicMutex::default();
        let shape = Shape::Shared { threads: 4 };
        let mut workers = shape.prepare(&dedup);
        run_window(&dedup, &mut workers, 10, 1000, &mut ());
        // 10 warm-up ids, then 1000 more on each thread: the same ids on every thread.
        assert_eq!(dedup.highest_pushed("producer-0"), Some(1010));
    }
}
