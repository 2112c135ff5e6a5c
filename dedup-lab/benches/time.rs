//! Wall time per admission (criterion), every implementation × every shape.
//!
//! Dimensions: implementation (`dedup_lab::with_implementations!`) × shape
//! (`dedup_lab::workload::SHAPES`). Ids: `admission/<implementation>/<shape>`. Multi-thread shapes
//! time only the window between two barriers (`iter_custom`), so thread spawn and warm-up are not
//! timed; criterion's "time" is then per thread-operation and its throughput aggregate ops/s.
//! Shapes are the outer loop so that the implementations of one shape run close together in time.

use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use dedup_lab::workload::{SHAPES, Shape, run_window};
use dedup_lab::{ImplementationVisitor, SequenceDedup, for_each_implementation};

/// Untimed calls per thread before each sample's window.
const WARM_UP_OPS: u64 = 1_000;

struct TimeShape<'g, 'c> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    shape: Shape,
}

impl ImplementationVisitor for TimeShape<'_, '_> {
    fn visit<D: SequenceDedup>(&mut self) {
        let shape = self.shape;
        self.group
            .bench_function(BenchmarkId::new(D::NAME, shape.name()), |b| {
                b.iter_custom(|iters| {
                    let dedup = D::default();
                    let mut workers = shape.prepare(&dedup);
                    run_window(&dedup, &mut workers, WARM_UP_OPS, iters, || {}, || {})
                })
            });
    }
}

fn admission(c: &mut Criterion) {
    let mut group = c.benchmark_group("admission");
    for shape in SHAPES {
        group.throughput(Throughput::Elements(shape.threads() as u64));
        for_each_implementation(&mut TimeShape {
            group: &mut group,
            shape,
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().noise_threshold(0.03);
    targets = admission
}
criterion_main!(benches);
