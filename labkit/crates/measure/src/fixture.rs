//! A two-implementation lab whose runners take no time, for tests of the kit, of the driver and of
//! anything else that reads a description.

use crate::lab::{
    BenchCase, CaseTable, Describe, Experiment, Kind, Lab, Parameter, Runner, Typed, Window,
};
use crate::record::{Record, ResultSet};
use std::time::Duration;

/// A two-implementation lab whose runners take no time: for tests of everything that reads a
/// description. Its counted instructions split into one bucket, `the allocator`.
pub struct TinyLab {
    name: &'static str,
    implementations: [&'static str; 2],
    cases: CaseTable<()>,
}

/// The fixture lab: `base` and `fast`.
pub static TINY: TinyLab = TinyLab {
    name: "tiny",
    implementations: ["base", "fast"],
    cases: CaseTable::new(tiny_experiments),
};

/// A second fixture lab with the same experiments and designs of other names (`plain`, `quick`):
/// for tests that pick a lab by the names they are given.
pub static OTHER: TinyLab = TinyLab {
    name: "other",
    implementations: ["plain", "quick"],
    cases: CaseTable::new(tiny_experiments),
};

struct Idle;

impl Runner for Idle {
    fn run(&mut self, _: u64, ops: u64, window: &mut dyn Window) -> Duration {
        window.open();
        window.close();
        Duration::from_nanos(ops)
    }
}

impl Describe for TinyLab {
    fn name(&self) -> &'static str {
        self.name
    }

    fn package(&self) -> &'static str {
        "tiny-lab"
    }

    fn title(&self) -> &'static str {
        self.name
    }

    fn implementations(&self) -> Vec<&'static str> {
        self.implementations.to_vec()
    }

    fn cost_buckets(&self) -> crate::callgrind::Buckets {
        crate::callgrind::Buckets::parse(
            r#"{"buckets": [{"name": "the allocator", "patterns": ["malloc"]}], "rest": "the rest"}"#,
        )
        .expect("the fixture's buckets parse")
    }

    fn experiments(&self) -> &[Experiment] {
        self.cases.experiments()
    }

    fn quick_selection(&self) -> Vec<&'static str> {
        vec!["small"]
    }
}

impl Lab for TinyLab {
    fn open(&self, implementation: &str, case: &BenchCase) -> Result<Box<dyn Runner>, String> {
        self.cases.case(self, implementation, case)?;
        Ok(Box::new(Idle))
    }
}

/// The fixture lab with its `op` experiment measuring `base` only ([`Experiment::implementations`]).
pub static NARROW: TinyLab = TinyLab {
    name: "narrow",
    implementations: ["base", "fast"],
    cases: CaseTable::new(narrow_experiments),
};

fn narrow_experiments() -> Vec<Typed<()>> {
    let mut experiments = experiment_list();
    experiments[0].implementations = vec!["base"];
    experiments.into_iter().map(Typed::from).collect()
}

/// The fixture lab with its threaded case counted too, which no lab may do.
pub static THREADED_COUNTED: TinyLab = TinyLab {
    name: "threaded-counted",
    implementations: ["base", "fast"],
    cases: CaseTable::new(|| {
        let mut experiments = experiment_list();
        experiments[0].parameters[1].threads = 2;
        experiments[0].parameters[1].counted = true;
        experiments.into_iter().map(Typed::from).collect()
    }),
};

fn tiny_experiments() -> Vec<Typed<()>> {
    experiment_list().into_iter().map(Typed::from).collect()
}

/// The fixture's experiments: a steady op on one counted and one threaded case, a one-shot
/// cleanup, a retained footprint.
fn experiment_list() -> Vec<Experiment> {
    let shared = Parameter::threaded("shared-4", "4 threads", 4, 4);
    vec![
        Experiment::new(
            "op",
            "one op",
            Kind::Steady,
            vec![Parameter::new("small", "small", true), shared],
        ),
        Experiment::new(
            "cleanup",
            "one cleanup",
            Kind::OneShot,
            vec![Parameter::new("small", "small", true)],
        ),
        Experiment::new(
            "footprint",
            "heap",
            Kind::Retained,
            vec![Parameter::new("big", "big", false)],
        ),
    ]
}

/// A result set of `lab` holding `records`, as a report's tests build one.
pub fn result_set(lab: &dyn Describe, records: Vec<Record>) -> ResultSet {
    ResultSet {
        lab: lab.name().into(),
        ..crate::record::fixtures::set(records)
    }
}

/// A JVM side of `designs` with no cell, for tests of what reads which designs run on the JVM.
pub fn jvm_benchmarks(designs: &[&'static str]) -> crate::lab::JvmBenchmarks {
    let settings = crate::lab::JmhSettings {
        warmup_iterations: 1,
        warmup_ms: 100,
        iterations: 1,
        iteration_ms: 100,
        forks: 1,
    };
    crate::lab::JvmBenchmarks {
        designs: designs.to_vec(),
        jdk: 17,
        jdk_reason: "the fixture's".into(),
        source: "no source".into(),
        published: settings,
        cells: Vec::new(),
        weighings: Vec::new(),
        checks: Vec::new(),
    }
}
