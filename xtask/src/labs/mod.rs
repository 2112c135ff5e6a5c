//! The labs the driver knows: what to build and run for each, and how its report reads.

pub mod dedup;
pub mod pending_ack;

use labkit::record::{BenchId, ResultSet, RunMode};

use crate::chart::Chart;

/// One lab: its package, its measurement binaries and its report.
pub struct Lab {
    /// Name on the command line and of the files in `bench-results/`.
    pub name: &'static str,
    pub package: &'static str,
    pub title: &'static str,
    /// Crates whose locked versions the report records.
    pub crates: &'static [&'static str],
    /// Implementation names, baseline first.
    pub implementations: fn() -> Vec<String>,
    /// Parameter names (shapes, datasets) across all experiments.
    pub parameters: fn() -> Vec<String>,
    /// Every id the criterion bench measures, for progress and ETA.
    pub timed_ids: fn() -> Vec<BenchId>,
    pub experiments: &'static [&'static str],
    /// Operations per gungraun benchmark run of an experiment, to turn counts into per-op
    /// numbers.
    pub instruction_ops: fn(&str) -> u64,
    /// Criterion settings for full, quick and smoke runs, sized so the lab's matrix fits its
    /// time budget.
    pub timing: [Timing; 3],
    /// The report body below the environment header.
    pub render: fn(&ResultSet) -> String,
    /// How a case is labelled in a paired comparison table.
    pub case_label: fn(&ResultSet, &BenchId) -> String,
    /// SVG charts written beside the report and linked from it.
    pub charts: fn(&ResultSet) -> Vec<Chart>,
}

/// Criterion's warm-up and measurement seconds and sample count for one run mode.
pub struct Timing {
    pub warm_up: &'static str,
    pub measurement: &'static str,
    pub samples: &'static str,
}

/// Smoke runs only prove every benchmark runs.
pub const SMOKE: Timing = Timing {
    warm_up: "0.01",
    measurement: "0.01",
    samples: "10",
};

pub const LABS: &[Lab] = &[dedup::LAB, pending_ack::LAB];

impl Lab {
    pub fn timing(&self, mode: RunMode) -> &Timing {
        match mode {
            RunMode::Full => &self.timing[0],
            RunMode::Quick => &self.timing[1],
            RunMode::Smoke => &self.timing[2],
        }
    }

    /// The names of the three parts of a bench id: experiments, implementations, parameters.
    pub fn dimensions(&self) -> [Vec<String>; 3] {
        let experiments = self.experiments.iter().map(|e| e.to_string()).collect();
        [experiments, (self.implementations)(), (self.parameters)()]
    }

    /// Every word a filter may use, for validation and error messages.
    pub fn filter_words(&self) -> Vec<String> {
        self.dimensions().concat()
    }
}

/// The lab called `name`, or an error listing the valid ones.
pub fn find(name: &str) -> Result<&'static Lab, String> {
    LABS.iter().find(|l| l.name == name).ok_or_else(|| {
        let valid: Vec<&str> = LABS.iter().map(|l| l.name).collect();
        format!("unknown lab `{name}`; valid: {}", valid.join(", "))
    })
}
