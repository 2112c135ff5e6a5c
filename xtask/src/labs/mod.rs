//! The labs the driver knows: what to build and run for each, and how its report reads.

pub mod dedup;

use labkit::record::ResultSet;

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
    pub experiments: &'static [&'static str],
    /// The experiment the gungraun benches measure (their group).
    pub instruction_experiment: &'static str,
    /// Operations per gungraun benchmark run, to turn counts into per-op numbers.
    pub instruction_ops: u64,
    /// The report body below the environment header.
    pub render: fn(&ResultSet) -> String,
}

pub const LABS: &[Lab] = &[dedup::LAB];

impl Lab {
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
