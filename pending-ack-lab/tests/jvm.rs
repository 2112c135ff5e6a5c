//! The JVM side drives exactly the operations the Rust side does: for every case the JVM designs
//! run (each experiment on each of its datasets, every footprint and retained-capacity case), the
//! first 10^5 map calls from the case's opening on (population and build-up included), each with
//! its answer and what it visits, give the same checksum in both languages. (Each JVM design's own
//! model-based check against an ordered oracle runs in the conformance tests.) Skipped, saying so,
//! without a JDK.

use std::cell::RefCell;

use labkit::jvm::Trace;
use labkit::lab::{BenchCase, Describe, measures};
use pending_ack_lab::implementations::nested_tree::NestedTree;
use pending_ack_lab::lab::LAB;
use pending_ack_lab::workload::{DATASETS, Dataset, RETAINED_CASES, Scenario, Workload};
use pending_ack_lab::{Mark, PendingAck, PendingAcks};

thread_local! {
    static TRACE: RefCell<Trace> = RefCell::new(Trace::new(0));
}

fn record(kind: u64, args: &[u64]) {
    TRACE.with(|t| {
        t.borrow_mut().op(kind, args);
    });
}

/// A hash as Java widens its `int` to a `long`.
fn widened(hash: i32) -> u64 {
    i64::from(hash) as u64
}

/// `nested-tree` with every call recorded as the JVM side records it (`PendingAckLab.Traced`).
#[derive(Default)]
struct Traced(NestedTree);

impl PendingAcks for Traced {
    const NAME: &'static str = "traced";
    type Shared = pending_ack_lab::shared::RwLocked<Self>;

    fn add_or_replace(&mut self, ledger: u64, entry: u64, ack: PendingAck) -> bool {
        let added = self.0.add_or_replace(ledger, entry, ack);
        let hash = widened(ack.sticky_key_hash());
        let args = [ledger, entry, ack.remaining().into(), hash, added.into()];
        record(1, &args);
        added
    }

    fn get(&self, ledger: u64, entry: u64) -> Option<PendingAck> {
        self.0.get(ledger, entry)
    }

    fn get_mut(&mut self, ledger: u64, entry: u64) -> Option<&mut PendingAck> {
        self.0.get_mut(ledger, entry)
    }

    fn get_remaining(&self, ledger: u64, entry: u64) -> Option<u32> {
        let remaining = self.0.get_remaining(ledger, entry);
        record(2, &[ledger, entry, remaining.map_or(u64::MAX, u64::from)]);
        remaining
    }

    fn contains(&self, ledger: u64, entry: u64) -> bool {
        let found = self.0.contains(ledger, entry);
        record(3, &[ledger, entry, found.into()]);
        found
    }

    fn remove(&mut self, ledger: u64, entry: u64) -> Option<PendingAck> {
        let removed = self.0.remove(ledger, entry);
        // Java's `NOT_FOUND` is `Long.MIN_VALUE`.
        record(
            4,
            &[ledger, entry, removed.map_or(1 << 63, PendingAck::to_bits)],
        );
        removed
    }

    fn update_remaining_unacked(&mut self, ledger: u64, entry: u64, acked: i32) -> bool {
        let updated = self.0.update_remaining_unacked(ledger, entry, acked);
        record(5, &[ledger, entry, widened(acked), updated.into()]);
        updated
    }

    fn remove_all_up_to(&mut self, mark: Mark, on_removed: &mut impl FnMut(u64, u64, PendingAck)) {
        record(6, &[mark.ledger, mark.entry.unwrap_or(u64::MAX)]);
        self.0.remove_all_up_to(mark, &mut |l, e, ack| {
            let hash = widened(ack.sticky_key_hash());
            record(7, &[l, e, ack.remaining().into(), hash]);
            on_removed(l, e, ack);
        });
    }

    fn for_each(&self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        record(8, &[]);
        self.0.for_each(&mut |l, e, ack| {
            let hash = widened(ack.sticky_key_hash());
            record(9, &[l, e, ack.remaining().into(), hash]);
            visit(l, e, ack);
        });
    }

    fn drain(&mut self, visit: &mut impl FnMut(u64, u64, PendingAck)) {
        self.0.drain(visit);
    }

    fn len(&self) -> usize {
        self.0.len()
    }
}

const TRACED_CALLS: u64 = 100_000;

fn recording() -> bool {
    TRACE.with(|t| t.borrow().recording())
}

/// The Rust side's trace of one case: opened on the traced map, then run as its runner runs it.
fn rust_trace(case: &BenchCase) -> u64 {
    TRACE.with(|t| *t.borrow_mut() = Trace::new(TRACED_CALLS));
    let dataset = || Dataset::find(&case.parameter).unwrap();
    match case.experiment.as_str() {
        "footprint" => drop(dataset().populate::<Traced>()),
        "retained-capacity" => {
            let retained = RETAINED_CASES.iter().find(|c| c.name == case.parameter);
            drop(retained.unwrap().build::<Traced>());
        }
        name => {
            let experiment = Scenario::ALL.into_iter().find(|e| e.name() == name);
            let experiment = experiment.unwrap();
            let mut workload = Workload::<Traced>::prepare(experiment, dataset());
            workload.run(Workload::<Traced>::warm_up_ops(experiment, dataset()));
            let mut op = 0;
            while recording() {
                if experiment.is_one_shot() && op > 0 {
                    workload.restore();
                }
                workload.run(1);
                op += 1;
            }
        }
    }
    TRACE.with(|t| t.borrow().checksum())
}

#[test]
fn both_languages_drive_the_same_operations_on_every_jvm_case() {
    if !labkit::testing::jdk_present() {
        return;
    }
    let jvm_design = LAB.jvm_designs()[0];
    let mut traced = 0;
    for experiment in LAB.experiments() {
        if !measures(&LAB, experiment, jvm_design) {
            continue;
        }
        for parameter in &experiment.parameters {
            let case = BenchCase::new(experiment.name, &parameter.name);
            let jvm = labkit::jvm::trace(&LAB, &case, TRACED_CALLS).unwrap();
            assert_eq!(
                rust_trace(&case),
                jvm,
                "{case}: the two languages issue different calls"
            );
            assert_ne!(jvm, Trace::new(0).checksum(), "{case}: nothing traced");
            traced += 1;
        }
    }
    assert!(traced >= DATASETS.len(), "{traced} cases traced");
}
