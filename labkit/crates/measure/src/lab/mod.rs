//! A lab's description, written once in the lab crate: its implementations, its experiments with
//! their parameters, how one case is run, and its report. Every measurement binary
//! ([`crate::measure`]) and the driver (`cargo xtask`) read it, so neither names a design, a
//! dataset or an experiment.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::record::{BenchId, ResultSet, RunMode};

mod catalog;
mod claimed;
mod counted;
mod declare;
pub use declare::Opened;
mod description;
mod jvm_benchmarks;
mod retained;
mod selection;
mod timing;
mod window;

pub use catalog::*;
pub use claimed::*;
pub use counted::*;
pub use description::*;
pub use jvm_benchmarks::*;
pub use retained::Retained;
pub use selection::*;
pub use timing::*;
pub use window::*;

/// How an experiment's operation behaves when it is repeated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    /// Operations on a structure kept in steady state: warmed up when opened, then timed, counted
    /// and allocation-measured over many operations.
    Steady,
    /// One operation that consumes its setup (a cleanup): each is timed alone, and the runner puts
    /// back what it consumed, untimed, before the next one.
    OneShot,
    /// No operation: a structure is built once and the heap it retains is measured.
    Retained,
}

/// One value of an experiment's dimension (a shape, a dataset, a retained-capacity case).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parameter {
    /// The `<parameter>` part of ids.
    pub name: String,
    /// One line for report tables.
    pub label: String,
    /// Threads that run at once (1 for single-thread work); more than the cores is marked
    /// oversubscribed.
    pub threads: usize,
    /// How many of them each run a measured run's `ops` operations: aggregate throughput, and
    /// allocations and events per operation, count `ops × workers` operations. The other threads
    /// assist (a churner, a prober), or all share one count of operations (`workers` 1).
    pub workers: usize,
    /// Whether instructions are counted (callgrind) on it; only single-thread parameters qualify,
    /// because valgrind serialises threads.
    pub counted: bool,
    /// The fewest operations one measured run may do (a closed-loop load: one request per
    /// virtual user); calibration starts there.
    pub min_ops: u64,
}

impl Parameter {
    /// A single-thread parameter.
    pub fn new(name: &str, label: &str, counted: bool) -> Self {
        Self {
            name: name.to_owned(),
            label: label.to_owned(),
            threads: 1,
            workers: 1,
            counted,
            min_ops: 1,
        }
    }

    /// A parameter on `threads` threads, `workers` of which each run the measured operations.
    pub fn threaded(name: &str, label: &str, threads: usize, workers: usize) -> Self {
        Self {
            threads,
            workers,
            ..Self::new(name, label, false)
        }
    }

    /// The label with an **oversubscribed** mark when it runs more threads than `cores`.
    pub fn label_on(&self, cores: usize) -> String {
        if self.threads > cores {
            format!(
                "{} — **oversubscribed: {} threads on {cores} cores**",
                self.label, self.threads
            )
        } else {
            self.label.clone()
        }
    }
}

/// One experiment: an operation measured on each of its parameters for every implementation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Experiment {
    /// The `<experiment>` part of ids.
    #[serde(deserialize_with = "description::kept_str")]
    pub name: Kept,
    /// What one operation is, for report headings.
    pub description: String,
    pub kind: Kind,
    pub parameters: Vec<Parameter>,
    /// At most this many operations in one measured run (a whole-map scan), whatever the
    /// measurement's budget.
    pub max_ops: Option<u64>,
    /// Untimed operations per thread right before every measured window, on the same threads
    /// (per-thread lazy state of freshly spawned workers).
    pub window_warm_up: u64,
    /// When not 0, the allocation run measures a second window on the same runner after this
    /// many more untimed runs of the same size, and takes its allocation counts from it: steady
    /// state for structures that fill up first (a pool of buffers), as JMH measures allocation
    /// after its warm-up iterations. Peak RSS and CPU time stay the first window's, which
    /// includes the filling; the peak heap is the highest over all these runs, above the live
    /// heap when the first window opened.
    pub profile_warm_up: u64,
    /// Whether each timed sample opens a fresh runner (a new structure, placed anew) rather than
    /// continuing the one opened for the benchmark.
    pub fresh_per_sample: bool,
    /// Whether and how the latency of every measured operation is recorded.
    pub latency: LatencyRecording,
    /// Whether the wall-time stage also reports operations per second summed over threads (always
    /// for experiments with a multi-thread parameter).
    pub throughput: bool,
    /// Whether the allocation run also measures what the whole process costs: its peak live heap,
    /// peak resident set and CPU time per operation. Meaningful for runs that own their threads
    /// or a server, not for a structure probed by one thread.
    pub process_costs: bool,
    /// Whether the allocation run also records the heap its runner holds after the measured
    /// operations, as retained bytes: a steady structure's footprint at the end of a run.
    pub footprint_at_end: bool,
    /// The implementations measured on it, the lab's baseline among them (a cross-check that
    /// needs only some designs); empty: all of the lab's. Its parameters are not counted.
    #[serde(default, deserialize_with = "description::kept_strs")]
    pub implementations: Vec<Kept>,
}

/// How an experiment's per-operation latencies are recorded ([`crate::latency`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LatencyRecording {
    /// Not recorded.
    Off,
    /// In one more sample per cell and pass, after the timed ones: the two clock reads per
    /// operation then never enter the timed samples (operations of a few nanoseconds).
    ExtraSample,
    /// In every timed sample: for operations so long that two clock reads are noise (requests).
    InTimedSamples,
}

impl Experiment {
    /// An experiment on `parameters` with no cap, no window warm-up and one runner per benchmark.
    pub fn new(
        name: &'static str,
        description: &str,
        kind: Kind,
        parameters: Vec<Parameter>,
    ) -> Self {
        Self {
            parameters,
            ..Self::of(name, description, kind)
        }
    }

    /// Like [`Experiment::new`], with its parameters still to be given ([`Experiment::on`]).
    pub fn of(name: &'static str, description: &str, kind: Kind) -> Self {
        Self {
            name,
            description: description.to_owned(),
            kind,
            parameters: Vec::new(),
            max_ops: None,
            window_warm_up: 0,
            profile_warm_up: 0,
            fresh_per_sample: false,
            latency: LatencyRecording::Off,
            throughput: false,
            process_costs: false,
            footprint_at_end: false,
            implementations: Vec::new(),
        }
    }

    /// Operations in one measured run sized for `budget` single operations: one for a one-shot,
    /// at most `max_ops`, else `budget`.
    pub fn ops(&self, budget: u64) -> u64 {
        match self.kind {
            Kind::OneShot | Kind::Retained => 1,
            Kind::Steady => self.cap(budget),
        }
    }

    /// `n` operations, at most `max_ops`: the size of one timed sample (one-shots may take
    /// several, each timed alone).
    pub fn cap(&self, n: u64) -> u64 {
        self.max_ops.map_or(n, |cap| n.min(cap))
    }

    /// Whether it is timed (and allocation-measured per operation).
    pub fn is_timed(&self) -> bool {
        self.kind != Kind::Retained
    }

    /// Whether `implementation` is among [`Experiment::implementations`]; [`measures`] also
    /// asks whether a JVM design runs it.
    pub fn lists(&self, implementation: &str) -> bool {
        self.implementations.is_empty() || self.implementations.contains(&implementation)
    }

    pub fn parameter(&self, name: &str) -> Option<&Parameter> {
        self.parameters.iter().find(|p| p.name == name)
    }

    /// Whether the wall-time stage reports aggregate operations per second.
    pub fn reports_throughput(&self) -> bool {
        self.throughput || self.parameters.iter().any(|p| p.threads > 1)
    }
}

/// One comparable case: an experiment on one parameter.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BenchCase {
    pub experiment: String,
    pub parameter: String,
}

impl BenchCase {
    pub fn new(experiment: &str, parameter: &str) -> Self {
        Self {
            experiment: experiment.to_owned(),
            parameter: parameter.to_owned(),
        }
    }

    /// The id of `implementation` on this case.
    pub fn id(&self, implementation: &str) -> BenchId {
        BenchId::new(&self.experiment, implementation, &self.parameter)
    }
}

impl fmt::Display for BenchCase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.experiment, self.parameter)
    }
}

impl FromStr for BenchCase {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.split_once('/') {
            Some((e, p)) if !e.is_empty() && !p.is_empty() && !p.contains('/') => {
                Ok(Self::new(e, p))
            }
            _ => Err(format!("`{s}` is not a case `<experiment>/<parameter>`")),
        }
    }
}

/// One implementation prepared on one case.
pub trait Runner {
    /// Runs `warm_up` untimed operations (per thread), then `ops` measured ones on the same
    /// threads; `window` is opened right before the measured ones and closed right after. Returns
    /// their wall time.
    ///
    /// A one-shot runner runs `ops` separate operations timed one by one and summed; before each
    /// one after the first it puts back, untimed, what the previous one consumed (never after
    /// the last, so a counted run counts the operation alone). A retained runner builds its
    /// structure inside the window and keeps it until it is dropped.
    fn run(&mut self, warm_up: u64, ops: u64, window: &mut dyn Window) -> Duration;
}

/// What a lab says about itself: data only, so the driver can hold it as a [`Description`] read
/// from the lab's binary (`lab --describe`) without linking the lab. A lab crate gets it, with
/// its [`Lab`], from [`lab!`](crate::lab!), overriding what it does otherwise.
pub trait Describe: Sync {
    /// Name on the command line and of the files in `bench-results/`.
    fn name(&self) -> &'static str;
    /// The cargo package (and directory) of the lab.
    fn package(&self) -> &'static str;
    /// The report's title.
    fn title(&self) -> &'static str;
    /// What every stage measures: the implementation names, the baseline first, and the harness
    /// floor after the designs when the lab has one ([`crate::record::FLOOR`]; the registry's
    /// `measured_names`); then the JVM designs ([`Describe::jvm_designs`]), if any.
    fn implementations(&self) -> Vec<&'static str>;
    /// The write-up's JMH benchmarks and JOL weighings, when its claims were measured in Java
    /// ([`JvmBenchmarks`]): the driver runs them beside the Rust designs.
    fn jvm(&self) -> Option<JvmBenchmarks> {
        None
    }
    /// The JVM side's designs ([`Describe::jvm`]), also listed in [`Describe::implementations`]
    /// after the Rust ones: the JVM baseline first (the write-up's "before" arm, which the other
    /// JVM designs are compared with).
    fn jvm_designs(&self) -> Vec<&'static str> {
        self.jvm().map(|side| side.designs).unwrap_or_default()
    }
    /// The Rust designs: [`Describe::implementations`] without the JVM's, the baseline first.
    fn rust_designs(&self) -> Vec<&'static str> {
        let jvm = self.jvm_designs();
        let mut all = self.implementations();
        all.retain(|i| !jvm.contains(i));
        all
    }
    /// Every experiment, in report order: built once (a lab keeps them in a [`CaseTable`], with
    /// its own value for each case).
    fn experiments(&self) -> &[Experiment];
    /// Wall-time sampling per run mode.
    fn timing(&self, mode: RunMode) -> Timing {
        Timing::standard(mode)
    }
    /// Single operations per instruction-count run (one-shots and capped scans do fewer).
    fn counted_ops(&self) -> u64 {
        1_000
    }
    /// How counted instructions are split by where they are spent ([`crate::callgrind`]); by
    /// default they are not.
    fn cost_buckets(&self) -> crate::callgrind::Buckets {
        crate::callgrind::Buckets::default()
    }
    /// The measured experiment a derived one ([`Lab::derived`]) comes from, whose parameters it
    /// has: what a target or an answer naming the derived experiment selects. `None`: `derived`
    /// is not one of the lab's derived experiments.
    fn derived_from(&self, _derived: &str) -> Option<&'static str> {
        None
    }
    /// Programs the lab's runners or tests start, installed by the driver ([`crate::tools`]).
    fn tools(&self) -> Vec<crate::tools::Tool> {
        Vec::new()
    }
    /// The names ([`Selection`] words) a quick run given none measures: the cases a lab's
    /// targets are about, when all of its cases do not fit a quick run. Empty: every case.
    fn quick_selection(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// Every case the lab's answers claim something on, with the write-up's figure where it
    /// published one (`crate::answers::Answers::claimed_cases`): write-ups print the figure beside
    /// the lab's, and a full run keeps these records of the run it replaces, so each answer row
    /// can say whether its verdict held. A lab states them in its report's answers (the top
    /// crate's `LabReport::answers`), which its `lab` binary puts in the [`Description`] the
    /// driver reads: the answers are report code, which no measurement binary links.
    fn claimed_cases(&self) -> Vec<ClaimedCase> {
        Vec::new()
    }
}

/// A lab that can run its cases: what the measurement binaries need beyond its description. A
/// lab crate's `static`, from [`lab!`](crate::lab!).
pub trait Lab: Describe {
    /// `implementation` prepared on `case` (built and warmed up, nothing measured yet).
    fn open(&self, implementation: &str, case: &BenchCase) -> Result<Box<dyn Runner>, String>;
    /// Records computed from measured ones (per entry, differences, ratios), added to the set
    /// before the report, its answers and its targets read it.
    fn derived(&self, _set: &ResultSet) -> Vec<crate::record::Record> {
        Vec::new()
    }
}

/// Whether `implementation` is measured on `experiment`: one its experiment lists, and for a JVM
/// design an experiment its JVM side has a cell of it on.
pub fn measures(lab: &dyn Describe, experiment: &Experiment, implementation: &str) -> bool {
    experiment.lists(implementation)
        && match lab.jvm() {
            Some(side) if side.designs.contains(&implementation) => {
                side.runs(experiment.name, implementation)
            }
            _ => true,
        }
}

/// Which baseline each of `lab`'s implementations is compared with.
pub fn baselines(lab: &dyn Describe) -> crate::record::Baselines {
    let implementations = lab.implementations();
    let own = implementations.first().copied().unwrap_or_default();
    crate::record::Baselines::new(own, &lab.jvm_designs())
}

/// The experiment called `name` of `lab`, or an error listing the valid ones.
pub fn experiment<'a>(lab: &'a dyn Describe, name: &str) -> Result<&'a Experiment, String> {
    let experiments = lab.experiments();
    experiments
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| unknown_experiment(lab, experiments, name))
}

/// Checks that `case` is one of `lab`'s and that `implementation` is known; returns the
/// experiment and the parameter.
pub fn resolve<'a>(
    lab: &'a dyn Describe,
    implementation: &str,
    case: &BenchCase,
) -> Result<(&'a Experiment, &'a Parameter), String> {
    let experiments = lab.experiments();
    let (e, p) = locate(lab, experiments, implementation, case)?;
    Ok((&experiments[e], &experiments[e].parameters[p]))
}

/// `implementation` is one of `lab`'s, or the error every command gives: the valid ones.
pub fn known_implementation(lab: &dyn Describe, implementation: &str) -> Result<(), String> {
    let implementations = lab.implementations();
    if implementations.contains(&implementation) {
        return Ok(());
    }
    Err(format!(
        "unknown implementation `{implementation}` in lab {}; valid: {}",
        lab.name(),
        implementations.join(", ")
    ))
}

/// Where `case` is among `experiments` (of `lab`): the experiment's index and its parameter's.
fn locate(
    lab: &dyn Describe,
    experiments: &[Experiment],
    implementation: &str,
    case: &BenchCase,
) -> Result<(usize, usize), String> {
    known_implementation(lab, implementation)?;
    let implementations = lab.implementations();
    let e = experiments
        .iter()
        .position(|e| e.name == case.experiment)
        .ok_or_else(|| unknown_experiment(lab, experiments, &case.experiment))?;
    let experiment = &experiments[e];
    if !measures(lab, experiment, implementation) {
        let measured: Vec<&str> = implementations
            .iter()
            .copied()
            .filter(|i| measures(lab, experiment, i))
            .collect();
        return Err(format!(
            "{}: `{implementation}` is not measured on {}; it measures {}",
            lab.name(),
            experiment.name,
            measured.join(", ")
        ));
    }
    let p = experiment
        .parameters
        .iter()
        .position(|p| p.name == case.parameter)
        .ok_or_else(|| {
            let valid: Vec<&str> = experiment
                .parameters
                .iter()
                .map(|p| p.name.as_str())
                .collect();
            format!(
                "{}: `{}` is not a parameter of {}; valid: {}",
                lab.name(),
                case.parameter,
                experiment.name,
                valid.join(", ")
            )
        })?;
    Ok((e, p))
}

fn unknown_experiment(lab: &dyn Describe, experiments: &[Experiment], name: &str) -> String {
    let names: Vec<&str> = experiments.iter().map(|e| e.name).collect();
    format!(
        "{}: unknown experiment `{name}`; valid: {}",
        lab.name(),
        names.join(", ")
    )
}

#[cfg(test)]
pub(crate) mod tests;
