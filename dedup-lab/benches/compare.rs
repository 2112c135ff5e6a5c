//! Paired comparison (`cargo xtask compare dedup A B [SHAPE...]`, or one implementation at two
//! git revisions with `--rev`): for each shape, samples of A and B interleaved A, B, B, A, … on
//! fresh deduplicators, so the per-pair ratio B / A is what the table reports
//! (`labkit::paired`, `labkit::sampling`).
//!
//! Usage: `cargo bench -p dedup-lab --bench compare -- A B [SHAPE...] [--quick|--test]
//! [--out FILE]`, or `-- --serve IMPL` for the sampling protocol.

use dedup_lab::workload::{SHAPES, Shape, run_window};
use dedup_lab::{ImplementationVisitor, SequenceDedup, visit_implementation};
use labkit::sampling::{BenchCase, SampleSource, Sampler, compare_main};

/// Admissions per thread in one sample, after as many untimed ones.
const SAMPLE_OPS: u64 = 20_000;

/// The only experiment: admission checks.
const EXPERIMENT: &str = "admission";

/// One sample: ns per admission of a fresh `D` running `shape`.
fn sample<D: SequenceDedup>(shape: Shape) -> f64 {
    let dedup = D::default();
    let mut workers = shape.prepare(&dedup);
    let window = run_window(&dedup, &mut workers, SAMPLE_OPS, SAMPLE_OPS, || {}, || {});
    window.as_nanos() as f64 / SAMPLE_OPS as f64
}

/// Opens a sampler of whichever implementation it visits.
struct Open {
    shape: Shape,
    sampler: Option<Sampler>,
}

impl ImplementationVisitor for Open {
    fn visit<D: SequenceDedup>(&mut self) {
        let shape = self.shape;
        self.sampler = Some(Box::new(move || sample::<D>(shape)));
    }
}

/// Admission on every shape (or on the shapes named).
struct DedupCases;

impl SampleSource for DedupCases {
    fn cases(&self, filters: &[String]) -> Result<Vec<BenchCase>, String> {
        let shapes: Vec<Shape> = if filters.is_empty() {
            SHAPES.to_vec()
        } else {
            filters
                .iter()
                .map(|s| Shape::parse(s))
                .collect::<Result<_, _>>()?
        };
        Ok(shapes
            .iter()
            .map(|s| BenchCase::new(EXPERIMENT, &s.name()))
            .collect())
    }

    fn open(&self, implementation: &str, case: &BenchCase) -> Result<Sampler, String> {
        if case.experiment != EXPERIMENT {
            return Err(format!(
                "unknown experiment `{}`; valid: {EXPERIMENT}",
                case.experiment
            ));
        }
        let mut open = Open {
            shape: Shape::parse(&case.parameter)?,
            sampler: None,
        };
        visit_implementation(implementation, &mut open)?;
        open.sampler
            .ok_or_else(|| format!("no sampler for `{implementation}`"))
    }
}

fn main() {
    compare_main(&DedupCases);
}
