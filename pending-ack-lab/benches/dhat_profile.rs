//! Writes a DHAT heap profile of one implementation running one scenario on one dataset, so a
//! reader can open it in the DHAT viewer (dh_view.html) and see which call site every allocated
//! byte comes from.
//!
//! Usage: `cargo bench -p pending-ack-lab --bench dhat_profile -- IMPLEMENTATION EXPERIMENT
//! DATASET [--out FILE] [--quick|--test]`. The profile covers the build, the warm-up and the
//! measured ops.

use std::hint::black_box;

use labkit::args::{RunArgs, exit_with_usage_error};
use pending_ack_lab::workload::{Dataset, Experiment, Workload};
use pending_ack_lab::{ImplementationVisitor, PendingAcks, visit_implementation};

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

struct Profile {
    experiment: Experiment,
    dataset: Dataset,
    ops: u64,
}

impl ImplementationVisitor for Profile {
    fn visit<M: PendingAcks>(&mut self) {
        let mut workload = Workload::<M>::prepare(self.experiment, self.dataset);
        let ops = Workload::<M>::warm_up_ops(self.experiment, self.dataset)
            + self.experiment.ops_for(self.ops);
        black_box(workload.run(ops));
    }
}

struct Noop;

impl ImplementationVisitor for Noop {
    fn visit<M: PendingAcks>(&mut self) {}
}

fn main() {
    let args =
        RunArgs::parse(std::env::args().skip(1)).unwrap_or_else(|e| exit_with_usage_error(&e));
    let [implementation, experiment, dataset] = args.filters.as_slice() else {
        exit_with_usage_error("usage: dhat_profile IMPLEMENTATION EXPERIMENT DATASET [--out FILE]");
    };
    let experiment = Experiment::find(experiment).unwrap_or_else(|e| exit_with_usage_error(&e));
    let dataset = Dataset::find(dataset).unwrap_or_else(|e| exit_with_usage_error(&e));
    // Check the name before the profiler starts, so a typo writes no file.
    visit_implementation(implementation, &mut Noop).unwrap_or_else(|e| exit_with_usage_error(&e));
    let out = args.out.clone().unwrap_or_else(|| {
        format!(
            "dhat-{implementation}-{}-{}.json",
            experiment.name(),
            dataset.name
        )
        .into()
    });
    let ops = args.by_mode(1_000, 20_000, 200_000);
    let profiler = dhat::Profiler::builder().file_name(&out).build();
    visit_implementation(
        implementation,
        &mut Profile {
            experiment,
            dataset,
            ops,
        },
    )
    .unwrap_or_else(|e| exit_with_usage_error(&e));
    drop(profiler);
    eprintln!("wrote {} (open it in DHAT's dh_view.html)", out.display());
}
