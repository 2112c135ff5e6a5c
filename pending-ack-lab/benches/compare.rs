//! Paired comparison of two implementations (`cargo xtask compare pending-ack A B [NAME...]`):
//! for each scenario × dataset, samples of A and B interleaved A, B, B, A, … on two maps built
//! from the same input, so the per-pair ratio B / A is what the table reports
//! (`labkit::paired`). NAMEs select experiments and datasets, as for `cargo xtask bench`.
//!
//! Usage: `cargo bench -p pending-ack-lab --bench compare -- A B [NAME...] [--quick|--test]
//! [--out FILE]`.

use std::hint::black_box;
use std::time::Instant;

use labkit::args::{RunArgs, exit_with_usage_error};
use labkit::paired::{interleave, paired_records};
use labkit::record::Record;
use pending_ack_lab::workload::{DATASETS, Dataset, Experiment, Workload};
use pending_ack_lab::{PairVisitor, PendingAcks, visit_pair};

/// Single-entry ops in one sample (cleanups: one call; scans: one scan).
const SAMPLE_OPS: u64 = 20_000;

/// A prepared, warmed-up workload and a way to take one sample of it in ns/op.
struct Sampler<M> {
    workload: Workload<M>,
    ops: u64,
    one_shot: bool,
}

impl<M: PendingAcks> Sampler<M> {
    fn new(experiment: Experiment, dataset: Dataset) -> Self {
        let mut workload = Workload::prepare(experiment, dataset);
        black_box(workload.run(Workload::<M>::warm_up_ops(experiment, dataset)));
        Self {
            workload,
            ops: experiment.ops_for(SAMPLE_OPS),
            one_shot: experiment.is_one_shot(),
        }
    }

    /// One sample: an untimed quarter-sample first, so the caches hold this map again after the
    /// other side's sample, then the timed ops.
    fn sample(&mut self) -> f64 {
        if !self.one_shot {
            black_box(self.workload.run((self.ops / 4).max(1)));
        }
        let start = Instant::now();
        black_box(self.workload.run(self.ops));
        let ns = start.elapsed().as_nanos() as f64 / self.ops as f64;
        if self.one_shot {
            self.workload.restore();
        }
        ns
    }
}

struct Compare<'a> {
    cases: &'a [(Experiment, Dataset)],
    pairs: usize,
    records: Vec<Record>,
}

impl PairVisitor for Compare<'_> {
    fn visit<A: PendingAcks, B: PendingAcks>(&mut self) {
        for &(experiment, dataset) in self.cases {
            eprintln!(
                "compare: {}/{} vs {}/{}",
                experiment.name(),
                A::NAME,
                B::NAME,
                dataset.name
            );
            let mut a = Sampler::<A>::new(experiment, dataset);
            let mut b = Sampler::<B>::new(experiment, dataset);
            let estimate =
                interleave(self.pairs, || a.sample(), || b.sample()).expect("at least 6 pairs");
            self.records.extend(paired_records(
                experiment.name(),
                A::NAME,
                B::NAME,
                dataset.name,
                &estimate,
            ));
        }
    }
}

fn main() {
    let args =
        RunArgs::parse(std::env::args().skip(1)).unwrap_or_else(|e| exit_with_usage_error(&e));
    let [a, b, ..] = args.filters.as_slice() else {
        exit_with_usage_error(
            "usage: compare A B [EXPERIMENT|DATASET...] [--quick|--test] [--out FILE]",
        );
    };
    let experiments: Vec<&str> = Experiment::ALL.iter().map(|e| e.name()).collect();
    let datasets: Vec<&str> = DATASETS.iter().map(|d| d.name).collect();
    let mut valid = pending_ack_lab::implementation_names();
    valid.extend(&experiments);
    valid.extend(&datasets);
    args.check_filters(&valid)
        .unwrap_or_else(|e| exit_with_usage_error(&e));
    let cases: Vec<(Experiment, Dataset)> = Experiment::ALL
        .into_iter()
        .filter(|e| args.selects(&experiments, e.name()))
        .flat_map(|e| e.datasets().into_iter().map(move |d| (e, d)))
        .filter(|(_, d)| args.selects(&datasets, d.name))
        .collect();
    let pairs = args.by_mode(6, 20, 60);
    let mut compare = Compare {
        cases: &cases,
        pairs,
        records: Vec::new(),
    };
    visit_pair(a, b, &mut compare).unwrap_or_else(|e| exit_with_usage_error(&e));
    labkit::record::emit_records(args.out.as_deref(), &compare.records)
        .unwrap_or_else(|e| exit_with_usage_error(&e));
}
