//! The lab's driver: `cargo xtask <command>`. It builds once, runs every measurement binary,
//! installs the pinned gungraun runner when missing, and renders `bench-results/`.

mod build;
mod chart;
mod collect;
mod labs;
mod render;
mod revision;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use build::{BenchBinaries, cargo};
use labkit::env::Environment;
use labkit::record::{Record, ResultSet, RunMode, write_atomic};
use labs::{LABS, Lab};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  bench [--quick|--smoke] [--out-dir DIR] [LAB] [NAME...]
        measure (criterion, gungraun, allocation, footprint) and render the report.
        Without NAMEs it writes bench-results/<lab>.{md,json}; with NAMEs (implementations,
        shapes, experiments) it writes a partial report to target/lab/results/ instead.
  report [--out-dir DIR] [LAB]
        render <lab>.md again from <lab>.json without measuring
  compare [--quick|--smoke] [--out-dir DIR] [--rev REV] LAB A [B] [NAME...]
        measure implementations A and B interleaved (A, B, B, A, ...) on the same inputs and print
        a PR-ready table of the per-pair ratio B / A with its 95 % interval and a verdict; also
        written to target/lab/compare/ (or DIR) as <lab>-<a>-vs-<b>.{md,json}. NAMEs select shapes,
        experiments or datasets. With --rev, A is built from git revision REV (a worktree under
        target/lab/revisions/) and B (default: A) from this checkout; the two builds' samples are
        interleaved the same way
  gate save|check [--limit PCT] [LAB...]
        the deterministic regression gate: `save` records every lab's instruction counts
        (gungraun) as the baseline `gate`; `check` measures again and fails when any benchmark's
        instructions grew by more than PCT % (default 2) against it
  alloc LAB IMPLEMENTATION PARAMETER...
        write a DHAT heap profile to target/lab/dhat/ (open it in DHAT's dh_view.html);
        dedup takes a SHAPE, pending-ack an EXPERIMENT and a DATASET
  test  the whole test suite, then a smoke run of every benchmark and of the report pipeline
  tools install the pinned gungraun-runner into .tools/ if it is missing";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("bench") => bench(&args[1..]),
        Some("report") => report(&args[1..]),
        Some("compare") => compare(&args[1..]),
        Some("gate") => gate(&args[1..]),
        Some("alloc") => alloc(&args[1..]),
        Some("test") => test(&args[1..]),
        Some("tools") => no_arguments(&args[1..]).and_then(|()| build::gungraun_runner().map(drop)),
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command `{other}`\n\n{USAGE}")),
        None => Err(USAGE.to_owned()),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn no_arguments(args: &[String]) -> Result<(), String> {
    match args.first() {
        Some(a) => Err(format!("unexpected argument `{a}`")),
        None => Ok(()),
    }
}

/// Commands run in the workspace root unless they chose a directory (bench binaries run in
/// their package's, as under `cargo bench`).
fn in_root_unless_set(cmd: &mut Command) {
    if cmd.get_current_dir().is_none() {
        cmd.current_dir(root());
    }
}

/// Runs a command in the workspace root, streaming its output.
fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    in_root_unless_set(cmd);
    let status = cmd
        .status()
        .map_err(|e| format!("cannot start {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

/// Runs a command in the workspace root, passing each stdout line through and to `on_line`.
fn run_streaming(cmd: &mut Command, mut on_line: impl FnMut(&str)) -> Result<(), String> {
    use std::io::BufRead;
    let shown = format!("{cmd:?}");
    in_root_unless_set(cmd);
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {shown}: {e}"))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.map_err(|e| format!("{shown}: {e}"))?;
        println!("{line}");
        on_line(&line);
    }
    let status = child.wait().map_err(|e| format!("{shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

/// "n of N done, ETA" for a stage of equally sized benchmarks.
struct Progress {
    lab: &'static str,
    planned: usize,
    done: usize,
    started: Instant,
}

impl Progress {
    fn new(lab: &'static str, planned: usize) -> Self {
        Self {
            lab,
            planned,
            done: 0,
            started: Instant::now(),
        }
    }

    fn finished_one(&mut self) {
        self.done += 1;
        let elapsed = self.started.elapsed().as_secs_f64();
        let remaining = self.planned.saturating_sub(self.done);
        let eta = elapsed / self.done as f64 * remaining as f64;
        eprintln!(
            "==> [{}] {}/{} benchmarks done, {remaining} to go, ETA {}:{:02}",
            self.lab,
            self.done,
            self.planned,
            (eta / 60.0) as u64,
            (eta % 60.0) as u64
        );
    }
}

struct BenchOptions {
    mode: RunMode,
    out_dir: Option<PathBuf>,
    labs: Vec<&'static Lab>,
    filters: Vec<String>,
}

fn parse_bench_options(args: &[String]) -> Result<BenchOptions, String> {
    let mut options = BenchOptions {
        mode: RunMode::Full,
        out_dir: None,
        labs: Vec::new(),
        filters: Vec::new(),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => options.mode = RunMode::Quick,
            "--smoke" => options.mode = RunMode::Smoke,
            "--out-dir" => {
                options.out_dir = Some(args.next().ok_or("--out-dir needs a directory")?.into())
            }
            flag if flag.starts_with('-') => {
                return Err(format!(
                    "unknown option `{flag}`; valid: --quick, --smoke, --out-dir DIR"
                ));
            }
            word if options.labs.is_empty()
                && options.filters.is_empty()
                && labs::find(word).is_ok() =>
            {
                options.labs.push(labs::find(word)?);
            }
            word => options.filters.push(word.to_owned()),
        }
    }
    if options.labs.is_empty() {
        options.labs = LABS.iter().collect();
    }
    for word in &options.filters {
        if !options
            .labs
            .iter()
            .any(|lab| lab.filter_words().contains(word))
        {
            let lab_names: Vec<&str> = LABS.iter().map(|l| l.name).collect();
            let valid: Vec<String> = options.labs.iter().flat_map(|l| l.filter_words()).collect();
            return Err(format!(
                "unknown name `{word}`; valid: a lab ({}) first, then any of: {}",
                lab_names.join(", "),
                valid.join(", ")
            ));
        }
    }
    Ok(options)
}

/// The filter words that belong to one dimension (experiments, implementations, parameters).
fn chosen<'a>(filters: &'a [String], dimension: &[String]) -> Vec<&'a str> {
    filters
        .iter()
        .filter(|f| dimension.contains(f))
        .map(String::as_str)
        .collect()
}

/// A criterion filter regex selecting `<experiment>/<implementation>/<parameter>` ids.
fn criterion_filter(lab: &Lab, filters: &[String]) -> Option<String> {
    if filters.is_empty() {
        return None;
    }
    let parts: Vec<String> = lab
        .dimensions()
        .iter()
        .map(|dimension| match chosen(filters, dimension).as_slice() {
            [] => "[^/]+".to_owned(),
            names => format!("({})", names.join("|")),
        })
        .collect();
    Some(format!("^{}$", parts.join("/")))
}

fn criterion_args(lab: &Lab, mode: RunMode) -> [&'static str; 6] {
    let timing = lab.timing(mode);
    [
        "--warm-up-time",
        timing.warm_up,
        "--measurement-time",
        timing.measurement,
        "--sample-size",
        timing.samples,
    ]
}

/// Extra callgrind arguments for every instruction-count run (bench and gate alike): only `Ir`
/// is reported, and without cache simulation the uncounted setup under valgrind runs about twice
/// as fast while `Ir` stays identical.
const CALLGRIND_ARGS: &str = "--callgrind-args=--cache-sim=no";

/// What one stage of a lab's measurement produced: the records its binary managed to write
/// (also when it failed part-way, so one failing benchmark does not lose the others) and the
/// failure, if any.
fn stage_outcome(
    ran: Result<(), String>,
    collected: Result<Vec<Record>, String>,
) -> (Vec<Record>, Option<String>) {
    match (ran, collected) {
        (Ok(()), Ok(records)) => (records, None),
        (Ok(()), Err(e)) => (Vec::new(), Some(e)),
        (Err(e), Ok(records)) => (records, Some(e)),
        (Err(e), Err(_)) => (Vec::new(), Some(e)),
    }
}

/// Measures one lab; returns its records and the stages that failed.
fn measure(
    lab: &Lab,
    options: &BenchOptions,
    binaries: &BenchBinaries,
    work: &Path,
) -> (Vec<Record>, Vec<String>) {
    let mut records = Vec::new();
    let mut failures = Vec::new();
    let started = Instant::now();
    let mut stage_started = Instant::now();
    let mut stage = |n: usize, what: &str, (found, failure): (Vec<Record>, Option<String>)| {
        let seconds = stage_started.elapsed().as_secs_f64();
        stage_started = Instant::now();
        let count = found.len();
        records.extend(found);
        match failure {
            None => eprintln!(
                "==> [{}] stage {n}/3 {what}: {count} records in {seconds:.0} s",
                lab.name
            ),
            Some(e) => {
                eprintln!(
                    "==> [{}] stage {n}/3 {what} FAILED after {seconds:.0} s ({count} records \
                     kept): {e}",
                    lab.name
                );
                failures.push(format!("{what}: {e}"));
            }
        }
    };
    let mode_flag = options.mode.bench_flag();

    eprintln!("==> [{}] stage 1/3 allocation and footprint runs", lab.name);
    let alloc_out = work.join("alloc.json");
    let _ = std::fs::remove_file(&alloc_out);
    let ran = binaries.command(lab, "alloc").and_then(|mut cmd| {
        run(cmd
            .arg("--out")
            .arg(&alloc_out)
            .args(mode_flag)
            .args(&options.filters))
    });
    stage(
        1,
        "allocation",
        stage_outcome(ran, labkit::record::load_records(&alloc_out)),
    );

    eprintln!("==> [{}] stage 2/3 instruction counts (gungraun)", lab.name);
    let gungraun_dir = root().join("target/gungraun").join(lab.package);
    let _ = std::fs::remove_dir_all(&gungraun_dir);
    // Instruction counts do not depend on timing, so benchmarks of a group may share the cores.
    let ran = binaries.command(lab, "instructions").and_then(|mut cmd| {
        run(cmd
            .arg("--save-summary=json")
            .arg("--parallel=auto")
            .arg(CALLGRIND_ARGS))
    });
    let collected = collect::gungraun_tree(&gungraun_dir, lab.instruction_ops).map(|r| {
        r.into_iter()
            .filter(|r| selected(lab, &options.filters, r))
            .collect()
    });
    stage(2, "instructions", stage_outcome(ran, collected));

    let criterion_home = work.join("criterion");
    let _ = std::fs::remove_dir_all(&criterion_home);
    let planned = (lab.timed_ids)()
        .into_iter()
        .filter(|id| selected_id(lab, &options.filters, id))
        .count();
    eprintln!(
        "==> [{}] stage 3/3 wall time (criterion, {} mode): {planned} benchmarks",
        lab.name,
        options.mode.label()
    );
    let mut progress = Progress::new(lab.name, planned);
    let ran = binaries.command(lab, "time").and_then(|mut cmd| {
        run_streaming(
            cmd.env("CRITERION_HOME", &criterion_home)
                .arg("--noplot")
                .args(criterion_args(lab, options.mode))
                .args(criterion_filter(lab, &options.filters)),
            |line| {
                // criterion prints one `time:` line per finished benchmark
                if line.trim_start().starts_with("time:") || line.contains(" time: ") {
                    progress.finished_one();
                }
            },
        )
    });
    stage(
        3,
        "time",
        stage_outcome(ran, collect::criterion_tree(&criterion_home)),
    );
    eprintln!(
        "==> [{}] measured in {:.0} s",
        lab.name,
        started.elapsed().as_secs_f64()
    );
    (records, failures)
}

/// Whether a record's id passes the same filters as the benches were run with.
fn selected(lab: &Lab, filters: &[String], record: &Record) -> bool {
    selected_id(lab, filters, &record.id)
}

fn selected_id(lab: &Lab, filters: &[String], id: &labkit::record::BenchId) -> bool {
    let names = [&id.experiment, &id.implementation, &id.parameter];
    lab.dimensions().iter().zip(names).all(|(dimension, name)| {
        let picked = chosen(filters, dimension);
        picked.is_empty() || picked.contains(&name.as_str())
    })
}

fn out_dir(options_out: &Option<PathBuf>, partial: bool) -> PathBuf {
    match options_out {
        Some(dir) => dir.clone(),
        None if partial => root().join("target/lab/results"),
        None => root().join("bench-results"),
    }
}

/// Writes `<lab>.json` and the report atomically.
fn write_results(lab: &Lab, set: &ResultSet, dir: &Path) -> Result<(), String> {
    let json = dir.join(format!("{}.json", lab.name));
    write_atomic(&json, &set.to_json())
        .map_err(|e| format!("cannot write {}: {e}", json.display()))?;
    write_report(lab, set, dir)
}

/// Writes `<lab>.md` and its charts (`charts/*.svg`) atomically.
fn write_report(lab: &Lab, set: &ResultSet, dir: &Path) -> Result<(), String> {
    let charts = (lab.charts)(set);
    let chart_dir = dir.join("charts");
    std::fs::create_dir_all(&chart_dir)
        .map_err(|e| format!("cannot create {}: {e}", chart_dir.display()))?;
    let mut links = String::from("## Charts\n\n");
    for chart in &charts {
        let path = chart_dir.join(format!("{}.svg", chart.stem));
        write_atomic(&path, &chart.svg)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        links.push_str(&format!("- [{}](charts/{}.svg)\n", chart.title, chart.stem));
    }
    let md = dir.join(format!("{}.md", lab.name));
    let report = format!(
        "# {}\n\n_Generated by `cargo xtask bench` from `{}.json`; do not edit by hand._\n\n{}\n{}\n{}",
        lab.title,
        lab.name,
        render::environment_section(set),
        links,
        (lab.render)(set)
    );
    write_atomic(&md, &report).map_err(|e| format!("cannot write {}: {e}", md.display()))?;
    eprintln!("==> wrote {} and {} charts", md.display(), charts.len());
    Ok(())
}

fn bench(args: &[String]) -> Result<(), String> {
    let options = parse_bench_options(args)?;
    let started = Instant::now();
    let binaries = BenchBinaries::build()?;
    let mut failures = Vec::new();
    // Captured before anything is measured or written: the revision is the code that ran, and
    // one lab's fresh results in bench-results/ do not mark the next lab's run as dirty.
    let environments: Vec<Environment> = options
        .labs
        .iter()
        .map(|lab| Environment::capture(&root(), lab.crates))
        .collect();
    for (lab, environment) in options.labs.iter().zip(environments) {
        let work = root().join("target/lab").join(lab.name);
        let (records, failed) = measure(lab, &options, &binaries, &work);
        failures.extend(failed.into_iter().map(|f| format!("{}: {f}", lab.name)));
        let set = ResultSet {
            lab: lab.name.to_owned(),
            mode: options.mode,
            environment,
            records,
        };
        write_results(
            lab,
            &set,
            &out_dir(&options.out_dir, !options.filters.is_empty()),
        )?;
    }
    eprintln!("==> done in {:.0} s", started.elapsed().as_secs_f64());
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("some stages failed:\n  {}", failures.join("\n  ")))
    }
}

fn report(args: &[String]) -> Result<(), String> {
    let options = parse_bench_options(args)?;
    if !options.filters.is_empty() || options.mode != RunMode::Full {
        return Err("report takes only [--out-dir DIR] [LAB]".into());
    }
    let dir = out_dir(&options.out_dir, false);
    for lab in options.labs {
        let set = ResultSet::load(&dir.join(format!("{}.json", lab.name)))?;
        write_report(lab, &set, &dir)?;
    }
    Ok(())
}

const COMPARE_USAGE: &str =
    "usage: cargo xtask compare [--quick|--smoke] [--out-dir DIR] LAB A B [NAME...]
   or: cargo xtask compare [--quick|--smoke] [--out-dir DIR] --rev REV LAB A [B] [NAME...]";

struct CompareOptions {
    mode: RunMode,
    dir: PathBuf,
    /// Build A from this git revision instead of this checkout.
    rev: Option<String>,
    lab: &'static Lab,
    a: String,
    b: String,
    names: Vec<String>,
}

fn parse_compare_options(args: &[String]) -> Result<CompareOptions, String> {
    let usage = COMPARE_USAGE;
    let mut mode = RunMode::Full;
    let mut dir = root().join("target/lab/compare");
    let mut rev = None;
    let mut words = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => mode = RunMode::Quick,
            "--smoke" => mode = RunMode::Smoke,
            "--out-dir" => dir = args.next().ok_or("--out-dir needs a directory")?.into(),
            "--rev" => rev = Some(args.next().ok_or("--rev needs a git revision")?.clone()),
            flag if flag.starts_with('-') => {
                return Err(format!(
                    "unknown option `{flag}`; valid: --quick, --smoke, --out-dir DIR, --rev REV\n{usage}"
                ));
            }
            word => words.push(word.to_owned()),
        }
    }
    let [lab, a, rest @ ..] = words.as_slice() else {
        return Err(usage.into());
    };
    let lab = labs::find(lab)?;
    let implementations = (lab.implementations)();
    let unknown = |name: &str| {
        format!(
            "unknown implementation `{name}`; valid: {}\n{usage}",
            implementations.join(", ")
        )
    };
    if !implementations.contains(a) {
        return Err(unknown(a));
    }
    // Across revisions B defaults to A: the same implementation before and after a change.
    let (b, names) = match rest.split_first() {
        Some((b, names)) if implementations.contains(b) => (b, names),
        Some((word, _)) if rev.is_none() => return Err(unknown(word)),
        None if rev.is_none() => return Err(usage.into()),
        _ => (a, rest),
    };
    Ok(CompareOptions {
        mode,
        dir,
        rev,
        lab,
        a: a.clone(),
        b: b.clone(),
        names: names.to_vec(),
    })
}

fn compare(args: &[String]) -> Result<(), String> {
    let CompareOptions {
        mode,
        dir,
        rev,
        lab,
        a,
        b,
        names,
    } = parse_compare_options(args)?;
    // The bench binary runs in its package directory, so it gets an absolute path.
    let dir = std::path::absolute(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let environment = Environment::capture(&root(), lab.crates);
    let now = BenchBinaries::build()?;
    let (a_label, b_label, records) = match rev {
        None => {
            let json = dir.join(format!("{}-{a}-vs-{b}.json", lab.name));
            run(now
                .command(lab, "compare")?
                .args([&a, &b])
                .args(&names)
                .args(mode.bench_flag())
                .arg("--out")
                .arg(&json))?;
            (a, b, labkit::record::load_records(&json)?)
        }
        Some(rev) => {
            let checkout = revision::checkout(&rev)?;
            let then = BenchBinaries::build_in(&checkout.dir)?;
            let side_a = revision::Side {
                binaries: &then,
                implementation: &a,
                label: format!("{a}@{}", checkout.short),
            };
            let side_b = revision::Side {
                binaries: &now,
                implementation: &b,
                label: format!("{b}@{}", environment.git_revision),
            };
            let records = revision::compare_across(lab, mode, &side_a, &side_b, &names)?;
            (side_a.label, side_b.label, records)
        }
    };
    let set = ResultSet {
        lab: lab.name.to_owned(),
        mode,
        environment,
        records,
    };
    let stem = format!("{}-{a_label}-vs-{b_label}", lab.name);
    let json = dir.join(format!("{stem}.json"));
    write_atomic(&json, &set.to_json())
        .map_err(|e| format!("cannot write {}: {e}", json.display()))?;
    let report = format!(
        "{}\n{}",
        render::paired_table(&set, &a_label, &b_label, |id| (lab.case_label)(&set, id)).render(),
        render::environment_section(&set)
    );
    let md = dir.join(format!("{stem}.md"));
    write_atomic(&md, &report).map_err(|e| format!("cannot write {}: {e}", md.display()))?;
    println!("{report}");
    eprintln!("==> wrote {} and {}", md.display(), json.display());
    Ok(())
}

/// Where the gate keeps its gungraun baselines, apart from `target/gungraun` (which `bench`
/// clears before each run).
fn gate_home() -> PathBuf {
    root().join("target/lab/gate")
}

fn gate(args: &[String]) -> Result<(), String> {
    let usage = "usage: cargo xtask gate save|check [--limit PCT] [LAB...]";
    let (action, rest) = args.split_first().ok_or(usage)?;
    if !matches!(action.as_str(), "save" | "check") {
        return Err(format!("unknown gate action `{action}`\n{usage}"));
    }
    let mut limit = 2.0_f64;
    let mut chosen = Vec::new();
    let mut rest = rest.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--limit" => {
                let value = rest.next().ok_or("--limit needs a percentage")?;
                limit = value
                    .parse()
                    .ok()
                    .filter(|l: &f64| l.is_finite() && *l >= 0.0)
                    .ok_or_else(|| format!("--limit `{value}` is not a percentage ≥ 0"))?;
            }
            flag if flag.starts_with('-') => {
                return Err(format!("unknown option `{flag}`\n{usage}"));
            }
            name => chosen.push(labs::find(name)?),
        }
    }
    if chosen.is_empty() {
        chosen = LABS.iter().collect();
    }
    let binaries = BenchBinaries::build()?;
    for lab in chosen {
        eprintln!(
            "==> [{}] gate {action}: instruction counts (gungraun)",
            lab.name
        );
        let mut cmd = binaries.command(lab, "instructions")?;
        cmd.arg("--parallel=auto")
            .arg(CALLGRIND_ARGS)
            .arg(format!("--home={}", gate_home().display()));
        if action == "save" {
            cmd.arg("--save-baseline=gate");
            run(&mut cmd)?;
        } else {
            cmd.arg("--baseline=gate")
                .arg(format!("--callgrind-limits=ir={limit}%"));
            run(&mut cmd).map_err(|e| {
                format!(
                    "{}: instructions regressed by more than {limit} % against the saved \
                     baseline (gungraun lists which above), or the run failed: {e}",
                    lab.name
                )
            })?;
        }
    }
    eprintln!("==> gate {action} passed");
    Ok(())
}

fn alloc(args: &[String]) -> Result<(), String> {
    let [lab, implementation, parameters @ ..] = args else {
        return Err("usage: cargo xtask alloc LAB IMPLEMENTATION PARAMETER...".into());
    };
    if parameters.is_empty() {
        return Err("usage: cargo xtask alloc LAB IMPLEMENTATION PARAMETER...".into());
    }
    let lab = labs::find(lab)?;
    let out = root().join("target/lab/dhat").join(format!(
        "{}-{implementation}-{}.json",
        lab.name,
        parameters.join("-")
    ));
    std::fs::create_dir_all(out.parent().expect("has a parent")).map_err(|e| e.to_string())?;
    run(BenchBinaries::build()?
        .command(lab, "dhat_profile")?
        .arg(implementation)
        .args(parameters)
        .arg("--out")
        .arg(&out))
}

fn test(args: &[String]) -> Result<(), String> {
    no_arguments(args)?;
    let started = Instant::now();
    run(cargo().args(["test", "--workspace"]))?;
    let smoke_dir = root().join("target/lab/smoke");
    bench(&[
        "--smoke".to_owned(),
        "--out-dir".to_owned(),
        smoke_dir.display().to_string(),
    ])?;
    report(&["--out-dir".to_owned(), smoke_dir.display().to_string()])?;
    let now = BenchBinaries::build()?;
    for (lab, a, b, case) in [
        ("dedup", "topic-mutex", "atomic-slot", "single"),
        (
            "pending-ack",
            "nested-tree",
            "primitive-bucketed",
            "50k-in-1",
        ),
    ] {
        compare(&["--smoke".to_owned(), lab.into(), a.into(), b.into()])?;
        // The two-process path of `compare --rev`, with both sides from this build (CI needs no
        // second checkout for it).
        let side = |implementation| revision::Side {
            binaries: &now,
            implementation,
            label: implementation.to_owned(),
        };
        let lab = labs::find(lab)?;
        let records =
            revision::compare_across(lab, RunMode::Smoke, &side(a), &side(b), &[case.to_owned()])?;
        if records.is_empty() {
            return Err(format!(
                "{}: the two-process comparison measured nothing",
                lab.name
            ));
        }
        eprintln!(
            "==> [{}] two-process comparison: {} records",
            lab.name,
            records.len()
        );
    }
    eprintln!(
        "==> tests and smoke runs passed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn bench_options_select_lab_mode_and_filters() {
        let o =
            parse_bench_options(&words(&["--quick", "dedup", "atomic-slot", "shared-2"])).unwrap();
        assert_eq!(o.mode, RunMode::Quick);
        assert_eq!(o.labs.len(), 1);
        assert_eq!(o.filters, words(&["atomic-slot", "shared-2"]));
        assert_eq!(parse_bench_options(&[]).unwrap().labs.len(), LABS.len());
    }

    #[test]
    fn unknown_names_and_options_are_clear_errors() {
        let err = parse_bench_options(&words(&["dedup", "spinlock"]))
            .err()
            .unwrap();
        assert!(
            err.contains("`spinlock`") && err.contains("topic-mutex") && err.contains("shared-2"),
            "{err}"
        );
        let err = parse_bench_options(&words(&["--fast"])).err().unwrap();
        assert!(err.contains("unknown option `--fast`"), "{err}");
        assert!(labs::find("pending").err().unwrap().contains("dedup"));
    }

    #[test]
    fn compare_takes_two_implementations_or_one_across_revisions() {
        let o = parse_compare_options(&words(&["dedup", "topic-mutex", "atomic-slot", "single"]))
            .unwrap();
        assert_eq!((o.a.as_str(), o.b.as_str()), ("topic-mutex", "atomic-slot"));
        assert_eq!((o.rev, o.names), (None, words(&["single"])));

        let o = parse_compare_options(&words(&[
            "--rev",
            "main",
            "--quick",
            "dedup",
            "atomic-slot",
            "single",
        ]))
        .unwrap();
        assert_eq!((o.a.as_str(), o.b.as_str()), ("atomic-slot", "atomic-slot"));
        assert_eq!((o.rev.as_deref(), o.mode), (Some("main"), RunMode::Quick));
        assert_eq!(o.names, words(&["single"]));

        for (args, expected) in [
            (&["dedup", "atomic-slot"][..], "usage"),
            (
                &["dedup", "atomic-slot", "single"][..],
                "unknown implementation `single`",
            ),
            (&["dedup", "spin", "atomic-slot"][..], "valid: topic-mutex"),
            (&["--rev"][..], "--rev needs a git revision"),
            (&["--fast", "dedup"][..], "unknown option `--fast`"),
        ] {
            let err = parse_compare_options(&words(args)).err().unwrap();
            assert!(err.contains(expected), "{args:?}: {err}");
        }
    }

    #[test]
    fn a_failed_stage_keeps_what_its_binary_wrote() {
        use labkit::record::{BenchId, Metric};
        let written = || {
            Ok(vec![Record::new(
                BenchId::new("admission", "atomic-slot", "single"),
                Metric::NsPerOp,
                1.0,
            )])
        };
        assert_eq!(stage_outcome(Ok(()), written()), (written().unwrap(), None));
        let (kept, failure) = stage_outcome(Err("bench 7 panicked".into()), written());
        assert_eq!(
            (kept.len(), failure.as_deref()),
            (1, Some("bench 7 panicked"))
        );
        let (kept, failure) = stage_outcome(Err("crashed".into()), Err("no output".into()));
        assert_eq!((kept.len(), failure.as_deref()), (0, Some("crashed")));
        let (kept, failure) = stage_outcome(Ok(()), Err("unreadable".into()));
        assert_eq!((kept.len(), failure.as_deref()), (0, Some("unreadable")));
    }

    #[test]
    fn criterion_filter_matches_only_the_chosen_ids() {
        let lab = labs::find("dedup").unwrap();
        assert_eq!(criterion_filter(lab, &[]), None);
        let f = criterion_filter(lab, &words(&["atomic-slot", "topic-mutex", "shared-2"])).unwrap();
        assert_eq!(f, "^[^/]+/(atomic-slot|topic-mutex)/(shared-2)$");
    }

    #[test]
    fn progress_counts_every_timed_benchmark_once() {
        let dedup = labs::find("dedup").unwrap();
        let pending = labs::find("pending-ack").unwrap();
        assert_eq!((dedup.timed_ids)().len(), 7 * 5);
        assert_eq!((pending.timed_ids)().len(), 38 * 6);
        let filters = words(&["remove-all-up-to", "dense-window"]);
        let chosen = (pending.timed_ids)()
            .into_iter()
            .filter(|id| selected_id(pending, &filters, id))
            .count();
        assert_eq!(chosen, 4);
    }

    #[test]
    fn filtered_records_follow_the_same_selection() {
        use labkit::record::{BenchId, Metric};
        let lab = labs::find("dedup").unwrap();
        let rec = |i: &str, p: &str| {
            Record::new(
                BenchId::new("admission", i, p),
                Metric::InstructionsPerOp,
                1.0,
            )
        };
        let filters = words(&["atomic-slot"]);
        assert!(selected(lab, &filters, &rec("atomic-slot", "single")));
        assert!(!selected(lab, &filters, &rec("topic-mutex", "single")));
        assert!(selected(lab, &[], &rec("topic-mutex", "single")));
    }
}
