//! Paired comparison of two implementations (`cargo xtask compare dedup A B [SHAPE...]`): for
//! each shape, samples of A and B interleaved A, B, B, A, … on fresh deduplicators, so the
//! per-pair ratio B / A is what the table reports (`labkit::paired`).
//!
//! Usage: `cargo bench -p dedup-lab --bench compare -- A B [SHAPE...] [--quick|--test]
//! [--out FILE]`.

use dedup_lab::workload::{SHAPES, Shape, run_window};
use dedup_lab::{PairVisitor, SequenceDedup, visit_pair};
use labkit::args::{RunArgs, exit_with_usage_error};
use labkit::paired::{interleave, paired_records};
use labkit::record::Record;

/// Admissions per thread in one sample, after as many untimed ones.
const SAMPLE_OPS: u64 = 20_000;

/// One sample: ns per admission of a fresh `D` running `shape`.
fn sample<D: SequenceDedup>(shape: Shape) -> f64 {
    let dedup = D::default();
    let mut workers = shape.prepare(&dedup);
    let window = run_window(&dedup, &mut workers, SAMPLE_OPS, SAMPLE_OPS, || {}, || {});
    window.as_nanos() as f64 / SAMPLE_OPS as f64
}

struct Compare<'a> {
    shapes: &'a [Shape],
    pairs: usize,
    records: Vec<Record>,
}

impl PairVisitor for Compare<'_> {
    fn visit<A: SequenceDedup, B: SequenceDedup>(&mut self) {
        for &shape in self.shapes {
            eprintln!(
                "compare: admission/{} vs {}/{}",
                A::NAME,
                B::NAME,
                shape.name()
            );
            let estimate = interleave(self.pairs, || sample::<A>(shape), || sample::<B>(shape))
                .expect("at least 6 pairs");
            self.records.extend(paired_records(
                "admission",
                A::NAME,
                B::NAME,
                &shape.name(),
                &estimate,
            ));
        }
    }
}

fn main() {
    let args =
        RunArgs::parse(std::env::args().skip(1)).unwrap_or_else(|e| exit_with_usage_error(&e));
    let [a, b, shape_names @ ..] = args.filters.as_slice() else {
        exit_with_usage_error("usage: compare A B [SHAPE...] [--quick|--test] [--out FILE]");
    };
    let shapes: Vec<Shape> = if shape_names.is_empty() {
        SHAPES.to_vec()
    } else {
        shape_names
            .iter()
            .map(|s| Shape::parse(s).unwrap_or_else(|e| exit_with_usage_error(&e)))
            .collect()
    };
    let pairs = args.by_mode(6, 20, 60);
    let mut compare = Compare {
        shapes: &shapes,
        pairs,
        records: Vec::new(),
    };
    visit_pair(a, b, &mut compare).unwrap_or_else(|e| exit_with_usage_error(&e));
    labkit::record::emit_records(args.out.as_deref(), &compare.records)
        .unwrap_or_else(|e| exit_with_usage_error(&e));
}
