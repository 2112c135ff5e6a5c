//! Tests of the measurement binaries' helpers: case naming, calibration, the allocation run.

use super::allocation::allocation_records;
use super::*;
use crate::record::Metric;

/// A lab whose one runner allocates and frees a megabyte in its third run only: in the
/// allocation run that is the second of the warm-up runs between the two windows.
struct PeakInWarmUp {
    experiments: Vec<Experiment>,
}

struct MegabyteOnThirdRun(u32);

impl crate::lab::Runner for MegabyteOnThirdRun {
    fn run(&mut self, _: u64, ops: u64, window: &mut dyn Window) -> Duration {
        window.open();
        self.0 += 1;
        if self.0 == 3 {
            use std::alloc::{GlobalAlloc, Layout};
            let big = Layout::from_size_align(1 << 20, 8).unwrap();
            // SAFETY: valid non-zero layout; freed right after with the same layout.
            unsafe {
                let p = crate::alloc::CountingAlloc.alloc(big);
                assert!(!p.is_null());
                crate::alloc::CountingAlloc.dealloc(p, big);
            }
        }
        window.close();
        Duration::from_nanos(ops)
    }
}

impl crate::lab::Describe for PeakInWarmUp {
    fn name(&self) -> &'static str {
        "peak"
    }
    fn package(&self) -> &'static str {
        "peak-lab"
    }
    fn title(&self) -> &'static str {
        "peak"
    }
    fn implementations(&self) -> Vec<&'static str> {
        vec!["only"]
    }
    fn experiments(&self) -> &[Experiment] {
        &self.experiments
    }
}

impl Lab for PeakInWarmUp {
    fn open(&self, _: &str, _: &BenchCase) -> Result<Box<dyn crate::lab::Runner>, String> {
        Ok(Box::new(MegabyteOnThirdRun(0)))
    }
}

#[test]
fn the_peak_heap_is_the_highest_of_every_run_of_the_allocation_process() {
    let _alone = crate::alloc::DRIVEN_DIRECTLY
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let experiment = Experiment {
        process_costs: true,
        profile_warm_up: 3,
        ..Experiment::new(
            "op",
            "one op",
            Kind::Steady,
            vec![crate::lab::Parameter::new("small", "small", true)],
        )
    };
    let lab = PeakInWarmUp {
        experiments: vec![experiment.clone()],
    };
    let case = BenchCase::new("op", "small");
    let records = allocation_records(&lab, &experiment, "only", &case, 10).unwrap();
    let peak = records
        .iter()
        .find(|r| r.metric == Metric::PeakHeapBytes)
        .expect("a peak heap record");
    assert!(
        peak.value >= (1 << 20) as f64,
        "the warm-up run's megabyte counts: {}",
        peak.value
    );
}
use crate::fixture::{NARROW, TINY};

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
fn calibration_reaches_the_target_from_the_minimum_within_the_cap() {
    let e = experiment(&TINY, "op").unwrap();
    let runs = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&runs);
    let mut run: TimedRun = Box::new(move |ops, _| {
        seen.lock().unwrap().push(ops);
        Ok(Duration::from_nanos(ops))
    });
    // The idle runner's timed part is 1 ns per op and it returns at once, so only the timed
    // part and the cap stop the growth: 16× a step, then scaled to the target.
    let target = Duration::from_micros(100);
    assert_eq!(calibrate(&mut run, e, 1, target), Ok(100_000));
    assert_eq!(*runs.lock().unwrap(), [1, 16, 256, 4_096, 65_536]);
    let keep_first = |min_ops| {
        let nanos = |ops| Ok(Duration::from_nanos(ops));
        calibrate_runs(nanos, e, min_ops, target, Settle::OnFirstRun).unwrap()
    };
    assert_eq!(
        keep_first(60_000),
        60_000,
        "a first run that long is kept as it ran"
    );
    assert_eq!(
        keep_first(1),
        100_000,
        "grown runs are scaled, as a warm-up's"
    );
    let mut never: TimedRun = Box::new(|_, _| panic!("a zero target runs nothing"));
    assert_eq!(calibrate(&mut never, e, 7, Duration::ZERO), Ok(7));
    assert_eq!(
        calibrate(&mut run, e, 50_000, target),
        Ok(100_000),
        "from the minimum"
    );
    assert_eq!(
        calibrate(&mut run, e, 300_000, target),
        Ok(300_000),
        "never below the minimum"
    );
    let capped = Experiment {
        max_ops: Some(10),
        ..e.clone()
    };
    assert_eq!(calibrate(&mut run, &capped, 1, target), Ok(10));
    // A run whose untimed restores take four times the target is not scaled up.
    let mut restoring: TimedRun = Box::new(|ops, _| {
        std::thread::sleep(Duration::from_micros(400));
        Ok(Duration::from_nanos(ops))
    });
    assert_eq!(calibrate(&mut restoring, e, 3, target), Ok(3));
    // A failed run ends the calibration with its reason.
    let mut failing: TimedRun = Box::new(|_, _| Err("the JVM ended".to_owned()));
    assert_eq!(
        calibrate(&mut failing, e, 1, target),
        Err("the JVM ended".to_owned())
    );
}

#[test]
fn samples_come_from_timed_cases_only() {
    let source = LabSamples(&TINY);
    assert_eq!(source.cases(&[], &[]).unwrap().len(), 3);
    assert_eq!(source.cases(&[], &words(&["cleanup"])).unwrap().len(), 1);
    assert!(source.cases(&[], &words(&["nope"])).is_err());
    // `op` measures `base` only there: `fast` is compared on the cleanup alone.
    let narrow = LabSamples(&NARROW);
    assert_eq!(narrow.cases(&["base"], &[]).unwrap().len(), 3);
    let cases = narrow.cases(&["base", "fast"], &[]).unwrap();
    assert_eq!(cases, [BenchCase::new("cleanup", "small")]);
    let mut sample = source.open("fast", &BenchCase::new("op", "small")).unwrap();
    assert_eq!(sample(), Ok(1.0), "the idle runner reports 1 ns per op");
    assert!(
        source
            .open("fast", &BenchCase::new("footprint", "big"))
            .is_err()
    );
}
