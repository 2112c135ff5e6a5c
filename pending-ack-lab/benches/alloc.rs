//! Allocation, footprint and retained-capacity runs, with the counting allocator in its own
//! process (timing binaries never carry it).
//!
//! - `<experiment>/<implementation>/<dataset>`: allocations and bytes per op. Steady scenarios
//!   are measured after their warm-up (`Workload::warm_up_ops`), cleanups over one
//!   `remove_all_up_to` on a freshly built map.
//! - `footprint/<implementation>/<dataset>`: heap retained by a map holding the whole dataset,
//!   for every dataset.
//! - `retained-capacity/<implementation>/<case>`: heap left after the seed's peak-then-cleanup
//!   cases.
//!
//! Usage: `cargo bench -p pending-ack-lab --bench alloc -- [--out FILE] [--quick|--test]
//! [NAME...]`, where NAMEs select experiments, implementations and datasets.

use std::hint::black_box;

use labkit::alloc::{AllocSnapshot, CountingAlloc};
use labkit::args::{RunArgs, exit_with_usage_error};
use labkit::footprint::retained_by;
use labkit::record::{BenchId, Metric, Record};
use pending_ack_lab::workload::{DATASETS, Dataset, Experiment, RETAINED_CASES, Workload};
use pending_ack_lab::{ImplementationVisitor, PendingAcks, for_each_implementation};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

struct Measure {
    args: RunArgs,
    /// Measured ops for steady scenarios.
    ops: u64,
    records: Vec<Record>,
}

impl Measure {
    fn push(&mut self, id: BenchId, metric: Metric, value: f64) {
        self.records.push(Record::new(id, metric, value));
    }

    fn allocations<M: PendingAcks>(&mut self, experiment: Experiment, dataset: Dataset) {
        let mut workload = Workload::<M>::prepare(experiment, dataset);
        black_box(workload.run(Workload::<M>::warm_up_ops(experiment, dataset)));
        let ops = experiment.ops_for(self.ops);
        let before = AllocSnapshot::now();
        black_box(workload.run(ops));
        let delta = before.delta_to(&AllocSnapshot::now());
        let id = BenchId::new(experiment.name(), M::NAME, dataset.name);
        self.push(
            id.clone(),
            Metric::AllocsPerOp,
            delta.allocations as f64 / ops as f64,
        );
        self.push(
            id,
            Metric::BytesPerOp,
            delta.bytes_allocated as f64 / ops as f64,
        );
    }

    fn retained<M: PendingAcks>(&mut self, id: BenchId, build: impl FnOnce() -> M) {
        let (map, retained) =
            retained_by(build).unwrap_or_else(|e| exit_with_usage_error(&e.to_string()));
        drop(map);
        self.records.extend(retained.records(id));
    }
}

impl ImplementationVisitor for Measure {
    fn visit<M: PendingAcks>(&mut self) {
        let implementations = pending_ack_lab::implementation_names();
        if !self.args.selects(&implementations, M::NAME) {
            return;
        }
        let experiments = experiment_names();
        let datasets: Vec<&str> = DATASETS.iter().map(|d| d.name).collect();
        for experiment in Experiment::ALL {
            if !self.args.selects(&experiments, experiment.name()) {
                continue;
            }
            for dataset in experiment.datasets() {
                if self.args.selects(&datasets, dataset.name) {
                    eprintln!("alloc: {}/{}/{}", experiment.name(), M::NAME, dataset.name);
                    self.allocations::<M>(experiment, dataset);
                }
            }
        }
        if self.args.selects(&experiments, "footprint") {
            for dataset in DATASETS {
                if self.args.selects(&datasets, dataset.name) {
                    let id = BenchId::new("footprint", M::NAME, dataset.name);
                    self.retained(id, || dataset.populate::<M>());
                }
            }
        }
        if self.args.selects(&experiments, "retained-capacity") {
            for case in RETAINED_CASES {
                let id = BenchId::new("retained-capacity", M::NAME, case.name);
                self.retained(id, || case.build::<M>());
            }
        }
    }
}

/// Every experiment this binary measures, as filter words.
fn experiment_names() -> Vec<&'static str> {
    let mut names: Vec<&str> = Experiment::ALL.iter().map(|e| e.name()).collect();
    names.extend(["footprint", "retained-capacity"]);
    names
}

fn main() {
    let args =
        RunArgs::parse(std::env::args().skip(1)).unwrap_or_else(|e| exit_with_usage_error(&e));
    let mut valid = pending_ack_lab::implementation_names();
    valid.extend(DATASETS.iter().map(|d| d.name));
    valid.extend(RETAINED_CASES.iter().map(|c| c.name));
    valid.extend(experiment_names());
    args.check_filters(&valid)
        .unwrap_or_else(|e| exit_with_usage_error(&e));
    let ops = args.by_mode(1_000, 20_000, 200_000);
    let mut measure = Measure {
        args,
        ops,
        records: Vec::new(),
    };
    for_each_implementation(&mut measure);
    labkit::record::emit_records(measure.args.out.as_deref(), &measure.records)
        .unwrap_or_else(|e| exit_with_usage_error(&e));
}
