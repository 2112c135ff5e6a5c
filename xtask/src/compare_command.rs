//! `cargo xtask compare`: a paired comparison of two implementations, in one process or across
//! git revisions.

use super::*;

/// A comparison's sides and case names, checked against the lab.
pub(crate) struct Comparison {
    lab: labs::LabRef,
    a: String,
    b: String,
    names: Vec<String>,
}

pub(crate) fn comparison(all: &[labs::LabRef], args: &CompareArgs) -> Result<Comparison> {
    let lab = labs::find_in(all, &args.lab)?;
    let implementations = lab.implementations();
    let known = |name: &str| {
        let known = labkit_measure::lab::known_implementation(lab, name);
        known.map(|()| name.to_owned()).map_err(|e| anyhow!(e))
    };
    known(&args.a)?;
    // Across revisions B defaults to A (the same implementation before and after a change), so
    // a word after A that is no implementation starts the names; otherwise it must be B.
    let (b, names) = match args.rest.split_first() {
        Some((b, names)) if args.rev.is_none() || implementations.contains(&b.as_str()) => {
            (known(b)?, names)
        }
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

pub(crate) fn compare(args: &CompareArgs) -> Result<()> {
    let Comparison { lab, a, b, names } = comparison(labs::all()?, args)?;
    let mode = args.mode.mode();
    let dir = args
        .out_dir
        .clone()
        .unwrap_or_else(|| root().join("target/lab/compare"));
    let dir = crate::output::absolute(&dir)?;
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let environment = crate::environment::capture(&root(), lab.package());
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
            let records = labkit_measure::record::load_records(&json).map_err(|e| anyhow!(e))?;
            (a, b, records)
        }
        Some(rev) => {
            let checkout = revision::checkout(rev, lab)?;
            let then = BenchBinaries::build_in(&checkout.dir, &[lab.package().to_owned()])?;
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
        previous: None,
    };
    let stem = format!("{}-{a_label}-vs-{b_label}", lab.name());
    let json = dir.join(format!("{stem}.json"));
    write_atomic(&json, &set.to_json())
        .with_context(|| format!("cannot write {}", json.display()))?;
    let md = dir.join(format!("{stem}.md"));
    let mut cmd = now.command(lab, LAB_BINARY)?;
    run(cmd
        .arg("--comparison")
        .arg(&json)
        .arg(&md)
        .args([&a_label, &b_label]))?;
    println!("==> wrote {}", json.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli_tests::words;

    #[test]
    fn compare_takes_two_implementations_or_one_across_revisions() {
        let args = |rev: Option<&str>, rest: &[&str]| CompareArgs {
            mode: ModeArgs {
                quick: false,
                smoke: false,
            },
            out_dir: None,
            rev: rev.map(str::to_owned),
            lab: "tiny".into(),
            a: "base".into(),
            rest: words(rest),
        };
        let all: &[labs::LabRef] = &[&labkit_measure::fixture::TINY];
        let c = comparison(all, &args(None, &["fast", "small"])).unwrap();
        assert_eq!((c.a.as_str(), c.b.as_str()), ("base", "fast"));
        assert_eq!(c.names, words(&["small"]));
        let c = comparison(all, &args(Some("main"), &["small"])).unwrap();
        assert_eq!((c.a.as_str(), c.b.as_str()), ("base", "base"));
        let err = |rev, rest: &[&str]| comparison(all, &args(rev, rest)).err().unwrap().to_string();
        assert!(err(None, &[]).contains("missing implementation B"));
        assert!(err(None, &["small"]).contains("unknown implementation `small`"));
        assert!(err(None, &["fast", "nope"]).contains("`nope` in lab tiny"));
    }
}
