//! Allocation and footprint runs, with the counting allocator in its own process (timing binaries
//! never carry it).
//!
//! - `admission/<implementation>/<shape>`: allocations and bytes per admission in steady state,
//!   over a measured window after a warm-up window on the same threads.
//! - `footprint/<implementation>/<n>-producers`: heap retained by a deduplicator that has admitted
//!   one message from each of n producers.
//!
//! Usage: `cargo bench -p dedup-lab --bench alloc -- [--out FILE] [--quick|--test] [NAME...]`,
//! where NAMEs select implementations and shapes.

use dedup_lab::workload::{SHAPES, Shape, run_window};
use dedup_lab::{ImplementationVisitor, SequenceBatch, SequenceDedup, for_each_implementation};
use labkit::alloc::{AllocSnapshot, CountingAlloc};
use labkit::args::{RunArgs, exit_with_usage_error};
use labkit::footprint::retained_by;
use labkit::record::{BenchId, Metric, Record};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// The experiments this binary measures; also accepted as filters.
const EXPERIMENTS: [&str; 2] = ["admission", "footprint"];

/// Producer counts for the footprint experiment.
const FOOTPRINT_PRODUCERS: [usize; 3] = [1, 500, 10_000];

struct Measure {
    args: RunArgs,
    ops: u64,
    records: Vec<Record>,
}

impl Measure {
    fn allocations<D: SequenceDedup>(&mut self, shape: Shape) {
        let dedup = D::default();
        let mut workers = shape.prepare(&dedup);
        let (mut before, mut after) = (None, None);
        run_window(
            &dedup,
            &mut workers,
            self.ops,
            self.ops,
            || before = Some(AllocSnapshot::now()),
            || after = Some(AllocSnapshot::now()),
        );
        let delta = before
            .expect("window opened")
            .delta_to(&after.expect("window closed"));
        let calls = (self.ops * shape.threads() as u64) as f64;
        let id = BenchId::new("admission", D::NAME, &shape.name());
        self.records.push(Record::new(
            id.clone(),
            Metric::AllocsPerOp,
            delta.allocations as f64 / calls,
        ));
        self.records.push(Record::new(
            id,
            Metric::BytesPerOp,
            delta.bytes_allocated as f64 / calls,
        ));
    }

    fn footprint<D: SequenceDedup>(&mut self, producers: usize) {
        let names: Vec<String> = (0..producers).map(|i| format!("producer-{i}")).collect();
        let first = SequenceBatch::single(0).expect("0 is a valid id");
        let built = retained_by(|| {
            let dedup = D::default();
            for name in &names {
                dedup.admit(&dedup.connect(name), first);
            }
            dedup
        });
        let (dedup, retained) = built.unwrap_or_else(|e| exit_with_usage_error(&e.to_string()));
        drop(dedup);
        let id = BenchId::new("footprint", D::NAME, &format!("{producers}-producers"));
        self.records.extend(retained.records(id));
    }
}

impl ImplementationVisitor for Measure {
    fn visit<D: SequenceDedup>(&mut self) {
        let implementations = dedup_lab::implementation_names();
        if !self.args.selects(&implementations, D::NAME) {
            return;
        }
        let shapes: Vec<String> = SHAPES.iter().map(|s| s.name()).collect();
        let shapes: Vec<&str> = shapes.iter().map(String::as_str).collect();
        if self.args.selects(&EXPERIMENTS, "admission") {
            for shape in SHAPES {
                if self.args.selects(&shapes, &shape.name()) {
                    eprintln!("alloc: admission/{}/{}", D::NAME, shape.name());
                    self.allocations::<D>(shape);
                }
            }
        }
        if self.args.selects(&EXPERIMENTS, "footprint") {
            for producers in FOOTPRINT_PRODUCERS {
                eprintln!("alloc: footprint/{}/{producers}-producers", D::NAME);
                self.footprint::<D>(producers);
            }
        }
    }
}

fn main() {
    let args =
        RunArgs::parse(std::env::args().skip(1)).unwrap_or_else(|e| exit_with_usage_error(&e));
    let shapes: Vec<String> = SHAPES.iter().map(|s| s.name()).collect();
    let mut valid = dedup_lab::implementation_names();
    valid.extend(shapes.iter().map(String::as_str));
    valid.extend(EXPERIMENTS);
    args.check_filters(&valid)
        .unwrap_or_else(|e| exit_with_usage_error(&e));
    let ops = args.by_mode(200, 20_000, 200_000);
    let mut measure = Measure {
        args,
        ops,
        records: Vec::new(),
    };
    for_each_implementation(&mut measure);
    labkit::record::emit_records(measure.args.out.as_deref(), &measure.records)
        .unwrap_or_else(|e| exit_with_usage_error(&e));
}
