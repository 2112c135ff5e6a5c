//! `cargo xtask test`: the whole test suite, then a smoke run of every benchmark, of the report
//! pipeline, of the write-ups and of both comparison paths.

use super::*;

/// A small filtered selection of `lab` for the CI smoke run: its first counted case, else its
/// first timed one.
pub(crate) fn smoke_filter(lab: &dyn Describe) -> Result<Vec<String>> {
    let case = counted_cases_of(lab)
        .into_iter()
        .chain(labkit_measure::lab::cases(lab, |e, _| e.is_timed()))
        .next()
        .ok_or_else(|| anyhow!("{} has no timed case", lab.name()))?;
    Ok(vec![case.experiment, case.parameter])
}

pub(crate) fn test() -> Result<()> {
    let started = Instant::now();
    // As on a fresh clone, with no tool installed: the suite passes, a test that needs a tool
    // being ignored and saying so. Then the tools, and the tests that start them.
    let no_tools = root().join("target/lab/no-tools");
    std::fs::create_dir_all(&no_tools)?;
    run(cargo()
        .args(["test", "--workspace"])
        .env(labkit_measure::tools::TOOLS_ENV, &no_tools))?;
    let tools = crate::binaries::lab_tools(labs::all()?)?;
    run(cargo()
        .args([
            "test",
            "--workspace",
            "--lib",
            "--bins",
            "--tests",
            "--",
            "--ignored",
        ])
        .env(labkit_measure::tools::TOOLS_ENV, tools))?;
    let smoke = |words: Vec<String>, dir: &str| BenchArgs {
        mode: ModeArgs {
            quick: false,
            smoke: true,
        },
        out_dir: Some(root().join("target/lab").join(dir)),
        fixed_layout: false,
        allow_dirty: false,
        against: None,
        words,
    };
    crate::jvm::run_checks(labs::all()?)?;
    bench(&smoke(Vec::new(), "smoke"))?;
    report(&ReportArgs {
        out_dir: Some(root().join("target/lab/smoke")),
        labs: Vec::new(),
    })?;
    smoke_writeups()?;
    let now = BenchBinaries::this_checkout()?;
    for lab in labs::all()?.iter().copied() {
        // A filtered run: only the selected benchmarks, a partial report.
        let mut words = vec![lab.name().to_owned()];
        words.extend(smoke_filter(lab)?);
        bench(&smoke(words, "smoke-filtered"))?;
        // Paired comparisons time Rust designs in one process; JMH alone times the JVM's.
        let rust = lab.rust_designs();
        let (a, b) = (rust[0], rust[rust.len() - 1]);
        crate::compare_command::compare(&CompareArgs {
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
    measurement_binaries_link_no_report_code(now)?;
    cargo_bench_prints_every_lab()?;
    println!(
        "==> tests and smoke runs passed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// A write-up of every lab's first and last design from the smoke run's results.
fn smoke_writeups() -> Result<()> {
    for lab in labs::all()? {
        let implementations = lab.implementations();
        crate::writeup_command::writeup(&WriteupArgs {
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
    Ok(())
}

/// Symbols of the kit's report code: answers, pages, templates.
const REPORT_CODE: [&str; 4] = [
    "labkit_report::",
    "labkit::answers::",
    "labkit::document::",
    "minijinja::",
];

/// Every measurement binary of every lab links none of the report code, which only its `lab`
/// binary needs: its symbols (`nm`) name none of [`REPORT_CODE`].
fn measurement_binaries_link_no_report_code(binaries: &BenchBinaries) -> Result<()> {
    for lab in labs::all()? {
        // A lab without a single-thread case has no `instructions` bench.
        binaries.executable(lab.package(), "time")?;
        for bench in ["time", "alloc", "instructions", "compare", "dhat_profile"] {
            let Ok(executable) = binaries.executable(lab.package(), bench) else {
                continue;
            };
            let symbols =
                crate::shell::output(std::process::Command::new("nm").arg("-C").arg(executable))?;
            let linked: Vec<&str> = symbols
                .lines()
                .filter(|l| REPORT_CODE.iter().any(|code| l.contains(code)))
                .take(3)
                .collect();
            if !linked.is_empty() {
                bail!(
                    "{}'s `{bench}` binary links report code: {}",
                    lab.name(),
                    linked.join("; ")
                );
            }
        }
        let lab_binary = binaries.executable(lab.package(), "lab")?;
        let symbols =
            crate::shell::output(std::process::Command::new("nm").arg("-C").arg(lab_binary))?;
        if !symbols.contains("labkit::document::") {
            bail!(
                "{}'s `lab` binary: no report symbols to look for",
                lab.name()
            );
        }
    }
    println!("==> no measurement binary links report code");
    Ok(())
}

/// `cargo bench`, the first thing a Rust engineer types: every lab's `time` bench runs one pass
/// (smoke-sized here) and prints it as a table, and the command exits 0.
fn cargo_bench_prints_every_lab() -> Result<()> {
    let printed = crate::shell::output(cargo().args(["bench", "--", "--test"]))?;
    for lab in labs::all()? {
        let heading = format!("{}: one smoke pass", lab.title());
        let table = printed
            .split_once(&heading)
            .map(|(_, after)| after)
            .and_then(|after| after.lines().find(|l| l.starts_with("| Case |")));
        if table != Some("| Case | Design | ns/op | × its baseline |") {
            bail!("`cargo bench` printed no table for {}", lab.name());
        }
    }
    println!("==> `cargo bench` printed a table for every lab");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lab_has_a_filtered_smoke_selection() {
        let labs: &[labs::LabRef] = &[&labkit_measure::fixture::TINY];
        for lab in labs {
            let filter = smoke_filter(*lab).unwrap();
            let selection = Selection::parse(*lab, &filter).unwrap();
            assert!(!selection.is_everything());
        }
    }
}
