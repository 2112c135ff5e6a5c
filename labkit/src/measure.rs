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
use crate::lab::{
    BenchCase, Experiment, Kind, Lab, LatencyRecording, Selection, Timing, Window, experiment,
    slowed_twin_of,
};
use crate::latency::{Latencies, LatencySink};
use crate::paired::median;
use crate::record::{BenchId, EventName, Metric, Record};
use crate::sampling::{SampleSource, Sampler};

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
    // the experiment asks for one; the process's peaks and CPU time stay the first window's.
    let steady = if experiment.profile_warm_up > 0 {
        for _ in 0..experiment.profile_warm_up {
            runner.run(experiment.window_warm_up, ops, &mut ());
        }
        let mut again = Profile::default();
        runner.run(experiment.window_warm_up, ops, &mut again);
        delta(&again)?.0
    } else {
        first
    };
    let calls = (ops * parameter.workers as u64) as f64;
    let mut records = vec![
        Record::new(
            id.clone(),
            Metric::AllocsPerOp,
            steady.allocations as f64 / calls,
        ),
        Record::new(
            id.clone(),
            Metric::BytesPerOp,
            steady.bytes_allocated as f64 / calls,
        ),
    ];
    if experiment.process_costs {
        records.push(Record::new(
            id.clone(),
            Metric::LargeAllocsPerOp,
            steady.large_allocations as f64 / calls,
        ));
        records.push(Record::new(
            id.clone(),
            Metric::PeakHeapBytes,
            first.peak_growth as f64,
        ));
        records.push(Record::new(
            id.clone(),
            Metric::CpuNsPerOp,
            cpu.as_nanos() as f64 / calls,
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
        drop(runner);
        let (implementation, case) = (implementation.to_owned(), case.clone());
        Ok(Box::new(move |ops, window| {
            let mut fresh = lab
                .open(&implementation, &case)
                .expect("opened once already");
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
    fn cases(&self, filters: &[String]) -> Result<Vec<BenchCase>, String> {
        let selection = Selection::parse(self.0, filters)?;
        Ok(crate::lab::cases(self.0, |e, p| {
            e.is_timed() && selection.selects_case(e.name, &p.name)
        }))
    }

    fn open(&self, implementation: &str, case: &BenchCase) -> Result<Sampler, String> {
        let experiment = experiment(self.0, &case.experiment)?;
        let min_ops = experiment
            .parameter(&case.parameter)
            .map_or(1, |p| p.min_ops);
        let mut run = open_timed(self.0, implementation, case)?;
        let ops = match experiment.kind {
            Kind::Steady => calibrate(&mut run, &experiment, min_ops, PAIRED_SAMPLE),
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

/// Where one pass's data lands and in which order it runs: a seeded generator (splitmix64) that
/// shuffles orders and sizes the heap spacers left live between allocations, so each pass places
/// every instance at other heap offsets relative to the others and to the allocator's bins.
struct Placement {
    state: u64,
    spacers: Vec<Vec<u8>>,
}

impl Placement {
    fn new(seed: u64) -> Self {
        let mut placement = Self {
            state: seed,
            spacers: Vec::new(),
        };
        // Moves the heap's starting point: up to 64 blocks of up to 4 KiB (below malloc's mmap
        // threshold, so they come from the main heap).
        for _ in 0..placement.below(64) {
            placement.spacer();
        }
        placement
    }

    /// Restarts the orders and sizes at a case's own seed (the pass's seed and the case's name),
    /// keeping the spacers already placed: a pass repeated on some of its cases with the same
    /// seed opens, orders and spaces each of them as the first time.
    fn reseed_for(&mut self, seed: u64, case: &BenchCase) {
        let name = case.to_string();
        // FNV-1a of the case's name, mixed into the pass's seed.
        let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        self.state = seed ^ hash;
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (for the small `n` used here the modulo bias is negligible).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// Leaves a live, touched block of 0..4 KiB on the heap, moving where the next allocations
    /// land.
    fn spacer(&mut self) {
        let len = self.below(4096) as usize;
        self.spacers.push(vec![1; len]);
    }
}

/// Operations per sample of `run`, so that a sample's timed part lasts about `target`: grown from
/// the parameter's minimum by the factor the last run asks for (2× to 16× a step) until a run's
/// timed part lasts at least half of `target`, then scaled to `target` from that run; growth also
/// stops once a whole run (with untimed restores and warm-up) takes four times `target` (it is not
/// scaled up then), and at the experiment's cap. The runs warm the cell up, the last at about the
/// sample's size. A zero target runs nothing: every sample is the parameter's minimum (a lab
/// whose minimum is already a whole load run).
fn calibrate(run: &mut TimedRun, experiment: &Experiment, min_ops: u64, target: Duration) -> u64 {
    let min = experiment.cap(min_ops.max(1));
    let mut ops = min;
    if target.is_zero() {
        return ops;
    }
    loop {
        let started = Instant::now();
        let timed = run(ops, &mut ());
        let restores_dominate = started.elapsed() >= target * 4;
        let wanted = target.as_secs_f64() / timed.as_secs_f64().max(1e-9);
        if timed * 2 >= target || restores_dominate {
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

/// One cell of a row in a pass: an implementation (or the A/A twin), its samples in ns/op, the
/// latencies it recorded and the lab's events its samples counted.
struct Cell {
    name: String,
    run: TimedRun,
    /// Percent of each sample's own time added to it by spinning (a slowed twin), else 0.
    slowed_by: u32,
    ops: u64,
    samples: Vec<f64>,
    latencies: Latencies,
    events: Events,
}

/// A lab's events counted over a cell's samples, with the operations and time they took.
#[derive(Default)]
struct Events {
    counts: Vec<(EventName, u64)>,
    ops: u64,
    elapsed: Duration,
}

/// The window of one timed sample: a latency sink when recording, and the events counted.
struct SampleWindow<'a> {
    sink: Option<Arc<LatencySink>>,
    events: &'a mut Events,
}

impl Window for SampleWindow<'_> {
    fn open(&mut self) {}
    fn close(&mut self) {}
    fn latencies(&self) -> Option<Arc<LatencySink>> {
        self.sink.clone()
    }
    fn count(&mut self, event: EventName, n: u64) {
        match self.events.counts.iter_mut().find(|(e, _)| *e == event) {
            Some((_, total)) => *total += n,
            None => self.events.counts.push((event, n)),
        }
    }
}

impl Cell {
    /// One sample's wall time per operation; latencies recorded into the cell when `record`.
    fn sample(&mut self, record: bool) -> f64 {
        let sink = (record && self.slowed_by == 0).then(LatencySink::new);
        let mut window = SampleWindow {
            sink: sink.clone(),
            events: &mut self.events,
        };
        let mut elapsed = (self.run)(self.ops, &mut window);
        if self.slowed_by > 0 {
            elapsed += spin_for(elapsed * self.slowed_by / 100);
        }
        self.events.ops += self.ops;
        self.events.elapsed += elapsed;
        if let Some(sink) = sink {
            self.latencies = self.latencies.merged(&sink.latencies());
        }
        elapsed.as_nanos() as f64 / self.ops as f64
    }
}

/// Busy-waits at least `extra` and returns how long it took: the work a slowed twin adds inside
/// its timed sample, on the core that ran it, so the machine's noise hits it as it would a design
/// that is really slower.
fn spin_for(extra: Duration) -> Duration {
    let started = Instant::now();
    while started.elapsed() < extra {
        std::hint::spin_loop();
    }
    started.elapsed()
}

/// The records of one case in one pass: every selected implementation, and the baseline's
/// reference cells (its A/A twin and slowed twins, [`crate::lab::reference_cells`]) when the
/// baseline is selected, opened in a shuffled order with spacers between them, then
/// sampled in `timing.rounds` rounds, each in a new shuffled order; latencies as the experiment
/// records them.
fn pass_case(
    lab: &'static dyn Lab,
    selection: &Selection,
    case: &BenchCase,
    timing: &Timing,
    placement: &mut Placement,
    only: Option<&[String]>,
) -> Result<Vec<Record>, String> {
    let experiment = experiment(lab, &case.experiment)?;
    let parameter = experiment
        .parameter(&case.parameter)
        .cloned()
        .ok_or_else(|| format!("{case} is not a case of {}", experiment.name))?;
    let implementations = lab.implementations();
    let mut names: Vec<(String, &'static str)> = implementations
        .iter()
        .filter(|i| selection.selects_implementation(i))
        .map(|i| (i.to_string(), *i))
        .collect();
    if let Some(baseline) = implementations
        .first()
        .filter(|b| selection.selects_implementation(b))
    {
        for reference in crate::lab::reference_cells(baseline) {
            names.push((reference, baseline));
        }
    }
    // Added passes measure only the cells they can still decide, beside the baseline.
    if let Some(only) = only {
        let baseline = implementations.first().copied().unwrap_or_default();
        names.retain(|(name, _)| name == baseline || only.contains(name));
    }
    placement.shuffle(&mut names);
    let references = implementations
        .first()
        .map_or_else(Vec::new, |b| crate::lab::reference_cells(b));
    let mut cells = Vec::with_capacity(names.len());
    for (name, implementation) in names {
        placement.spacer();
        let mut run = open_timed(lab, implementation, case)?;
        // Every cell is calibrated, the reference cells too: calibrating is also the warm-up,
        // and a steady runner's state follows the work it has done, so a twin warmed up any
        // other way is no longer the baseline again (measured: with one warm-up sample instead,
        // 3 of 59 pending-ack A/A twins came out faster or slower, in all 8 passes).
        let ops = calibrate(&mut run, &experiment, parameter.min_ops, timing.sample);
        let slowed_by = slowed_twin_of(&name).map_or(0, |(_, percent)| percent);
        cells.push(Cell {
            name,
            run,
            slowed_by,
            ops,
            samples: Vec::with_capacity(timing.rounds),
            latencies: Latencies::default(),
            events: Events::default(),
        });
    }
    // The baseline's reference cells do the baseline's own work per sample: calibrated apart,
    // a twin could land on another number of operations and amortise a concurrent sample's
    // fixed costs (spawning, joining) differently, a difference of work, not placement.
    let baseline_ops = cells
        .iter()
        .find(|c| implementations.first() == Some(&c.name.as_str()))
        .map(|c| c.ops);
    if let Some(ops) = baseline_ops {
        for cell in cells.iter_mut().filter(|c| references.contains(&c.name)) {
            cell.ops = ops;
        }
    }
    let in_samples = experiment.latency == LatencyRecording::InTimedSamples;
    let mut order: Vec<usize> = (0..cells.len()).collect();
    for _ in 0..timing.rounds {
        placement.shuffle(&mut order);
        for &i in &order {
            let ns = cells[i].sample(in_samples);
            cells[i].samples.push(ns);
        }
    }
    if experiment.latency == LatencyRecording::ExtraSample {
        placement.shuffle(&mut order);
        for &i in &order {
            cells[i].sample(true);
        }
    }
    // Aggregate throughput: every worker did `ops` operations.
    let workers = experiment.reports_throughput().then_some(parameter.workers);
    let mut records = Vec::new();
    for cell in cells {
        let ns = median(&cell.samples);
        let id = case.id(&cell.name);
        records.push(Record::new(id.clone(), Metric::NsPerOp, ns));
        if let Some(workers) = workers {
            records.push(Record::new(
                id.clone(),
                Metric::OpsPerSec,
                workers as f64 * 1e9 / ns,
            ));
        }
        if experiment.latency != LatencyRecording::Off && cell.slowed_by == 0 {
            records.extend(cell.latencies.records(&id));
        }
        if cell.slowed_by > 0 {
            continue;
        }
        let Events {
            counts,
            ops,
            elapsed,
        } = cell.events;
        for (event, n) in counts {
            let calls = (ops * parameter.workers as u64) as f64;
            records.push(Record::new(
                id.clone(),
                Metric::EventsPer100Ops(event),
                n as f64 * 100.0 / calls,
            ));
            records.push(Record::new(
                id.clone(),
                Metric::EventsPerSec(event),
                n as f64 / elapsed.as_secs_f64(),
            ));
        }
    }
    Ok(records)
}

/// The id of the timer-overhead record of a pass that recorded latencies.
pub fn timer_overhead_id() -> BenchId {
    BenchId::new("latency-timer", "std-instant", "empty-op")
}

/// `main` of a lab's `time` binary: one pass of the wall-time stage,
/// `[--seed N] [--out FILE] [--quick|--test] [NAME...]`. The seed shuffles the order of the
/// cases and of the cells in every round and sizes the heap spacers ([`Placement`]); the driver
/// runs several passes as separate processes, each also linked with its own code order and
/// started with its own environment size (stack offset), and takes verdicts across them
/// ([`crate::compare`]). Each record is the pass's median sample of one cell.
pub fn pass_main(lab: &'static dyn Lab) {
    let (args, selection) = parse_args(lab);
    let timing = lab.timing(args.mode());
    let disturbance = crate::process::Disturbance::start();
    let mut placement = Placement::new(args.seed);
    // `--case EXPERIMENT/PARAMETER[=CELL,…]`: the cases, each with the cells to measure beside
    // the baseline (every cell when none are named).
    let wanted: Vec<(String, Option<Vec<String>>)> = args
        .cases
        .iter()
        .map(|c| match c.split_once('=') {
            Some((case, cells)) => (
                case.to_owned(),
                Some(cells.split(',').map(str::to_owned).collect()),
            ),
            None => (c.clone(), None),
        })
        .collect();
    let only = |case: &BenchCase| {
        let name = case.to_string();
        wanted
            .iter()
            .find(|(c, _)| *c == name)
            .map(|(_, cells)| cells.as_deref())
    };
    let mut cases = crate::lab::cases(lab, |e, p| {
        e.is_timed()
            && selection.selects_case(e.name, &p.name)
            && (wanted.is_empty() || only(&BenchCase::new(e.name, &p.name)).is_some())
    });
    placement.shuffle(&mut cases);
    let mut records = Vec::new();
    let records_latency = cases.iter().any(|case| {
        experiment(lab, &case.experiment).is_ok_and(|e| e.latency != LatencyRecording::Off)
    });
    if records_latency {
        let overhead = crate::latency::timer_overhead(100_000);
        records.push(Record::new(
            timer_overhead_id(),
            Metric::TimerOverheadNs,
            overhead.quantile(0.5).unwrap_or(0) as f64,
        ));
    }
    for case in &cases {
        eprintln!("pass {}: {case}", args.seed);
        placement.reseed_for(args.seed, case);
        let cells = only(case).flatten();
        let measured = pass_case(lab, &selection, case, &timing, &mut placement, cells)
            .unwrap_or_else(|e| exit_with_usage_error(&e));
        records.extend(measured);
    }
    records.extend(disturbance.records());
    crate::record::emit_records(args.out.as_deref(), &records)
        .unwrap_or_else(|e| exit_with_usage_error(&e));
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
    fn a_pass_measures_every_selected_cell_and_the_reference_cells_once() {
        let timing = Timing {
            passes: 1,
            extended_passes: 1,
            rounds: 3,
            sample: Duration::from_nanos(50),
            profile_ops: 10,
        };
        let all = Selection::default();
        let mut placement = Placement::new(7);
        let records = pass_case(
            &TINY,
            &all,
            &BenchCase::new("op", "small"),
            &timing,
            &mut placement,
            None,
        )
        .unwrap();
        let ids: Vec<String> = records
            .iter()
            .filter(|r| r.metric == Metric::NsPerOp)
            .map(|r| r.id.to_string())
            .collect();
        assert_eq!(ids.len(), 5, "{ids:?}");
        for name in [
            "op/base/small",
            "op/fast/small",
            "op/base-again/small",
            "op/base-slowed-5/small",
            "op/base-slowed-10/small",
        ] {
            assert!(ids.iter().any(|i| i == name), "{name} missing from {ids:?}");
        }
        let ns = |name: &str| {
            records
                .iter()
                .find(|r| r.metric == Metric::NsPerOp && r.id.implementation == name)
                .unwrap()
                .value
        };
        for name in ["base", "fast", "base-again"] {
            assert_eq!(ns(name), 1.0, "the idle runner reports 1 ns per op");
        }
        // The slowed twins spin at least their share of each sample on top of it.
        assert!(ns("base-slowed-5") >= 1.05, "{}", ns("base-slowed-5"));
        assert!(ns("base-slowed-10") >= 1.10, "{}", ns("base-slowed-10"));
        let shared = pass_case(
            &TINY,
            &all,
            &BenchCase::new("op", "shared-4"),
            &timing,
            &mut placement,
            None,
        )
        .unwrap();
        let ops = shared
            .iter()
            .find(|r| r.metric == Metric::OpsPerSec)
            .unwrap();
        assert_eq!(ops.value, 4e9, "4 threads at 1 ns per op each");
        let fast_only = Selection::parse(&TINY, &["fast".to_owned()]).unwrap();
        let records = pass_case(
            &TINY,
            &fast_only,
            &BenchCase::new("cleanup", "small"),
            &timing,
            &mut placement,
            None,
        )
        .unwrap();
        assert_eq!(records.len(), 1, "no twin without the baseline");
        let only = ["base-slowed-10".to_owned()];
        let records = pass_case(
            &TINY,
            &all,
            &BenchCase::new("op", "small"),
            &timing,
            &mut placement,
            Some(&only),
        )
        .unwrap();
        let names: Vec<&str> = records
            .iter()
            .filter(|r| r.metric == Metric::NsPerOp)
            .map(|r| r.id.implementation.as_str())
            .collect();
        assert_eq!(names.len(), 2, "the named cell and the baseline: {names:?}");
        assert!(names.contains(&"base") && names.contains(&"base-slowed-10"));
    }

    /// A lab whose one operation takes 1 µs by its own account, records that as its latency and
    /// counts one `hit` per operation.
    struct CountingLab;

    static COUNTING: CountingLab = CountingLab;
    const HIT: EventName = EventName::new("hit");

    struct Hits;

    impl crate::lab::Runner for Hits {
        fn run(&mut self, _: u64, ops: u64, window: &mut dyn Window) -> Duration {
            window.open();
            if let Some(sink) = window.latencies() {
                let mut recorder = sink.recorder();
                for _ in 0..ops {
                    recorder.record(Duration::from_micros(1));
                }
            }
            window.close();
            window.count(HIT, ops);
            Duration::from_micros(ops)
        }
    }

    impl Lab for CountingLab {
        fn name(&self) -> &'static str {
            "counting"
        }
        fn package(&self) -> &'static str {
            "counting-lab"
        }
        fn title(&self) -> &'static str {
            "counting"
        }
        fn implementations(&self) -> Vec<&'static str> {
            vec!["base"]
        }
        fn experiments(&self) -> Vec<Experiment> {
            vec![Experiment {
                latency: LatencyRecording::InTimedSamples,
                ..Experiment::new(
                    "op",
                    "one op",
                    Kind::Steady,
                    vec![crate::lab::Parameter::new("one", "one", false)],
                )
            }]
        }
        fn open(&self, _: &str, _: &BenchCase) -> Result<Box<dyn crate::lab::Runner>, String> {
            Ok(Box::new(Hits))
        }
        fn report(&self, _: &crate::record::ResultSet) -> crate::document::Document {
            crate::document::Document::default()
        }
    }

    #[test]
    fn a_pass_records_latencies_and_events_of_its_timed_samples() {
        let timing = Timing {
            passes: 1,
            extended_passes: 1,
            rounds: 4,
            sample: Duration::from_micros(16),
            profile_ops: 1,
        };
        let records = pass_case(
            &COUNTING,
            &Selection::default(),
            &BenchCase::new("op", "one"),
            &timing,
            &mut Placement::new(1),
            None,
        )
        .unwrap();
        let find = |metric: Metric| {
            records
                .iter()
                .find(|r| r.metric == metric && r.id.implementation == "base")
                .unwrap_or_else(|| panic!("{metric:?} missing"))
        };
        let histogram = find(Metric::LatencyHistogram);
        let recorded = histogram.histogram.as_ref().unwrap();
        assert_eq!(recorded.count() as f64, histogram.value);
        assert_eq!(
            histogram.value,
            4.0 * 16.0,
            "every op of the four timed samples"
        );
        assert!((find(Metric::LatencyP99Ns).value - 1_000.0).abs() < 2.0);
        assert_eq!(find(Metric::EventsPer100Ops(HIT)).value, 100.0);
        assert!((find(Metric::EventsPerSec(HIT)).value - 1e6).abs() < 1.0);
    }

    #[test]
    fn placement_is_seeded_and_shuffles_are_permutations() {
        let order = |seed| {
            let mut items: Vec<u32> = (0..20).collect();
            Placement::new(seed).shuffle(&mut items);
            items
        };
        assert_eq!(order(1), order(1));
        assert_ne!(order(1), order(2));
        let mut sorted = order(3);
        sorted.sort();
        assert_eq!(sorted, (0..20).collect::<Vec<_>>());
    }

    #[test]
    fn a_case_draws_from_the_pass_seed_and_its_name_whatever_ran_before() {
        let case = BenchCase::new("op", "small");
        let order_after = |earlier_draws: usize, case: &BenchCase| {
            let mut placement = Placement::new(9);
            for _ in 0..earlier_draws {
                placement.spacer();
            }
            placement.reseed_for(9, case);
            let mut items: Vec<u32> = (0..20).collect();
            placement.shuffle(&mut items);
            items
        };
        assert_eq!(order_after(0, &case), order_after(5, &case));
        assert_ne!(
            order_after(0, &case),
            order_after(0, &BenchCase::new("op", "big"))
        );
    }

    #[test]
    fn calibration_reaches_the_target_from_the_minimum_within_the_cap() {
        let e = experiment(&TINY, "op").unwrap();
        let runs = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = Arc::clone(&runs);
        let mut run: TimedRun = Box::new(move |ops, _| {
            seen.lock().unwrap().push(ops);
            Duration::from_nanos(ops)
        });
        // The idle runner's timed part is 1 ns per op and it returns at once, so only the timed
        // part and the cap stop the growth: 16× a step, then scaled to the target.
        let target = Duration::from_micros(100);
        assert_eq!(calibrate(&mut run, &e, 1, target), 100_000);
        assert_eq!(*runs.lock().unwrap(), [1, 16, 256, 4_096, 65_536]);
        let mut never: TimedRun = Box::new(|_, _| panic!("a zero target runs nothing"));
        assert_eq!(calibrate(&mut never, &e, 7, Duration::ZERO), 7);
        assert_eq!(
            calibrate(&mut run, &e, 50_000, target),
            100_000,
            "from the minimum"
        );
        assert_eq!(
            calibrate(&mut run, &e, 300_000, target),
            300_000,
            "never below the minimum"
        );
        let capped = Experiment {
            max_ops: Some(10),
            ..e.clone()
        };
        assert_eq!(calibrate(&mut run, &capped, 1, target), 10);
        // A run whose untimed restores take four times the target is not scaled up.
        let mut restoring: TimedRun = Box::new(|ops, _| {
            std::thread::sleep(Duration::from_micros(400));
            Duration::from_nanos(ops)
        });
        assert_eq!(calibrate(&mut restoring, &e, 3, target), 3);
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
