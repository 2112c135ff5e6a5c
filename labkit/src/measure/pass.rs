//! One pass of the wall-time stage ([`pass_main`]): the cells of every timed case opened at
//! seeded heap offsets, calibrated, and sampled in shuffled rounds.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{TimedRun, calibrate, open_timed, parse_args};
use crate::args::exit_with_usage_error;
use crate::lab::{BenchCase, Lab, LatencyRecording, Selection, Timing, Window, experiment};
use crate::latency::{Latencies, LatencySink};
use crate::record::{BenchId, EventName, Metric, Record, slowed_twin_of};
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
    let mut names: Vec<(String, &'static str)> = implementations
        .iter()
        .filter(|i| selection.selects_implementation(i))
        .map(|i| (i.to_string(), *i))
        .collect();
    if let Some(baseline) = implementations
        .first()
        .filter(|b| selection.selects_implementation(b))
    {
        for reference in crate::record::reference_cells(baseline) {
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
        .map_or_else(Vec::new, |b| crate::record::reference_cells(b));
    let mut cells = Vec::with_capacity(names.len());
    for (name, implementation) in names {
        placement.spacer();
        let mut run = open_timed(lab, implementation, case)?;
        // Every cell is calibrated, the reference cells too: calibrating is also the warm-up,
        // and a steady runner's state follows the work it has done, so a twin warmed up any
        // other way is no longer the baseline again (measured: with one warm-up sample instead,
        // 3 of 59 pending-ack A/A twins came out faster or slower, in all 8 passes).
        let ops = calibrate(&mut run, experiment, parameter.min_ops, timing.sample);
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
mod tests {
    use super::*;
    use crate::lab::{Experiment, Kind};
    use crate::testing::fixture::TINY;

    /// One case of the tiny lab in a pass, as `pass_case` measures it.
    fn tiny_case(
        selection: &Selection,
        case: &str,
        timing: &Timing,
        placement: &mut Placement,
        only: Option<&[String]>,
    ) -> Vec<Record> {
        let case: BenchCase = case.parse().unwrap();
        pass_case(&TINY, selection, &case, timing, placement, only).unwrap()
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
        let records = tiny_case(&all, "op/small", &timing, &mut placement, None);
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
        let shared = tiny_case(&all, "op/shared-4", &timing, &mut placement, None);
        let ops = shared
            .iter()
            .find(|r| r.metric == Metric::OpsPerSec)
            .unwrap();
        assert_eq!(ops.value, 4e9, "4 threads at 1 ns per op each");
        let fast_only = Selection::parse(&TINY, &["fast".to_owned()]).unwrap();
        let records = tiny_case(&fast_only, "cleanup/small", &timing, &mut placement, None);
        assert_eq!(records.len(), 1, "no twin without the baseline");
        let only = ["base-slowed-10".to_owned()];
        let records = tiny_case(&all, "op/small", &timing, &mut placement, Some(&only));
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

    impl crate::lab::Describe for CountingLab {
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
        fn experiments(&self) -> &[Experiment] {
            static DESCRIBED: crate::lab::Described = crate::lab::Described::new();
            DESCRIBED.get(|| {
                vec![Experiment {
                    latency: LatencyRecording::InTimedSamples,
                    ..Experiment::new(
                        "op",
                        "one op",
                        Kind::Steady,
                        vec![crate::lab::Parameter::new("one", "one", false)],
                    )
                }]
            })
        }
    }

    impl Lab for CountingLab {
        fn open(&self, _: &str, _: &BenchCase) -> Result<Box<dyn crate::lab::Runner>, String> {
            Ok(Box::new(Hits))
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
}
