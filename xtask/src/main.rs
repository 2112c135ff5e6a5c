//! The lab's driver: `cargo xtask <command>`. It builds once, runs every measurement binary,
//! installs the pinned gungraun runner when missing, and renders `bench-results/`. Everything it
//! knows about a lab comes from the lab's description (`labkit::lab::Lab`), registered in
//! [`labs`].

mod binaries;
mod collect;
mod labs;
mod output;
mod passes;
mod process;
mod revision;
mod stages;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Parser, Subcommand, ValueEnum};
use labkit::env::Environment;
use labkit::lab::{Lab, Selection, Vocabulary, counted_cases_of};
use labkit::record::{LinkOrder, ResultSet, RunMode, write_atomic};
use labkit::report::{Row, environment_section, paired_table};

use binaries::BenchBinaries;
use process::{cargo, root, run};

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
    /// Install the pinned gungraun-runner into .tools/ if it is missing.
    Tools,
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

#[derive(Args, Clone, Copy)]
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
        Command::Compare(args) => compare(&args),
        Command::Gate(args) => gate(&args),
        Command::Alloc(args) => alloc(&args),
        Command::Writeup(args) => writeup(&args),
        Command::Test => test(),
        Command::Rerun(args) => rerun(&args),
        Command::Tools => binaries::gungraun_runner().map(drop),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}

/// The labs and filter words of `cargo xtask bench [LAB] [NAME...]`, checked before anything is
/// built: a leading lab name picks that lab; otherwise every lab in which all NAMEs are valid.
fn chosen_labs(words: &[String]) -> Result<(Vec<&'static dyn Lab>, Vec<String>)> {
    if let Some((first, rest)) = words.split_first()
        && let Ok(lab) = labs::find(first)
    {
        Selection::parse(lab, rest).map_err(|e| anyhow!(e))?;
        return Ok((vec![lab], rest.to_vec()));
    }
    let valid: Vec<&'static dyn Lab> = labs::LABS
        .iter()
        .copied()
        .filter(|lab| Selection::parse(*lab, words).is_ok())
        .collect();
    if valid.is_empty() {
        let listing: Vec<String> = labs::LABS
            .iter()
            .map(|lab| format!("{}:\n{}", lab.name(), Vocabulary::of(*lab).listing()))
            .collect();
        bail!(
            "no lab knows all of {}; name a lab first ({}), then names of that lab:\n{}",
            words.join(" "),
            labs::names().join(", "),
            listing.join("\n")
        );
    }
    Ok((valid, words.to_vec()))
}

fn bench(args: &BenchArgs) -> Result<()> {
    let (chosen, words) = chosen_labs(&args.words)?;
    let mode = args.mode.mode();
    let started = Instant::now();
    let binaries = BenchBinaries::this_checkout()?;
    // Captured before anything is measured or written: the revision is the code that ran, and
    // one lab's fresh results in bench-results/ do not mark the next lab's run as dirty.
    let environments: Vec<Environment> = chosen
        .iter()
        .map(|lab| Environment::capture(&root(), lab.package()))
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
    let mut failures = Vec::new();
    for (lab, environment) in chosen.into_iter().zip(environments) {
        let work = root().join("target/lab").join(lab.name());
        let link_order = if args.fixed_layout {
            LinkOrder::Fixed
        } else {
            LinkOrder::ShuffledPerPass
        };
        let measured = stages::measure(lab, mode, &words, binaries, &work, link_order)?;
        failures.extend(
            measured
                .failures
                .into_iter()
                .map(|f| format!("{}: {f}", lab.name())),
        );
        let set = ResultSet {
            lab: lab.name().to_owned(),
            mode,
            environment,
            timing: Some(measured.timing),
            records: measured.records,
            repeats: measured.repeats,
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
fn named_labs(names: &[String]) -> Result<Vec<&'static dyn Lab>> {
    if names.is_empty() {
        return Ok(labs::LABS.to_vec());
    }
    names.iter().map(|n| labs::find(n)).collect()
}

fn report(args: &ReportArgs) -> Result<()> {
    let dir = args
        .out_dir
        .clone()
        .unwrap_or_else(|| root().join("bench-results"));
    for lab in named_labs(&args.labs)? {
        let set =
            ResultSet::load(&dir.join(format!("{}.json", lab.name()))).map_err(|e| anyhow!(e))?;
        output::write_report(lab, &set, &dir)?;
    }
    Ok(())
}

fn rerun(args: &RerunArgs) -> Result<()> {
    let mut table = labkit::table::Table::new()
        .column("Lab", labkit::table::Align::Left)
        .column("verdicts on", labkit::table::Align::Left);
    for header in [
        "decisive in the first run (faster, slower, same)",
        "repeated",
        "unstable or inconclusive",
        "reversed (faster ↔ slower)",
        "same ↔ faster or slower",
        "not measured again",
        "same: repeated",
        "design cells (ns/op, or p99): median ratio moved > 5 %",
        "> 10 %",
        "of them single-threaded: moved > 5 %",
    ] {
        table = table.column(header, labkit::table::Align::Right);
    }
    for lab in named_labs(&args.labs)? {
        let load = |dir: &PathBuf| {
            ResultSet::load(&dir.join(format!("{}.json", lab.name()))).map_err(|e| anyhow!(e))
        };
        let baseline = lab.implementations()[0];
        let (first, second) = (load(&args.first)?, load(&args.second)?);
        for (metrics, what) in [
            (&labkit::verdicts::WALL_TIME[..], "ns/op, ops/s"),
            (&labkit::verdicts::TAIL[..], "p99"),
        ] {
            let single = |id: &labkit::record::BenchId| labkit::lab::single_threaded(lab, id);
            let outcome = labkit::verdicts::rerun(&first, &second, baseline, metrics, &single);
            let share = |n: usize, of: usize| {
                if of == 0 {
                    n.to_string()
                } else {
                    format!("{n} ({:.1} %)", 100.0 * n as f64 / of as f64)
                }
            };
            let decided = |n| share(n, outcome.decisive);
            table.row(vec![
                lab.name().to_owned(),
                what.to_owned(),
                outcome.decisive.to_string(),
                decided(outcome.repeated),
                decided(outcome.softened),
                decided(outcome.reversed),
                decided(outcome.same_or_different),
                decided(outcome.missing),
                format!("{} of {}", outcome.same_repeated, outcome.same),
                format!(
                    "{} of {}",
                    share(outcome.moved_5, outcome.effect_cells),
                    outcome.effect_cells
                ),
                share(outcome.moved_10, outcome.effect_cells),
                format!(
                    "{} of {}",
                    share(outcome.single_moved_5, outcome.single_effect_cells),
                    outcome.single_effect_cells
                ),
            ]);
        }
    }
    println!("{}", table.render());
    Ok(())
}

/// A comparison's sides and case names, checked against the lab.
struct Comparison {
    lab: &'static dyn Lab,
    a: String,
    b: String,
    names: Vec<String>,
}

fn comparison(args: &CompareArgs) -> Result<Comparison> {
    let lab = labs::find(&args.lab)?;
    let implementations = lab.implementations();
    let unknown = |name: &str| {
        anyhow!(
            "unknown implementation `{name}` in lab {}; valid: {}",
            lab.name(),
            implementations.join(", ")
        )
    };
    if !implementations.contains(&args.a.as_str()) {
        return Err(unknown(&args.a));
    }
    // Across revisions B defaults to A: the same implementation before and after a change.
    let (b, names) = match args.rest.split_first() {
        Some((b, names)) if implementations.contains(&b.as_str()) => (b.clone(), names),
        Some((word, _)) if args.rev.is_none() => return Err(unknown(word)),
        None if args.rev.is_none() => {
            bail!("missing implementation B (only --rev compares A with itself)")
        }
        _ => (args.a.clone(), args.rest.as_slice()),
    };
    Selection::parse(lab, names).map_err(|e| anyhow!(e))?;
    Ok(Comparison {
        lab,
        a: args.a.clone(),
        b,
        names: names.to_vec(),
    })
}

fn compare(args: &CompareArgs) -> Result<()> {
    let Comparison { lab, a, b, names } = comparison(args)?;
    let mode = args.mode.mode();
    let dir = args
        .out_dir
        .clone()
        .unwrap_or_else(|| root().join("target/lab/compare"));
    // The bench binary runs in its package directory, so it gets an absolute path.
    let dir = std::path::absolute(&dir).with_context(|| dir.display().to_string())?;
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let environment = Environment::capture(&root(), lab.package());
    let now = BenchBinaries::this_checkout()?;
    let (a_label, b_label, records) = match &args.rev {
        None => {
            let json = dir.join(format!("{}-{a}-vs-{b}.json", lab.name()));
            run(now
                .command(lab, "compare")?
                .args([&a, &b])
                .args(&names)
                .args(mode.bench_flag())
                .arg("--out")
                .arg(&json))?;
            let records = labkit::record::load_records(&json).map_err(|e| anyhow!(e))?;
            (a, b, records)
        }
        Some(rev) => {
            let checkout = revision::checkout(rev, lab)?;
            let then = BenchBinaries::build_in(&checkout.dir, &[lab.package()])?;
            let side_a = revision::Side {
                binaries: &then,
                implementation: &a,
                label: format!("{a}@{}", checkout.short),
            };
            let side_b = revision::Side {
                binaries: now,
                implementation: &b,
                label: format!("{b}@{}", environment.git_revision),
            };
            let records = revision::compare_across(lab, mode, &side_a, &side_b, &names)?;
            (side_a.label, side_b.label, records)
        }
    };
    let set = ResultSet {
        lab: lab.name().to_owned(),
        mode,
        environment,
        timing: None,
        records,
        repeats: Vec::new(),
    };
    let stem = format!("{}-{a_label}-vs-{b_label}", lab.name());
    let json = dir.join(format!("{stem}.json"));
    write_atomic(&json, &set.to_json())
        .with_context(|| format!("cannot write {}", json.display()))?;
    let experiments = lab.experiments();
    let label = |id: &labkit::record::BenchId| {
        let row = experiments
            .iter()
            .find(|e| e.name == id.experiment)
            .and_then(|e| {
                Some(Row::of(
                    e,
                    e.parameter(&id.parameter)?,
                    set.environment.cores,
                ))
            });
        match row {
            Some(row) => format!("{} · {}", id.experiment, row.label),
            None => format!("{} · `{}`", id.experiment, id.parameter),
        }
    };
    let report = format!(
        "{}\n{}",
        paired_table(&set, &a_label, &b_label, label).render(),
        environment_section(&set)
    );
    let md = dir.join(format!("{stem}.md"));
    write_atomic(&md, &report).with_context(|| format!("cannot write {}", md.display()))?;
    println!("{report}");
    println!("==> wrote {} and {}", md.display(), json.display());
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
    if !lab
        .implementations()
        .contains(&args.implementation.as_str())
    {
        bail!(
            "`{}` is not an implementation of {}; valid: {}",
            args.implementation,
            lab.name(),
            lab.implementations().join(", ")
        );
    }
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

fn writeup(args: &WriteupArgs) -> Result<()> {
    let lab = labs::find(&args.lab)?;
    let implementations = lab.implementations();
    for side in [&args.a, &args.b] {
        if !implementations.contains(&side.as_str()) {
            bail!(
                "unknown implementation `{side}` in lab {}; valid: {}",
                lab.name(),
                implementations.join(", ")
            );
        }
    }
    let selection = Selection::parse(lab, &args.names).map_err(|e| anyhow!(e))?;
    let dir = args
        .from
        .clone()
        .unwrap_or_else(|| root().join("bench-results"));
    let set = ResultSet::load(&dir.join(format!("{}.json", lab.name()))).map_err(|e| anyhow!(e))?;
    let names = args.names.join(" ");
    let words = format!("{} {} {} {names}", lab.name(), args.a, args.b);
    let words = words.trim_end();
    let revision = set.environment.git_revision.trim_end_matches("-dirty");
    let commands = vec![
        format!("git checkout {revision}"),
        format!("cargo xtask bench {words}   # writes target/lab/results/"),
        format!("cargo xtask writeup --from target/lab/results {words}"),
        format!("cargo xtask compare {words}   # the paired A/B table"),
    ];
    let mut text = labkit::writeup::writeup(lab, &set, &args.a, &args.b, &selection, &commands);
    if args.measure {
        let compare_dir = root().join("target/lab/compare");
        compare(&CompareArgs {
            mode: args.mode,
            out_dir: Some(compare_dir.clone()),
            rev: None,
            lab: lab.name().to_owned(),
            a: args.a.clone(),
            rest: std::iter::once(args.b.clone())
                .chain(args.names.iter().cloned())
                .collect(),
        })?;
        let json = compare_dir.join(format!("{}-{}-vs-{}.json", lab.name(), args.a, args.b));
        let paired = ResultSet::load(&json).map_err(|e| anyhow!(e))?;
        let label =
            |id: &labkit::record::BenchId| format!("{} · `{}`", id.experiment, id.parameter);
        text.push_str(&format!(
            "\nPaired comparison measured now (A and B interleaved, fresh instances each round; \
             `cargo xtask compare`):\n\n{}\n{}",
            paired_table(&paired, &args.a, &args.b, label).render(),
            environment_section(&paired)
        ));
    }
    let out = args.out.clone().unwrap_or_else(|| {
        root().join("target/lab/writeup").join(format!(
            "{}-{}-vs-{}.md",
            lab.name(),
            args.a,
            args.b
        ))
    });
    write_atomic(&out, &text).with_context(|| format!("cannot write {}", out.display()))?;
    println!("{text}");
    println!("==> wrote {}", out.display());
    Ok(())
}

/// A small filtered selection of `lab` for the CI smoke run: its first counted case, else its
/// first timed one.
fn smoke_filter(lab: &dyn Lab) -> Result<Vec<String>> {
    let case = counted_cases_of(lab)
        .into_iter()
        .chain(labkit::lab::cases(lab, |e, _| e.is_timed()))
        .next()
        .ok_or_else(|| anyhow!("{} has no timed case", lab.name()))?;
    Ok(vec![case.experiment, case.parameter])
}

fn test() -> Result<()> {
    let started = Instant::now();
    run(cargo().args(["test", "--workspace"]))?;
    let smoke = |words: Vec<String>, dir: &str| BenchArgs {
        mode: ModeArgs {
            quick: false,
            smoke: true,
        },
        out_dir: Some(root().join("target/lab").join(dir)),
        fixed_layout: false,
        allow_dirty: false,
        words,
    };
    bench(&smoke(Vec::new(), "smoke"))?;
    report(&ReportArgs {
        out_dir: Some(root().join("target/lab/smoke")),
        labs: Vec::new(),
    })?;
    for lab in labs::LABS {
        let implementations = lab.implementations();
        writeup(&WriteupArgs {
            mode: ModeArgs {
                quick: false,
                smoke: true,
            },
            measure: false,
            from: Some(root().join("target/lab/smoke")),
            out: Some(
                root()
                    .join("target/lab/smoke")
                    .join(format!("{}-writeup.md", lab.name())),
            ),
            lab: lab.name().to_owned(),
            a: implementations[0].to_owned(),
            b: implementations[implementations.len() - 1].to_owned(),
            names: Vec::new(),
        })?;
    }
    let now = BenchBinaries::this_checkout()?;
    for lab in labs::LABS.iter().copied() {
        // A filtered run: only the selected benchmarks, a partial report.
        let mut words = vec![lab.name().to_owned()];
        words.extend(smoke_filter(lab)?);
        bench(&smoke(words, "smoke-filtered"))?;
        let implementations = lab.implementations();
        let (a, b) = (
            implementations[0],
            implementations[implementations.len() - 1],
        );
        compare(&CompareArgs {
            mode: ModeArgs {
                quick: false,
                smoke: true,
            },
            out_dir: Some(root().join("target/lab/smoke-compare")),
            rev: None,
            lab: lab.name().to_owned(),
            a: a.to_owned(),
            rest: vec![b.to_owned(), smoke_filter(lab)?[1].clone()],
        })?;
        // The two-process path of `compare --rev`, with both sides from this build (CI needs no
        // second checkout for it).
        let side = |implementation| revision::Side {
            binaries: now,
            implementation,
            label: implementation.to_owned(),
        };
        let case = smoke_filter(lab)?;
        let records = revision::compare_across(lab, RunMode::Smoke, &side(a), &side(b), &case)?;
        if records.is_empty() {
            bail!(
                "{}: the two-process comparison measured nothing",
                lab.name()
            );
        }
        println!(
            "==> [{}] two-process comparison: {} records",
            lab.name(),
            records.len()
        );
    }
    println!(
        "==> tests and smoke runs passed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn words(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("xtask").chain(args.iter().copied()))
    }

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
        let Ok(Cli {
            command: Command::Bench(args),
        }) = parse(&["bench", "--quick", "--out-dir=x", "dedup", "atomic-slot"])
        else {
            panic!("bench parses");
        };
        assert_eq!(args.mode.mode(), RunMode::Quick);
        assert_eq!(args.out_dir, Some(PathBuf::from("x")));
        assert_eq!(args.words, words(&["dedup", "atomic-slot"]));
        assert!(parse(&["bench", "--fast"]).is_err());
        assert!(parse(&["bench", "--quick", "--smoke"]).is_err());
        let err = parse(&["compare", "dedup"]).err().unwrap().to_string();
        assert!(err.contains("<A>"), "a missing argument is named: {err}");
        assert!(parse(&["gate", "check", "--limit", "-1"]).is_err());
        assert!(parse(&["alloc", "dedup", "atomic-slot"]).is_err());
    }

    #[test]
    fn bench_words_pick_labs_and_are_checked_before_building() {
        let (chosen, filters) = chosen_labs(&words(&["dedup", "atomic-slot", "shared-2"])).unwrap();
        assert_eq!(chosen.len(), 1);
        assert_eq!(filters, words(&["atomic-slot", "shared-2"]));
        assert_eq!(chosen_labs(&[]).unwrap().0.len(), labs::LABS.len());
        let (chosen, _) = chosen_labs(&words(&["dense-window"])).unwrap();
        assert_eq!(chosen[0].name(), "pending-ack");
        let err = chosen_labs(&words(&["dedup", "spinlock"]))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("`spinlock` in lab dedup"), "{err}");
        assert!(err.contains("implementations: topic-mutex"), "{err}");
        assert!(
            !err.contains("dense-window"),
            "only the named lab's names: {err}"
        );
        let err = chosen_labs(&words(&["50k-in-999"]))
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("name a lab first (dedup, pending-ack, coalesce)"),
            "{err}"
        );
    }

    #[test]
    fn compare_takes_two_implementations_or_one_across_revisions() {
        let args = |rev: Option<&str>, rest: &[&str]| CompareArgs {
            mode: ModeArgs {
                quick: false,
                smoke: false,
            },
            out_dir: None,
            rev: rev.map(str::to_owned),
            lab: "dedup".into(),
            a: "topic-mutex".into(),
            rest: words(rest),
        };
        let c = comparison(&args(None, &["atomic-slot", "single"])).unwrap();
        assert_eq!((c.a.as_str(), c.b.as_str()), ("topic-mutex", "atomic-slot"));
        assert_eq!(c.names, words(&["single"]));
        let c = comparison(&args(Some("main"), &["single"])).unwrap();
        assert_eq!((c.a.as_str(), c.b.as_str()), ("topic-mutex", "topic-mutex"));
        let err = |rev, rest: &[&str]| comparison(&args(rev, rest)).err().unwrap().to_string();
        assert!(err(None, &[]).contains("missing implementation B"));
        assert!(err(None, &["single"]).contains("unknown implementation `single`"));
        assert!(err(None, &["atomic-slot", "nope"]).contains("`nope` in lab dedup"));
    }

    #[test]
    fn writeups_work_on_the_committed_results() {
        for lab in labs::LABS {
            let set = ResultSet::load(&root().join(format!("bench-results/{}.json", lab.name())))
                .unwrap();
            // The first two of the lab's implementations that the committed run measured.
            let known = lab.implementations();
            let mut measured: Vec<&str> = known
                .iter()
                .copied()
                .filter(|i| set.records.iter().any(|r| r.id.implementation == *i))
                .collect();
            measured.truncate(2);
            let [a, b] = measured[..] else {
                panic!("{}: fewer than two implementations measured", lab.name());
            };
            let text = labkit::writeup::writeup(
                *lab,
                &set,
                a,
                b,
                &Selection::default(),
                &["cargo xtask bench".into()],
            );
            assert!(text.contains("| Case | time |"), "{}: {text}", lab.name());
            assert!(text.contains(&set.environment.git_revision), "{text}");
            assert!(
                text.lines().filter(|l| l.contains(" → ")).count() > 3,
                "{text}"
            );
        }
    }

    #[test]
    fn every_lab_has_a_filtered_smoke_selection() {
        for lab in labs::LABS {
            let filter = smoke_filter(*lab).unwrap();
            let selection = Selection::parse(*lab, &filter).unwrap();
            assert!(!selection.is_everything());
        }
    }
}
