//! Wall time per op (criterion), every implementation × every scenario × the scenario's datasets.
//!
//! Dimensions: experiment (`workload::Experiment::ALL`) × dataset (`Experiment::datasets`, as in
//! the seed) × implementation (`pending_ack_lab::with_implementations!`). Ids:
//! `<experiment>/<implementation>/<dataset>`. Steady scenarios are warmed up past their build-up
//! before timing (`iter_custom` over a persistent map). Cleanups time one `remove_all_up_to` per
//! iteration and put the removed entries back untimed (`Workload::restore`), so the rebuild the
//! seed excluded is excluded here too without dominating the wall time. Implementations are the
//! inner loop, so the columns of one row run close together in time.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};
use pending_ack_lab::workload::{Dataset, Experiment, Workload};
use pending_ack_lab::{ImplementationVisitor, PendingAcks, for_each_implementation};

struct TimeCase<'g, 'c> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    experiment: Experiment,
    dataset: Dataset,
}

impl ImplementationVisitor for TimeCase<'_, '_> {
    fn visit<M: PendingAcks>(&mut self) {
        let (experiment, dataset) = (self.experiment, self.dataset);
        let id = BenchmarkId::new(M::NAME, dataset.name);
        let mut workload = Workload::<M>::prepare(experiment, dataset);
        if experiment.is_one_shot() {
            self.group.bench_function(id, |b| {
                b.iter_custom(|iters| {
                    let mut timed = Duration::ZERO;
                    for _ in 0..iters {
                        let start = Instant::now();
                        black_box(workload.run(1));
                        timed += start.elapsed();
                        workload.restore();
                    }
                    timed
                })
            });
        } else {
            black_box(workload.run(Workload::<M>::warm_up_ops(experiment, dataset)));
            self.group.bench_function(id, |b| {
                b.iter_custom(|iters| {
                    let start = Instant::now();
                    black_box(workload.run(iters));
                    start.elapsed()
                })
            });
        }
    }
}

fn pending_acks(c: &mut Criterion) {
    for experiment in Experiment::ALL {
        let mut group = c.benchmark_group(experiment.name());
        for dataset in experiment.datasets() {
            for_each_implementation(&mut TimeCase {
                group: &mut group,
                experiment,
                dataset,
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().noise_threshold(0.03);
    targets = pending_acks
}
criterion_main!(benches);
