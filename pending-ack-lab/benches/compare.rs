//! Paired comparison (`cargo xtask compare pending-ack A B [NAME...]`, or one implementation at
//! two git revisions with `--rev`): for each scenario × dataset, samples of A and B interleaved
//! A, B, B, A, … on two maps built from the same input, so the per-pair ratio B / A is what the
//! table reports (`labkit::paired`, `labkit::sampling`). NAMEs select experiments and datasets,
//! as for `cargo xtask bench`.
//!
//! Usage: `cargo bench -p pending-ack-lab --bench compare -- A B [NAME...] [--quick|--test]
//! [--out FILE]`, or `-- --serve IMPL` for the sampling protocol.

use std::hint::black_box;
use std::time::Instant;

use labkit::args::RunArgs;
use labkit::sampling::{BenchCase, SampleSource, Sampler, compare_main};
use pending_ack_lab::workload::{DATASETS, Dataset, Experiment, Workload};
use pending_ack_lab::{ImplementationVisitor, PendingAcks, visit_implementation};

/// Single-entry ops in one sample (cleanups: one call; scans: one scan).
const SAMPLE_OPS: u64 = 20_000;

/// A prepared, warmed-up workload and a way to take one sample of it in ns/op.
struct WorkloadSampler<M> {
    workload: Workload<M>,
    ops: u64,
    one_shot: bool,
}

impl<M: PendingAcks> WorkloadSampler<M> {
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

/// Opens a sampler of whichever implementation it visits.
struct Open {
    experiment: Experiment,
    dataset: Dataset,
    sampler: Option<Sampler>,
}

impl ImplementationVisitor for Open {
    fn visit<M: PendingAcks>(&mut self) {
        let mut sampler = WorkloadSampler::<M>::new(self.experiment, self.dataset);
        self.sampler = Some(Box::new(move || sampler.sample()));
    }
}

/// Every scenario on each of its datasets.
struct PendingAckCases;

impl SampleSource for PendingAckCases {
    fn cases(&self, filters: &[String]) -> Result<Vec<BenchCase>, String> {
        let experiments: Vec<&str> = Experiment::ALL.iter().map(|e| e.name()).collect();
        let datasets: Vec<&str> = DATASETS.iter().map(|d| d.name).collect();
        let args = RunArgs {
            filters: filters.to_vec(),
            ..RunArgs::default()
        };
        args.check_filters(&[experiments.as_slice(), datasets.as_slice()].concat())?;
        Ok(Experiment::ALL
            .into_iter()
            .filter(|e| args.selects(&experiments, e.name()))
            .flat_map(|e| e.datasets().into_iter().map(move |d| (e, d)))
            .filter(|(_, d)| args.selects(&datasets, d.name))
            .map(|(e, d)| BenchCase::new(e.name(), d.name))
            .collect())
    }

    fn open(&self, implementation: &str, case: &BenchCase) -> Result<Sampler, String> {
        let experiment = Experiment::find(&case.experiment)?;
        let dataset = Dataset::find(&case.parameter)?;
        if !experiment.datasets().contains(&dataset) {
            return Err(format!("{case} is not a measured case"));
        }
        let mut open = Open {
            experiment,
            dataset,
            sampler: None,
        };
        visit_implementation(implementation, &mut open)?;
        open.sampler
            .ok_or_else(|| format!("no sampler for `{implementation}`"))
    }
}

fn main() {
    compare_main(&PendingAckCases);
}
