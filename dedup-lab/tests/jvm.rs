//! The JVM side drives exactly the admissions the Rust side does: for every shape, the first 10^5
//! calls from the producers' connections on, each with its answer, give the same checksum in both
//! languages. (Each JVM design's own checks, Pulsar's `testIsDuplicate` step by step and a
//! 32-thread race on one producer, run in the conformance tests.) Skipped, saying so, without a
//! JDK.

use std::cell::RefCell;

use dedup_lab::implementations::topic_mutex::TopicMutex;
use dedup_lab::lab::LAB;
use dedup_lab::workload::SHAPES;
use dedup_lab::{DupStatus, Position, SequenceBatch, SequenceDedup};
use labkit::jvm::Trace;
use labkit::lab::BenchCase;

thread_local! {
    static TRACE: RefCell<Trace> = RefCell::new(Trace::new(0));
}

fn record(f: impl FnOnce(&mut Trace)) {
    TRACE.with(|t| f(&mut t.borrow_mut()));
}

/// `topic-mutex` with every call recorded as the JVM side records it (`DedupLab.Traced`).
#[derive(Default)]
struct Traced(TopicMutex);

fn status_code(status: DupStatus) -> u64 {
    match status {
        DupStatus::NotDup => 0,
        DupStatus::Dup => 1,
        DupStatus::Unknown => 2,
    }
}

/// Java's `long` for an id that may be absent (-1).
fn or_none(id: Option<u64>) -> u64 {
    id.map_or(u64::MAX, |id| id)
}

impl SequenceDedup for Traced {
    const NAME: &'static str = "traced";
    const ZERO_ALLOC_STEADY_STATE: bool = false;
    type Producer = (String, <TopicMutex as SequenceDedup>::Producer);

    fn connect(&self, producer: &str) -> Self::Producer {
        record(|t| {
            t.text(producer).op(1, &[]);
        });
        (producer.to_owned(), self.0.connect(producer))
    }

    fn admit(&self, producer: &Self::Producer, batch: SequenceBatch) -> DupStatus {
        let status = self.0.admit(&producer.1, batch);
        record(|t| {
            let args = [batch.low(), batch.high(), status_code(status)];
            t.text(&producer.0).op(2, &args);
        });
        status
    }

    fn record_persisted(&self, producer: &Self::Producer, batch: SequenceBatch) {
        record(|t| {
            t.text(&producer.0).op(3, &[batch.high()]);
        });
        self.0.record_persisted(&producer.1, batch);
    }

    fn admit_replicated(&self, producer: &Self::Producer, position: Position) -> DupStatus {
        self.0.admit_replicated(&producer.1, position)
    }

    fn record_replicated_persisted(&self, producer: &Self::Producer, position: Position) {
        self.0.record_replicated_persisted(&producer.1, position);
    }

    fn reset_pushed_to_persisted(&self) {
        self.0.reset_pushed_to_persisted();
    }

    fn highest_pushed(&self, producer: &str) -> Option<u64> {
        let pushed = self.0.highest_pushed(producer);
        record(|t| {
            t.text(producer).op(4, &[or_none(pushed)]);
        });
        pushed
    }

    fn highest_persisted(&self, producer: &str) -> Option<u64> {
        self.0.highest_persisted(producer)
    }

    fn highest_replicated_pushed(&self, producer: &str) -> Option<Position> {
        self.0.highest_replicated_pushed(producer)
    }

    fn highest_replicated_persisted(&self, producer: &str) -> Option<Position> {
        self.0.highest_replicated_persisted(producer)
    }

    fn purge(&self, producer: &str) {
        record(|t| {
            t.text(producer).op(5, &[]);
        });
        self.0.purge(producer);
    }
}

const TRACED_CALLS: u64 = 100_000;

#[test]
fn both_languages_drive_the_same_admissions_on_every_shape() {
    if !labkit::testing::jdk_present() {
        return;
    }
    for shape in SHAPES {
        TRACE.with(|t| *t.borrow_mut() = Trace::new(TRACED_CALLS));
        let dedup = Traced::default();
        let mut workers = shape.prepare(&dedup);
        let mut op = 0;
        while TRACE.with(|t| t.borrow().recording()) {
            let n = workers.len();
            workers[op % n].admit_next(&dedup);
            op += 1;
        }
        let rust = TRACE.with(|t| t.borrow().checksum());
        let case = BenchCase::new("admission", &shape.name());
        let jvm = labkit::jvm::trace(&LAB, &case, TRACED_CALLS).unwrap();
        assert_eq!(rust, jvm, "{case}: the two languages issue different calls");
        assert_ne!(jvm, Trace::new(0).checksum(), "{case}: nothing traced");
    }
}
