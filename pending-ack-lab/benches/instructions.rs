//! Instructions per op (callgrind through gungraun): deterministic, so it is the metric a
//! regression gate can use on a noisy machine.
//!
//! Dimensions: experiment (one gungraun group each, named like the experiment) × implementation
//! (`pending_ack_lab::with_implementations!`, one function each, named like its module) ×
//! dataset (bench ids: the dataset name as an identifier, `50k-in-1` → `_50k_in_1`). Each run
//! counts `Experiment::ops_for(COUNTED_OPS)` ops after an uncounted setup and warm-up; the map is returned
//! so its drop is not counted. Datasets are the seed's headline ones (1 and 20 ledgers) to keep
//! the valgrind time short; criterion covers every dataset.

use std::hint::black_box;

use gungraun::{library_benchmark, library_benchmark_group, main};
use pending_ack_lab::workload::{COUNTED_OPS, Dataset, Experiment, Workload};
use pending_ack_lab::{PendingAcks, with_implementations};

/// A warmed-up workload, built outside the counted region. `dataset` is the bench id
/// (`_50k_in_1`).
fn prepare<M: PendingAcks>(experiment: Experiment, dataset: &str) -> Workload<M> {
    let name = dataset.trim_start_matches('_').replace('_', "-");
    let dataset = Dataset::find(&name).expect("bench ids name datasets");
    let mut workload = Workload::prepare(experiment, dataset);
    black_box(workload.run(Workload::<M>::warm_up_ops(experiment, dataset)));
    workload
}

/// One function per implementation in one experiment's module, with one bench per dataset. The
/// bench ids are spelled out here: gungraun's generated code only resolves ids written in the
/// same macro as `#[library_benchmark]`.
macro_rules! counted {
    ($experiment:ident, headline, $module:ident, $ty:path) => {
        #[library_benchmark]
        #[bench::_50k_in_1(args = (Experiment::$experiment, "_50k_in_1"), setup = prepare::<$ty>)]
        #[bench::_50k_in_20(args = (Experiment::$experiment, "_50k_in_20"), setup = prepare::<$ty>)]
        fn $module(workload: Workload<$ty>) -> Workload<$ty> {
            let mut workload = workload;
            black_box(workload.run(Experiment::$experiment.ops_for(COUNTED_OPS)));
            workload
        }
    };
    ($experiment:ident, single_ledger, $module:ident, $ty:path) => {
        #[library_benchmark]
        #[bench::_50k_in_1(args = (Experiment::$experiment, "_50k_in_1"), setup = prepare::<$ty>)]
        fn $module(workload: Workload<$ty>) -> Workload<$ty> {
            let mut workload = workload;
            black_box(workload.run(Experiment::$experiment.ops_for(COUNTED_OPS)));
            workload
        }
    };
}

/// A module holding the group `$group` for one experiment over every implementation.
macro_rules! experiment_group {
    ($module_name:ident, $group:ident, $experiment:ident, $datasets:ident;
     $($module:ident => $ty:path),* $(,)?) => {
        mod $module_name {
            use super::*;
            $(counted!($experiment, $datasets, $module, $ty);)*
            library_benchmark_group!(name = $group; benchmarks = $($module),*);
        }
        use $module_name::$group;
    };
}

macro_rules! all_groups {
    ($($list:tt)*) => {
        experiment_group!(cycle, dispatch_and_ack_cycle, DispatchAndAckCycle,
            headline; $($list)*);
        experiment_group!(partial, dispatch_ack_and_partial_ack_cycle,
            DispatchAckAndPartialAckCycle, headline; $($list)*);
        experiment_group!(shuffled, shuffled_ack_cycle, ShuffledAckCycle,
            headline; $($list)*);
        experiment_group!(cleanup, remove_all_up_to, RemoveAllUpTo,
            headline; $($list)*);
        experiment_group!(prefix, same_ledger_small_prefix, SameLedgerSmallPrefix,
            single_ledger; $($list)*);
        experiment_group!(probe, same_ledger_before_window, SameLedgerBeforeWindow,
            single_ledger; $($list)*);
        experiment_group!(replace, add_or_replace, AddOrReplace,
            headline; $($list)*);
        experiment_group!(readd, remove_and_add, RemoveAndAdd,
            headline; $($list)*);
        experiment_group!(update, update_remaining, UpdateRemaining,
            headline; $($list)*);
        experiment_group!(contains, contains_hit, ContainsHit,
            headline; $($list)*);
        experiment_group!(lookup, get_remaining_hit, GetRemainingHit,
            headline; $($list)*);
        experiment_group!(scan, for_each_scan, ForEachScan,
            headline; $($list)*);
    };
}
with_implementations!(all_groups);

main!(
    library_benchmark_groups = dispatch_and_ack_cycle,
    dispatch_ack_and_partial_ack_cycle,
    shuffled_ack_cycle,
    remove_all_up_to,
    same_ledger_small_prefix,
    same_ledger_before_window,
    add_or_replace,
    remove_and_add,
    update_remaining,
    contains_hit,
    get_remaining_hit,
    for_each_scan
);
