//! The `main` of every measurement binary, generic over a lab's description: a lab's `benches/`
//! files are two-line calls into here (plus the global allocator the binary needs).
//!
//! - [`pass_main`]: one pass of the wall-time stage: every implementation × every timed case, and
//!   the baseline's A/A twin, ids `<experiment>/<implementation>/<parameter>`.
//! - [`alloc_main`]: allocations and bytes per operation in steady state, and the heap retained
//!   by `Retained` experiments, with [`crate::alloc::CountingAlloc`] installed.
//! - [`dhat_profile_main`] (feature `dhat`): a DHAT heap profile of one implementation on one case.
//! - [`compare_main`]: paired comparisons and the sampling protocol ([`crate::sampling`]).
//! - Instruction counts: [`crate::instruction_benches!`].

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::args::{RunArgs, exit_with_usage_error};
use crate::lab::{
    BenchCase, Experiment, Kind, Lab, MeasuredHeap, Runner, Selection, Window, experiment, measures,
};
use crate::latency::LatencySink;
use crate::record::EventName;
use crate::sampling::{SampleSource, Sampler};

mod allocation;
mod pass;
mod printed;

pub use allocation::alloc_main;
pub use pass::{CASE_TIME, case_time_id, pass_main, timer_overhead_id};

/// Parses the binary's arguments and the filter words against `lab`, or exits with a clear error.
fn parse_args(lab: &dyn Lab) -> (RunArgs, Selection) {
    let args =
        RunArgs::parse(std::env::args().skip(1)).unwrap_or_else(|e| exit_with_usage_error(&e));
    let selection =
        Selection::parse(lab, &args.filters).unwrap_or_else(|e| exit_with_usage_error(&e));
    (args, selection)
}

/// `implementation` opened on `case` as one cell, by the lab's own `open`; a JVM design is JMH's
/// to measure, never a measurement binary's.
pub fn open_cell(
    lab: &dyn Lab,
    implementation: &str,
    case: &BenchCase,
) -> Result<Box<dyn Runner>, String> {
    if !runnable(lab, implementation) {
        return Err(format!(
            "`{implementation}` runs on the JVM: JMH measures it (`cargo xtask bench`)"
        ));
    }
    lab.open(implementation, case)
}

/// Whether a measurement binary measures `implementation`: every Rust design; the JVM designs are
/// measured by the driver with JMH and JOL ([`crate::jmh`]).
pub fn runnable(lab: &dyn Lab, implementation: &str) -> bool {
    !lab.jvm_designs().contains(&implementation)
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
            let owners: Vec<&Experiment> = lab
                .experiments()
                .iter()
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
    if lab.jvm_designs().contains(&implementation.as_str()) {
        exit_with_usage_error(&format!(
            "`{implementation}` runs on the JVM: DHAT profiles Rust's heap only"
        ));
    }
    let out = args.out.clone().unwrap_or_else(|| {
        format!(
            "dhat-{implementation}-{}-{}.json",
            case.experiment, case.parameter
        )
        .into()
    });
    let ops = experiment.ops(lab.timing(args.mode()).profile_ops);
    let profiler = dhat::Profiler::builder().file_name(&out).build();
    let mut runner = lab
        .open(implementation, &case)
        .unwrap_or_else(|e| exit_with_usage_error(&e));
    runner.run(experiment.window_warm_up.max(ops), ops, &mut ());
    drop(profiler);
    eprintln!("wrote {} (open it in DHAT's dh_view.html)", out.display());
}

/// The timed part of one paired-comparison sample, about (calibrated like a pass's samples).
const PAIRED_SAMPLE: Duration = Duration::from_millis(1);

/// One timed implementation on one case: runs the given number of operations with a window (for
/// latencies) and returns their wall time, or why the run failed ([`Window::failed`]).
type TimedRun = Box<dyn FnMut(u64, &mut dyn Window) -> Result<Duration, String>>;

/// A window that forwards everything to another and keeps a failure ([`Window::failed`]) for its
/// caller, so no failed run is taken for a time.
struct Watched<'a> {
    inner: &'a mut dyn Window,
    failure: Option<String>,
}

impl Window for Watched<'_> {
    fn open(&mut self) {
        self.inner.open();
    }
    fn close(&mut self) {
        self.inner.close();
    }
    fn latencies(&self) -> Option<Arc<LatencySink>> {
        self.inner.latencies()
    }
    fn count(&mut self, event: EventName, n: u64) {
        self.inner.count(event, n);
    }
    fn completed(&mut self, ops: f64) {
        self.inner.completed(ops);
    }
    fn heap_measured(&mut self, heap: MeasuredHeap) {
        self.inner.heap_measured(heap);
    }
    fn failed(&mut self, reason: String) {
        self.failure = Some(reason);
    }
}

/// One run of `runner` through [`Watched`]: its time, or its failure.
fn watched_run(
    runner: &mut dyn Runner,
    warm_up: u64,
    ops: u64,
    window: &mut dyn Window,
) -> Result<Duration, String> {
    let mut watched = Watched {
        inner: window,
        failure: None,
    };
    let elapsed = runner.run(warm_up, ops, &mut watched);
    watched.failure.map_or(Ok(elapsed), Err)
}

/// `implementation` opened on the timed `case`, as a [`TimedRun`]. Each run of a steady case starts with an untimed quarter of its operations, so
/// the caches hold this side again after another side's sample (one-shots consume their setup,
/// so they take none); with `fresh_per_sample` every run opens a new instance.
fn open_timed(
    lab: &'static dyn Lab,
    implementation: &str,
    case: &BenchCase,
) -> Result<TimedRun, String> {
    let experiment = experiment(lab, &case.experiment)?;
    if !experiment.is_timed() {
        return Err(format!("{case} is not timed"));
    }
    let (kind, window_warm_up) = (experiment.kind, experiment.window_warm_up);
    let warm_up = move |ops: u64| match kind {
        Kind::Steady => window_warm_up + ops / 4,
        _ => 0,
    };
    let mut runner = open_cell(lab, implementation, case)?;
    if experiment.fresh_per_sample {
        // The instance opened to check the case opens is the first run's (opening one can be a
        // server generating its body); every later run opens its own.
        let mut first = Some(runner);
        let (implementation, case) = (implementation.to_owned(), case.clone());
        Ok(Box::new(move |ops, window| {
            let mut fresh = match first.take() {
                Some(opened) => opened,
                None => open_cell(lab, &implementation, &case)?,
            };
            watched_run(fresh.as_mut(), warm_up(ops), ops, window)
        }))
    } else {
        Ok(Box::new(move |ops, window| {
            watched_run(runner.as_mut(), warm_up(ops), ops, window)
        }))
    }
}

/// A lab as a source of paired samples: its timed cases, each sample one measured run.
struct LabSamples(&'static dyn Lab);

impl SampleSource for LabSamples {
    fn cases(
        &self,
        implementations: &[&str],
        filters: &[String],
    ) -> Result<Vec<BenchCase>, String> {
        let selection = Selection::parse(self.0, filters)?;
        Ok(crate::lab::cases(self.0, |e, p| {
            e.is_timed()
                && selection.selects_case(e.name, &p.name)
                && implementations.iter().all(|i| measures(self.0, e, i))
        }))
    }

    fn open(&self, implementation: &str, case: &BenchCase) -> Result<Sampler, String> {
        let experiment = experiment(self.0, &case.experiment)?;
        let min_ops = experiment
            .parameter(&case.parameter)
            .map_or(1, |p| p.min_ops);
        let mut run = open_timed(self.0, implementation, case)?;
        let ops = match experiment.kind {
            Kind::Steady => calibrate(&mut run, experiment, min_ops, PAIRED_SAMPLE)?,
            _ => experiment.ops(1),
        };
        Ok(Box::new(move || {
            run(ops, &mut ()).map(|elapsed| elapsed.as_nanos() as f64 / ops as f64)
        }))
    }
}

/// `main` of a lab's `compare` binary (see [`crate::sampling::compare_main`]).
pub fn compare_main(lab: &'static dyn Lab) {
    crate::sampling::compare_main(&LabSamples(lab));
}

/// Operations per sample of `run`, so that a sample's timed part lasts about `target` (see
/// [`calibrate_runs`]; the runs are also the cell's warm-up).
fn calibrate(
    run: &mut TimedRun,
    experiment: &Experiment,
    min_ops: u64,
    target: Duration,
) -> Result<u64, String> {
    calibrate_runs(
        |ops| run(ops, &mut ()),
        experiment,
        min_ops,
        target,
        Settle::Scaled,
    )
}

/// Where calibration stops once a run's timed part reaches half the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Settle {
    /// Scaled from that run to the target: the runs are a warm-up, the samples come after.
    Scaled,
    /// At the parameter's minimum when the first run (of the minimum) already lasts that long,
    /// so that run can be kept as a sample; scaled otherwise. For an experiment whose every run
    /// opens a fresh instance: nothing to warm up, and a minimum run that long is a whole load,
    /// too long to throw away. Only a first run is kept, so a kept sample, like every other,
    /// follows other cells' runs and never its own.
    OnFirstRun,
}

/// Operations per sample of `run` (given operations, it returns their timed part), so that a
/// sample's timed part lasts about `target`: grown from the parameter's minimum by the factor the
/// last run asks for (2× to 16× a step) until a run's timed part lasts at least half of `target`,
/// then settled as `settle` says; growth also stops once a whole run (with untimed restores and
/// warm-up) takes four times `target` (it is not scaled up then), and at the experiment's cap. A
/// zero target runs nothing: every sample is the parameter's minimum (a lab whose minimum is
/// already a whole load run).
fn calibrate_runs(
    mut run: impl FnMut(u64) -> Result<Duration, String>,
    experiment: &Experiment,
    min_ops: u64,
    target: Duration,
    settle: Settle,
) -> Result<u64, String> {
    let min = experiment.cap(min_ops.max(1));
    let mut ops = min;
    if target.is_zero() {
        return Ok(ops);
    }
    loop {
        let started = Instant::now();
        let timed = run(ops)?;
        let restores_dominate = started.elapsed() >= target * 4;
        let wanted = target.as_secs_f64() / timed.as_secs_f64().max(1e-9);
        if timed * 2 >= target || restores_dominate {
            if settle == Settle::OnFirstRun && ops == min {
                return Ok(ops);
            }
            let factor = if restores_dominate {
                wanted.min(1.0)
            } else {
                wanted
            };
            let scaled = (ops as f64 * factor).round() as u64;
            return Ok(experiment.cap(scaled.max(min)));
        }
        let next = experiment.cap((ops as f64 * wanted.clamp(2.0, 16.0)).ceil() as u64);
        if next == ops {
            return Ok(ops);
        }
        ops = next;
    }
}

#[cfg(test)]
mod tests;
