//! The conformance kit: the checks every lab's description, runners and report must pass, written
//! once, and the fixture lab's page.
//!
//! A lab gets them all with one line in a test module, [`lab_conformance!`](crate::lab_conformance); its own tests keep
//! only what is particular to it. Every count below is computed from the description, never
//! written down, so a new design, dataset or experiment changes no test.

use crate::document::{Block, ChartSpec, Document, LabReport, Page, render};
use crate::fixture::{TinyLab, result_set};
use crate::lab::BenchCase;
use crate::lab::{
    Experiment, Kind, Lab, MeasuredHeap, Parameter, Window, cases, counted_cases, counted_cases_of,
    measures, timed_ids,
};
use crate::latency::LatencySink;
use crate::record::{BenchId, EventName, Metric, Record, ResultSet};
use crate::report::Row;
use crate::targets::Targets;
use std::sync::Arc;

/// Generates the conformance tests of one lab: `lab_conformance!(LAB, with_implementations,
/// |experiment, parameter| runs)`, where `with_implementations` is the lab's registry macro (its
/// list of what is measured: the implementations and the harness floor, if any) and
/// the filter keeps the cases a debug-build test can afford to run (the smoke run of the
/// optimised build opens the others).
#[macro_export]
macro_rules! lab_conformance {
    ($lab:expr, $registry:ident, $runs:expr) => {
        #[test]
        fn conformance_every_case_opens_and_runs_inside_one_window() {
            $crate::testing::every_case_opens_and_runs(&$lab, $runs);
        }

        #[test]
        fn conformance_every_case_has_a_name_of_its_own() {
            $crate::testing::names_are_distinct(&$lab);
        }

        #[test]
        fn conformance_counted_cases_run_on_one_thread() {
            $crate::testing::counted_cases_are_single_threaded(&$lab);
        }

        #[test]
        fn conformance_an_experiment_s_implementations_are_the_lab_s_with_its_baseline() {
            $crate::testing::experiment_implementations_are_the_lab_s_own(&$lab);
        }

        #[test]
        fn conformance_the_quick_selection_names_the_lab_s_own_cases() {
            $crate::testing::quick_selection_is_the_lab_s_own(&$lab);
        }

        #[test]
        fn conformance_registry_modules_are_named_like_their_implementations() {
            use $crate::registry_module_names;
            $crate::testing::registry_matches(&$lab, &$registry!(registry_module_names));
        }

        #[test]
        fn conformance_the_report_renders_from_empty_partial_and_full_sets() {
            $crate::testing::report_renders(&$lab);
        }

        #[test]
        fn conformance_the_answers_name_the_lab_s_own_designs_and_cases() {
            $crate::testing::answers_name_the_description(&$lab);
        }

        #[test]
        fn conformance_the_reference_files_name_the_lab_s_own_designs_and_cases() {
            $crate::testing::reference_files_name_the_lab_s_own(&$lab);
        }

        #[test]
        fn conformance_the_jvm_benchmarks_measure_the_lab_s_own_cases() {
            $crate::testing::jvm_benchmarks_name_the_lab_s_cases(&$lab);
        }
    };
}

/// Every JMH cell and JOL weighing of the lab's JVM side names one of its JVM designs on one of
/// its cases, once; the baseline design has a cell on each case any JVM design is timed on.
pub fn jvm_benchmarks_name_the_lab_s_cases(lab: &dyn Lab) {
    let Some(benchmarks) = lab.jvm() else { return };
    benchmarks
        .check(lab.experiments())
        .unwrap_or_else(|e| panic!("{}: {e}", lab.name()));
    let baseline = benchmarks.designs[0];
    for cell in &benchmarks.cells {
        assert!(
            benchmarks.cell(&cell.case(), baseline).is_some(),
            "{}: {} is timed on the JVM without the JVM baseline",
            lab.name(),
            cell.case()
        );
    }
}

/// The module names of a lab's registry list (`module => Type, …`), for [`registry_matches`].
#[macro_export]
macro_rules! registry_module_names {
    ($($module:ident => $ty:path),* $(,)? $(; floor $floor:ident => $floor_ty:path)?) => {
        [$(stringify!($module)),* $(, stringify!($floor))?]
    };
}

/// A window that checks the protocol a runner owes every window: the measured stretch opened
/// once and closed once, in that order, and no event counted before it opened (a warm-up's). Events
/// may be counted after it closes: threaded runners gather their workers' tallies then.
#[derive(Default)]
struct ProtocolWindow {
    opened: u32,
    closed: u32,
    stray_events: u32,
    completed: Option<f64>,
    failure: Option<String>,
}

impl Window for ProtocolWindow {
    fn open(&mut self) {
        assert_eq!((self.opened, self.closed), (0, 0), "opened twice");
        self.opened += 1;
    }
    fn close(&mut self) {
        assert_eq!(
            (self.opened, self.closed),
            (1, 0),
            "closed before it opened, or twice"
        );
        self.closed += 1;
    }
    fn latencies(&self) -> Option<Arc<LatencySink>> {
        None
    }
    fn count(&mut self, _: EventName, _: u64) {
        if self.opened == 0 {
            self.stray_events += 1;
        }
    }
    fn completed(&mut self, ops: f64) {
        self.completed = Some(ops);
    }
    fn heap_measured(&mut self, _: MeasuredHeap) {}
    fn failed(&mut self, reason: String) {
        self.failure = Some(reason);
    }
}

/// Every case `runs` keeps opens for every implementation, its reference cells included, and one
/// short run measures inside exactly one window and reports a time; an unknown design or
/// parameter is refused with the valid names.
/// Every design's name reads as a design in an id (not as a twin, a slowed cell or a ratio), every
/// experiment's name is its own, and so is every parameter's within its experiment: a case is
/// opened by name, so a second one of the same name could never be.
pub fn names_are_distinct(lab: &dyn crate::lab::Describe) {
    for implementation in lab.implementations() {
        assert!(
            !crate::record::Role::spelled_in(implementation),
            "`{implementation}` reads as another cell's role in an id (`-again`, `-slowed-N`, \
             `-vs-`): name the design otherwise"
        );
    }
    let experiments = lab.experiments();
    let names: std::collections::BTreeSet<&str> = experiments.iter().map(|e| e.name).collect();
    assert_eq!(
        names.len(),
        experiments.len(),
        "{}: experiment names repeat",
        lab.name()
    );
    for e in experiments {
        let names: std::collections::BTreeSet<&str> =
            e.parameters.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names.len(),
            e.parameters.len(),
            "{}: parameter names repeat",
            e.name
        );
    }
}

/// Every case whose instructions are counted runs on one thread: valgrind serialises threads,
/// so a count of several is of the one interleaving it chose, not of the design.
pub fn counted_cases_are_single_threaded(lab: &dyn crate::lab::Describe) {
    for case in counted_cases_of(lab) {
        let experiment = crate::lab::experiment(lab, &case.experiment).unwrap();
        let threads = experiment.parameter(&case.parameter).unwrap().threads;
        assert!(threads <= 1, "{case}: counted on {threads} threads");
    }
}

/// An experiment that measures only some implementations names the lab's own, its baseline
/// among them: the verdicts and reference cells of its cases are the baseline's.
pub fn experiment_implementations_are_the_lab_s_own(lab: &dyn crate::lab::Describe) {
    let implementations = lab.implementations();
    for e in lab
        .experiments()
        .iter()
        .filter(|e| !e.implementations.is_empty())
    {
        for named in &e.implementations {
            assert!(implementations.contains(named), "{}: `{named}`", e.name);
        }
        assert!(
            e.lists(implementations[0]),
            "{}: its implementations leave out the baseline `{}`",
            e.name,
            implementations[0]
        );
    }
}

/// A quick selection ([`crate::lab::Describe::quick_selection`]) is names of the lab's own that
/// select at least one timed cell: a quick run given no names never fails or measures nothing.
pub fn quick_selection_is_the_lab_s_own(lab: &dyn crate::lab::Describe) {
    let words: Vec<String> = lab
        .quick_selection()
        .into_iter()
        .map(str::to_owned)
        .collect();
    let selection = crate::lab::Selection::parse(lab, &words).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        crate::lab::timed_ids(lab)
            .iter()
            .any(|id| selection.selects(id)),
        "{}: the quick selection selects no timed cell",
        lab.name()
    );
}

pub fn every_case_opens_and_runs(lab: &dyn Lab, runs: impl Fn(&Experiment, &Parameter) -> bool) {
    let experiments = lab.experiments();
    let kept = cases(lab, runs);
    assert!(
        !kept.is_empty(),
        "the filter keeps no case of {}",
        lab.name()
    );
    for case in &kept {
        let e = experiments
            .iter()
            .find(|e| e.name == case.experiment)
            .unwrap();
        let parameter = e.parameter(&case.parameter).unwrap();
        let ops = if e.kind == Kind::Steady {
            e.cap(10).max(parameter.min_ops)
        } else {
            1
        };
        for implementation in lab.implementations() {
            let id = case.id(implementation);
            if !crate::measure::runnable(lab, implementation) {
                continue;
            }
            let open = || crate::measure::open_cell(lab, implementation, case);
            if !measures(lab, e, implementation) {
                let err = open().err();
                let refused = err.is_some_and(|err| err.contains("is not measured on"));
                assert!(
                    refused,
                    "{id}: opens, but its experiment does not measure it"
                );
                continue;
            }
            let mut runner = open().unwrap_or_else(|err| panic!("{id} does not open: {err}"));
            let mut window = ProtocolWindow::default();
            let elapsed = runner.run(0, ops, &mut window);
            assert_eq!(window.failure, None, "{id}: the run failed");
            assert_eq!(
                (window.opened, window.closed),
                (1, 1),
                "{id}: one window per run"
            );
            assert_eq!(
                window.stray_events, 0,
                "{id}: events counted before the window opened"
            );
            assert!(!elapsed.is_zero(), "{id}: a run of {ops} ops took no time");
            if let Some(done) = window.completed {
                assert!(
                    done.is_finite() && done >= 0.0,
                    "{id}: {done} operations of {ops} completed"
                );
            }
        }
    }
    let implementations = lab.implementations();
    let err = lab.open("no-such-design", &kept[0]).err().unwrap();
    assert!(
        err.contains(&format!("valid: {}", implementations[0])),
        "{err}"
    );
    let unknown = BenchCase::new(&kept[0].experiment, "no-such-parameter");
    let err = lab.open(implementations[0], &unknown).err().unwrap();
    assert!(err.contains("is not a parameter of"), "{err}");
}

/// The registry's modules are the lab's Rust implementations, in order (its JVM designs follow
/// them in its description), each with every counted case.
pub fn registry_matches(lab: &'static dyn Lab, modules: &[&str]) {
    let names: Vec<String> = modules.iter().map(|m| m.replace('_', "-")).collect();
    let jvm = lab.jvm_designs();
    assert_eq!(
        names,
        lab.rust_designs(),
        "registry modules ↔ implementations"
    );
    assert!(
        lab.implementations().ends_with(&jvm),
        "the JVM designs follow the Rust ones"
    );
    let counted = counted_cases_of(lab).len();
    for module in modules {
        assert_eq!(counted_cases(lab, module).len(), counted, "{module}");
    }
}

/// A full set: every timed id with passes of time, throughput and p99, every counted case with
/// its counts, every retained case with its bytes; values differ by implementation.
fn full_set(lab: &dyn crate::lab::Describe) -> ResultSet {
    let factor = |id: &BenchId| 1.0 + id.implementation.len() as f64 / 10.0;
    let mut records = Vec::new();
    for id in timed_ids(lab) {
        for metric in [Metric::NsPerOp, Metric::OpsPerSec, Metric::LatencyP99Ns] {
            let passes = (0..8).map(|p| factor(&id) * (100.0 + p as f64)).collect();
            records.push(Record::from_passes(id.clone(), metric, passes));
        }
    }
    for implementation in lab.implementations() {
        for case in counted_cases_of(lab) {
            let id = case.id(implementation);
            for metric in [
                Metric::InstructionsPerOp,
                Metric::EstimatedCyclesPerOp,
                Metric::AllocsPerOp,
                Metric::BytesPerOp,
            ] {
                records.push(Record::new(id.clone(), metric, factor(&id) * 50.0));
            }
        }
        for case in cases(lab, |e, _| {
            e.kind == Kind::Retained && measures(lab, e, implementation)
        }) {
            let id = case.id(implementation);
            for metric in [Metric::RetainedBytes, Metric::RetainedUsableBytes] {
                records.push(Record::new(id.clone(), metric, factor(&id) * 4096.0));
            }
        }
    }
    result_set(lab, records)
}

/// The most words a report's verdict paragraph may take: a reviewer reads it in one go.
pub const VERDICT_WORDS: usize = 120;

/// The report renders from an empty set, from one record, from a full set and from a full set
/// that replaced another: every slot filled, every chart a whole SVG, what a set holds shown, and
/// a verdict paragraph of at most [`VERDICT_WORDS`] words.
pub fn report_renders(lab: &dyn LabReport) {
    let full = full_set(lab);
    let claimed = crate::document::description(lab).claimed_cases;
    let partial = result_set(lab, full.records[..1].to_vec());
    let replacing = ResultSet {
        previous: Some(Box::new(
            full.as_previous(|r| crate::lab::kept_of_previous(r, &claimed)),
        )),
        ..full.clone()
    };
    for (what, set) in [
        ("empty", result_set(lab, vec![])),
        ("partial", partial),
        ("full", full),
        ("replacing", replacing),
    ] {
        let rendered = render(lab, &set).unwrap_or_else(|err| panic!("{what} set: {err}"));
        let verdict = lab
            .answers()
            .and_then(|a| crate::answers::verdict_paragraph(&a, &set));
        if let Some(verdict) = verdict {
            let words = verdict.split_whitespace().count();
            assert!(
                words <= VERDICT_WORDS,
                "{what} set: a verdict of {words} words: {verdict}"
            );
        }
        for (page, text) in [("main", &rendered.main), ("details", &rendered.details)] {
            assert!(
                !text.contains("{{"),
                "{what} set: an unfilled slot on the {page} page"
            );
            assert!(!text.trim().is_empty(), "{what} set: an empty {page} page");
        }
        for chart in &rendered.charts {
            assert!(
                chart.svg.ends_with("</svg>\n"),
                "{what} set: {} is cut",
                chart.stem
            );
        }
    }
}

/// The lab's answers (the write-up's claims) name only its own implementations and parameters: a claim on a
/// described experiment names one of its parameters; a claim on a derived record
/// ([`Lab::derived`], an experiment of its own) names a parameter of some described experiment.
pub fn answers_name_the_description(lab: &dyn LabReport) {
    let Some(answers) = lab.answers() else {
        return;
    };
    let implementations = lab.implementations();
    for named in answers.implementations() {
        assert!(implementations.contains(&named), "answers name `{named}`");
    }
    let experiments = lab.experiments();
    for claim in &answers.claims {
        let own = experiments.iter().any(|e| e.name == claim.experiment);
        let mut described = experiments
            .iter()
            .filter(|e| !own || e.name == claim.experiment);
        assert!(
            described.any(|e| e.parameter(&claim.parameter).is_some()),
            "{}: no experiment {} with a parameter `{}`",
            claim.claim,
            claim.experiment,
            claim.parameter
        );
    }
}

/// The lab's reference files parse, and every target of every targets file its report checks
/// names the lab's own designs, an experiment its [`LabReport::target_experiments`] resolves, and
/// only parameters of the experiments it resolves to; its cost buckets, if it splits counted
/// instructions, name where each bucket's costs are spent.
pub fn reference_files_name_the_lab_s_own(lab: &dyn LabReport) {
    for bucket in &lab.cost_buckets().buckets {
        assert!(!bucket.patterns.is_empty(), "cost bucket `{}`", bucket.name);
    }
    let implementations = lab.implementations();
    let sections = lab.report(&result_set(lab, vec![])).targets;
    for Targets {
        implementation,
        targets,
        ..
    } in sections.iter().map(|s| &s.spec)
    {
        assert!(
            implementations.contains(&implementation.as_str()),
            "`{implementation}`"
        );
        for spec in targets {
            for named in spec.implementation.iter().chain(&spec.versus) {
                assert!(
                    implementations.contains(&named.as_str()),
                    "{}: `{named}`",
                    spec.what
                );
            }
            let selected = lab.target_experiments(&spec.experiment);
            assert!(!selected.is_empty(), "{}: `{}`", spec.what, spec.experiment);
            let parameters: Vec<&String> = selected.iter().flat_map(|(_, p)| p).collect();
            for named in &spec.parameters {
                assert!(parameters.contains(&named), "{}: `{named}`", spec.what);
            }
        }
    }
}

/// The fixture lab's page: its cost split, a time table and one chart.
impl LabReport for TinyLab {
    fn report(&self, _: &ResultSet) -> Document {
        let rows = vec![Row::new("op", "small", "small")];
        Document {
            trust: None,
            main: Page::new("{{split}}").with("split", Block::CostSplit(rows.clone())),
            details: Page::new("{{time}}")
                .with("time", Block::Table(Metric::NsPerOp, rows.clone())),
            charts: vec![ChartSpec::Metric {
                stem: "tiny".into(),
                title: "tiny".into(),
                metric: Metric::NsPerOp,
                rows,
            }],
            ..Document::default()
        }
    }
}

#[cfg(test)]
mod tests;
