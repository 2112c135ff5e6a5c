//! pending-ack-lab's description: what the measurement binaries and the driver run (the report
//! is [`crate::report`]'s).

use std::hint::black_box;
use std::time::{Duration, Instant};

use labkit::callgrind::Buckets;
use labkit::document::{Document, LabReport};
use labkit::lab::{
    BenchCase, Experiment as Described, Kind, Lab, LatencyRecording, Parameter, Runner, Window,
    resolve,
};
use labkit::record::{Record, ResultSet};

use crate::concurrent::{SHAPE_DATASETS, SHAPES, Shape};
use crate::workload::{
    COUNTED_OPS, DATASETS, Dataset, Experiment, RETAINED_CASES, RetainedCase, Workload,
};
use crate::{ImplementationVisitor, PendingAcks, visit_implementation};

/// The lab, as the measurement binaries and the driver see it.
pub static LAB: PendingAckLab = PendingAckLab;

pub struct PendingAckLab;

pub(crate) const FOOTPRINT: &str = "footprint";
pub(crate) const RETAINED_CAPACITY: &str = "retained-capacity";

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

    fn cost_buckets(&self) -> Buckets {
        crate::report::cost_buckets()
    }

    fn derived(&self, set: &ResultSet) -> Vec<Record> {
        crate::report::derived(set)
    }
}

impl LabReport for PendingAckLab {
    fn report(&self, set: &ResultSet) -> Document {
        crate::report::document(set)
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::with_implementations;

    labkit::lab_conformance!(LAB, with_implementations, |_, _| true);

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
}
