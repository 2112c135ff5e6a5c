//! The allocation stage ([`alloc_main`]): allocations and bytes per operation in steady state,
//! the heap retained by `Retained` experiments and, where asked, what the whole process costs;
//! for a JVM design, what its JVM measured.

use std::sync::Arc;
use std::time::Duration;

use super::{open_cell, parse_args, runnable};
use crate::alloc::{AllocSnapshot, installed};
use crate::args::exit_with_usage_error;
use crate::footprint::Retained;
use crate::lab::{BenchCase, Experiment, Kind, Lab, MeasuredHeap, Window, measures};
use crate::latency::LatencySink;
use crate::record::{EventName, Metric, Record};

/// What the allocation run watches between a window's edges: allocation counters and the live
/// heap's peak and, when asked, the process's CPU time and peak RSS; or what the runtime that ran
/// the operations measured (a JVM design).
#[derive(Default)]
struct Profile {
    process_costs: bool,
    opened: Option<(AllocSnapshot, Duration)>,
    closed: Option<(AllocSnapshot, Duration, Option<u64>)>,
    /// The operations done when the run ended at its budget ([`Window::completed`]).
    completed: Option<f64>,
    /// The heap the runner's own runtime measured ([`Window::heap_measured`]).
    measured: Option<MeasuredHeap>,
    failure: Option<String>,
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
    fn heap_measured(&mut self, heap: MeasuredHeap) {
        self.measured = Some(heap);
    }
    fn failed(&mut self, reason: String) {
        self.failure = Some(reason);
    }
}

/// The allocation records of a runner whose own runtime measured its heap (a JVM design): bytes
/// per operation from what its measuring threads allocated (the JVM counts no allocations, only
/// bytes), or the bytes its built structure retains.
fn measured_heap_records(
    id: crate::record::BenchId,
    heap: MeasuredHeap,
    calls: f64,
) -> Vec<Record> {
    let mut records = Vec::new();
    if let Some(bytes) = heap.allocated_bytes {
        records.push(Record::new(
            id.clone(),
            Metric::BytesPerOp,
            bytes as f64 / calls,
        ));
    }
    if let Some(bytes) = heap.retained_bytes {
        records.push(Record::new(id, Metric::RetainedBytes, bytes as f64));
    }
    records
}

/// The allocation records of `implementation` on `case`.
pub(super) fn allocation_records(
    lab: &dyn Lab,
    experiment: &Experiment,
    implementation: &str,
    case: &BenchCase,
    budget: u64,
) -> Result<Vec<Record>, String> {
    let before_open = AllocSnapshot::now();
    let mut runner = open_cell(lab, implementation, case)?;
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
    if let Some(failure) = window.failure {
        return Err(failure);
    }
    let id = case.id(implementation);
    if let Some(heap) = window.measured {
        // Counted by the runtime that ran the operations, after the warm-up it runs itself.
        return Ok(measured_heap_records(
            id,
            heap,
            window.calls(ops, parameter.workers),
        ));
    }
    let (first, cpu, rss) = delta(&window)?;
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
    let per_op = |count: u64| count as f64 / steady_calls;
    let mut records = vec![
        Record::new(id.clone(), Metric::AllocsPerOp, per_op(steady.allocations)),
        Record::new(
            id.clone(),
            Metric::BytesPerOp,
            per_op(steady.bytes_allocated),
        ),
    ];
    if experiment.process_costs {
        records.extend(
            [
                (Metric::LargeAllocsPerOp, per_op(steady.large_allocations)),
                (Metric::PeakHeapBytes, peak_growth as f64),
                (Metric::CpuNsPerOp, cpu.as_nanos() as f64 / first_calls),
            ]
            .into_iter()
            .chain(rss.map(|rss| (Metric::PeakRssBytes, rss as f64)))
            .map(|(metric, value)| Record::new(id.clone(), metric, value)),
        );
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
        if !selection.selects_implementation(implementation) || !runnable(lab, implementation) {
            continue;
        }
        for experiment in lab.experiments() {
            for parameter in &experiment.parameters {
                if !selection.selects_case(experiment.name, &parameter.name)
                    || !measures(lab, experiment, implementation)
                {
                    continue;
                }
                let case = BenchCase::new(experiment.name, &parameter.name);
                eprintln!("alloc: {}", case.id(implementation));
                match allocation_records(lab, experiment, implementation, &case, budget) {
                    Ok(measured) => records.extend(measured),
                    Err(e) => exit_with_usage_error(&e),
                }
            }
        }
    }
    crate::record::emit_records(args.out.as_deref(), &records)
        .unwrap_or_else(|e| exit_with_usage_error(&e));
}
