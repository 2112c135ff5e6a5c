//! dedup-lab's report: the records it derives (footprint per producer still known, what a purge
//! sweep adds to the publisher's tail), where counted instructions go, its targets, its answers to
//! PR #26763's table, and what its two pages hold.

use labkit::answers::Answers;
use labkit::callgrind::Buckets;
use labkit::document::{Block, ChartSpec, Document, LabReport, Page, target_blocks};
use labkit::lab::{Describe, Experiment, Parameter};
use labkit::record::{BenchId, Metric, Record, ResultSet};
use labkit::report::{Row, format_duration};
use labkit::table::{Align, Table, format_count, format_number};
use labkit::targets::Targets;

use crate::lab::{
    ADMISSION, BESIDE_INACTIVE, CHURN, DedupLab, FOOTPRINT, FOOTPRINT_PER_PRODUCER, Growth,
    INACTIVE_PARAMETER, LAB, LOST_RACES, PURGE_ADDED_TAIL, PURGE_SWEEP, REPLICATED_ADMISSION,
};

/// What the targets table says below its rows: the reasons for misses, with this run's values.
const TARGETS_NOTES: &str = include_str!("../report/targets-notes.md");

pub fn cost_buckets() -> Buckets {
    Buckets::parse(include_str!("../report/cost-buckets.json")).expect("the buckets file parses")
}

pub fn answers() -> Answers {
    Answers::parse(include_str!("../report/answers.json")).expect("the answers file parses")
}

pub fn target_specs() -> Targets {
    Targets::parse(include_str!("../report/targets.json")).expect("the targets file parses")
}

fn described(name: &str) -> &'static Experiment {
    labkit::lab::experiment(&LAB, name).expect("the lab's own experiment")
}

/// The rows of `experiment` whose parameters `keep` selects.
fn rows(experiment: &str, cores: usize, keep: impl Fn(&Parameter) -> bool) -> Vec<Row> {
    let experiment = described(experiment);
    experiment
        .parameters
        .iter()
        .filter(|p| keep(p))
        .map(|p| Row::of(experiment, p, cores))
        .collect()
}

/// The records derived from measured ones: footprint per producer still known, and what a purge
/// sweep adds to the publisher's p99.9.
pub fn derived(set: &ResultSet) -> Vec<Record> {
    let mut out = Vec::new();
    for r in &set.records {
        if r.id.experiment == FOOTPRINT
            && r.metric == Metric::RetainedBytes
            && let Ok(growth) = Growth::find(&r.id.parameter)
        {
            let id = r.id.with_case(FOOTPRINT_PER_PRODUCER, &r.id.parameter);
            out.push(Record::new(id, r.metric, r.value / growth.kept as f64));
        }
        if r.id.experiment == PURGE_SWEEP && r.metric == Metric::LatencyP999Ns {
            let alone = r.id.with_case(BESIDE_INACTIVE, &r.id.parameter);
            if let Some(alone) = set.find(&alone, r.metric) {
                let id = r.id.with_case(PURGE_ADDED_TAIL, &r.id.parameter);
                out.push(Record::new(id, r.metric, r.value - alone.value));
            }
        }
    }
    out
}

/// The experiments, with their parameters, a target's `experiment` stands for (a derived one
/// has the parameters of the experiment it comes from).
pub fn target_experiments(name: &str) -> Vec<(String, Vec<String>)> {
    let source = match name {
        FOOTPRINT_PER_PRODUCER => FOOTPRINT,
        PURGE_ADDED_TAIL => PURGE_SWEEP,
        other => other,
    };
    labkit::lab::experiment(&LAB, source)
        .map(|e| {
            let parameters = e.parameters.iter().map(|p| p.name.clone()).collect();
            vec![(name.to_owned(), parameters)]
        })
        .unwrap_or_default()
}

/// A signed duration: `+1.20 µs`, `−350 ns`.
fn format_added(ns: f64) -> String {
    let sign = if ns < 0.0 { "−" } else { "+" };
    format!("{sign}{}", format_duration(ns.abs()))
}

/// Answers outside the contract per row and design, as counts (a comparison to the baseline
/// means nothing when both should be zero).
fn unexpected_table(set: &ResultSet, rows: &[Row], implementations: &[&str]) -> Table {
    let mut table = implementations
        .iter()
        .fold(Table::new().column("Case", Align::Left), |t, i| {
            t.column(&format!("`{i}`"), Align::Right)
        });
    for row in rows {
        let mut cells = vec![format!("{} · `{}`", row.experiment, row.parameter)];
        cells.extend(implementations.iter().map(|implementation| {
            let id = BenchId::new(&row.experiment, implementation, &row.parameter);
            set.find(&id, Metric::EventsPer100Ops(crate::churn::UNEXPECTED))
                .map_or_else(|| "—".into(), |r| format_number(r.value))
        }));
        table.row(cells);
    }
    table
}

/// Per design: the publisher's p99.9 alone and during purge sweeps, and the difference.
fn purge_tail_table(set: &ResultSet, implementations: &[&str]) -> Table {
    let mut table = Table::new()
        .column("Design", Align::Left)
        .column("p99.9 beside inactive producers", Align::Right)
        .column("p99.9 during purge sweeps", Align::Right)
        .column("added", Align::Right);
    for implementation in implementations {
        let find = |experiment: &str| {
            set.find(
                &BenchId::new(experiment, implementation, INACTIVE_PARAMETER),
                Metric::LatencyP999Ns,
            )
            .map(|r| r.value)
        };
        let (alone, sweeping) = (find(BESIDE_INACTIVE), find(PURGE_SWEEP));
        let show = |v: Option<f64>| v.map_or_else(|| "—".into(), format_duration);
        let added = match (alone, sweeping) {
            (Some(a), Some(s)) => format_added(s - a),
            _ => "—".into(),
        };
        table.row(vec![
            format!("`{implementation}`"),
            show(alone),
            show(sweeping),
            added,
        ]);
    }
    table
}

/// The churn and purge workloads' settings the prose names.
fn settings() -> Vec<(&'static str, String)> {
    use crate::churn::{CHURN_EVERY, INACTIVE, KEPT_INACTIVE, LIVE_PER_PUBLISHER};
    vec![
        ("churn_every", format_count(CHURN_EVERY)),
        ("kept_inactive", format_count(KEPT_INACTIVE)),
        (
            "live_per_publisher",
            format_count(LIVE_PER_PUBLISHER as u64),
        ),
        ("inactive", format_count(INACTIVE as u64)),
    ]
}

impl LabReport for DedupLab {
    fn report(&self, set: &ResultSet) -> Document {
        let cores = set.environment.cores;
        let implementations = LAB.implementations();
        let all = |experiment: &str| rows(experiment, cores, |_| true);
        let admission = all(ADMISSION);
        let churn = all(CHURN);
        let purge = [all(BESIDE_INACTIVE), all(PURGE_SWEEP)].concat();
        let footprint = all(FOOTPRINT);
        let per_producer = Row::all_derived(described(FOOTPRINT), cores, FOOTPRINT_PER_PRODUCER);
        let timed = [
            admission.clone(),
            all(REPLICATED_ADMISSION),
            churn.clone(),
            purge.clone(),
        ]
        .concat();
        let threaded = |experiment: &str| rows(experiment, cores, |p| p.threads > 1);
        let counted = |experiment: &str| rows(experiment, cores, |p| p.counted);
        let targets = target_specs();
        let targets_blocks = target_blocks(set, &targets, target_experiments, TARGETS_NOTES);
        let mut charts = vec![ChartSpec::Metric {
            stem: "dedup-admission-ns".into(),
            title: "dedup: time per admission by thread shape (ns/op, median)".into(),
            metric: Metric::NsPerOp,
            rows: admission.clone(),
        }];
        charts.extend(churn.iter().chain(&purge).map(|row| ChartSpec::Latency {
            stem: format!("dedup-{}-{}-latency", row.experiment, row.parameter),
            title: format!(
                "dedup: {} · {}, admission latency percentiles",
                row.experiment, row.parameter
            ),
            row: row.clone(),
        }));
        Document {
            trust: None,
            answers: Some(answers()),
            main: Page::new(include_str!("../report/report.md"))
                .blocks(vec![
                    ("time", Block::Table(Metric::NsPerOp, admission.clone())),
                    (
                        "lost_races",
                        Block::Table(
                            Metric::EventsPer100Ops(LOST_RACES),
                            rows(ADMISSION, cores, |p| p.name.starts_with("shared-increment")),
                        ),
                    ),
                    (
                        "churn_throughput",
                        Block::Table(Metric::OpsPerSec, churn.clone()),
                    ),
                ])
                .blocks(targets_blocks),
            details: Page::new(include_str!("../report/details.md")).blocks(vec![
                (
                    "instructions",
                    Block::Table(Metric::InstructionsPerOp, counted(ADMISSION)),
                ),
                ("cost_split", Block::CostSplit(counted(ADMISSION))),
                (
                    "throughput",
                    Block::Table(Metric::OpsPerSec, threaded(ADMISSION)),
                ),
                (
                    "cycles",
                    Block::Table(Metric::EstimatedCyclesPerOp, counted(ADMISSION)),
                ),
                (
                    "replicated_time",
                    Block::Table(Metric::NsPerOp, all(REPLICATED_ADMISSION)),
                ),
                (
                    "replicated_throughput",
                    Block::Table(Metric::OpsPerSec, threaded(REPLICATED_ADMISSION)),
                ),
                (
                    "replicated_instructions",
                    Block::Table(Metric::InstructionsPerOp, counted(REPLICATED_ADMISSION)),
                ),
                (
                    "replicated_cost_split",
                    Block::CostSplit(counted(REPLICATED_ADMISSION)),
                ),
                (
                    "churn_description",
                    Block::Markdown(described(CHURN).description.clone()),
                ),
                (
                    "churn_latency",
                    Block::Latencies {
                        operation: "admission".into(),
                        rows: churn.clone(),
                    },
                ),
                (
                    "churn_unexpected",
                    Block::Markdown(
                        unexpected_table(set, &[churn, purge.clone()].concat(), &implementations)
                            .render(),
                    ),
                ),
                (
                    "sweep_time",
                    Block::Table(Metric::NsPerOp, purge[1..].to_vec()),
                ),
                (
                    "purge_latency",
                    Block::Latencies {
                        operation: "admission".into(),
                        rows: purge,
                    },
                ),
                (
                    "purge_tail",
                    Block::Markdown(purge_tail_table(set, &implementations).render()),
                ),
                ("allocs", Block::Table(Metric::AllocsPerOp, timed.clone())),
                ("bytes", Block::Table(Metric::BytesPerOp, timed)),
                (
                    "retained",
                    Block::Table(Metric::RetainedBytes, footprint.clone()),
                ),
                (
                    "per_producer",
                    Block::Table(Metric::RetainedBytes, per_producer),
                ),
                (
                    "retained_usable",
                    Block::Table(Metric::RetainedUsableBytes, footprint),
                ),
            ]),
            charts,
            settings: settings(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::CHURN_PUBLISHERS;
    use labkit::testing::result_set;

    #[test]
    fn the_report_renders_from_an_empty_set() {
        let rendered = labkit::document::render(&LAB, &result_set(&LAB, vec![])).unwrap();
        let (main, details) = (&rendered.main, &rendered.details);
        assert!(main.contains("## Answers"));
        assert!(main.contains("## Time per admission"));
        assert!(main.contains("oversubscribed: 16 threads"));
        assert!(details.contains("## Under producer churn"));
        assert!(details.contains("`2-publishers`: 2 publishing threads, 250 producers"));
        assert!(details.contains("oversubscribed: 3 threads"));
        // The admission chart, and one latency chart per churn and purge row.
        assert_eq!(rendered.charts.len(), 1 + CHURN_PUBLISHERS.len() + 2);
    }

    #[test]
    fn derived_records_divide_by_the_producers_kept_and_subtract_the_reference_tail() {
        let record = |experiment: &str, parameter: &str, metric: Metric, value: f64| {
            Record::new(
                BenchId::new(experiment, "atomic-slot", parameter),
                metric,
                value,
            )
        };
        let s = result_set(
            &LAB,
            vec![
                record(
                    FOOTPRINT,
                    "1000000-producers-purged-to-10000",
                    Metric::RetainedBytes,
                    1e6,
                ),
                record(
                    BESIDE_INACTIVE,
                    INACTIVE_PARAMETER,
                    Metric::LatencyP999Ns,
                    900.0,
                ),
                record(
                    PURGE_SWEEP,
                    INACTIVE_PARAMETER,
                    Metric::LatencyP999Ns,
                    2_400.0,
                ),
            ],
        );
        let values: Vec<(String, f64)> = derived(&s)
            .into_iter()
            .map(|r| (r.id.to_string(), r.value))
            .collect();
        assert_eq!(
            values,
            [
                (
                    "footprint-per-producer/atomic-slot/1000000-producers-purged-to-10000".into(),
                    100.0
                ),
                ("purge-added-tail/atomic-slot/100k-inactive".into(), 1_500.0),
            ]
        );
    }

    #[test]
    fn the_reference_files_name_the_lab_s_own_designs_and_cases() {
        labkit::testing::targets_name_the_lab_s_own(&LAB, &target_specs(), target_experiments);
        assert!(!cost_buckets().buckets.is_empty());
    }
}
