//! pending-ack-lab's description: what the measurement binaries and the driver run, and the
//! report in the seed's table shapes (rows = datasets, columns = implementations, nested-tree =
//! 1.00×), with the seed's trade-offs checked row by row and dense-window's targets. The report's
//! prose and reference data live in `report/` (template, seed rows, targets); the design notes
//! are `dense_window.rs`'s own documentation.

use std::hint::black_box;
use std::time::{Duration, Instant};

use labkit::chart::{Chart, log_log_chart};
use labkit::compare::{Verdict, compare};
use labkit::lab::{
    BenchCase, Experiment as Described, Kind, Lab, LatencyRecording, Parameter, Runner, Window,
    resolve,
};
use labkit::record::{BenchId, Metric, Record, ResultSet};
use labkit::report::{
    Report, Row, comparison_table, fill, format_metric, joined_table, latency_chart, latency_table,
    metric_chart,
};
use labkit::table::{Align, Table, format_change};
use labkit::targets::{self, Checked, Targets};
use serde::Deserialize;

use crate::concurrent::{Lock, SHAPE_DATASETS, SHAPES, Shape, Timed};
use crate::workload::{
    COUNTED_OPS, DATASETS, Dataset, Experiment, RETAINED_CASES, RetainedCase, Workload,
};
use crate::{ImplementationVisitor, PendingAcks, visit_implementation};

/// The lab, as the measurement binaries and the driver see it.
pub static LAB: PendingAckLab = PendingAckLab;

pub struct PendingAckLab;

const FOOTPRINT: &str = "footprint";
const RETAINED_CAPACITY: &str = "retained-capacity";

/// Instructions are counted on the seed's headline datasets (one and twenty ledgers) to keep the
/// valgrind stage short; the wall-time passes time every dataset.
const COUNTED_DATASETS: [&str; 2] = ["50k-in-1", "50k-in-20"];

/// A concurrent shape on its datasets: aggregate throughput, and the latencies the shape times
/// (acks, or adds) recorded in one extra sample per cell and pass.
fn shape_experiment(shape: &Shape) -> Described {
    let parameters = SHAPE_DATASETS
        .iter()
        .map(|name| {
            let dataset = Dataset::find(name).expect("the shapes' datasets are listed");
            // The threads share one count of operations: one op is one entry's whole cycle.
            Parameter::threaded(name, &dataset.label(), shape.threads(), 1)
        })
        .collect();
    Described {
        latency: LatencyRecording::ExtraSample,
        throughput: true,
        footprint_at_end: true,
        ..Described::new(shape.name, shape.description, Kind::Steady, parameters)
    }
}

fn dataset_parameter(dataset: &Dataset) -> Parameter {
    Parameter::new(
        dataset.name,
        &dataset.label(),
        COUNTED_DATASETS.contains(&dataset.name),
    )
}

impl Lab for PendingAckLab {
    fn name(&self) -> &'static str {
        "pending-ack"
    }

    fn package(&self) -> &'static str {
        "pending-ack-lab"
    }

    fn title(&self) -> &'static str {
        "pending-ack-lab: the per-consumer pending-ack map"
    }

    fn crates(&self) -> &'static [&'static str] {
        &[
            "gungraun",
            "dhat",
            "hashbrown",
            "roaring",
            "foldhash",
            "ahash",
            "proptest",
        ]
    }

    fn implementations(&self) -> Vec<&'static str> {
        crate::implementation_names()
    }

    fn experiments(&self) -> Vec<Described> {
        let mut experiments: Vec<Described> = Experiment::ALL
            .into_iter()
            .map(|e| Described {
                max_ops: e.max_ops(),
                ..Described::new(
                    e.name(),
                    e.description(),
                    if e.is_one_shot() {
                        Kind::OneShot
                    } else {
                        Kind::Steady
                    },
                    e.datasets().iter().map(dataset_parameter).collect(),
                )
            })
            .collect();
        experiments.extend(SHAPES.iter().map(shape_experiment));
        experiments.push(Described::new(
            FOOTPRINT,
            "heap retained by a map holding the whole dataset",
            Kind::Retained,
            DATASETS
                .iter()
                .map(|d| Parameter::new(d.name, &d.label(), false))
                .collect(),
        ));
        experiments.push(Described::new(
            RETAINED_CAPACITY,
            "heap left after a peak dataset is cleaned up by remove_all_up_to",
            Kind::Retained,
            RETAINED_CASES
                .iter()
                .map(|c| {
                    let label = format!(
                        "peak `{}`, `remove_all_up_to` keeping {}",
                        c.dataset, c.keep
                    );
                    Parameter::new(c.name, &label, false)
                })
                .collect(),
        ));
        experiments
    }

    fn counted_ops(&self) -> u64 {
        COUNTED_OPS
    }

    fn open(&self, implementation: &str, case: &BenchCase) -> Result<Box<dyn Runner>, String> {
        resolve(self, implementation, case)?;
        let target = match case.experiment.as_str() {
            FOOTPRINT => Target::Footprint(Dataset::find(&case.parameter)?),
            RETAINED_CAPACITY => Target::RetainedCapacity(
                RETAINED_CASES
                    .into_iter()
                    .find(|c| c.name == case.parameter)
                    .ok_or_else(|| format!("no retained-capacity case `{}`", case.parameter))?,
            ),
            name => match Shape::find(name) {
                Some(shape) => Target::Shared(shape, Dataset::find(&case.parameter)?),
                None => Target::Timed(Experiment::find(name)?, Dataset::find(&case.parameter)?),
            },
        };
        let mut open = Open {
            target,
            runner: None,
        };
        visit_implementation(implementation, &mut open)?;
        open.runner
            .ok_or_else(|| format!("{implementation}: nothing opened"))
    }

    fn report(&self, set: &ResultSet) -> Report {
        Report {
            body: render(set).expect("the report template and its values are written together"),
            charts: charts(set),
        }
    }
}

/// What [`Open`] prepares.
#[derive(Clone, Copy)]
enum Target {
    Timed(Experiment, Dataset),
    Footprint(Dataset),
    RetainedCapacity(RetainedCase),
    Shared(Shape, Dataset),
}

/// Opens a runner of whichever implementation it visits.
struct Open {
    target: Target,
    runner: Option<Box<dyn Runner>>,
}

impl ImplementationVisitor for Open {
    fn visit<M: PendingAcks>(&mut self) {
        self.runner = Some(match self.target {
            Target::Timed(experiment, dataset) => {
                let mut workload = Workload::<M>::prepare(experiment, dataset);
                black_box(workload.run(Workload::<M>::warm_up_ops(experiment, dataset)));
                Box::new(WorkloadRunner {
                    workload,
                    one_shot: experiment.is_one_shot(),
                    consumed: false,
                })
            }
            Target::Shared(shape, dataset) => crate::concurrent::open::<M>(shape, &dataset),
            Target::Footprint(dataset) => Box::new(Built::<M> {
                build: Box::new(move || dataset.populate()),
                built: None,
            }),
            Target::RetainedCapacity(case) => Box::new(Built::<M> {
                build: Box::new(move || case.build()),
                built: None,
            }),
        });
    }
}

/// A prepared, warmed-up workload.
struct WorkloadRunner<M> {
    workload: Workload<M>,
    one_shot: bool,
    /// A one-shot op ran and its removed entries are not back yet.
    consumed: bool,
}

impl<M: PendingAcks> Runner for WorkloadRunner<M> {
    fn run(&mut self, warm_up: u64, ops: u64, window: &mut dyn Window) -> Duration {
        if !self.one_shot {
            black_box(self.workload.run(warm_up));
            window.open();
            let start = Instant::now();
            black_box(self.workload.run(ops));
            let elapsed = start.elapsed();
            window.close();
            return elapsed;
        }
        // Cleanups: each op timed alone; what it removed goes back untimed before the next one,
        // so the seed's rebuild stays out of the time without dominating the wall time.
        window.open();
        let mut timed = Duration::ZERO;
        for _ in 0..ops {
            if self.consumed {
                self.workload.restore();
            }
            let start = Instant::now();
            black_box(self.workload.run(1));
            timed += start.elapsed();
            self.consumed = true;
        }
        window.close();
        timed
    }
}

/// A map built inside the window and kept until dropped (retained-heap experiments).
struct Built<M> {
    build: Box<dyn Fn() -> M>,
    built: Option<M>,
}

impl<M: PendingAcks> Runner for Built<M> {
    fn run(&mut self, _: u64, _: u64, window: &mut dyn Window) -> Duration {
        self.built = None;
        window.open();
        let start = Instant::now();
        let map = (self.build)();
        let elapsed = start.elapsed();
        window.close();
        self.built = Some(map);
        elapsed
    }
}

/// The seed's published rows (`report/seed-rows.json`).
#[derive(Deserialize)]
struct SeedRows {
    source: String,
    old_implementation: String,
    new_implementation: String,
    rows: Vec<SeedRow>,
}

/// One published number: old tree → primitive layout.
#[derive(Deserialize)]
struct SeedRow {
    experiment: String,
    parameter: String,
    metric: Metric,
    old: f64,
    new: f64,
    unit: String,
}

/// Every single-thread steady experiment, in a target's `experiment`.
const EVERY_STEADY: &str = "*steady";
/// Every concurrent shape on the designs' own shared forms whose latencies are those of acks, in
/// a target's `experiment`.
const EVERY_ACK_SHAPE: &str = "*concurrent-acks";
/// Footprint per entry, derived from `footprint` ([`per_entry`]).
const FOOTPRINT_PER_ENTRY: &str = "footprint-per-entry";

/// Whether a target's `experiment` selects `experiment`.
fn selects(selector: &str, experiment: &Described) -> bool {
    let shape = Shape::find(experiment.name);
    match selector {
        EVERY_STEADY => experiment.kind == Kind::Steady && shape.is_none(),
        EVERY_ACK_SHAPE => shape.is_some_and(|s| s.timed == Timed::Acks && s.lock == Lock::Design),
        name => experiment.name == name,
    }
}

/// The experiments, with their parameters, a target's `experiment` stands for.
fn target_experiments(selector: &str) -> Vec<(String, Vec<String>)> {
    let experiments = LAB.experiments();
    let parameters = |e: &Described| e.parameters.iter().map(|p| p.name.clone()).collect();
    if selector == FOOTPRINT_PER_ENTRY {
        return vec![(selector.into(), parameters(&described(FOOTPRINT)))];
    }
    experiments
        .iter()
        .filter(|e| selects(selector, e))
        .map(|e| (e.name.to_owned(), parameters(e)))
        .collect()
}

/// The targets checked against `set` and its derived per-entry footprint.
fn check_targets(set: &ResultSet, targets: &Targets) -> Vec<Checked> {
    let mut with_derived = set.clone();
    with_derived
        .records
        .extend(per_entry(set, Metric::RetainedBytes).records);
    targets::check(&with_derived, targets, target_experiments)
}

fn seed_rows() -> SeedRows {
    serde_json::from_str(include_str!("../report/seed-rows.json")).expect("seed-rows.json parses")
}

fn concurrency_target_specs() -> Targets {
    Targets::parse(include_str!("../report/concurrency-targets.json")).expect("the file parses")
}

fn target_specs() -> Targets {
    Targets::parse(include_str!("../report/targets.json")).expect("the file parses")
}

/// Footprint divided by each dataset's entry count, as `footprint-per-entry` records.
fn per_entry(set: &ResultSet, metric: Metric) -> ResultSet {
    let records = set
        .records
        .iter()
        .filter(|r| r.id.experiment == FOOTPRINT && r.metric == metric)
        .filter_map(|r| {
            let dataset = Dataset::find(&r.id.parameter).ok()?;
            let id = BenchId::new(FOOTPRINT_PER_ENTRY, &r.id.implementation, dataset.name);
            Some(Record::new(id, metric, r.value / dataset.entries as f64))
        })
        .collect();
    ResultSet {
        lab: set.lab.clone(),
        mode: set.mode,
        environment: set.environment.clone(),
        timing: set.timing,
        records,
    }
}

/// Whether the lab's direction matches the seed's: both better, both worse, or both unchanged.
fn reproduces(seed_change: f64, verdict: Verdict) -> &'static str {
    let seed_direction = if seed_change.abs() < 1.0 {
        Verdict::Same
    } else if seed_change < 0.0 {
        Verdict::Better
    } else {
        Verdict::Worse
    };
    match (seed_direction, verdict) {
        (_, Verdict::Inconclusive) => "inconclusive",
        (_, Verdict::Unstable) => "unstable (passes disagree)",
        (s, v) if s == v => "yes",
        (Verdict::Same, _) => "no (the lab shows a difference)",
        (_, Verdict::Same) => "no (no difference here)",
        _ => "**no (reversed)**",
    }
}

fn seed_table(set: &ResultSet, seed: &SeedRows) -> Table {
    let mut table = Table::new()
        .column("Row", Align::Left)
        .column("Seed: old tree → primitive", Align::Right)
        .column("Seed change", Align::Right)
        .column(
            &format!(
                "Lab: {} → {}",
                seed.old_implementation, seed.new_implementation
            ),
            Align::Right,
        )
        .column("Lab change", Align::Right)
        .column("Reproduces?", Align::Left);
    for row in &seed.rows {
        let find = |implementation: &str| {
            set.find(
                &BenchId::new(&row.experiment, implementation, &row.parameter),
                row.metric,
            )
        };
        let seed_change = (row.new / row.old - 1.0) * 100.0;
        let (lab, lab_change, verdict) = match (
            find(&seed.old_implementation),
            find(&seed.new_implementation),
        ) {
            (Some(old), Some(new)) => {
                let c = compare(old, new);
                let change = if c.ratio.is_finite() {
                    format_change(c.change_percent)
                } else {
                    "(baseline 0)".into()
                };
                (
                    format!(
                        "{} → {}",
                        format_metric(row.metric, old.value),
                        format_metric(row.metric, new.value)
                    ),
                    change,
                    reproduces(seed_change, c.verdict),
                )
            }
            _ => ("not measured".into(), String::new(), ""),
        };
        table.row(vec![
            format!(
                "{} · `{}` ({})",
                row.experiment,
                row.parameter,
                row.metric.unit()
            ),
            format!("{} → {} {}", row.old, row.new, row.unit),
            format_change(seed_change),
            lab,
            lab_change,
            verdict.into(),
        ]);
    }
    table
}

/// Rows where `ours` is not faster than the better of `rivals`, with the verdict.
fn not_faster_rows(set: &ResultSet, ours: &str, rivals: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for case in labkit::lab::cases(&LAB, |e, _| e.is_timed()) {
        let get = |i: &str| set.find(&case.id(i), Metric::NsPerOp);
        let best = rivals
            .iter()
            .filter_map(|r| get(r))
            .min_by(|a, b| a.value.total_cmp(&b.value));
        if let (Some(best), Some(mine)) = (best, get(ours)) {
            let c = compare(best, mine);
            if c.verdict != Verdict::Better {
                out.push(format!(
                    "`{case}`: {} vs {} ({}, {})",
                    format_metric(Metric::NsPerOp, mine.value),
                    format_metric(Metric::NsPerOp, best.value),
                    format_change(c.change_percent),
                    c.verdict.word()
                ));
            }
        }
    }
    out
}

/// dense-window's module documentation, as markdown.
fn design_notes() -> String {
    include_str!("implementations/dense_window.rs")
        .lines()
        .map_while(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Rows for every (experiment, parameter) that has `metric` in the set.
fn measured_rows(set: &ResultSet, metric: Metric) -> Vec<Row> {
    labkit::lab::cases(&LAB, |e, _| e.is_timed())
        .iter()
        .map(|c| {
            Row::new(
                &c.experiment,
                &c.parameter,
                &format!("{} · `{}`", c.experiment, c.parameter),
            )
        })
        .filter(|row| {
            set.records.iter().any(|r| {
                r.metric == metric
                    && r.id.experiment == row.experiment
                    && r.id.parameter == row.parameter
            })
        })
        .collect()
}

fn described(name: &str) -> Described {
    labkit::lab::experiment(&LAB, name).expect("the lab's own experiment")
}

fn per_entry_rows(cores: usize) -> Vec<Row> {
    Row::all(&described(FOOTPRINT), cores)
        .into_iter()
        .map(|row| Row {
            experiment: FOOTPRINT_PER_ENTRY.into(),
            ..row
        })
        .collect()
}

fn render(set: &ResultSet) -> Result<String, String> {
    let cores = set.environment.cores;
    let implementations = LAB.implementations();
    let table = |set: &ResultSet, metric: Metric, rows: &[Row]| {
        comparison_table(set, metric, rows, &implementations).render()
    };
    let seed = seed_rows();
    let targets = target_specs();
    let concurrency = concurrency_target_specs();
    let mut time = String::new();
    for e in LAB
        .experiments()
        .iter()
        .filter(|e| e.is_timed() && Shape::find(e.name).is_none())
    {
        time.push_str(&format!(
            "### `{}`\n\n{}.\n\n{}\n",
            e.name,
            e.description,
            table(set, Metric::NsPerOp, &Row::all(e, cores))
        ));
    }
    let mut concurrent = String::new();
    for shape in SHAPES {
        let e = described(shape.name);
        let rows = Row::all(&e, cores);
        concurrent.push_str(&format!(
            "### `{}`\n\n{} threads: {}.\n\n{}\nHeap held at the end\n\n{}\n",
            e.name,
            shape.threads(),
            e.description,
            table(set, Metric::OpsPerSec, &rows),
            table(set, Metric::RetainedBytes, &rows)
        ));
        for row in &rows {
            concurrent.push_str(&format!(
                "Latency of one {} · {}\n\n{}\n",
                shape.timed_operation(),
                row.label,
                latency_table(set, row, &implementations).render()
            ));
        }
    }
    let footprint_rows = Row::all(&described(FOOTPRINT), cores);
    let rivals = [implementations[0], seed.new_implementation.as_str()];
    let slower = not_faster_rows(set, &targets.implementation, &rivals);
    let not_faster = if slower.is_empty() {
        format!(
            "none: {} is faster than both baselines on every timed row.\n",
            targets.implementation
        )
    } else {
        slower.iter().map(|s| format!("- {s}\n")).collect()
    };
    fill(
        include_str!("../report/report.md"),
        &[
            ("seed_source", seed.source.clone()),
            ("seed_table", seed_table(set, &seed).render()),
            ("time", time),
            ("concurrent", concurrent),
            ("counted_ops", COUNTED_OPS.to_string()),
            (
                "instructions",
                table(
                    set,
                    Metric::InstructionsPerOp,
                    &measured_rows(set, Metric::InstructionsPerOp),
                ),
            ),
            (
                "allocs",
                table(
                    set,
                    Metric::AllocsPerOp,
                    &measured_rows(set, Metric::AllocsPerOp),
                ),
            ),
            (
                "bytes",
                table(
                    set,
                    Metric::BytesPerOp,
                    &measured_rows(set, Metric::BytesPerOp),
                ),
            ),
            (
                "per_entry",
                table(
                    &per_entry(set, Metric::RetainedBytes),
                    Metric::RetainedBytes,
                    &per_entry_rows(cores),
                ),
            ),
            (
                "retained",
                table(set, Metric::RetainedBytes, &footprint_rows),
            ),
            (
                "retained_usable",
                table(set, Metric::RetainedUsableBytes, &footprint_rows),
            ),
            (
                "retained_capacity",
                table(
                    set,
                    Metric::RetainedBytes,
                    &Row::all(&described(RETAINED_CAPACITY), cores),
                ),
            ),
            ("design_notes", design_notes()),
            ("targets_source", targets.source.clone()),
            (
                "targets",
                targets::table(check_targets(set, &targets), &targets.implementation).render(),
            ),
            ("concurrency_targets_source", concurrency.source.clone()),
            (
                "concurrency_notes",
                include_str!("../report/concurrency-notes.md").to_owned(),
            ),
            (
                "concurrency_targets",
                targets::table(check_targets(set, &concurrency), "measured").render(),
            ),
            ("not_faster", not_faster),
            ("all", joined_table(set).render()),
        ],
    )
}

fn charts(set: &ResultSet) -> Vec<Chart> {
    let cores = set.environment.cores;
    let implementations = LAB.implementations();
    let mut charts: Vec<Chart> = LAB
        .experiments()
        .iter()
        .filter(|e| e.is_timed())
        .map(|e| {
            metric_chart(
                set,
                &format!("pending-ack-{}-ns", e.name),
                &format!("pending-ack: {} (ns/op, median)", e.name),
                Metric::NsPerOp,
                &Row::all(e, cores),
                &implementations,
            )
        })
        .collect();
    for shape in SHAPES {
        let e = described(shape.name);
        let row = &Row::all(&e, cores)[0];
        charts.push(latency_chart(
            set,
            &format!("pending-ack-{}-latency", e.name),
            &format!(
                "pending-ack: {} · {}, {} latency percentiles",
                e.name,
                row.parameter,
                shape.timed_operation()
            ),
            row,
            &implementations,
        ));
    }
    let retained_per_entry = per_entry(set, Metric::RetainedBytes);
    // Bytes per entry against the average ledger size, the parameter that governs per-ledger
    // overhead: the sparse datasets sit on the left, one big ledger on the right.
    let lines: Vec<Vec<(f64, f64, String)>> = implementations
        .iter()
        .map(|implementation| {
            DATASETS
                .iter()
                .filter_map(|d| {
                    let id = BenchId::new(FOOTPRINT_PER_ENTRY, implementation, d.name);
                    let bytes = retained_per_entry.find(&id, Metric::RetainedBytes)?.value;
                    let label = format!("{} — {bytes:.1} B/entry", d.name);
                    Some((d.entries as f64 / d.ledgers as f64, bytes, label))
                })
                .collect()
        })
        .collect();
    let title = "pending-ack: retained bytes per entry against entries per ledger";
    charts.push(Chart {
        stem: "pending-ack-footprint-vs-ledger-size".into(),
        title: title.into(),
        svg: log_log_chart(
            title,
            &format!("entries per ledger (all {} datasets)", DATASETS.len()),
            "retained bytes per entry",
            &implementations,
            &lines,
        ),
    });
    charts.push(metric_chart(
        &retained_per_entry,
        "pending-ack-footprint-per-entry",
        "pending-ack: retained bytes per entry by dataset (entries-in-ledgers)",
        Metric::RetainedBytes,
        &per_entry_rows(cores),
        &implementations,
    ));
    charts
}

#[cfg(test)]
mod tests {
    use super::*;
    use labkit::env::Environment;
    use labkit::record::Interval;
    use labkit::record::RunMode;

    const BASELINE: &str = "nested-tree";
    const SEED_PRIMITIVE: &str = "primitive-bucketed";
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

    fn set(records: Vec<Record>) -> ResultSet {
        ResultSet {
            lab: "pending-ack".into(),
            mode: RunMode::Full,
            environment: Environment::fixed_for_tests(),
            timing: None,
            records,
        }
    }

    #[test]
    fn the_reference_files_name_the_lab_s_own_implementations_and_cases() {
        let implementations = LAB.implementations();
        let seed = seed_rows();
        assert_eq!(seed.rows.len(), 37);
        assert!(implementations.contains(&seed.old_implementation.as_str()));
        assert!(implementations.contains(&seed.new_implementation.as_str()));
        for row in &seed.rows {
            let e = labkit::lab::experiment(&LAB, &row.experiment).unwrap();
            assert!(e.parameter(&row.parameter).is_some(), "{}", row.parameter);
        }
        for targets in [target_specs(), concurrency_target_specs()] {
            assert!(implementations.contains(&targets.implementation.as_str()));
            for spec in &targets.targets {
                let named = spec.implementation.iter().chain(&spec.versus);
                assert!(
                    named
                        .into_iter()
                        .all(|n| implementations.contains(&n.as_str()))
                );
                assert!(
                    !target_experiments(&spec.experiment).is_empty(),
                    "{}",
                    spec.what
                );
            }
        }
        assert!(design_notes().starts_with("`dense-window`: a layout"));
        assert!(!design_notes().contains("//!"));
    }

    #[test]
    fn seed_rows_say_whether_the_direction_reproduces() {
        let s = set(vec![
            timed("remove-all-up-to", BASELINE, 300_000.0),
            timed("remove-all-up-to", SEED_PRIMITIVE, 500_000.0),
            timed("dispatch-and-ack-cycle", BASELINE, 100.0),
            timed("dispatch-and-ack-cycle", SEED_PRIMITIVE, 150.0),
        ]);
        let out = seed_table(&s, &seed_rows()).render();
        let line = |needle: &str| out.lines().find(|l| l.contains(needle)).unwrap().to_owned();
        assert!(
            line("remove-all-up-to · `50k-in-1`").ends_with("| yes |"),
            "{out}"
        );
        assert!(
            line("dispatch-and-ack-cycle · `50k-in-1` (ns/op)").contains("**no (reversed)**"),
            "{out}"
        );
        assert!(line("`50k-in-5`").contains("not measured"), "{out}");
    }

    #[test]
    fn targets_are_checked_against_the_measured_values() {
        let s = set(vec![
            timed("dispatch-and-ack-cycle", OURS, 12.0),
            timed("same-ledger-small-prefix", OURS, 3_500.0),
        ]);
        let t = check_targets(&s, &target_specs());
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
        let s = set(vec![
            ops(BASELINE, 1e6),
            ops("striped-window", 2.5e6),
            ops(OURS, 1.5e6),
        ]);
        let t = check_targets(&s, &concurrency_target_specs());
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
        let s = set(vec![
            timed("remove-all-up-to", BASELINE, 100.0),
            timed("remove-all-up-to", SEED_PRIMITIVE, 90.0),
            timed("remove-all-up-to", OURS, 91.0),
            timed("dispatch-and-ack-cycle", BASELINE, 100.0),
            timed("dispatch-and-ack-cycle", OURS, 20.0),
        ]);
        let rows = not_faster_rows(&s, OURS, &[BASELINE, SEED_PRIMITIVE]);
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert!(
            rows[0].starts_with("`remove-all-up-to/50k-in-1`"),
            "{rows:?}"
        );
    }

    #[test]
    fn the_whole_report_renders_from_an_empty_and_a_partial_set() {
        let report = LAB.report(&set(vec![]));
        assert!(report.body.contains("## Design notes: `dense-window`"));
        assert!(report.body.contains("### `shuffled-ack-cycle`"));
        assert!(report.charts.iter().all(|c| c.svg.ends_with("</svg>\n")));
        let partial = LAB.report(&set(vec![timed("remove-all-up-to", OURS, 91.0)]));
        assert!(
            partial.body.contains("91.0"),
            "partial sets render what they have"
        );
    }

    #[test]
    fn every_case_opens_for_every_implementation() {
        for case in labkit::lab::cases(&LAB, |_, _| true) {
            for implementation in LAB.implementations() {
                assert!(LAB.open(implementation, &case).is_ok(), "{case}");
            }
        }
        assert!(
            LAB.open(
                "nested-tree",
                &BenchCase::new("remove-all-up-to", "1k-in-1")
            )
            .is_err(),
            "not one of the experiment's datasets"
        );
    }

    #[test]
    fn one_shot_runners_restore_before_every_op_but_the_first() {
        use crate::implementations::nested_tree::NestedTree;
        let dataset = Dataset::find("50k-in-1").unwrap();
        let mut runner = WorkloadRunner {
            workload: Workload::<NestedTree>::prepare(Experiment::SameLedgerSmallPrefix, dataset),
            one_shot: true,
            consumed: false,
        };
        runner.run(0, 1, &mut ());
        assert_eq!(
            runner.workload.map.len(),
            49_000,
            "the op's removal is not undone"
        );
        runner.run(0, 3, &mut ());
        assert_eq!(
            runner.workload.map.len(),
            49_000,
            "each op found the prefix back"
        );
    }

    #[test]
    fn registry_modules_are_named_like_their_implementations() {
        macro_rules! modules {
            ($($module:ident => $ty:path),* $(,)?) => { [$(stringify!($module)),*] };
        }
        let modules = crate::with_implementations!(modules);
        let counted = labkit::lab::counted_cases_of(&LAB).len();
        assert_eq!(
            counted,
            10 * 2 + 2,
            "headline datasets of every timed experiment"
        );
        for (module, name) in modules.iter().zip(LAB.implementations()) {
            assert_eq!(module.replace('_', "-"), name);
            assert_eq!(labkit::lab::counted_cases(&LAB, module).len(), counted);
        }
    }
}
