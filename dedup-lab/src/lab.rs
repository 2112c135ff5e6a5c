//! dedup-lab's description: what the measurement binaries and the driver run, and the report.

use std::time::Duration;

use labkit::lab::{
    BenchCase, Experiment, Kind, Lab, LatencyRecording, Parameter, Runner, Timing, Window, resolve,
};
use labkit::record::{BenchId, Metric, Record, ResultSet, RunMode};
use labkit::report::{
    Report, Row, comparison_table, fill, format_duration, joined_table, latency_chart,
    latency_table, metric_chart,
};
use labkit::table::{Align, Table, format_count, format_number};
use labkit::targets::{self, Targets};

use crate::churn::{CHURN_EVERY, Churn, INACTIVE, KEPT_INACTIVE, LIVE_PER_PUBLISHER, PurgeSweep};
use crate::workload::{Ids, SHAPES, Shape, Worker, run_window};
use crate::{ImplementationVisitor, SequenceBatch, SequenceDedup, visit_implementation};

/// The lab, as the measurement binaries and the driver see it.
pub static LAB: DedupLab = DedupLab;

pub struct DedupLab;

/// Admission checks on every shape.
const ADMISSION: &str = "admission";
/// Admission checks of replicated messages by source position.
const REPLICATED_ADMISSION: &str = "replicated-admission";
/// The shapes the replicated path runs: a replicator is one producer per remote cluster, so what
/// matters is one caller's cost and the reconnect overlap, not many producers.
const REPLICATED_SHAPES: [&str; 5] = ["single", "duplicate", "distinct-2", "shared-2", "shared-16"];
/// Admissions while producers connect, reconnect and are purged ([`Churn`]).
const CHURN: &str = "churn";
/// Publishing threads of the churn experiment (each with its own live producers).
const CHURN_PUBLISHERS: [usize; 2] = [1, 2];
/// One publisher beside inactive producers, nothing purged: the purge's reference tail.
const BESIDE_INACTIVE: &str = "admission-beside-inactive";
/// A purge sweep of the inactive producers beside that publisher.
const PURGE_SWEEP: &str = "purge-sweep";
/// The parameter of both purge experiments.
const INACTIVE_PARAMETER: &str = "100k-inactive";
/// Heap retained after one message from each of n producers.
const FOOTPRINT: &str = "footprint";
/// Derived: footprint over the producers still known.
const FOOTPRINT_PER_PRODUCER: &str = "footprint-per-producer";
/// Derived: a purge sweep's admission p99.9 minus the reference's.
const PURGE_ADDED_TAIL: &str = "purge-added-tail";

/// State growth: `producers` producers each admit one message; all but the newest `kept` are
/// then purged (`kept == producers`: no purge).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Growth {
    producers: usize,
    kept: usize,
}

const GROWTH: [Growth; 7] = [
    Growth::all(1),
    Growth::all(500),
    Growth::all(10_000),
    Growth::all(100_000),
    Growth::all(1_000_000),
    Growth {
        producers: 100_000,
        kept: 10_000,
    },
    Growth {
        producers: 1_000_000,
        kept: 10_000,
    },
];

impl Growth {
    const fn all(producers: usize) -> Self {
        Self {
            producers,
            kept: producers,
        }
    }

    fn name(self) -> String {
        if self.kept == self.producers {
            format!("{}-producers", self.producers)
        } else {
            format!("{}-producers-purged-to-{}", self.producers, self.kept)
        }
    }

    fn label(self) -> String {
        let n = format_count(self.producers as u64);
        if self.kept == self.producers {
            format!("{n} producers")
        } else {
            let kept = format_count(self.kept as u64);
            format!("{n} producers, all but the newest {kept} then purged")
        }
    }

    fn find(name: &str) -> Result<Self, String> {
        GROWTH
            .into_iter()
            .find(|g| g.name() == name)
            .ok_or_else(|| format!("no footprint case `{name}`"))
    }
}

/// Untimed admissions per thread before every measured window: the threads are fresh, and their
/// lazy per-thread state (papaya's reclamation slot, a lock's parking data) is created under the
/// same contention before the window opens.
const WINDOW_WARM_UP: u64 = 1_000;

fn shape_parameter(shape: Shape) -> Parameter {
    Parameter {
        counted: shape.threads() == 1,
        ..Parameter::threaded(
            &shape.name(),
            &shape.description(),
            shape.threads(),
            shape.threads(),
        )
    }
}

impl Lab for DedupLab {
    fn name(&self) -> &'static str {
        "dedup"
    }

    fn package(&self) -> &'static str {
        "dedup-lab"
    }

    fn title(&self) -> &'static str {
        "dedup-lab: producer sequence-id deduplication"
    }

    fn crates(&self) -> &'static [&'static str] {
        &[
            "gungraun", "dhat", "papaya", "dashmap", "foldhash", "proptest", "loom",
        ]
    }

    fn implementations(&self) -> Vec<&'static str> {
        crate::implementation_names()
    }

    fn experiments(&self) -> Vec<Experiment> {
        let admission = Experiment {
            window_warm_up: WINDOW_WARM_UP,
            // Each sample admits on a fresh deduplicator with freshly connected producers.
            fresh_per_sample: true,
            ..Experiment::new(
                ADMISSION,
                "one admission check (NotDup, Dup or Unknown) of a producer's next sequence id",
                Kind::Steady,
                SHAPES.into_iter().map(shape_parameter).collect(),
            )
        };
        let replicated = Experiment {
            window_warm_up: WINDOW_WARM_UP,
            fresh_per_sample: true,
            ..Experiment::new(
                REPLICATED_ADMISSION,
                "one admission check (NotDup, Dup or Unknown) of a replicated message by its \
                 (ledger, entry) source position",
                Kind::Steady,
                SHAPES
                    .into_iter()
                    .filter(|s| REPLICATED_SHAPES.contains(&s.name().as_str()))
                    .map(shape_parameter)
                    .collect(),
            )
        };
        let churn = Experiment {
            window_warm_up: WINDOW_WARM_UP,
            latency: LatencyRecording::ExtraSample,
            throughput: true,
            ..Experiment::new(
                CHURN,
                &format!(
                    "one admission of a live producer's next id while, once per {} admissions, a \
                     new producer connects, the previous one reconnects with overlap and the one \
                     inactive for {} steps is purged",
                    format_count(CHURN_EVERY),
                    format_count(KEPT_INACTIVE)
                ),
                Kind::Steady,
                CHURN_PUBLISHERS
                    .iter()
                    .map(|&n| {
                        let publishers = if n == 1 {
                            "1 publishing thread".to_owned()
                        } else {
                            format!("{n} publishing threads")
                        };
                        let label = format!(
                            "{publishers}, {LIVE_PER_PUBLISHER} producers per thread, and the \
                             churner"
                        );
                        Parameter::threaded(&format!("{n}-publishers"), &label, n + 1, n)
                    })
                    .collect(),
            )
        };
        let inactive = format!(
            "{} inactive producers, {LIVE_PER_PUBLISHER} live ones on one publisher",
            format_count(INACTIVE as u64)
        );
        let beside_inactive = Experiment {
            window_warm_up: WINDOW_WARM_UP,
            latency: LatencyRecording::ExtraSample,
            ..Experiment::new(
                BESIDE_INACTIVE,
                "one admission of a live producer's next id beside inactive producers, nothing \
                 purged",
                Kind::Steady,
                vec![Parameter::new(INACTIVE_PARAMETER, &inactive, false)],
            )
        };
        let purge_sweep = Experiment {
            window_warm_up: WINDOW_WARM_UP,
            latency: LatencyRecording::ExtraSample,
            ..Experiment::new(
                PURGE_SWEEP,
                "one sweep purging every inactive producer while the publisher admits (the \
                 latencies are the publisher's admissions during the sweeps)",
                Kind::OneShot,
                vec![Parameter::threaded(INACTIVE_PARAMETER, &inactive, 2, 1)],
            )
        };
        let footprint = Experiment::new(
            FOOTPRINT,
            "heap retained after one message from each of n producers",
            Kind::Retained,
            GROWTH
                .iter()
                .map(|g| Parameter::new(&g.name(), &g.label(), false))
                .collect(),
        );
        vec![
            admission,
            replicated,
            churn,
            beside_inactive,
            purge_sweep,
            footprint,
        ]
    }

    // Contended shapes run up to 16 threads on the machine's cores: longer samples span many
    // scheduler slices, so one sample is not one lucky or unlucky slice.
    fn timing(&self, mode: RunMode) -> Timing {
        let standard = Timing::standard(mode);
        match mode {
            RunMode::Smoke => standard,
            _ => Timing {
                sample: standard.sample * 6,
                ..standard
            },
        }
    }

    fn open(&self, implementation: &str, case: &BenchCase) -> Result<Box<dyn Runner>, String> {
        let (experiment, parameter) = resolve(self, implementation, case)?;
        let mut open = Open {
            target: match experiment.name {
                ADMISSION => Target::Admission(Shape::parse(&parameter.name)?, Ids::Sequence),
                REPLICATED_ADMISSION => {
                    Target::Admission(Shape::parse(&parameter.name)?, Ids::Replicated)
                }
                CHURN => Target::Churn(parameter.workers),
                BESIDE_INACTIVE => Target::Purge { purging: false },
                PURGE_SWEEP => Target::Purge { purging: true },
                _ => Target::Footprint(Growth::find(&parameter.name)?),
            },
            runner: None,
        };
        visit_implementation(implementation, &mut open)?;
        open.runner
            .ok_or_else(|| format!("{implementation}: nothing opened"))
    }

    fn report(&self, set: &ResultSet) -> Report {
        render(set)
    }
}

fn described(name: &str) -> Experiment {
    labkit::lab::experiment(&LAB, name).expect("the lab's own experiment")
}

/// The rows of `experiment` whose parameters `keep` selects.
fn rows(experiment: &str, cores: usize, keep: impl Fn(&Parameter) -> bool) -> Vec<Row> {
    let experiment = described(experiment);
    experiment
        .parameters
        .iter()
        .filter(|p| keep(p))
        .map(|p| Row::of(&experiment, p, cores))
        .collect()
}

/// The records derived from measured ones: footprint per producer still known, and what a purge
/// sweep adds to the publisher's p99.9.
fn derived(set: &ResultSet) -> Vec<Record> {
    let mut out = Vec::new();
    for r in &set.records {
        if r.id.experiment == FOOTPRINT
            && r.metric == Metric::RetainedBytes
            && let Ok(growth) = Growth::find(&r.id.parameter)
        {
            let id = BenchId::new(
                FOOTPRINT_PER_PRODUCER,
                &r.id.implementation,
                &r.id.parameter,
            );
            out.push(Record::new(id, r.metric, r.value / growth.kept as f64));
        }
        if r.id.experiment == PURGE_SWEEP && r.metric == Metric::LatencyP999Ns {
            let alone = BenchId::new(BESIDE_INACTIVE, &r.id.implementation, &r.id.parameter);
            if let Some(alone) = set.find(&alone, r.metric) {
                let id = BenchId::new(PURGE_ADDED_TAIL, &r.id.implementation, &r.id.parameter);
                out.push(Record::new(id, r.metric, r.value - alone.value));
            }
        }
    }
    out
}

/// The experiments, with their parameters, a target's `experiment` stands for (a derived one
/// has the parameters of the experiment it comes from).
fn target_experiments(name: &str) -> Vec<(String, Vec<String>)> {
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

fn target_specs() -> Targets {
    Targets::parse(include_str!("../report/targets.json")).expect("the file parses")
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

fn render(set: &ResultSet) -> Report {
    let cores = set.environment.cores;
    let implementations = LAB.implementations();
    let mut with_derived = set.clone();
    with_derived.records.extend(derived(set));
    let table = |metric: Metric, rows: &[Row]| {
        comparison_table(&with_derived, metric, rows, &implementations).render()
    };
    let admission = rows(ADMISSION, cores, |_| true);
    let replicated = rows(REPLICATED_ADMISSION, cores, |_| true);
    let churn = rows(CHURN, cores, |_| true);
    let purge = [
        rows(BESIDE_INACTIVE, cores, |_| true),
        rows(PURGE_SWEEP, cores, |_| true),
    ]
    .concat();
    let footprint = rows(FOOTPRINT, cores, |_| true);
    let per_producer: Vec<Row> = footprint
        .iter()
        .map(|row| Row {
            experiment: FOOTPRINT_PER_PRODUCER.into(),
            ..row.clone()
        })
        .collect();
    let timed: Vec<Row> = [
        admission.clone(),
        replicated.clone(),
        churn.clone(),
        purge.clone(),
    ]
    .concat();
    let latencies = |rows: &[Row]| -> String {
        rows.iter()
            .map(|row| {
                format!(
                    "Admission latency · {} · {}\n\n{}\n",
                    row.experiment,
                    row.label,
                    latency_table(set, row, &implementations).render()
                )
            })
            .collect()
    };
    // Time per op, aggregate throughput and instructions per op of an admission experiment.
    let admission_tables = |experiment: &str| {
        [
            table(Metric::NsPerOp, &rows(experiment, cores, |_| true)),
            table(
                Metric::OpsPerSec,
                &rows(experiment, cores, |p| p.threads > 1),
            ),
            table(
                Metric::InstructionsPerOp,
                &rows(experiment, cores, |p| p.counted),
            ),
        ]
    };
    let [time, throughput, instructions] = admission_tables(ADMISSION);
    let [
        replicated_time,
        replicated_throughput,
        replicated_instructions,
    ] = admission_tables(REPLICATED_ADMISSION);
    let targets = target_specs();
    let checked = targets::check(&with_derived, &targets, target_experiments);
    let body = fill(
        include_str!("../report/report.md"),
        &[
            ("time", time),
            ("throughput", throughput),
            ("instructions", instructions),
            ("replicated_time", replicated_time),
            ("replicated_throughput", replicated_throughput),
            ("replicated_instructions", replicated_instructions),
            ("churn_description", described(CHURN).description),
            ("churn_throughput", table(Metric::OpsPerSec, &churn)),
            (
                "churn_unexpected",
                unexpected_table(
                    set,
                    &[churn.clone(), purge.clone()].concat(),
                    &implementations,
                )
                .render(),
            ),
            ("churn_latency", latencies(&churn)),
            ("sweep_time", table(Metric::NsPerOp, &purge[1..])),
            ("purge_latency", latencies(&purge)),
            (
                "purge_tail",
                purge_tail_table(set, &implementations).render(),
            ),
            ("allocs", table(Metric::AllocsPerOp, &timed)),
            ("bytes", table(Metric::BytesPerOp, &timed)),
            ("retained", table(Metric::RetainedBytes, &footprint)),
            ("per_producer", table(Metric::RetainedBytes, &per_producer)),
            (
                "retained_usable",
                table(Metric::RetainedUsableBytes, &footprint),
            ),
            ("targets_source", targets.source.clone()),
            ("targets", targets::table(checked, "measured").render()),
            (
                "targets_notes",
                include_str!("../report/targets-notes.md").into(),
            ),
            ("all", joined_table(set).render()),
        ],
    )
    .expect("the report template and its values are written together");
    let mut charts = vec![metric_chart(
        set,
        "dedup-admission-ns",
        "dedup: time per admission by thread shape (ns/op, median)",
        Metric::NsPerOp,
        &admission,
        &implementations,
    )];
    for row in churn.iter().chain(&purge) {
        charts.push(latency_chart(
            set,
            &format!("dedup-{}-{}-latency", row.experiment, row.parameter),
            &format!(
                "dedup: {} · {}, admission latency percentiles",
                row.experiment, row.parameter
            ),
            row,
            &implementations,
        ));
    }
    Report { body, charts }
}

/// What [`Open`] prepares.
#[derive(Clone, Copy)]
enum Target {
    Admission(Shape, Ids),
    Churn(usize),
    Purge { purging: bool },
    Footprint(Growth),
}

/// Opens a runner of whichever implementation it visits.
struct Open {
    target: Target,
    runner: Option<Box<dyn Runner>>,
}

impl ImplementationVisitor for Open {
    fn visit<D: SequenceDedup>(&mut self) {
        self.runner = Some(match self.target {
            Target::Admission(shape, ids) => {
                let dedup = D::default();
                let workers = shape.prepare_ids(&dedup, ids);
                Box::new(Admission { dedup, workers })
            }
            Target::Churn(publishers) => Box::new(Churn::<D>::prepare(publishers)),
            Target::Purge { purging } => Box::new(PurgeSweep::<D>::prepare(purging)),
            Target::Footprint(growth) => Box::new(Footprint::<D> {
                growth,
                built: None,
            }),
        });
    }
}

/// A deduplicator with a shape's producers connected, each having admitted its first message.
struct Admission<D: SequenceDedup> {
    dedup: D,
    workers: Vec<Worker<D>>,
}

impl<D: SequenceDedup> Runner for Admission<D> {
    fn run(&mut self, warm_up: u64, ops: u64, window: &mut dyn Window) -> Duration {
        run_window(&self.dedup, &mut self.workers, warm_up, ops, window)
    }
}

/// Builds a deduplicator that has admitted one message from each of a growth case's producers,
/// then purged all but the newest it keeps.
struct Footprint<D> {
    growth: Growth,
    built: Option<D>,
}

impl<D: SequenceDedup> Runner for Footprint<D> {
    fn run(&mut self, _: u64, _: u64, window: &mut dyn Window) -> Duration {
        let Growth { producers, kept } = self.growth;
        let names: Vec<String> = (0..producers).map(|i| format!("producer-{i}")).collect();
        let first = SequenceBatch::single(0).expect("0 is a valid id");
        self.built = None;
        window.open();
        let start = std::time::Instant::now();
        let dedup = D::default();
        for name in &names {
            dedup.admit(&dedup.connect(name), first);
        }
        for name in &names[..producers - kept] {
            dedup.purge(name);
        }
        let elapsed = start.elapsed();
        window.close();
        self.built = Some(dedup);
        elapsed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_opens_for_every_implementation_and_runs() {
        // Growth beyond 10^4 producers is left to the smoke run's optimised build.
        let small = |e: &Experiment, p: &Parameter| {
            e.name != FOOTPRINT || Growth::find(&p.name).unwrap().producers <= 10_000
        };
        for case in labkit::lab::cases(&LAB, small) {
            // A purge sweep's op is a whole sweep: one is enough.
            let ops = if case.experiment == PURGE_SWEEP {
                1
            } else {
                10
            };
            for implementation in LAB.implementations() {
                let mut runner = LAB.open(implementation, &case).unwrap();
                runner.run(10, ops, &mut ());
            }
        }
        let err = LAB
            .open("spin", &BenchCase::new(ADMISSION, "single"))
            .err()
            .unwrap();
        assert!(err.contains("valid: topic-mutex"), "{err}");
    }

    #[test]
    fn counted_parameters_are_the_single_thread_shapes() {
        let counted = labkit::lab::counted_cases_of(&LAB);
        let names: Vec<&str> = counted.iter().map(|c| c.parameter.as_str()).collect();
        assert_eq!(names, ["single", "duplicate", "single", "duplicate"]);
    }

    #[test]
    fn registry_modules_are_named_like_their_implementations() {
        macro_rules! modules {
            ($($module:ident => $ty:path),* $(,)?) => { [$(stringify!($module)),*] };
        }
        let modules = crate::with_implementations!(modules);
        for (module, name) in modules.iter().zip(LAB.implementations()) {
            assert_eq!(module.replace('_', "-"), name);
            assert_eq!(labkit::lab::counted_cases(&LAB, module).len(), 4);
        }
    }

    #[test]
    fn the_report_renders_from_an_empty_set() {
        let set = ResultSet {
            lab: "dedup".into(),
            mode: RunMode::Smoke,
            environment: labkit::env::Environment::fixed_for_tests(),
            timing: None,
            records: vec![],
        };
        let report = LAB.report(&set);
        assert!(report.body.contains("## Time per admission"));
        assert!(report.body.contains("oversubscribed: 16 threads"));
        assert!(report.body.contains("## Under producer churn"));
        assert!(
            report
                .body
                .contains("`2-publishers`: 2 publishing threads, 250 producers")
        );
        assert!(report.body.contains("oversubscribed: 3 threads"));
        assert!(!report.body.contains("{{"), "every placeholder filled");
        // The admission chart, and one latency chart per churn and purge row.
        assert_eq!(report.charts.len(), 1 + CHURN_PUBLISHERS.len() + 2);
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
        let set = ResultSet {
            lab: "dedup".into(),
            mode: RunMode::Smoke,
            environment: labkit::env::Environment::fixed_for_tests(),
            timing: None,
            records: vec![
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
        };
        let values: Vec<(String, f64)> = derived(&set)
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
        for spec in &target_specs().targets {
            assert!(
                !target_experiments(&spec.experiment).is_empty(),
                "{}",
                spec.what
            );
            for named in spec.implementation.iter().chain(&spec.versus) {
                assert!(LAB.implementations().contains(&named.as_str()), "{named}");
            }
        }
    }
}
