//! One pass's sampling, on counting fixture labs.

use super::*;
use std::time::Duration;

use crate::fixture::TINY;
use crate::lab::Window;
use crate::lab::{Experiment, Kind};
use crate::record::EventName;

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
            .find(|r| r.metric == Metric::NsPerOp && r.id.cell_name() == name)
            .unwrap()
            .value
    };
    for name in ["base", "fast", "base-again"] {
        assert_eq!(ns(name), 1.0, "the idle runner reports 1 ns per op");
    }
    // The slowed twins are the A/A twin lengthened by their share.
    assert_eq!(ns("base-slowed-5"), ns("base-again") * 1.05);
    assert_eq!(ns("base-slowed-10"), ns("base-again") * 1.10);
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
    let mut names: Vec<String> = records
        .iter()
        .filter(|r| r.metric == Metric::NsPerOp)
        .map(|r| r.id.cell_name())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["base", "base-slowed-10"],
        "the named cell and the baseline (the twin measured for it, not recorded)"
    );
}

/// A lab whose one operation takes 1 µs by its own account, records that as its latency and
/// counts one `hit` per operation.
struct CountingLab;

static COUNTING: CountingLab = CountingLab;
const HIT: EventName = EventName::new("hit");

/// Runs of the `fresh` experiment's runners, which one test counts.
static FRESH_RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
/// Instances of the `fresh` experiment opened.
static FRESH_OPENS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

struct Hits {
    fresh: bool,
    /// Ends every run at its "budget" with half of its operations done.
    halfway: bool,
}

impl crate::lab::Runner for Hits {
    fn run(&mut self, _: u64, ops: u64, window: &mut dyn Window) -> Duration {
        if self.fresh {
            FRESH_RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        window.open();
        if let Some(sink) = window.latencies() {
            let mut recorder = sink.recorder();
            for _ in 0..ops {
                recorder.record(Duration::from_micros(1));
            }
        }
        window.close();
        if self.halfway {
            window.count(HIT, ops / 2);
            window.completed(ops as f64 / 2.0);
        } else {
            window.count(HIT, ops);
        }
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
        static CASES: crate::lab::CaseTable<()> = crate::lab::CaseTable::new(|| {
            let op = |name, fresh_per_sample| Experiment {
                latency: LatencyRecording::InTimedSamples,
                fresh_per_sample,
                ..Experiment::new(
                    name,
                    "one op",
                    Kind::Steady,
                    vec![crate::lab::Parameter::new("one", "one", false)],
                )
            };
            vec![
                op("op", false).into(),
                op("fresh", true).into(),
                op("halfway", false).into(),
            ]
        });
        CASES.experiments()
    }
}

impl Lab for CountingLab {
    fn open(&self, _: &str, case: &BenchCase) -> Result<Box<dyn crate::lab::Runner>, String> {
        if case.experiment == "fresh" {
            FRESH_OPENS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(Box::new(Hits {
            fresh: case.experiment == "fresh",
            halfway: case.experiment == "halfway",
        }))
    }
}

/// The counting lab's `experiment`/`one` case in one pass of four rounds of about `sample`.
fn counting_pass(experiment: &str, sample: Duration) -> Vec<Record> {
    let timing = Timing {
        passes: 1,
        extended_passes: 1,
        rounds: 4,
        sample,
        profile_ops: 1,
    };
    let case = BenchCase::new(experiment, "one");
    pass_case(
        &COUNTING,
        &Selection::default(),
        &case,
        &timing,
        &mut Placement::new(1),
        None,
    )
    .unwrap()
}

/// The record of `metric` among `records` whose id `matches`.
fn record(records: &[Record], metric: Metric, matches: impl Fn(&BenchId) -> bool) -> &Record {
    records
        .iter()
        .find(|r| r.metric == metric && matches(&r.id))
        .unwrap_or_else(|| panic!("{metric:?} missing"))
}

#[test]
fn a_pass_records_latencies_and_events_of_its_timed_samples() {
    let records = counting_pass("op", Duration::from_micros(16));
    let find = |metric| record(&records, metric, |id| id.implementation == "base");
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
fn a_run_that_ends_at_its_budget_is_divided_by_the_operations_it_completed() {
    let records = counting_pass("halfway", Duration::from_micros(16));
    let find = |metric| record(&records, metric, BenchId::is_design).value;
    // Each run takes 1 µs per operation asked for and completes half of them.
    assert!((find(Metric::NsPerOp) - 2_000.0).abs() < 1e-6);
    assert!((find(Metric::EventsPer100Ops(HIT)) - 100.0).abs() < 1e-6);
}

#[test]
fn a_fresh_instance_per_sample_keeps_a_long_enough_first_run_as_a_sample() {
    // One op (1 µs) already lasts half the 2 µs target: calibration settles on its first run.
    let records = counting_pass("fresh", Duration::from_micros(2));
    assert_eq!(
        FRESH_RUNS.load(std::sync::atomic::Ordering::Relaxed),
        2 * 4,
        "the baseline and its A/A twin (the slowed twins are the twin's samples lengthened), \
         each its calibrating run and three more: four samples, not five runs"
    );
    assert_eq!(
        FRESH_OPENS.load(std::sync::atomic::Ordering::Relaxed),
        2 * 4,
        "one instance per run: the one opened to check the case serves the first"
    );
    let histogram = records
        .iter()
        .find(|r| r.metric == Metric::LatencyHistogram)
        .unwrap();
    assert_eq!(histogram.value, 4.0, "the kept run's latency is recorded");
    let hits = records
        .iter()
        .find(|r| r.metric == Metric::EventsPer100Ops(HIT))
        .unwrap();
    assert_eq!(hits.value, 100.0, "and its events counted once");
    // A first run short of half an 8 ms target grows (1, 16, 256, then 4,096 ops, scaled to
    // 8,000): those runs are a warm-up and the four samples come after, interleaved with the
    // other cells'. (The runner's microseconds are its own account; its real runs are short, so
    // no run lasts four times the target, which would stop the growth.)
    FRESH_RUNS.store(0, std::sync::atomic::Ordering::Relaxed);
    let records = counting_pass("fresh", Duration::from_millis(8));
    assert_eq!(
        FRESH_RUNS.load(std::sync::atomic::Ordering::Relaxed),
        2 * (4 + 4),
        "four calibrating runs and four samples per cell"
    );
    let histogram = records
        .iter()
        .find(|r| r.metric == Metric::LatencyHistogram)
        .unwrap();
    assert_eq!(histogram.value, 4.0 * 8_000.0, "the four samples only");
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
