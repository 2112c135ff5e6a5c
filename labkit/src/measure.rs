//! The `main` of every measurement binary, generic over a lab's description: a lab's `benches/`
//! files are two-line calls into here (plus the global allocator the binary needs).
//!
//! - [`time_main`] (feature `criterion`): wall time per operation, every implementation × every
//!   timed case, ids `<experiment>/<implementation>/<parameter>`.
//! - [`alloc_main`]: allocations and bytes per operation in steady state, and the heap retained
//!   by `Retained` experiments, with [`crate::alloc::CountingAlloc`] installed.
//! - [`dhat_profile_main`] (feature `dhat`): a DHAT heap profile of one implementation on one case.
//! - [`compare_main`]: paired comparisons and the sampling protocol ([`crate::sampling`]).
//! - Instruction counts: [`crate::instruction_benches!`].

use std::time::Duration;

use crate::alloc::{AllocSnapshot, installed};
use crate::args::{RunArgs, exit_with_usage_error};
use crate::footprint::Retained;
use crate::lab::{BenchCase, Experiment, Kind, Lab, Selection, Window, experiment};
use crate::record::{Metric, Record};
use crate::sampling::{SampleSource, Sampler};

/// Operations per allocation-measurement run (steady experiments; one-shots do one).
fn allocation_ops(args: &RunArgs) -> u64 {
    args.by_mode(1_000, 20_000, 200_000)
}

/// Parses the binary's arguments and the filter words against `lab`, or exits with a clear error.
fn parse_args(lab: &dyn Lab) -> (RunArgs, Selection) {
    let args =
        RunArgs::parse(std::env::args().skip(1)).unwrap_or_else(|e| exit_with_usage_error(&e));
    let selection =
        Selection::parse(lab, &args.filters).unwrap_or_else(|e| exit_with_usage_error(&e));
    (args, selection)
}

/// Allocation snapshots at a window's edges.
#[derive(Default)]
struct Snapshots {
    opened: Option<AllocSnapshot>,
    closed: Option<AllocSnapshot>,
}

impl Window for Snapshots {
    fn open(&mut self) {
        self.opened = Some(AllocSnapshot::now());
    }
    fn close(&mut self) {
        self.closed = Some(AllocSnapshot::now());
    }
}

impl Snapshots {
    fn delta(&self) -> Result<crate::alloc::AllocDelta, String> {
        match (self.opened, self.closed) {
            (Some(opened), Some(closed)) => Ok(opened.delta_to(&closed)),
            _ => Err("the runner never opened and closed its window".into()),
        }
    }
}

/// The allocation records of `implementation` on `case`.
fn allocation_records(
    lab: &dyn Lab,
    experiment: &Experiment,
    implementation: &str,
    case: &BenchCase,
    budget: u64,
) -> Result<Vec<Record>, String> {
    let mut runner = lab.open(implementation, case)?;
    let mut window = Snapshots::default();
    let ops = experiment.ops(budget);
    runner.run(experiment.window_warm_up, ops, &mut window);
    let delta = window.delta()?;
    let id = case.id(implementation);
    if experiment.kind == Kind::Retained {
        let retained = Retained {
            bytes: delta.live_bytes.max(0) as u64,
            usable_bytes: delta.live_usable_bytes.max(0) as u64,
        };
        return Ok(retained.records(id).to_vec());
    }
    let threads = experiment
        .parameter(&case.parameter)
        .map_or(1, |p| p.threads);
    let calls = (ops * threads as u64) as f64;
    Ok(vec![
        Record::new(
            id.clone(),
            Metric::AllocsPerOp,
            delta.allocations as f64 / calls,
        ),
        Record::new(id, Metric::BytesPerOp, delta.bytes_allocated as f64 / calls),
    ])
}

/// `main` of a lab's `alloc` binary: `[--out FILE] [--quick|--test] [NAME...]`, NAMEs selecting
/// implementations, experiments and parameters. Needs `CountingAlloc` as the global allocator.
pub fn alloc_main(lab: &dyn Lab) {
    let (args, selection) = parse_args(lab);
    if !installed() {
        exit_with_usage_error(
            "labkit::alloc::CountingAlloc is not the global allocator of this binary",
        );
    }
    let budget = allocation_ops(&args);
    let mut records = Vec::new();
    for implementation in lab.implementations() {
        if !selection.selects_implementation(implementation) {
            continue;
        }
        for experiment in lab.experiments() {
            for parameter in &experiment.parameters {
                if !selection.selects_case(experiment.name, &parameter.name) {
                    continue;
                }
                let case = BenchCase::new(experiment.name, &parameter.name);
                eprintln!("alloc: {}", case.id(implementation));
                let measured = allocation_records(lab, &experiment, implementation, &case, budget)
                    .unwrap_or_else(|e| exit_with_usage_error(&e));
                records.extend(measured);
            }
        }
    }
    crate::record::emit_records(args.out.as_deref(), &records)
        .unwrap_or_else(|e| exit_with_usage_error(&e));
}

#[cfg(any(feature = "dhat", test))]
/// The case named by `words` (`PARAMETER` when only one timed experiment has it, or
/// `EXPERIMENT PARAMETER`).
fn named_case(lab: &dyn Lab, words: &[String]) -> Result<BenchCase, String> {
    match words {
        [experiment_name, parameter] => {
            let e = experiment(lab, experiment_name)?;
            e.parameter(parameter)
                .ok_or_else(|| format!("`{parameter}` is not a parameter of {experiment_name}"))?;
            Ok(BenchCase::new(e.name, parameter))
        }
        [parameter] => {
            let owners: Vec<Experiment> = lab
                .experiments()
                .into_iter()
                .filter(|e| e.is_timed() && e.parameter(parameter).is_some())
                .collect();
            match owners.as_slice() {
                [only] => Ok(BenchCase::new(only.name, parameter)),
                [] => Err(format!(
                    "`{parameter}` is not a parameter of a timed experiment"
                )),
                several => {
                    let names: Vec<&str> = several.iter().map(|e| e.name).collect();
                    Err(format!(
                        "`{parameter}` belongs to several experiments; name one of: {}",
                        names.join(", ")
                    ))
                }
            }
        }
        _ => Err("usage: IMPLEMENTATION [EXPERIMENT] PARAMETER [--out FILE]".into()),
    }
}

/// `main` of a lab's `dhat_profile` binary: `IMPLEMENTATION [EXPERIMENT] PARAMETER [--out FILE]
/// [--quick|--test]`. The profile covers opening the case, a warm-up and the measured operations;
/// it opens in DHAT's `dh_view.html`. Needs `dhat::Alloc` as the global allocator.
#[cfg(feature = "dhat")]
pub fn dhat_profile_main(lab: &dyn Lab) {
    let args =
        RunArgs::parse(std::env::args().skip(1)).unwrap_or_else(|e| exit_with_usage_error(&e));
    let Some((implementation, words)) = args.filters.split_first() else {
        exit_with_usage_error("usage: IMPLEMENTATION [EXPERIMENT] PARAMETER [--out FILE]");
    };
    // Everything is checked before the profiler starts, so a typo writes no file.
    let case = named_case(lab, words).unwrap_or_else(|e| exit_with_usage_error(&e));
    let experiment =
        experiment(lab, &case.experiment).unwrap_or_else(|e| exit_with_usage_error(&e));
    crate::lab::resolve(lab, implementation, &case).unwrap_or_else(|e| exit_with_usage_error(&e));
    let out = args.out.clone().unwrap_or_else(|| {
        format!(
            "dhat-{implementation}-{}-{}.json",
            case.experiment, case.parameter
        )
        .into()
    });
    let ops = experiment.ops(args.by_mode(1_000, 20_000, 200_000));
    let profiler = dhat::Profiler::builder().file_name(&out).build();
    let mut runner = lab
        .open(implementation, &case)
        .unwrap_or_else(|e| exit_with_usage_error(&e));
    runner.run(experiment.window_warm_up.max(ops), ops, &mut ());
    drop(runner);
    drop(profiler);
    eprintln!("wrote {} (open it in DHAT's dh_view.html)", out.display());
}

/// Single operations in one paired-comparison sample (cleanups: one call; scans: capped).
const SAMPLE_OPS: u64 = 20_000;

/// A lab as a source of paired samples: its timed cases, each sample one measured run.
struct LabSamples(&'static dyn Lab);

impl SampleSource for LabSamples {
    fn cases(&self, filters: &[String]) -> Result<Vec<BenchCase>, String> {
        let selection = Selection::parse(self.0, filters)?;
        Ok(crate::lab::cases(self.0, |e, p| {
            e.is_timed() && selection.selects_case(e.name, &p.name)
        }))
    }

    fn open(&self, implementation: &str, case: &BenchCase) -> Result<Sampler, String> {
        let lab = self.0;
        let experiment = experiment(lab, &case.experiment)?;
        if !experiment.is_timed() {
            return Err(format!("{case} is not timed"));
        }
        let ops = experiment.ops(SAMPLE_OPS);
        // An untimed quarter-sample first, so the caches hold this side again after the other
        // side's sample (one-shots consume their setup, so they take none).
        let warm_up = match experiment.kind {
            Kind::Steady => experiment.window_warm_up + ops / 4,
            _ => 0,
        };
        let per_op = move |elapsed: Duration| elapsed.as_nanos() as f64 / ops as f64;
        if experiment.fresh_per_sample {
            lab.open(implementation, case)?;
            let (implementation, case) = (implementation.to_owned(), case.clone());
            Ok(Box::new(move || {
                let mut runner = lab
                    .open(&implementation, &case)
                    .expect("opened once already");
                per_op(runner.run(warm_up, ops, &mut ()))
            }))
        } else {
            let mut runner = lab.open(implementation, case)?;
            Ok(Box::new(move || per_op(runner.run(warm_up, ops, &mut ()))))
        }
    }
}

/// `main` of a lab's `compare` binary (see [`crate::sampling::compare_main`]).
pub fn compare_main(lab: &'static dyn Lab) {
    crate::sampling::compare_main(&LabSamples(lab));
}

/// `main` of a lab's `time` binary: criterion over every implementation × every timed case.
/// Criterion's own arguments apply (`--warm-up-time`, a filter regex, ...). Cases are the outer
/// loop, so the columns of one row run close together in time.
#[cfg(feature = "criterion")]
pub fn time_main(lab: &'static dyn Lab) {
    use criterion::{BenchmarkId, Criterion, Throughput};

    let mut criterion = Criterion::default()
        .noise_threshold(0.03)
        .configure_from_args();
    for experiment in lab.experiments().into_iter().filter(Experiment::is_timed) {
        let mut group = criterion.benchmark_group(experiment.name);
        let concurrent = experiment.parameters.iter().any(|p| p.threads > 1);
        for parameter in &experiment.parameters {
            if concurrent {
                group.throughput(Throughput::Elements(parameter.threads as u64));
            }
            let case = BenchCase::new(experiment.name, &parameter.name);
            for implementation in lab.implementations() {
                let open = || {
                    lab.open(implementation, &case)
                        .unwrap_or_else(|e| exit_with_usage_error(&e))
                };
                let warm_up = experiment.window_warm_up;
                let id = BenchmarkId::new(implementation, &parameter.name);
                if experiment.fresh_per_sample {
                    group.bench_function(id, |b| {
                        b.iter_custom(|iters| open().run(warm_up, iters, &mut ()))
                    });
                } else {
                    // Opened only when criterion's filter runs this benchmark.
                    let mut runner = None;
                    group.bench_function(id, |b| {
                        let runner = runner.get_or_insert_with(open);
                        b.iter_custom(|iters| runner.run(warm_up, iters, &mut ()))
                    });
                }
            }
        }
        group.finish();
    }
    criterion.final_summary();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::tests::TINY;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_case_is_named_by_its_parameter_when_that_is_unambiguous() {
        assert_eq!(
            named_case(&TINY, &words(&["shared-4"])).unwrap(),
            BenchCase::new("op", "shared-4")
        );
        let err = named_case(&TINY, &words(&["small"])).unwrap_err();
        assert!(err.contains("name one of: op, cleanup"), "{err}");
        assert_eq!(
            named_case(&TINY, &words(&["cleanup", "small"])).unwrap(),
            BenchCase::new("cleanup", "small")
        );
        assert!(
            named_case(&TINY, &words(&["big"])).is_err(),
            "retained only"
        );
        assert!(named_case(&TINY, &[]).unwrap_err().contains("usage"));
    }

    #[test]
    fn samples_come_from_timed_cases_only() {
        let source = LabSamples(&TINY);
        assert_eq!(source.cases(&[]).unwrap().len(), 3);
        assert_eq!(source.cases(&words(&["cleanup"])).unwrap().len(), 1);
        assert!(source.cases(&words(&["nope"])).is_err());
        let mut sample = source.open("fast", &BenchCase::new("op", "small")).unwrap();
        assert_eq!(sample(), 1.0, "the idle runner reports 1 ns per op");
        assert!(
            source
                .open("fast", &BenchCase::new("footprint", "big"))
                .is_err()
        );
    }
}
