//! Instructions per admission (callgrind through gungraun): deterministic, so it is the metric a
//! regression gate can use on a noisy machine. Single-thread shapes only: valgrind serialises
//! threads, so contended counts would measure its scheduler.
//!
//! Dimensions: implementation (`dedup_lab::with_implementations!`) × shape {`single`,
//! `duplicate`}. Each benchmark runs `OPS` admissions after an uncounted setup and warm-up.

use std::hint::black_box;

use dedup_lab::workload::{Shape, Worker};
use dedup_lab::{SequenceDedup, with_implementations};
use gungraun::{library_benchmark, library_benchmark_group, main};

/// Admissions per counted run; the report divides by it.
const OPS: u64 = 1_000;

/// A warmed-up deduplicator and its single worker, built outside the counted region.
fn prepare<D: SequenceDedup>(shape: Shape) -> (D, Worker<D>) {
    let dedup = D::default();
    let mut worker = shape
        .prepare(&dedup)
        .pop()
        .expect("single-thread shapes have one worker");
    worker.run(&dedup, OPS);
    (dedup, worker)
}

macro_rules! instruction_benches {
    ($($module:ident => $ty:path),* $(,)?) => {
        $(
            #[library_benchmark]
            #[bench::single(args = (Shape::Single), setup = prepare::<$ty>)]
            #[bench::duplicate(args = (Shape::Duplicate), setup = prepare::<$ty>)]
            fn $module(prepared: ($ty, Worker<$ty>)) -> ($ty, Worker<$ty>) {
                let (dedup, mut worker) = prepared;
                black_box(worker.run(&dedup, OPS));
                (dedup, worker) // dropped outside the counted region
            }
        )*

        library_benchmark_group!(name = admission; benchmarks = $($module),*);
    };
}
with_implementations!(instruction_benches);

main!(library_benchmark_groups = admission);
