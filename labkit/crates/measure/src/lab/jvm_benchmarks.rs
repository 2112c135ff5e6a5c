//! A lab's JVM side as data: the write-up's JMH benchmarks and JOL weighings (Java in the Maven
//! module `jvm/`), which cells of the lab each one measures, and with which settings. The driver
//! builds the module, runs JMH and JOL, and turns their output into the lab's records
//! ([`crate::jmh`]); no measurement binary runs Java.

use serde::{Deserialize, Serialize};

use super::BenchCase;
use super::description::{Kept, kept_str, kept_strs};

/// A lab's JVM side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JvmBenchmarks {
    /// The JVM designs, the JVM baseline (the write-up's "before" arm) first.
    #[serde(deserialize_with = "kept_strs")]
    pub designs: Vec<Kept>,
    /// The JDK whose runs decide the claims (a feature release: 17, 25) and why it is that one.
    pub jdk: u32,
    pub jdk_reason: String,
    /// Where the Java follows the write-up's benchmark: the public source, path and revision.
    pub source: String,
    /// The write-up's JMH settings, shown beside the lab's.
    pub published: JmhSettings,
    /// Each measured cell: a case of a design and the benchmark that measures it.
    pub cells: Vec<JmhCell>,
    /// Each weighed cell: a case of a design and the JOL weighing that measures its footprint.
    pub weighings: Vec<JolWeighing>,
    /// Main classes that check the Java stores' correctness (exit 0 when every check passes),
    /// run by `cargo xtask test`.
    pub checks: Vec<String>,
}

/// JMH's iteration settings (`-wi`, `-w`, `-i`, `-r`, `-f`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct JmhSettings {
    pub warmup_iterations: u32,
    pub warmup_ms: u32,
    pub iterations: u32,
    pub iteration_ms: u32,
    pub forks: u32,
}

impl JmhSettings {
    /// "3 × 1 s warm-up, 5 × 1 s, 2 forks".
    pub fn describe(&self) -> String {
        let seconds = |ms: u32| {
            if ms.is_multiple_of(1000) {
                format!("{} s", ms / 1000)
            } else {
                format!("{} s", f64::from(ms) / 1000.0)
            }
        };
        let forks = if self.forks == 1 { "fork" } else { "forks" };
        format!(
            "{} × {} warm-up, {} × {}, {} {forks}",
            self.warmup_iterations,
            seconds(self.warmup_ms),
            self.iterations,
            seconds(self.iteration_ms),
            self.forks
        )
    }
}

/// One JVM design on one case, measured by one JMH benchmark.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JmhCell {
    #[serde(deserialize_with = "kept_str")]
    pub experiment: Kept,
    pub parameter: String,
    #[serde(deserialize_with = "kept_str")]
    pub design: Kept,
    /// The benchmark method, fully qualified (`dedup.SequenceCheckBenchmark.monitorDistinctSingle`).
    pub benchmark: String,
    /// Its `@Param` values (`-p name=value`), in order.
    pub params: Vec<(String, String)>,
    /// Its thread count when the lab sets one (`-t`), else the benchmark's `@Threads`.
    pub threads: Option<usize>,
    /// Whether the JVM baseline's cell on this case also runs as its A/A twin: every case whose
    /// time the answers read; not one measured for its allocation alone.
    pub twin: bool,
}

impl JmhCell {
    /// `design` on `case` by `benchmark`, with no parameters or thread count of its own.
    pub fn new(case: (Kept, &str), design: Kept, benchmark: &str) -> Self {
        Self {
            experiment: case.0,
            parameter: case.1.to_owned(),
            design,
            benchmark: benchmark.to_owned(),
            params: Vec::new(),
            threads: None,
            twin: true,
        }
    }

    /// With `@Param` `name` set to `value`.
    pub fn param(mut self, name: &str, value: &str) -> Self {
        self.params.push((name.to_owned(), value.to_owned()));
        self
    }

    /// On `threads` threads.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// Measured for its allocation per operation alone: no A/A twin beside it.
    pub fn allocation_only(mut self) -> Self {
        self.twin = false;
        self
    }

    pub fn case(&self) -> BenchCase {
        BenchCase::new(self.experiment, &self.parameter)
    }

    /// The benchmark's method and its parameters, as an answer row names it below the line that
    /// names the benchmark's class and source (`removeAllUpTo` with
    /// `dataset=defaultUnacked50kEntries1Ledger`).
    pub fn label(&self) -> String {
        let short = self.benchmark.rsplit('.').next().unwrap_or_default();
        let mut words: Vec<String> = self
            .params
            .iter()
            .filter(|(name, _)| name != "implementation")
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        if let Some(threads) = self.threads {
            words.push(format!("-t {threads}"));
        }
        if words.is_empty() {
            format!("`{short}`")
        } else {
            format!("`{short}` ({})", words.join(", "))
        }
    }
}

/// One JVM design on one case, weighed by a JOL main class that prints `retained=<bytes>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JolWeighing {
    #[serde(deserialize_with = "kept_str")]
    pub experiment: Kept,
    pub parameter: String,
    #[serde(deserialize_with = "kept_str")]
    pub design: Kept,
    /// The main class (`pendingack.Footprint`).
    pub main: String,
    /// Its arguments: the design and the case's structured fields (sizes, counts).
    pub args: Vec<String>,
}

impl JvmBenchmarks {
    /// The cells `design` has on `experiment`, measured or weighed.
    pub fn runs(&self, experiment: &str, design: &str) -> bool {
        self.cells
            .iter()
            .any(|c| c.experiment == experiment && c.design == design)
            || self
                .weighings
                .iter()
                .any(|w| w.experiment == experiment && w.design == design)
    }

    /// The cell of `design` on `case`, if JMH measures it.
    pub fn cell(&self, case: &BenchCase, design: &str) -> Option<&JmhCell> {
        self.cells.iter().find(|c| {
            c.experiment == case.experiment && c.parameter == case.parameter && c.design == design
        })
    }

    /// Checks that every cell names a design of this side and one of `experiments`' cases, and
    /// that no case of a design is measured twice.
    pub fn check(&self, experiments: &[super::Experiment]) -> Result<(), String> {
        let mut seen = std::collections::BTreeSet::new();
        let cases = self
            .cells
            .iter()
            .map(|c| (c.experiment, c.parameter.as_str(), c.design))
            .chain(
                self.weighings
                    .iter()
                    .map(|w| (w.experiment, w.parameter.as_str(), w.design)),
            );
        for (experiment, parameter, design) in cases {
            if !self.designs.contains(&design) {
                return Err(format!(
                    "JVM cell {experiment}/{design}/{parameter}: `{design}` is not a JVM design"
                ));
            }
            let known = experiments
                .iter()
                .any(|e| e.name == experiment && e.parameter(parameter).is_some());
            if !known {
                return Err(format!(
                    "JVM cell {experiment}/{design}/{parameter}: no such case"
                ));
            }
            if !seen.insert((experiment, parameter, design)) {
                return Err(format!(
                    "JVM cell {experiment}/{design}/{parameter} is listed twice"
                ));
            }
        }
        Ok(())
    }
}
