//! Writes a DHAT heap profile of one implementation running one shape, so a reader can open it in
//! the DHAT viewer (dh_view.html) and see which call site every allocated byte comes from.
//!
//! Usage: `cargo bench -p dedup-lab --bench dhat_profile -- IMPLEMENTATION SHAPE [--out FILE]
//! [--quick|--test]`. The profile covers setup, a warm-up window and a measured window.

use dedup_lab::workload::{Shape, run_window};
use dedup_lab::{ImplementationVisitor, SequenceDedup, visit_implementation};
use labkit::args::{RunArgs, exit_with_usage_error};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

struct Profile {
    shape: Shape,
    ops: u64,
}

impl ImplementationVisitor for Profile {
    fn visit<D: SequenceDedup>(&mut self) {
        let dedup = D::default();
        let mut workers = self.shape.prepare(&dedup);
        run_window(&dedup, &mut workers, self.ops, self.ops, || {}, || {});
    }
}

fn main() {
    let args =
        RunArgs::parse(std::env::args().skip(1)).unwrap_or_else(|e| exit_with_usage_error(&e));
    let [implementation, shape] = args.filters.as_slice() else {
        exit_with_usage_error("usage: dhat_profile IMPLEMENTATION SHAPE [--out FILE]");
    };
    let shape = Shape::parse(shape).unwrap_or_else(|e| exit_with_usage_error(&e));
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| format!("dhat-{implementation}-{}.json", shape.name()).into());
    let ops = args.by_mode(200, 2_000, 20_000);
    let mut profile = Profile { shape, ops };
    // Check the name before the profiler starts, so a typo writes no file.
    visit_implementation(implementation, &mut Noop).unwrap_or_else(|e| exit_with_usage_error(&e));
    let profiler = dhat::Profiler::builder().file_name(&out).build();
    visit_implementation(implementation, &mut profile)
        .unwrap_or_else(|e| exit_with_usage_error(&e));
    drop(profiler);
    eprintln!("wrote {} (open it in DHAT's dh_view.html)", out.display());
}

struct Noop;

impl ImplementationVisitor for Noop {
    fn visit<D: SequenceDedup>(&mut self) {}
}
