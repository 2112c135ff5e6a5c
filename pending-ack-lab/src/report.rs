//! pending-ack-lab's report: what its two pages hold beyond what their templates place
//! (`report/*.md`: every experiment's section, looped over the groups below), its targets
//! (dense-window's, the concurrency ones), the answers to the write-up's published rows and its
//! charts. The design notes read dense-window's constants from its code.

use labkit::answers::Answers;
use labkit::chart::Scale;
use labkit::document::{ChartSpec, Document, LabReport, Page, target_section};
use labkit::lab::{Describe, Experiment, Kind};
use labkit::record::{Metric, ResultSet};
use labkit::report::{Lines, Point, Row};
use labkit::table::format_count;
use labkit::targets::Targets;

use crate::concurrent::{Lock, Timed};
use crate::concurrent::{SHAPES, Shape};
use crate::lab::{FOOTPRINT, FOOTPRINT_PER_ENTRY, LAB, PendingAckLab};
use crate::workload::{COUNTED_OPS, DATASETS, Dataset};

labkit::report_files! {
    answers: Answers = "answers.json",
    concurrency_target_specs: Targets = "concurrency-targets.json",
    target_specs: Targets = "targets.json",
}

/// Every single-thread steady experiment, in a target's `experiment`.
const EVERY_STEADY: &str = "*steady";
/// Every concurrent shape on the designs' own shared forms whose latencies are those of acks, in
/// a target's `experiment`.
const EVERY_ACK_SHAPE: &str = "*concurrent-acks";

/// Whether a target's group of experiments selects `experiment`.
fn selects(selector: &str, experiment: &Experiment) -> bool {
    let shape = Shape::find(experiment.name);
    match selector {
        EVERY_STEADY => experiment.kind == Kind::Steady && shape.is_none(),
        EVERY_ACK_SHAPE => shape.is_some_and(|s| s.timed == Timed::Acks && s.lock == Lock::Design),
        _ => false,
    }
}

/// The experiments, with their parameters, a target's `experiment` stands for: a group, or
/// by the kit's rule one experiment, measured or derived.
fn target_experiments(selector: &str) -> Vec<(String, Vec<String>)> {
    if ![EVERY_STEADY, EVERY_ACK_SHAPE].contains(&selector) {
        return labkit::targets::target_experiments(&LAB, selector);
    }
    let parameters = |e: &Experiment| e.parameters.iter().map(|p| p.name.clone()).collect();
    LAB.experiments()
        .iter()
        .filter(|e| selects(selector, e))
        .map(|e| (e.name.to_owned(), parameters(e)))
        .collect()
}

fn described(name: &str) -> &'static Experiment {
    labkit::lab::experiment(&LAB, name).expect("the lab's own experiment")
}

/// The designs' and datasets' settings the prose names.
fn settings() -> Vec<(&'static str, String)> {
    use crate::implementations::dense_window as dense;
    use crate::implementations::striped_window::{SORTED_UP_TO, STRIPES};
    let small = crate::workload::Dataset::find("64k-in-1k").expect("a dataset of the lab");
    labkit::settings![
        stripes = STRIPES,
        sorted_up_to = SORTED_UP_TO,
        small_ledger_entries = small.entries / small.ledgers,
        counted_ops = COUNTED_OPS,
        ledger_bytes = dense::LEDGER_BYTES,
        value_bytes = size_of::<crate::PendingAck>(),
        slots_per_entry = dense::SLOTS_PER_ENTRY,
        growth_one_in = dense::GROWTH_ONE_IN,
        shrink_below_one_in = dense::SHRINK_BELOW_ONE_IN,
        spare_slots_per_entry = dense::SPARE_SLOTS_PER_ENTRY,
        spare_floor = format_count(dense::SPARE_FLOOR_SLOTS as u64),
    ]
}

/// What the details page loops over: the single-thread experiments (a time table each) and the
/// concurrent shapes (throughput, heap held and latencies each).
fn groups() -> Vec<(&'static str, Vec<labkit::template::Item<'static>>)> {
    let single = LAB
        .experiments()
        .iter()
        .filter(|e| e.is_timed() && Shape::find(e.name).is_none())
        .map(|e| vec![("name", e.name.to_owned())])
        .collect();
    let shapes = SHAPES
        .iter()
        .map(|shape| {
            vec![
                ("name", shape.name.to_owned()),
                ("threads", shape.threads().to_string()),
                ("operation", shape.timed_operation().to_owned()),
            ]
        })
        .collect();
    vec![("single", single), ("shapes", shapes)]
}

impl LabReport for PendingAckLab {
    fn answers(&self) -> Option<Answers> {
        Some(answers())
    }

    fn target_experiments(&self, selector: &str) -> Vec<(String, Vec<String>)> {
        target_experiments(selector)
    }

    fn report(&self, set: &ResultSet) -> Document {
        let targets = target_specs();
        let concurrency = concurrency_target_specs();
        Document {
            main: Page::new(include_str!("../report/report.md")),
            details: Page::new(include_str!("../report/details.md")),
            targets: vec![
                target_section(self, "concurrency", set, &concurrency)
                    .with_notes(include_str!("../report/concurrency-notes.md")),
                target_section(self, "targets", set, &targets)
                    .headed(&targets.implementation)
                    .with_notes(include_str!("../report/targets-notes.md")),
            ],
            charts: charts(set),
            settings: settings(),
            groups: groups(),
            ..Document::default()
        }
    }
}

fn charts(set: &ResultSet) -> Vec<ChartSpec> {
    let cores = set.environment.cores;
    let per_entry = Row::all_derived(described(FOOTPRINT), cores, FOOTPRINT_PER_ENTRY);
    let mut charts: Vec<ChartSpec> = LAB
        .experiments()
        .iter()
        .filter(|e| e.is_timed())
        .map(|e| {
            let title = format!("pending-ack: {} (ns/op, median)", e.name);
            let stem = format!("pending-ack-{}-ns", e.name);
            ChartSpec::bars(stem, title, Metric::NsPerOp, Row::all(e, cores))
        })
        .collect();
    for shape in SHAPES {
        let e = described(shape.name);
        let row = Row::all(e, cores).remove(0);
        let (name, op) = (e.name, shape.timed_operation());
        let title = format!(
            "pending-ack: {name} · {}, {op} latency percentiles",
            row.parameter
        );
        charts.push(ChartSpec::latency(
            format!("pending-ack-{name}-latency"),
            title,
            row,
        ));
    }
    // Bytes per entry against the average ledger size, the parameter that governs per-ledger
    // overhead: the sparse datasets sit on the left, one big ledger on the right.
    let point = |d: &Dataset| {
        let x = d.entries as f64 / d.ledgers as f64;
        Point::new(x, FOOTPRINT_PER_ENTRY, d.name, d.name)
    };
    let points = DATASETS.iter().map(point).collect();
    let title = "pending-ack: retained bytes per entry against entries per ledger";
    let stem = "pending-ack-footprint-vs-ledger-size";
    let lines = Lines::new(stem, title, Metric::RetainedBytes, points);
    let x_axis = format!("entries per ledger (all {} datasets)", DATASETS.len());
    let lines = lines.axes(&x_axis, "retained bytes per entry", Scale::Log);
    charts.push(ChartSpec::Lines(lines.unit("B/entry", 1.0, 1)));
    let title = "pending-ack: retained bytes per entry by dataset (entries-in-ledgers)";
    let stem = "pending-ack-footprint-per-entry";
    charts.push(ChartSpec::bars(
        stem,
        title,
        Metric::RetainedBytes,
        per_entry,
    ));
    charts
}

#[cfg(test)]
mod tests {
    use super::*;
    use labkit::fixture::result_set;
    use labkit::record::{BenchId, Interval, Record};
    use labkit::targets::check;

    const BASELINE: &str = "nested-tree";
    const PUBLISHED_PRIMITIVE: &str = "primitive-bucketed";
    const OURS: &str = "dense-window";

    fn timed(experiment: &str, implementation: &str, value: f64) -> Record {
        Record::new(
            BenchId::new(experiment, implementation, "50k-in-1"),
            Metric::NsPerOp,
            value,
        )
        .with_interval(Interval {
            lower: value * 0.99,
            upper: value * 1.01,
            confidence: 0.95,
        })
    }

    /// Every row of the write-up's tables but the two one-ledger allocation rows of its rolling
    /// window (+3.1 %, +4.2 %), from which it draws no conclusion (its summary speaks of 5+
    /// ledgers).
    #[test]
    fn the_answers_claim_every_row_the_write_up_draws_a_conclusion_from() {
        assert_eq!(answers().claims.len(), 42);
    }

    #[test]
    fn targets_are_checked_against_the_measured_values() {
        let s = result_set(
            &LAB,
            vec![
                timed("dispatch-and-ack-cycle", OURS, 12.0),
                timed("same-ledger-small-prefix", OURS, 3_500.0),
            ],
        );
        let t = check(&s, &target_specs(), target_experiments);
        let find = |needle: &str| t.iter().find(|t| t.what.contains(needle)).unwrap();
        assert_eq!(find("dispatch-and-ack-cycle `50k-in-1`").met, Some(true));
        assert_eq!(find("2 % prefix").met, Some(false));
        assert_eq!(find("`1k-in-1000`").met, None);
        let steady = LAB
            .experiments()
            .iter()
            .filter(|e| e.kind == Kind::Steady && Shape::find(e.name).is_none())
            .count();
        assert_eq!(
            t.iter()
                .filter(|t| t.what.contains("0 allocations"))
                .count(),
            steady
        );
    }

    #[test]
    fn ratio_targets_compare_two_designs_on_the_same_id() {
        let ops = |implementation: &str, value: f64| {
            let id = BenchId::new("shared-dispatch-and-ack", implementation, "50k-in-1");
            Record::new(id, Metric::OpsPerSec, value)
        };
        let s = result_set(
            &LAB,
            vec![
                ops(BASELINE, 1e6),
                ops("striped-window", 2.5e6),
                ops(OURS, 1.5e6),
            ],
        );
        let t = check(&s, &concurrency_target_specs(), target_experiments);
        let find = |needle: &str| {
            t.iter()
                .find(|t| t.what.contains(needle) && t.what.contains("dispatch-and-ack `50k-in-1`"))
                .unwrap()
        };
        let no_lock = find("no map-wide lock");
        assert_eq!(
            (no_lock.met, no_lock.measured.as_str()),
            (Some(true), "2.50× `nested-tree`")
        );
        assert_eq!(find("under the same lock").met, Some(false));
        assert_eq!(find("ack p99").met, None, "no latency recorded");
    }

    #[test]
    fn rows_where_ours_is_not_faster_are_listed() {
        let s = result_set(
            &LAB,
            vec![
                timed("remove-all-up-to", BASELINE, 100.0),
                timed("remove-all-up-to", PUBLISHED_PRIMITIVE, 90.0),
                timed("remove-all-up-to", OURS, 91.0),
                timed("dispatch-and-ack-cycle", BASELINE, 100.0),
                timed("dispatch-and-ack-cycle", OURS, 20.0),
            ],
        );
        let rows = labkit::report::not_faster(&LAB, &s, OURS, &[BASELINE, PUBLISHED_PRIMITIVE]);
        assert_eq!(rows.lines().count(), 1, "{rows}");
        assert!(rows.starts_with("- `remove-all-up-to/50k-in-1`"), "{rows}");
    }

    #[test]
    fn the_whole_report_renders_from_an_empty_and_a_partial_set() {
        let rendered = labkit::document::render(&LAB, &result_set(&LAB, vec![])).unwrap();
        assert!(rendered.main.contains("## Answers"));
        assert!(rendered.details.contains("## Design notes: `dense-window`"));
        let ledger = crate::implementations::dense_window::LEDGER_BYTES;
        assert!(
            rendered
                .details
                .contains(&format!("{ledger} bytes per ledger")),
            "the design notes state the code's constants"
        );
        assert!(rendered.details.contains("### `shuffled-ack-cycle`"));
        let partial = result_set(&LAB, vec![timed("remove-all-up-to", OURS, 91.0)]);
        let partial = labkit::document::render(&LAB, &partial).unwrap();
        assert!(
            partial.details.contains("91.0"),
            "partial sets render what they have"
        );
    }
}
