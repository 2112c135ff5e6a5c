//! dedup-lab's description: what the measurement binaries and the driver run (the runners are
//! [`crate::runners`], the report [`crate::report`]'s).

use labkit::callgrind::Buckets;
use labkit::derivation::{Derivation, Operand};
use labkit::lab::{
    Experiment, JmhCell, JmhSettings, JolWeighing, JvmBenchmarks, Kind, LatencyRecording,
    Parameter, Timing, Typed,
};
use labkit::record::{BenchId, Metric, RunMode};
use labkit::table::format_count;

use crate::churn::{CHURN_EVERY, INACTIVE, KEPT_INACTIVE, LIVE_PER_PUBLISHER};
use crate::footprint::GROWTH;
use crate::runners::Setup;
use crate::workload::{Ids, SHAPES, Shape};

// Where counted instructions go: the kit reads it when it counts, the pages when they show it.
labkit::report_files! {
    cost_buckets: Buckets = "cost-buckets.json",
}

labkit::lab! {
    pub static LAB: DedupLab = "dedup", "dedup-lab: producer sequence-id deduplication";
    cases: Setup = experiments;
    jvm: jvm_benchmarks;
    derivations: derivations;
    cost_buckets: cost_buckets;
    describe {
        // Contended shapes run up to 16 threads on the machine's cores: longer samples span many
        // scheduler slices, so one sample is not one lucky or unlucky slice.
        fn timing(&self, mode: RunMode) -> Timing {
            let standard = Timing::standard(mode);
            match mode {
                RunMode::Smoke => standard,
                RunMode::Full | RunMode::Quick => Timing {
                    sample: standard.sample * 4,
                    ..standard
                },
            }
        }
    }
}

/// The PR's two JMH arms on a real `ConcurrentHashMap<String, Long>` (`jvm/src/main/java/dedup/`),
/// the JVM baseline first, each with the prefix of its benchmark methods.
const JVM_ARMS: [(&str, &str); 2] = [("jvm-monitor", "monitor"), ("jvm-replace", "atomic")];

/// The PR's benchmark: its methods for each shape it measures (and the lab's own two-thread and
/// `iot` shapes), each cell on the shape's threads; the footprint growth cases weighed with JOL.
fn jvm_benchmarks() -> JvmBenchmarks {
    let mut cells = Vec::new();
    for (design, arm) in JVM_ARMS {
        for shape in SHAPES {
            let method = match shape {
                Shape::Single => "DistinctSingle",
                Shape::Distinct { .. } => "DistinctConcurrent",
                Shape::SharedIncrement { threads: 16 } => "SharedProducer",
                Shape::Iot { .. } => "Iot",
                _ => continue,
            };
            let benchmark = format!("dedup.SequenceCheckBenchmark.{arm}{method}");
            let cell = JmhCell::new((ADMISSION, &shape.name()), design, &benchmark);
            let cell = match shape {
                Shape::Iot { producers, .. } => cell.param("producers", &producers.to_string()),
                _ => cell,
            };
            cells.push(cell.threads(shape.threads()));
        }
    }
    let weighings = JVM_ARMS
        .iter()
        .flat_map(|(design, _)| {
            GROWTH.iter().map(|g| JolWeighing {
                experiment: FOOTPRINT,
                parameter: g.name(),
                design,
                main: "dedup.Footprint".into(),
                args: vec![
                    design.to_string(),
                    g.producers.to_string(),
                    g.kept.to_string(),
                ],
            })
        })
        .collect();
    JvmBenchmarks {
        designs: JVM_ARMS.iter().map(|(design, _)| *design).collect(),
        jdk: 17,
        jdk_reason: "the write-up names no JDK: the project's default".into(),
        source: "apache/pulsar `microbench/src/main/java/org/apache/pulsar/broker/service/\
                 MessageDeduplicationSequenceCheckBenchmark.java` at 1eef14bb7c73"
            .into(),
        published: JmhSettings {
            warmup_iterations: 3,
            warmup_ms: 1_000,
            iterations: 5,
            iteration_ms: 1_000,
            forks: 2,
        },
        cells,
        weighings,
        checks: vec!["dedup.Checks".into()],
    }
}

/// Admission checks on every shape.
pub(crate) const ADMISSION: &str = "admission";
/// Admission checks of replicated messages by source position.
pub(crate) const REPLICATED_ADMISSION: &str = "replicated-admission";
/// The shapes the replicated path runs: a replicator is one producer per remote cluster, so what
/// matters is one caller's cost and the reconnect overlap, not many producers.
const REPLICATED_SHAPES: [&str; 5] = ["single", "duplicate", "distinct-2", "shared-2", "shared-16"];
/// Admissions while producers connect, reconnect and are purged ([`Churn`]).
pub(crate) const CHURN: &str = "churn";
/// Publishing threads of the churn experiment (each with its own live producers).
pub(crate) const CHURN_PUBLISHERS: [usize; 2] = [1, 2];
/// One publisher beside inactive producers, nothing purged: the purge's reference tail.
pub(crate) const BESIDE_INACTIVE: &str = "admission-beside-inactive";
/// A purge sweep of the inactive producers beside that publisher.
pub(crate) const PURGE_SWEEP: &str = "purge-sweep";
/// The parameter of both purge experiments.
pub(crate) const INACTIVE_PARAMETER: &str = "100k-inactive";
/// Heap retained after one message from each of n producers.
pub(crate) const FOOTPRINT: &str = "footprint";
/// Derived: footprint over the producers still known.
pub(crate) const FOOTPRINT_PER_PRODUCER: &str = "footprint-per-producer";
/// Derived: a purge sweep's admission p99.9 minus the reference's.
pub(crate) const PURGE_ADDED_TAIL: &str = "purge-added-tail";

/// Footprint per producer still known, and what a purge sweep adds to the publisher's p99.9.
fn derivations() -> Vec<Derivation> {
    let kept = |id: &BenchId| match CASES.value(FOOTPRINT, &id.parameter) {
        Some(Setup::Footprint(growth)) => Some(growth.kept as f64),
        _ => None,
    };
    vec![
        Derivation::new(FOOTPRINT_PER_PRODUCER, FOOTPRINT, Metric::RetainedBytes)
            .over(Operand::Case(kept)),
        Derivation::new(PURGE_ADDED_TAIL, PURGE_SWEEP, Metric::LatencyP999Ns)
            .minus(Operand::Experiment(BESIDE_INACTIVE)),
    ]
}

/// Untimed admissions per thread before every measured window: the threads are fresh, and their
/// lazy per-thread state (papaya's reclamation slot, a lock's parking data) is created under the
/// same contention before the window opens.
const WINDOW_WARM_UP: u64 = 1_000;

/// An experiment whose windows each open after [`WINDOW_WARM_UP`] admissions per thread.
fn warmed(name: &'static str, description: &str, kind: Kind) -> Experiment {
    Experiment {
        window_warm_up: WINDOW_WARM_UP,
        ..Experiment::of(name, description, kind)
    }
}

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

fn experiments() -> Vec<Typed<Setup>> {
    let admission = Experiment {
        // Each sample admits on a fresh deduplicator with freshly connected producers.
        fresh_per_sample: true,
        ..warmed(
            ADMISSION,
            "one admission check (NotDup, Dup or Unknown) of a producer's next sequence id",
            Kind::Steady,
        )
    }
    .on(SHAPES
        .into_iter()
        .map(|s| (shape_parameter(s), Setup::Admission(s, Ids::Sequence))));
    let replicated = Experiment {
        fresh_per_sample: true,
        ..warmed(
            REPLICATED_ADMISSION,
            "one admission check (NotDup, Dup or Unknown) of a replicated message by its \
             (ledger, entry) source position",
            Kind::Steady,
        )
    }
    .on(SHAPES
        .into_iter()
        .filter(|s| REPLICATED_SHAPES.contains(&s.name().as_str()))
        .map(|s| (shape_parameter(s), Setup::Admission(s, Ids::Replicated))));
    let footprint = Experiment::of(
        FOOTPRINT,
        "heap retained after one message from each of n producers",
        Kind::Retained,
    )
    .on(GROWTH.iter().map(|&g| {
        let parameter = Parameter::new(&g.name(), &g.label(), false);
        (parameter, Setup::Footprint(g))
    }));
    let [beside_inactive, purge_sweep] = purges();
    vec![
        admission,
        replicated,
        churn(),
        beside_inactive,
        purge_sweep,
        footprint,
    ]
}

/// Admissions of live producers while others connect, reconnect and are purged, per number of
/// publishing threads.
fn churn() -> Typed<Setup> {
    Experiment {
        latency: LatencyRecording::ExtraSample,
        throughput: true,
        ..warmed(
            CHURN,
            &format!(
                "one admission of a live producer's next id while, once per {} admissions, a new \
                 producer connects, the previous one reconnects with overlap and the one inactive \
                 for {} steps is purged",
                format_count(CHURN_EVERY),
                format_count(KEPT_INACTIVE)
            ),
            Kind::Steady,
        )
    }
    .on(CHURN_PUBLISHERS.iter().map(|&n| {
        let publishers = if n == 1 {
            "1 publishing thread".to_owned()
        } else {
            format!("{n} publishing threads")
        };
        let label =
            format!("{publishers}, {LIVE_PER_PUBLISHER} producers per thread, and the churner");
        let parameter = Parameter::threaded(&format!("{n}-publishers"), &label, n + 1, n);
        (parameter, Setup::Churn(n))
    }))
}

/// Admissions beside inactive producers, and sweeps purging them while a publisher admits.
fn purges() -> [Typed<Setup>; 2] {
    let inactive = format!(
        "{} inactive producers, {LIVE_PER_PUBLISHER} live ones on one publisher",
        format_count(INACTIVE as u64)
    );
    let beside_inactive = Experiment {
        latency: LatencyRecording::ExtraSample,
        ..warmed(
            BESIDE_INACTIVE,
            "one admission of a live producer's next id beside inactive producers, nothing purged",
            Kind::Steady,
        )
    }
    .on([(
        Parameter::new(INACTIVE_PARAMETER, &inactive, false),
        Setup::Purge { purging: false },
    )]);
    let purge_sweep = Experiment {
        latency: LatencyRecording::ExtraSample,
        ..warmed(
            PURGE_SWEEP,
            "one sweep purging every inactive producer while the publisher admits (the latencies \
             are the publisher's admissions during the sweeps)",
            Kind::OneShot,
        )
    }
    .on([(
        Parameter::threaded(INACTIVE_PARAMETER, &inactive, 2, 1),
        Setup::Purge { purging: true },
    )]);
    [beside_inactive, purge_sweep]
}

#[cfg(test)]
mod tests {
    use super::*;

    // Growth beyond 10^4 producers is left to the smoke run's optimised build.
    labkit::lab_conformance!(
        LAB,
        with_implementations,
        |e: &Experiment, p: &Parameter| {
            !matches!(CASES.value(e.name, &p.name), Some(Setup::Footprint(g)) if g.producers > 10_000)
        }
    );
}
