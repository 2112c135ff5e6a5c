//! The lab's driver: `cargo xtask <command>`. It builds once, runs every measurement binary,
//! installs the pinned gungraun runner when missing, and has each lab's binary write its pages
//! into `bench-results/`: it renders none itself. Everything it knows about a lab comes from the
//! lab's description (`labkit_measure::lab::Describe`), which the lab's own `lab` binary prints
//! ([`labs`]): the driver links no lab.

mod binaries;
mod collect;
mod compare_command;
mod environment;
mod justfile;
mod jvm;
mod lab_packages;
mod labs;
mod new_lab;
mod output;
mod rerun;
mod revision;
mod shell;
mod stages;
mod suite;
mod wall_time;
mod writeup_command;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};
use labkit_measure::env::Environment;
use labkit_measure::lab::Describe;
use labkit_measure::lab::{Selection, Vocabulary, counted_cases_of, run_words};
use labkit_measure::record::{LinkOrder, ResultSet, RunMode, write_atomic};

use binaries::BenchBinaries;
use lab_packages::LAB_BINARY;
use shell::{cargo, root, run};

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "The lab's driver: measure, compare, gate and render bench-results/."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure (allocation, instruction counts, wall time) and render the report. Without NAMEs
    /// it writes bench-results/<lab>.{md,json}; with NAMEs (implementations, experiments,
    /// parameters) a partial report goes to target/lab/results/ instead.
    Bench(BenchArgs),
    /// Render <lab>.md again from <lab>.json without measuring.
    Report(ReportArgs),
    /// Measure implementations A and B interleaved (A, B, B, A, ...) on the same inputs, in
    /// rounds of fresh instances, and print a PR-ready table of the per-pair ratio B / A with its
    /// 95 % interval and a verdict (also written to target/lab/compare/).
    Compare(CompareArgs),
    /// The deterministic regression gate on instruction counts (gungraun).
    Gate(GateArgs),
    /// Write a DHAT heap profile of one implementation on one case to target/lab/dhat/ (open it
    /// in DHAT's dh_view.html).
    Alloc(AllocArgs),
    /// A PR-ready comparison of implementations A and B over the lab's cases, from an existing
    /// result set (bench-results/ by default, nothing measured): every metric the run has for
    /// both, the environment, and the commands that reproduce it (also written to
    /// target/lab/writeup/).
    Writeup(WriteupArgs),
    /// The whole test suite, then a smoke run of every benchmark (full and filtered), of the
    /// report pipeline, of both compare paths and of a write-up.
    Test,
    /// How many faster/slower verdicts of one run repeat in another: reads <lab>.json from two
    /// result directories (e.g. two `bench --out-dir` runs) and counts, per lab, the decisive
    /// verdicts of the first that repeat, soften (unstable or inconclusive) or reverse.
    Rerun(RerunArgs),
    /// Install the pinned gungraun-runner and the tools the labs declare into .tools/ if missing.
    Tools,
    /// Write a working lab to NAME-lab/ to turn into your own question: a trait with a baseline
    /// and one more design, one experiment, its pages, answers, targets and tests.
    NewLab {
        /// The lab's name: lowercase letters, digits and hyphens.
        name: String,
        /// The question the lab answers, in one sentence (its title and answers file).
        #[arg(long, default_value = new_lab::QUESTION)]
        question: String,
        /// The workspace to write it into, instead of this one.
        #[arg(long, value_name = "DIR")]
        into: Option<PathBuf>,
    },
}

#[derive(Args)]
struct WriteupArgs {
    #[command(flatten)]
    mode: ModeArgs,
    /// Run a paired comparison of A and B on the chosen cases first (`compare`) and add its table.
    #[arg(long)]
    measure: bool,
    /// Read <lab>.json from this directory instead of bench-results/.
    #[arg(long, value_name = "DIR")]
    from: Option<PathBuf>,
    /// Write the write-up to this file instead of target/lab/writeup/<lab>-<A>-vs-<B>.md.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    lab: String,
    /// Implementation A (the "before").
    a: String,
    /// Implementation B (the "after").
    b: String,
    /// Names selecting experiments and parameters (all cases when none is given).
    #[arg(value_name = "NAME")]
    names: Vec<String>,
}

#[derive(Args)]
struct RerunArgs {
    /// The first run's result directory.
    first: PathBuf,
    /// The second run's result directory.
    second: PathBuf,
    /// Only these labs.
    #[arg(value_name = "LAB")]
    labs: Vec<String>,
}

#[derive(Args, Clone, Copy, Default)]
struct ModeArgs {
    /// Short measurements, wider intervals (labelled quick).
    #[arg(long, conflicts_with = "smoke")]
    quick: bool,
    /// One iteration per benchmark: proves the pipeline runs, the numbers mean nothing.
    #[arg(long)]
    smoke: bool,
}

impl ModeArgs {
    fn mode(self) -> RunMode {
        match (self.quick, self.smoke) {
            (true, _) => RunMode::Quick,
            (_, true) => RunMode::Smoke,
            _ => RunMode::Full,
        }
    }
}

#[derive(Args)]
struct BenchArgs {
    #[command(flatten)]
    mode: ModeArgs,
    /// Write the results here instead.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// Run every wall-time pass on one binary instead of relinking each pass with its own code
    /// order (to measure what code layout contributes to the spread between passes).
    #[arg(long)]
    fixed_layout: bool,
    /// Write bench-results/ even from a tree with uncommitted changes (the reports' revision
    /// then ends in -dirty); without it such a run writes to target/lab/results/.
    #[arg(long)]
    allow_dirty: bool,
    /// Check the verdicts against the run in this directory instead of the one being replaced
    /// (a full run's travel section; any machine's results).
    #[arg(long, value_name = "DIR")]
    against: Option<PathBuf>,
    /// An optional lab first, then names that select implementations, experiments, parameters.
    #[arg(value_name = "LAB|NAME")]
    words: Vec<String>,
}

#[derive(Args)]
struct ReportArgs {
    /// Read and write here instead of bench-results/.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// Only these labs.
    #[arg(value_name = "LAB")]
    labs: Vec<String>,
}

#[derive(Args)]
struct CompareArgs {
    #[command(flatten)]
    mode: ModeArgs,
    /// Write the table and its JSON here instead of target/lab/compare/.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// Build A from this git revision (a worktree under target/lab/revisions/); B then defaults
    /// to A, from this checkout.
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    lab: String,
    /// Implementation A (the baseline of the ratio).
    a: String,
    /// Implementation B (optional with --rev), then names selecting experiments and parameters.
    #[arg(value_name = "B|NAME")]
    rest: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum GateAction {
    /// Record every lab's instruction counts as the baseline `gate`.
    Save,
    /// Measure again and fail when any benchmark's instructions grew by more than the limit.
    Check,
}

#[derive(Args)]
struct GateArgs {
    action: GateAction,
    /// Largest allowed growth of a benchmark's instructions, in percent.
    #[arg(long, default_value_t = 2.0, value_name = "PCT", value_parser = percentage)]
    limit: f64,
    /// Only these labs.
    #[arg(value_name = "LAB")]
    labs: Vec<String>,
}

fn percentage(value: &str) -> Result<f64, String> {
    value
        .parse()
        .ok()
        .filter(|l: &f64| l.is_finite() && *l >= 0.0)
        .ok_or_else(|| format!("`{value}` is not a percentage ≥ 0"))
}

#[derive(Args)]
struct AllocArgs {
    lab: String,
    implementation: String,
    /// `[EXPERIMENT] PARAMETER`: the experiment may be left out when only one timed experiment
    /// has the parameter.
    #[arg(required = true, num_args = 1..=2, value_name = "[EXPERIMENT] PARAMETER")]
    case: Vec<String>,
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bench(args) => bench(&args),
        Command::Report(args) => report(&args),
        Command::Compare(args) => compare_command::compare(&args),
        Command::Gate(args) => gate(&args),
        Command::Alloc(args) => alloc(&args),
        Command::Writeup(args) => writeup_command::writeup(&args),
        Command::Test => suite::test(),
        Command::Rerun(args) => rerun::rerun(&args),
        Command::NewLab {
            name,
            question,
            into,
        } => new_lab::new_lab(&name, &question, &into.unwrap_or_else(root)),
        Command::Tools => binaries::gungraun_runner()
            .and_then(|_| binaries::lab_tools(labs::all()?))
            .map(drop),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}

/// The labs and filter words of `cargo xtask bench [LAB] [NAME...]`, checked before anything is
/// measured: a leading lab name picks that lab; otherwise every lab in which all NAMEs are valid.
fn chosen_labs(all: &[labs::LabRef], words: &[String]) -> Result<(Vec<labs::LabRef>, Vec<String>)> {
    if let Some((first, rest)) = words.split_first()
        && let Ok(lab) = labs::find_in(all, first)
    {
        Selection::parse(lab, rest).map_err(|e| anyhow!(e))?;
        return Ok((vec![lab], rest.to_vec()));
    }
    let valid: Vec<labs::LabRef> = all
        .iter()
        .copied()
        .filter(|lab| Selection::parse(*lab, words).is_ok())
        .collect();
    if valid.is_empty() {
        let listing: Vec<String> = all
            .iter()
            .map(|lab| format!("{}:\n{}", lab.name(), Vocabulary::of(*lab).listing()))
            .collect();
        bail!(
            "no lab knows all of {}; name a lab first ({}), then names of that lab:\n{}",
            words.join(" "),
            labs::names(all).join(", "),
            listing.join("\n")
        );
    }
    Ok((valid, words.to_vec()))
}

fn bench(args: &BenchArgs) -> Result<()> {
    // A directory asked for is checked before the labs are built; the default one once known.
    if let Some(dir) = args.out_dir.as_deref() {
        output::ensure_writable(dir)?;
    }
    if let Some(against) = args.against.as_deref().filter(|d| !d.is_dir()) {
        bail!(
            "--against {}: no such directory of results",
            against.display()
        );
    }
    let (chosen, words) = chosen_labs(labs::all()?, &args.words)?;
    binaries::lab_tools(&chosen)?;
    let mode = args.mode.mode();
    let started = Instant::now();
    let binaries = BenchBinaries::this_checkout()?;
    // Captured before anything is measured or written: the revision is the code that ran, and
    // one lab's fresh results in bench-results/ do not mark the next lab's run as dirty.
    let environments: Vec<Environment> = chosen
        .iter()
        .map(|lab| crate::environment::capture(&root(), lab.package()))
        .collect();
    let dirty = environments
        .iter()
        .any(|e| e.git_revision.ends_with("-dirty"));
    let dir = output::out_dir(
        args.out_dir.as_deref(),
        !words.is_empty(),
        dirty,
        args.allow_dirty,
    );
    output::ensure_writable(&dir)?;
    let mut failures = Vec::new();
    for (lab, environment) in chosen.into_iter().zip(environments) {
        let work = root().join("target/lab").join(lab.name());
        let link_order = if args.fixed_layout {
            LinkOrder::Fixed
        } else {
            LinkOrder::ShuffledPerPass
        };
        let lab_words = run_words(lab, mode, &words);
        let measured = stages::measure(&wall_time::LabRun {
            lab,
            mode,
            words: &lab_words,
            filtered: !words.is_empty(),
            binaries,
            work: &work,
            link_order,
        })?;
        failures.extend(
            measured
                .failures
                .into_iter()
                .map(|f| format!("{}: {f}", lab.name())),
        );
        let set = ResultSet {
            lab: lab.name().to_owned(),
            mode,
            environment: Environment {
                jvm: measured.jvm,
                ..environment
            },
            timing: Some(measured.timing),
            records: measured.records,
            repeats: measured.repeats,
            previous: None,
        };
        let previous = match (&args.against, mode, words.is_empty()) {
            (Some(against), ..) => output::previous_run(lab, against, mode),
            (None, RunMode::Full, true) => output::previous_run(lab, &dir, mode),
            _ => None,
        };
        let set = ResultSet {
            previous: previous.map(Box::new),
            ..set
        };
        output::write_results(lab, &set, &dir)?;
    }
    println!("==> done in {:.0} s", started.elapsed().as_secs_f64());
    if !failures.is_empty() {
        bail!("some stages failed:\n  {}", failures.join("\n  "));
    }
    Ok(())
}

/// The labs named (all when none is).
fn named_labs(names: &[String]) -> Result<Vec<labs::LabRef>> {
    if names.is_empty() {
        return Ok(labs::all()?.to_vec());
    }
    names.iter().map(|n| labs::find(n)).collect()
}

fn report(args: &ReportArgs) -> Result<()> {
    let dir = args
        .out_dir
        .clone()
        .unwrap_or_else(|| root().join("bench-results"));
    for lab in named_labs(&args.labs)? {
        let json = output::results_file(lab, &dir);
        if !json.exists() {
            bail!("{}: no result set at {}", lab.name(), json.display());
        }
        output::write_report(lab, &dir)?;
    }
    Ok(())
}

fn gate(args: &GateArgs) -> Result<()> {
    let chosen = named_labs(&args.labs)?;
    let binaries = BenchBinaries::this_checkout()?;
    // Kept apart from target/gungraun, which `bench` clears before each run.
    let home = root().join("target/lab/gate");
    let action = match args.action {
        GateAction::Save => "save",
        GateAction::Check => "check",
    };
    for lab in chosen {
        if counted_cases_of(lab).is_empty() {
            println!("==> [{}] gate {action}: nothing counted", lab.name());
            continue;
        }
        println!(
            "==> [{}] gate {action}: instruction counts (gungraun)",
            lab.name()
        );
        let mut cmd = binaries.command(lab, "instructions")?;
        cmd.arg("--parallel=auto")
            .arg(stages::CALLGRIND_ARGS)
            .arg(format!("--home={}", home.display()));
        match args.action {
            GateAction::Save => run(cmd.arg("--save-baseline=gate"))?,
            GateAction::Check => {
                let limit = args.limit;
                cmd.arg("--baseline=gate")
                    .arg(format!("--callgrind-limits=ir={limit}%"));
                run(&mut cmd).with_context(|| {
                    format!(
                        "{}: instructions regressed by more than {limit} % against the saved \
                         baseline (gungraun lists which above), or the run failed",
                        lab.name()
                    )
                })?;
            }
        }
    }
    println!("==> gate {action} passed");
    Ok(())
}

fn alloc(args: &AllocArgs) -> Result<()> {
    let lab = labs::find(&args.lab)?;
    let mut words = vec![args.implementation.clone()];
    words.extend(args.case.iter().cloned());
    Selection::parse(lab, &words).map_err(|e| anyhow!(e))?;
    labkit_measure::lab::known_implementation(lab, &args.implementation).map_err(|e| anyhow!(e))?;
    let out = root().join("target/lab/dhat").join(format!(
        "{}-{}-{}.json",
        lab.name(),
        args.implementation,
        args.case.join("-")
    ));
    std::fs::create_dir_all(out.parent().expect("has a parent"))?;
    run(BenchBinaries::this_checkout()?
        .command(lab, "dhat_profile")?
        .args(&words)
        .arg("--out")
        .arg(&out))
}

#[cfg(test)]
mod cli_tests;
