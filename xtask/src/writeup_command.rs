//! `cargo xtask writeup`: a pull-request-ready comparison of two designs from a run's results.

use super::*;

pub(crate) fn writeup(args: &WriteupArgs) -> Result<()> {
    let lab = labs::find(&args.lab)?;
    // Refused before anything is measured: the lab's binary checks them again as it writes.
    for side in [&args.a, &args.b] {
        labkit_measure::lab::known_implementation(lab, side).map_err(|e| anyhow!(e))?;
    }
    Selection::parse(lab, &args.names).map_err(|e| anyhow!(e))?;
    let dir = args
        .from
        .clone()
        .unwrap_or_else(|| root().join("bench-results"));
    let set = crate::output::absolute(&crate::output::results_file(lab, &dir))?;
    let out = args.out.clone().unwrap_or_else(|| {
        root().join("target/lab/writeup").join(format!(
            "{}-{}-vs-{}.md",
            lab.name(),
            args.a,
            args.b
        ))
    });
    let out = crate::output::absolute(&out)?;
    crate::output::ensure_writable(out.parent().unwrap_or(Path::new(".")))?;
    let mut paired = Vec::new();
    if args.measure {
        let compare_dir = root().join("target/lab/compare");
        crate::compare_command::compare(&CompareArgs {
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
        paired = vec!["--paired".into(), json.into_os_string()];
    }
    let mut cmd = BenchBinaries::this_checkout()?.command(lab, LAB_BINARY)?;
    run(cmd
        .arg("--writeup")
        .arg(set)
        .arg(out)
        .args([&args.a, &args.b])
        .args(&args.names)
        .args(paired))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lab_writes_a_writeup_from_its_committed_results() {
        let dir = std::env::temp_dir().join(format!("xtask-writeup-{}", std::process::id()));
        for lab in labs::all().unwrap() {
            let path = crate::output::results_file(*lab, &root().join("bench-results"));
            let set = ResultSet::load(&path).unwrap();
            // The first two of the lab's implementations that the committed run measured.
            let mut measured: Vec<&str> = lab
                .implementations()
                .into_iter()
                .filter(|i| set.records.iter().any(|r| r.id.implementation == *i))
                .collect();
            measured.truncate(2);
            let [a, b] = measured[..] else {
                panic!("{}: fewer than two implementations measured", lab.name());
            };
            let out = dir.join(format!("{}.md", lab.name()));
            writeup(&WriteupArgs {
                mode: ModeArgs::default(),
                measure: false,
                from: None,
                out: Some(out.clone()),
                lab: lab.name().to_owned(),
                a: a.to_owned(),
                b: b.to_owned(),
                names: Vec::new(),
            })
            .unwrap();
            let text = std::fs::read_to_string(&out).unwrap();
            assert!(
                text.contains("| Case | ") && text.contains(" | time/op |"),
                "{}: {text}",
                lab.name()
            );
            assert!(text.contains(&set.environment.git_revision), "{text}");
            assert!(
                text.lines().filter(|l| l.contains(" → ")).count() > 3,
                "{text}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
