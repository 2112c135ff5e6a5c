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

use crate::alloc::{AllocSnapshot, installed};
use crate::args::{RunArgs, exit_with_usage_error};
use crate::footprint::Retained;
use crate::lab::{BenchCase, Experiment, Kind, Lab, Selection, Window, experiment};
use crate::latency::LatencySink;
use crate::record::{EventName, Metric, Record};
use crate::sampling::{SampleSource, Sampler};

mod pass;

pub use pass::{CASE_TIME, case_time_id, pass_main, timer_overhead_id};

/// Parses the binary's arguments and the filter words against `lab`, or exits with a clear error.
fn parse_args(lab: &dyn Lab) -> (RunArgs, Selection) {
    let args =
        RunArgs::parse(std::env::args().skip(1)).unwrap_or_else(|e| exit_with_usage_error(&e));
    let selection =
        Selection::parse(lab, &args.filters).unwrap_or_else(|e| exit_with_usage_error(&e));
    (args, selection)
}

/// What the allocation run watches between a window's edges: allocation counters and the live
/// heap's peak and, when asked, the process's CPU time and peak RSS.
#[derive(Default)]
struct Profile {
    process_costs: bool,
    opened: Option<(AllocSnapshot, Duration)>,
    closed: Option<(AllocSnapshot, Duration, Option<u64>)>,
    /// The operations done when the run ended at its budget ([`Window::completed`]).
    completed: Option<f64>,
}

impl Profile {
    /// Calls to divide this window's counts by: the operations done (every one asked for unless
    /// the run said otherwise; one when it did none) by every worker.
    fn calls(&self, asked: u64, workers: usize) -> f64 {
        let ops = self.completed.unwrap_or(asked as f64);
        (if ops > 0.0 { ops } else { 1.0 }) * workers as f64
    }
}

impl Window for Profile {
    fn open(&mut self) {
        if self.process_costs {
            crate::process::reset_peak_rss();
        }
        crate::alloc::reset_peak();
        self.opened = Some((AllocSnapshot::now(), crate::process::cpu_time()));
    }
    fn close(&mut self) {
        let snapshot = AllocSnapshot::now();
        let cpu = crate::process::cpu_time();
        let rss = self
            .process_costs
            .then(crate::process::peak_rss_bytes)
            .flatten();
        self.closed = Some((snapshot, cpu, rss));
    }
    fn latencies(&self) -> Option<Arc<LatencySink>> {
        None
    }
    fn count(&mut self, _: EventName, _: u64) {}
    fn completed(&mut self, ops: f64) {
        self.completed = Some(ops);
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
    let before_open = AllocSnapshot::now();
    let mut runner = lab.open(implementation, case)?;
    let mut window = Profile {
        process_costs: experiment.process_costs,
        ..Profile::default()
    };
    let parameter = experiment
        .parameter(&case.parameter)
        .ok_or_else(|| format!("{case} is not a case of {}", experiment.name))?;
    let ops = experiment.ops(budget).max(parameter.min_ops);
    let delta = |window: &Profile| match (window.opened, window.closed) {
        (Some((opened, cpu_opened)), Some((closed, cpu_closed, rss))) => Ok((
            opened.delta_to(&closed),
            cpu_closed.saturating_sub(cpu_opened),
            rss,
        )),
        _ => Err("the runner never opened and closed its window".to_owned()),
    };
    runner.run(experiment.window_warm_up, ops, &mut window);
    let (first, cpu, rss) = delta(&window)?;
    let id = case.id(implementation);
    if experiment.kind == Kind::Retained {
        return Ok(Retained::of(&first).records(id).to_vec());
    }
    // Steady-state counts come from a second window on the same runner after its warm-up, when
    // the experiment asks for one; CPU time and peak RSS stay the first window's. The peak heap
    // is the highest of every run (the first window, the warm-up runs, the second window),
    // above the live heap when the first window opened: under concurrent users one run's peak
    // depends on how their requests interleave, and the worst of several is what a memory
    // bound has to hold.
    let first_calls = window.calls(ops, parameter.workers);
    let (steady, steady_calls, peak_growth) = match (experiment.profile_warm_up, window.opened) {
        (0, _) | (_, None) => (first, first_calls, first.peak_growth),
        (warm_up, Some((start, _))) => {
            for _ in 0..warm_up {
                runner.run(experiment.window_warm_up, ops, &mut ());
            }
            // The high-water mark runs on from the first window's opening through the warm-up.
            let through_warm_up = AllocSnapshot::now();
            let mut again = Profile::default();
            runner.run(experiment.window_warm_up, ops, &mut again);
            let steady = delta(&again)?.0;
            let second_peak = again
                .closed
                .map_or(0, |(end, _, _)| start.delta_to(&end).peak_growth);
            let peak = first
                .peak_growth
                .max(start.delta_to(&through_warm_up).peak_growth)
                .max(second_peak);
            (steady, again.calls(ops, parameter.workers), peak)
        }
    };
    let mut records = vec![
        Record::new(
            id.clone(),
            Metric::AllocsPerOp,
            steady.allocations as f64 / steady_calls,
        ),
        Record::new(
            id.clone(),
            Metric::BytesPerOp,
            steady.bytes_allocated as f64 / steady_calls,
        ),
    ];
    if experiment.process_costs {
        records.push(Record::new(
            id.clone(),
            Metric::LargeAllocsPerOp,
            steady.large_allocations as f64 / steady_calls,
        ));
        records.push(Record::new(
            id.clone(),
            Metric::PeakHeapBytes,
            peak_growth as f64,
        ));
        records.push(Record::new(
            id.clone(),
            Metric::CpuNsPerOp,
            cpu.as_nanos() as f64 / first_calls,
        ));
        if let Some(rss) = rss {
            records.push(Record::new(id.clone(), Metric::PeakRssBytes, rss as f64));
        }
    }
    if experiment.footprint_at_end {
        let held = Retained::of(&before_open.delta_to(&AllocSnapshot::now()));
        records.extend(held.records(id));
    }
    Ok(records)
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
    let budget = lab.timing(args.mode()).profile_ops;
    let mut records = Vec::new();
    for implementation in lab.implementations() {
        if !selection.selects_implementation(implementation) {
            continue;
        }
        for experiment in lab.experiments() {
            for parameter in &experiment.parameters {
                if !selection.selects_case(experiment.name, &parameter.name)
                    || !experiment.measures(implementation)
                {
                    continue;
                }
                let case = BenchCase::new(experiment.name, &parameter.name);
                eprintln!("alloc: {}", case.id(implementation));
                let measured = allocation_records(lab, experiment, implementation, &case, budget)
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
/// latencies) and returns their wall time.
type TimedRun = Box<dyn FnMut(u64, &mut dyn Window) -> Duration>;

/// `implementation` opened on the timed `case`, as a [`TimedRun`]. Each run of a steady case
/// starts with an untimed quarter of its operations, so the caches hold this side again after
/// another side's sample (one-shots consume their setup, so they take none); with
/// `fresh_per_sample` every run opens a new instance.
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
    let mut runner = lab.open(implementation, case)?;
    if experiment.fresh_per_sample {
        // The instance opened to check the case opens is the first run's (opening one can be a
        // server generating its body); every later run opens its own.
        let mut first = Some(runner);
        let (implementation, case) = (implementation.to_owned(), case.clone());
        Ok(Box::new(move |ops, window| {
            let mut fresh = match first.take() {
                Some(opened) => opened,
                None => lab
                    .open(&implementation, &case)
                    .expect("opened once already"),
            };
            fresh.run(warm_up(ops), ops, window)
        }))
    } else {
        Ok(Box::new(move |ops, window| {
            runner.run(warm_up(ops), ops, window)
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
                && implementations.iter().all(|i| e.measures(i))
        }))
    }

    fn open(&self, implementation: &str, case: &BenchCase) -> Result<Sampler, String> {
        let experiment = experiment(self.0, &case.experiment)?;
        let min_ops = experiment
            .parameter(&case.parameter)
            .map_or(1, |p| p.min_ops);
        let mut run = open_timed(self.0, implementation, case)?;
        let ops = match experiment.kind {
            Kind::Steady => calibrate(&mut run, experiment, min_ops, PAIRED_SAMPLE),
            _ => experiment.ops(1),
        };
        Ok(Box::new(move || {
            run(ops, &mut ()).as_nanos() as f64 / ops as f64
        }))
    }
}

/// `main` of a lab's `compare` binary (see [`crate::sampling::compare_main`]).
pub fn compare_main(lab: &'static dyn Lab) {
    crate::sampling::compare_main(&LabSamples(lab));
}

/// Operations per sample of `run`, so that a sample's timed part lasts about `target` (see
/// [`calibrate_runs`]; the runs are also the cell's warm-up).
fn calibrate(run: &mut TimedRun, experiment: &Experiment, min_ops: u64, target: Duration) -> u64 {
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
    mut run: impl FnMut(u64) -> Duration,
    experiment: &Experiment,
    min_ops: u64,
    target: Duration,
    settle: Settle,
) -> u64 {
    let min = experiment.cap(min_ops.max(1));
    let mut ops = min;
    if target.is_zero() {
        return ops;
    }
    loop {
        let started = Instant::now();
        let timed = run(ops);
        let restores_dominate = started.elapsed() >= target * 4;
        let wanted = target.as_secs_f64() / timed.as_secs_f64().max(1e-9);
        if timed * 2 >= target || restores_dominate {
            if settle == Settle::OnFirstRun && ops == min {
                return ops;
            }
            let factor = if restores_dominate {
                wanted.min(1.0)
            } else {
                wanted
            };
            let scaled = (ops as f64 * factor).round() as u64;
            return experiment.cap(scaled.max(min));
        }
        let next = experiment.cap((ops as f64 * wanted.clamp(2.0, 16.0)).ceil() as u64);
        if next == ops {
            return ops;
        }
        ops = next;
    }
}

#[cfg(test)]
mod tests;
