//! `cargo xtask rerun FIRST SECOND`: how the decisive verdicts of one run fared in another, and
//! each lab's travel section (`labkit::travel`) of SECOND against FIRST, as a full run's report
//! gives it against the run it replaced.

use super::*;

pub(crate) fn rerun(args: &RerunArgs) -> Result<()> {
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
    let mut travel = String::new();
    for lab in named_labs(&args.labs)? {
        let load = |dir: &PathBuf| {
            ResultSet::load(&dir.join(format!("{}.json", lab.name()))).map_err(|e| anyhow!(e))
        };
        let baselines = labkit::lab::baselines(lab);
        let (first, second) = (load(&args.first)?, load(&args.second)?);
        let against = ResultSet {
            previous: Some(Box::new(
                first.as_previous(|r| labkit::travel::kept(r, &[])),
            )),
            ..second.clone()
        };
        travel.push_str(&format!(
            "\n## {}\n\n{}",
            lab.name(),
            labkit::travel::section(&against, &baselines)
        ));
        for (metrics, what) in [
            (&labkit::verdicts::WALL_TIME[..], "ns/op, ops/s"),
            (&labkit::verdicts::TAIL[..], "p99"),
        ] {
            let single = |id: &labkit::record::BenchId| labkit::lab::single_threaded(lab, id);
            let outcome = labkit::verdicts::rerun(&first, &second, &baselines, metrics, &single);
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
    println!("{}{travel}", table.render());
    Ok(())
}
