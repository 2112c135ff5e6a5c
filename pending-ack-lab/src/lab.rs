//! pending-ack-lab's description: what the measurement binaries and the driver run (the runners
//! are [`crate::runners`], the report [`crate::report`]s).

use labkit::callgrind::Buckets;
use labkit::derivation::{Derivation, Operand};
use labkit::lab::{
    Experiment, JmhCell, JmhSettings, JolWeighing, JvmBenchmarks, Kind, LatencyRecording,
    Parameter, Typed,
};
use labkit::record::{BenchId, FLOOR, Metric};

use crate::concurrent::{SHAPE_DATASETS, SHAPES, Shape};
use crate::runners::Setup;
use crate::workload::{COUNTED_OPS, DATASETS, Dataset, RETAINED_CASES, Scenario, entries_per_op};

// Where counted instructions go: the kit reads it when it counts, the pages when they show it.
labkit::report_files! {
    cost_buckets: Buckets = "cost-buckets.json",
}

labkit::lab! {
    pub static LAB: PendingAckLab = "pending-ack", "pending-ack-lab: the per-consumer pending-ack map";
    cases: Setup = experiments;
    jvm: jvm_benchmarks;
    derivations: derivations;
    cost_buckets: cost_buckets;
    describe {
        fn counted_ops(&self) -> u64 {
            COUNTED_OPS
        }
    }
}

/// Draft PR #26024's two layouts in its JMH benchmark (`jvm/src/main/java/pendingack/`), the JVM
/// baseline first, each with its `implementation` parameter there: the nested `TreeMap`s
/// (`oldProduction`) and the draft's primitive-bucketed map with its bitset index.
const JVM_ARMS: [(&str, &str); 2] = [
    ("jvm-nested-treemap", "oldProduction"),
    ("jvm-primitive-bucketed", "production"),
];

/// The benchmark's methods whose numbers the write-up quotes, each with the scenario it measures
/// and the datasets the write-up quotes it on.
const JMH_BENCHMARKS: [(Scenario, &str, &[&str]); 7] = [
    (
        Scenario::DispatchAndAckCycle,
        "dispatchAndAckCycle",
        CLAIMED_50K,
    ),
    (
        Scenario::DispatchAckAndPartialAckCycle,
        "dispatchAckAndPartialAckCycle",
        CLAIMED_50K,
    ),
    (Scenario::RemoveAllUpTo, "removeAllUpTo", CLAIMED_50K),
    (
        Scenario::SameLedgerSmallPrefix,
        "removeAllUpToSameLedger",
        &["50k-in-1"],
    ),
    (Scenario::AddOrReplace, "addOrReplace", &["50k-in-1"]),
    (
        Scenario::RemoveAndAdd,
        "removeAndAddRemaining",
        &["50k-in-1"],
    ),
    (
        Scenario::UpdateRemaining,
        "updateRemainingUnacked",
        &["50k-in-1"],
    ),
];

const CLAIMED_50K: &[&str] = &["50k-in-1", "50k-in-5", "50k-in-10", "50k-in-20"];

/// The draft's benchmark on the cases the write-up quotes, and the footprints (up to the
/// write-up's largest) and retained capacities weighed with JOL, as the write-up weighed them.
fn jvm_benchmarks() -> JvmBenchmarks {
    let mut cells = Vec::new();
    let mut weighings = Vec::new();
    for (design, implementation) in JVM_ARMS {
        for (scenario, method, datasets) in JMH_BENCHMARKS {
            for name in datasets {
                let dataset = Dataset::find(name).expect("the claimed datasets are listed");
                let benchmark = format!("pendingack.PendingAcksMapBenchmark.{method}");
                let cell = JmhCell::new((scenario.name(), name), design, &benchmark)
                    .param("implementation", implementation)
                    .param(
                        "dataset",
                        dataset
                            .benchmark_name
                            .expect("the claimed datasets are the benchmark's"),
                    );
                cells.push(match scenario {
                    Scenario::SameLedgerSmallPrefix => cell.param("scenario", "smallPrefix"),
                    // The write-up quotes these three for their allocation only.
                    Scenario::AddOrReplace | Scenario::RemoveAndAdd | Scenario::UpdateRemaining => {
                        cell.allocation_only()
                    }
                    _ => cell,
                });
            }
        }
        let weigh = |experiment, parameter: &str, sizes: Vec<u64>| JolWeighing {
            experiment,
            parameter: parameter.to_owned(),
            design,
            main: "pendingack.Footprint".into(),
            args: std::iter::once(implementation.to_owned())
                .chain(sizes.iter().map(u64::to_string))
                .collect(),
        };
        // Up to the write-up's largest weighing: a million entries would take JOL half a minute
        // an arm for a row the write-up has not.
        for d in DATASETS.iter().filter(|d| d.entries <= 200_000) {
            weighings.push(weigh(FOOTPRINT, d.name, vec![d.entries, d.ledgers]));
        }
        for c in RETAINED_CASES {
            let d = Dataset::find(c.dataset).expect("retained cases name listed datasets");
            weighings.push(weigh(
                RETAINED_CAPACITY,
                c.name,
                vec![d.entries, d.ledgers, c.keep],
            ));
        }
    }
    JvmBenchmarks {
        designs: JVM_ARMS.iter().map(|(design, _)| *design).collect(),
        jdk: 25,
        jdk_reason: "the JDK of the write-up's measurements: #26024 names OpenJDK 25.0.2".into(),
        source: "apache/pulsar `microbench/src/main/java/org/apache/pulsar/broker/service/\
                 PendingAcksMapBenchmark.java` at 706d2ab157c6 (draft #26024)"
            .into(),
        published: JmhSettings {
            warmup_iterations: 2,
            warmup_ms: 1_000,
            iterations: 3,
            iteration_ms: 1_000,
            forks: 1,
        },
        cells,
        weighings,
        checks: vec!["pendingack.Checks".into()],
    }
}

pub(crate) const FOOTPRINT: &str = "footprint";
pub(crate) const RETAINED_CAPACITY: &str = "retained-capacity";
/// Derived: footprint per entry.
pub const FOOTPRINT_PER_ENTRY: &str = "footprint-per-entry";

/// Footprint per entry held, and the cleanups' and scans' counted instructions net of the harness
/// floor per entry they visit (`<experiment>-net-per-entry`).
fn derivations() -> Vec<Derivation> {
    let net_per_entry = [Scenario::RemoveAllUpTo, Scenario::ForEachScan].map(|e| {
        let name = format!("{}-net-per-entry", e.name());
        Derivation::new(name, e.name(), Metric::InstructionsPerOp)
            .minus(Operand::Design(FLOOR))
            .over(Operand::Case(entries))
    });
    let footprint = Derivation::new(FOOTPRINT_PER_ENTRY, FOOTPRINT, Metric::RetainedBytes)
        .over(Operand::Case(entries));
    [footprint].into_iter().chain(net_per_entry).collect()
}

/// The entries a case's map holds (a footprint's) or its op visits (a cleanup's, a scan's).
fn entries(id: &BenchId) -> Option<f64> {
    let entries = match CASES.value(&id.experiment, &id.parameter)? {
        Setup::Footprint(dataset) => dataset.entries,
        Setup::Timed(experiment, dataset) => entries_per_op(*experiment, *dataset)?,
        _ => return None,
    };
    Some(entries as f64)
}

/// Instructions are counted on the write-up's headline datasets (one and twenty ledgers) to keep the
/// valgrind stage short; the wall-time passes time every dataset.
const COUNTED_DATASETS: [&str; 2] = ["50k-in-1", "50k-in-20"];

/// A concurrent shape on its datasets: aggregate throughput, and the latencies the shape times
/// (acks, or adds) recorded in one extra sample per cell and pass.
fn shape_experiment(shape: Shape) -> Typed<Setup> {
    Experiment {
        latency: LatencyRecording::ExtraSample,
        throughput: true,
        footprint_at_end: true,
        ..Experiment::of(shape.name, shape.description, Kind::Steady)
    }
    .on(SHAPE_DATASETS.iter().map(|name| {
        let dataset = Dataset::find(name).expect("the shapes' datasets are listed");
        // The threads share one count of operations: one op is one entry's whole cycle.
        let parameter = Parameter::threaded(name, &dataset.label(), shape.threads(), 1);
        (parameter, Setup::Shared(shape, dataset))
    }))
}

fn dataset_parameter(dataset: &Dataset) -> Parameter {
    Parameter::new(
        dataset.name,
        &dataset.label(),
        COUNTED_DATASETS.contains(&dataset.name),
    )
}

fn experiments() -> Vec<Typed<Setup>> {
    let mut experiments: Vec<Typed<Setup>> = Scenario::ALL
        .into_iter()
        .map(|e| {
            let kind = if e.is_one_shot() {
                Kind::OneShot
            } else {
                Kind::Steady
            };
            Experiment {
                max_ops: e.max_ops(),
                ..Experiment::of(e.name(), e.description(), kind)
            }
            .on(e
                .datasets()
                .into_iter()
                .map(|d| (dataset_parameter(&d), Setup::Timed(e, d))))
        })
        .collect();
    experiments.extend(SHAPES.into_iter().map(shape_experiment));
    experiments.push(
        Experiment::of(
            FOOTPRINT,
            "heap retained by a map holding the whole dataset",
            Kind::Retained,
        )
        .on(DATASETS.into_iter().map(|d| {
            let parameter = Parameter::new(d.name, &d.label(), false);
            (parameter, Setup::Footprint(d))
        })),
    );
    experiments.push(
        Experiment::of(
            RETAINED_CAPACITY,
            "heap left after a peak dataset is cleaned up by remove_all_up_to",
            Kind::Retained,
        )
        .on(RETAINED_CASES.into_iter().map(|c| {
            let label = format!(
                "peak `{}`, `remove_all_up_to` keeping {}",
                c.dataset, c.keep
            );
            (
                Parameter::new(c.name, &label, false),
                Setup::RetainedCapacity(c),
            )
        })),
    );
    experiments
}

#[cfg(test)]
mod tests {
    use super::*;

    labkit::lab_conformance!(LAB, with_implementations, |_, _| true);
}
