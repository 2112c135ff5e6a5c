//! `cargo xtask writeup`: a pull-request-ready comparison of two designs from a run's results.

use super::*;

pub(crate) fn writeup(args: &WriteupArgs) -> Result<()> {
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
    let set = crate::output::with_derived(lab, &crate::output::results_file(lab, &dir))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writeups_work_on_the_committed_results() {
        for lab in labs::all().unwrap() {
            let path = crate::output::results_file(*lab, &root().join("bench-results"));
            let set = crate::output::with_derived(*lab, &path).unwrap();
            assert!(set.records.len() >= ResultSet::load(&path).unwrap().records.len());
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
    }
}
