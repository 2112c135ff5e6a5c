//! dedup-lab's description: what the measurement binaries and the driver run, and the report.

use std::time::Duration;

use labkit::lab::{BenchCase, Experiment, Kind, Lab, Parameter, Runner, Timing, Window, resolve};
use labkit::record::{Metric, ResultSet, RunMode};
use labkit::report::{Report, Row, comparison_table, fill, joined_table, metric_chart};

use crate::workload::{SHAPES, Shape, Worker, run_window};
use crate::{ImplementationVisitor, SequenceBatch, SequenceDedup, visit_implementation};

/// The lab, as the measurement binaries and the driver see it.
pub static LAB: DedupLab = DedupLab;

pub struct DedupLab;

/// Admission checks on every shape.
const ADMISSION: &str = "admission";
/// Heap retained after one message from each of n producers.
const FOOTPRINT: &str = "footprint";
const FOOTPRINT_PRODUCERS: [usize; 3] = [1, 500, 10_000];

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
        let footprint = Experiment::new(
            FOOTPRINT,
            "heap retained after one message from each of n producers",
            Kind::Retained,
            FOOTPRINT_PRODUCERS
                .iter()
                .map(|n| {
                    Parameter::new(&format!("{n}-producers"), &format!("{n} producers"), false)
                })
                .collect(),
        );
        vec![admission, footprint]
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
                ADMISSION => Target::Admission(Shape::parse(&parameter.name)?),
                _ => Target::Footprint(
                    FOOTPRINT_PRODUCERS
                        .into_iter()
                        .find(|n| format!("{n}-producers") == parameter.name)
                        .ok_or_else(|| format!("no footprint case `{}`", parameter.name))?,
                ),
            },
            runner: None,
        };
        visit_implementation(implementation, &mut open)?;
        open.runner
            .ok_or_else(|| format!("{implementation}: nothing opened"))
    }

    fn report(&self, set: &ResultSet) -> Report {
        let cores = set.environment.cores;
        let experiments = self.experiments();
        let implementations = self.implementations();
        let rows = |experiment: &Experiment, keep: &dyn Fn(&Parameter) -> bool| -> Vec<Row> {
            experiment
                .parameters
                .iter()
                .filter(|p| keep(p))
                .map(|p| Row::of(experiment, p, cores))
                .collect()
        };
        let table = |metric: Metric, rows: &[Row]| {
            comparison_table(set, metric, rows, &implementations).render()
        };
        let (admission, footprint) = (&experiments[0], &experiments[1]);
        let all = rows(admission, &|_| true);
        let footprint = rows(footprint, &|_| true);
        let body = fill(
            include_str!("../report/report.md"),
            &[
                ("time", table(Metric::NsPerOp, &all)),
                (
                    "throughput",
                    table(Metric::OpsPerSec, &rows(admission, &|p| p.threads > 1)),
                ),
                (
                    "instructions",
                    table(Metric::InstructionsPerOp, &rows(admission, &|p| p.counted)),
                ),
                ("allocs", table(Metric::AllocsPerOp, &all)),
                ("bytes", table(Metric::BytesPerOp, &all)),
                ("retained", table(Metric::RetainedBytes, &footprint)),
                (
                    "retained_usable",
                    table(Metric::RetainedUsableBytes, &footprint),
                ),
                ("all", joined_table(set).render()),
            ],
        )
        .expect("the report template and its values are written together");
        Report {
            body,
            charts: vec![metric_chart(
                set,
                "dedup-admission-ns",
                "dedup: time per admission by thread shape (ns/op, median)",
                Metric::NsPerOp,
                &all,
                &implementations,
            )],
        }
    }
}

/// What [`Open`] prepares.
#[derive(Clone, Copy)]
enum Target {
    Admission(Shape),
    Footprint(usize),
}

/// Opens a runner of whichever implementation it visits.
struct Open {
    target: Target,
    runner: Option<Box<dyn Runner>>,
}

impl ImplementationVisitor for Open {
    fn visit<D: SequenceDedup>(&mut self) {
        self.runner = Some(match self.target {
            Target::Admission(shape) => {
                let dedup = D::default();
                let workers = shape.prepare(&dedup);
                Box::new(Admission { dedup, workers })
            }
            Target::Footprint(producers) => Box::new(Footprint::<D> {
                producers,
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

/// Builds a deduplicator that has admitted one message from each of `producers` producers.
struct Footprint<D> {
    producers: usize,
    built: Option<D>,
}

impl<D: SequenceDedup> Runner for Footprint<D> {
    fn run(&mut self, _: u64, _: u64, window: &mut dyn Window) -> Duration {
        let names: Vec<String> = (0..self.producers)
            .map(|i| format!("producer-{i}"))
            .collect();
        let first = SequenceBatch::single(0).expect("0 is a valid id");
        self.built = None;
        window.open();
        let start = std::time::Instant::now();
        let dedup = D::default();
        for name in &names {
            dedup.admit(&dedup.connect(name), first);
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
        for case in labkit::lab::cases(&LAB, |_, _| true) {
            for implementation in LAB.implementations() {
                let mut runner = LAB.open(implementation, &case).unwrap();
                runner.run(10, 10, &mut ());
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
        assert_eq!(names, ["single", "duplicate"]);
    }

    #[test]
    fn registry_modules_are_named_like_their_implementations() {
        macro_rules! modules {
            ($($module:ident => $ty:path),* $(,)?) => { [$(stringify!($module)),*] };
        }
        let modules = crate::with_implementations!(modules);
        for (module, name) in modules.iter().zip(LAB.implementations()) {
            assert_eq!(module.replace('_', "-"), name);
            assert_eq!(labkit::lab::counted_cases(&LAB, module).len(), 2);
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
        assert_eq!(report.charts.len(), 1);
    }
}
