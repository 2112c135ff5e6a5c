//! One pass of the wall-time stage ([`pass_main`]): the cells of every timed case opened at
//! seeded heap offsets, calibrated, and sampled in shuffled rounds.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Settle, TimedRun, calibrate, calibrate_runs, open_timed, parse_args};
use crate::args::exit_with_usage_error;
use crate::lab::{BenchCase, Lab, LatencyRecording, Selection, Timing, Window, experiment};
use crate::latency::{Latencies, LatencySink};
use crate::record::{BenchId, EventName, Metric, Record, Role};
use crate::stats::median;

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

/// One cell of a row in a pass: an implementation (or the A/A twin), its samples in ns/op, the
/// latencies it recorded and the lab's events its samples counted.
struct Cell {
    id: BenchId,
    run: TimedRun,
    ops: u64,
    samples: Vec<f64>,
    latencies: Latencies,
    events: Events,
}

/// A lab's events counted over a cell's samples, with the operations (completed: a fraction for
/// a run that ended at its budget) and time they took.
#[derive(Default)]
struct Events {
    counts: Vec<(EventName, u64)>,
    ops: f64,
    elapsed: Duration,
}

/// The window of one timed sample: a latency sink when recording, the events counted, and the
/// operations done when the run ended at its budget.
struct SampleWindow<'a> {
    sink: Option<Arc<LatencySink>>,
    events: &'a mut Events,
    completed: Option<f64>,
}

impl Window for SampleWindow<'_> {
    fn open(&mut self) {}
    fn close(&mut self) {}
    fn latencies(&self) -> Option<Arc<LatencySink>> {
        self.sink.clone()
    }
    fn count(&mut self, event: EventName, n: u64) {
        self.events.add(event, n);
    }
    fn completed(&mut self, ops: f64) {
        self.completed = Some(ops);
    }
}

impl Events {
    fn add(&mut self, event: EventName, n: u64) {
        match self.counts.iter_mut().find(|(e, _)| *e == event) {
            Some((_, total)) => *total += n,
            None => self.counts.push((event, n)),
        }
    }
}

/// Operations to divide by: those done, or one when none were (a rate of at most one per run,
/// never a division by zero).
fn at_least_one_if_none(ops: f64) -> f64 {
    if ops > 0.0 { ops } else { 1.0 }
}

/// One sample of a cell, not yet kept: the operations asked for and done, its time, and what its
/// window recorded.
struct Sample {
    asked: u64,
    ops: f64,
    elapsed: Duration,
    events: Events,
    latencies: Option<Latencies>,
}

impl Cell {
    /// One sample's wall time per operation; latencies recorded into the cell when `record`.
    fn sample(&mut self, record: bool) -> f64 {
        let sample = self.take(self.ops, record);
        self.keep(sample)
    }

    /// Runs one sample of `ops` operations (latencies recorded when `record`) without keeping it.
    fn take(&mut self, ops: u64, record: bool) -> Sample {
        let sink = record.then(LatencySink::new);
        let mut events = Events::default();
        let mut window = SampleWindow {
            sink: sink.clone(),
            events: &mut events,
            completed: None,
        };
        let elapsed = (self.run)(ops, &mut window);
        let done = window.completed.unwrap_or(ops as f64);
        Sample {
            asked: ops,
            ops: done,
            elapsed,
            events,
            latencies: sink.map(|s| s.latencies()),
        }
    }

    /// Adds `sample`'s events and latencies to the cell's; returns its ns/op. A sample that
    /// completed nothing before its budget counts as one operation: its rate is at most that.
    fn keep(&mut self, sample: Sample) -> f64 {
        for (event, n) in sample.events.counts {
            self.events.add(event, n);
        }
        self.events.ops += sample.ops;
        self.events.elapsed += sample.elapsed;
        if let Some(latencies) = sample.latencies {
            self.latencies = self.latencies.merged(&latencies);
        }
        sample.elapsed.as_nanos() as f64 / at_least_one_if_none(sample.ops)
    }
}

/// The records of one case in one pass: every selected implementation, and the baseline's
/// reference cells (its A/A twin and slowed twins, [`crate::record::reference_cells`]) when the
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
    let mut ids: Vec<BenchId> = implementations
        .iter()
        .filter(|i| selection.selects_implementation(i) && experiment.measures(i))
        .map(|i| case.id(i))
        .collect();
    let baseline = implementations.first().map(|b| case.id(b));
    // The slowed twins are the A/A twin's samples lengthened ([`slowed_twin_ns`]): only the
    // twin is measured for them.
    let mut slowed_twins = Vec::new();
    if let Some(baseline) = baseline
        .as_ref()
        .filter(|b| selection.selects_implementation(&b.implementation))
    {
        let twin = baseline.with_role(Role::Twin);
        for role in crate::record::reference_roles() {
            let id = baseline.with_role(role.clone());
            match role {
                Role::Slowed(percent) => slowed_twins.push((id, percent)),
                _ => ids.push(id),
            }
        }
        // Added passes measure only the cells they can still decide, beside the baseline (and
        // the twin when a slowed twin is among them).
        if let Some(only) = only {
            slowed_twins.retain(|(id, _)| only.contains(&id.cell_name()));
            let twin_needed = !slowed_twins.is_empty();
            ids.retain(|id| {
                id == baseline || only.contains(&id.cell_name()) || (twin_needed && *id == twin)
            });
        }
    } else if let Some(only) = only {
        ids.retain(|id| only.contains(&id.cell_name()));
    }
    placement.shuffle(&mut ids);
    let in_samples = experiment.latency == LatencyRecording::InTimedSamples;
    // A fresh instance per sample leaves calibration nothing to warm up: a first run that
    // already lasts long enough is kept as the cell's first sample rather than run again (such a
    // lab's minimum is a whole load run, seconds where generation is slow).
    let settle = if experiment.fresh_per_sample {
        Settle::OnFirstRun
    } else {
        Settle::Scaled
    };
    let mut cells = Vec::with_capacity(ids.len());
    let mut kept_runs = Vec::with_capacity(ids.len());
    for id in ids {
        placement.spacer();
        let run = open_timed(lab, &id.implementation, case)?;
        let mut cell = Cell {
            id,
            run,
            ops: 0,
            samples: Vec::with_capacity(timing.rounds),
            latencies: Latencies::default(),
            events: Events::default(),
        };
        // Every cell is calibrated, the reference cells too: calibrating is also the warm-up,
        // and a steady runner's state follows the work it has done, so a twin warmed up any
        // other way is no longer the baseline again (measured: with one warm-up sample instead,
        // 3 of 59 pending-ack A/A twins came out faster or slower, in all 8 passes).
        let (mut first_run, mut runs) = (None, 0);
        cell.ops = match settle {
            Settle::Scaled => {
                calibrate(&mut cell.run, experiment, parameter.min_ops, timing.sample)
            }
            Settle::OnFirstRun => calibrate_runs(
                |ops| {
                    let sample = cell.take(ops, in_samples);
                    let elapsed = sample.elapsed;
                    if runs == 0 {
                        first_run = Some(sample);
                    }
                    runs += 1;
                    elapsed
                },
                experiment,
                parameter.min_ops,
                timing.sample,
                settle,
            ),
        };
        cells.push(cell);
        kept_runs.push(first_run.filter(|_| runs == 1));
    }
    // The baseline's reference cells do the baseline's own work per sample: calibrated apart,
    // a twin could land on another number of operations and amortise a concurrent sample's
    // fixed costs (spawning, joining) differently, a difference of work, not placement.
    let baseline_ops = cells
        .iter()
        .find(|c| Some(&c.id) == baseline.as_ref())
        .map(|c| c.ops);
    if let Some(ops) = baseline_ops {
        for cell in cells.iter_mut().filter(|c| {
            Some(&c.id.implementation) == baseline.as_ref().map(|b| &b.implementation)
                && !c.id.is_design()
        }) {
            cell.ops = ops;
        }
    }
    // A kept calibration run counts only at the cell's final operations (a twin set to the
    // baseline's may have settled elsewhere).
    for (cell, kept_run) in cells.iter_mut().zip(kept_runs) {
        if let Some(sample) = kept_run.filter(|s| s.asked == cell.ops && timing.rounds > 0) {
            let ns = cell.keep(sample);
            cell.samples.push(ns);
        }
    }
    let mut order: Vec<usize> = (0..cells.len()).collect();
    for round in 0..timing.rounds {
        placement.shuffle(&mut order);
        for &i in &order {
            if cells[i].samples.len() <= round {
                let ns = cells[i].sample(in_samples);
                cells[i].samples.push(ns);
            }
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
    let time_records = |id: &BenchId, ns: f64| {
        let ops_per_sec =
            workers.map(|w| Record::new(id.clone(), Metric::OpsPerSec, w as f64 * 1e9 / ns));
        std::iter::once(Record::new(id.clone(), Metric::NsPerOp, ns)).chain(ops_per_sec)
    };
    for cell in cells {
        let ns = median(&cell.samples);
        let id = cell.id.clone();
        if id.role == Role::Twin {
            for (slowed, percent) in &slowed_twins {
                records.extend(time_records(
                    slowed,
                    slowed_twin_ns(&cell.samples, *percent),
                ));
            }
            // An added pass that measured the twin only for its slowed twins keeps it out.
            if only.is_some_and(|only| !only.contains(&id.cell_name())) {
                continue;
            }
        }
        records.extend(time_records(&id, ns));
        if experiment.latency != LatencyRecording::Off {
            records.extend(crate::record::latency_records(&id, &cell.latencies));
        }
        let Events {
            counts,
            ops,
            elapsed,
        } = cell.events;
        for (event, n) in counts {
            let calls = at_least_one_if_none(ops) * parameter.workers as f64;
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

/// A slowed twin's value in a pass: the A/A twin's samples, each lengthened by `percent`, their
/// median. The twin is a second, independently placed run of the baseline, so its ratio to the
/// baseline varies across passes as a design's equal to the baseline would; lengthened, it is a
/// design that much slower with the same variation, and whether the run calls it slower is the
/// run's power to detect that difference. Derived rather than run (and spun) again: the same
/// distribution at no extra run, which on a lab whose sample is a whole load run halves the
/// baseline's share of the time.
fn slowed_twin_ns(twin_samples: &[f64], percent: u32) -> f64 {
    median(twin_samples) * (1.0 + f64::from(percent) / 100.0)
}

/// The id of the timer-overhead record of a pass that recorded latencies.
pub fn timer_overhead_id() -> BenchId {
    BenchId::new("latency-timer", "std-instant", "empty-op")
}

/// The id of the record of how long a pass spent on `case` ([`Metric::CaseSeconds`]): an
/// experiment of its own, so that no table of the case's experiment takes it for a design.
pub fn case_time_id(case: &BenchCase) -> BenchId {
    BenchId::new(CASE_TIME, &case.experiment, &case.parameter)
}

/// The experiment of [`case_time_id`]s; their implementation is the case's experiment.
pub const CASE_TIME: &str = "case-time";

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
        let started = Instant::now();
        let measured = pass_case(lab, &selection, case, &timing, &mut placement, cells)
            .unwrap_or_else(|e| exit_with_usage_error(&e));
        records.extend(measured);
        records.push(Record::new(
            case_time_id(case),
            Metric::CaseSeconds,
            started.elapsed().as_secs_f64(),
        ));
    }
    records.extend(disturbance.records());
    crate::record::emit_records(args.out.as_deref(), &records)
        .unwrap_or_else(|e| exit_with_usage_error(&e));
}

#[cfg(test)]
mod tests;
