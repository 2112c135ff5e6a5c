//! One pass of the wall-time stage ([`pass_main`]): the cells of every timed case opened at
//! seeded heap offsets, calibrated, and sampled in shuffled rounds.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{TimedRun, calibrate, open_timed, parse_args};
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
        .filter(|i| selection.selects_implementation(i))
        .map(|i| case.id(i))
        .collect();
    let baseline = implementations.first().map(|b| case.id(b));
    if let Some(baseline) = baseline
        .as_ref()
        .filter(|b| selection.selects_implementation(&b.implementation))
    {
        for role in crate::record::reference_roles() {
            ids.push(baseline.with_role(role));
        }
    }
    // Added passes measure only the cells they can still decide, beside the baseline.
    if let Some(only) = only {
        ids.retain(|id| Some(id) == baseline.as_ref() || only.contains(&id.cell_name()));
    }
    placement.shuffle(&mut ids);
    let mut cells = Vec::with_capacity(ids.len());
    for id in ids {
        placement.spacer();
        let mut run = open_timed(lab, &id.implementation, case)?;
        // Every cell is calibrated, the reference cells too: calibrating is also the warm-up,
        // and a steady runner's state follows the work it has done, so a twin warmed up any
        // other way is no longer the baseline again (measured: with one warm-up sample instead,
        // 3 of 59 pending-ack A/A twins came out faster or slower, in all 8 passes).
        let ops = calibrate(&mut run, experiment, parameter.min_ops, timing.sample);
        let slowed_by = match id.role {
            Role::Slowed(percent) => percent,
            _ => 0,
        };
        cells.push(Cell {
            id,
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
        let id = cell.id.clone();
        records.push(Record::new(id.clone(), Metric::NsPerOp, ns));
        if let Some(workers) = workers {
            records.push(Record::new(
                id.clone(),
                Metric::OpsPerSec,
                workers as f64 * 1e9 / ns,
            ));
        }
        if experiment.latency != LatencyRecording::Off && cell.slowed_by == 0 {
            records.extend(crate::record::latency_records(&id, &cell.latencies));
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
mod tests;
