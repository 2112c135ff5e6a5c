//! pending-ack-lab's description: what the measurement binaries and the driver run (the runners
//! are [`crate::runners`], the report [`crate::report`]s).

use labkit::callgrind::Buckets;
use labkit::lab::{
    BenchCase, Describe, Experiment as Described, Kind, Lab, LatencyRecording, Parameter, Runner,
    resolve,
};
use labkit::record::{Record, ResultSet};

use crate::concurrent::{SHAPE_DATASETS, SHAPES, Shape};
use crate::runners::Target;
use crate::workload::{COUNTED_OPS, DATASETS, Dataset, Experiment, RETAINED_CASES};

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

impl Describe for PendingAckLab {
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
        crate::measured_names()
    }

    fn experiments(&self) -> &[Described] {
        static DESCRIBED: labkit::lab::Described = labkit::lab::Described::new();
        DESCRIBED.get(|| {
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
        })
    }

    fn counted_ops(&self) -> u64 {
        COUNTED_OPS
    }

    fn cost_buckets(&self) -> Buckets {
        crate::report::cost_buckets()
    }
}

impl Lab for PendingAckLab {
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
        crate::runners::open(implementation, target)
    }

    fn derived(&self, set: &ResultSet) -> Vec<Record> {
        crate::report::derived(set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::with_implementations;

    labkit::lab_conformance!(LAB, with_implementations, |_, _| true);
}
