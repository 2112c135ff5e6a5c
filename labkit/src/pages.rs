//! The pages a lab's binary writes besides its report, from result sets the driver measured: a
//! write-up of two designs ([`writeup_page`]), the page of a paired comparison
//! ([`comparison_page`]), and how one run's verdicts fared in another ([`rerun_page`]). The driver
//! renders none of them: it measures, and asks the lab's binary (`lab_binary`).

use crate::lab::{Describe, Selection};
use crate::record::{BenchId, ResultSet};
use crate::report::{Row, environment_section, paired_table};
use crate::table::{Align, Table};

/// The write-up comparing `b` against `a` on the cases `names` select in `set` (the lab's derived
/// records added), with the commands that reproduce it and, from `paired`, the paired comparison
/// measured for it. An unknown implementation or name is an error naming the valid ones.
pub fn writeup_page(
    lab: &dyn Describe,
    set: &ResultSet,
    (a, b): (&str, &str),
    names: &[String],
    paired: Option<&ResultSet>,
) -> Result<String, String> {
    for side in [a, b] {
        crate::lab::known_implementation(lab, side)?;
    }
    let selection = Selection::parse(lab, names)?;
    let words = format!("{} {a} {b} {}", lab.name(), names.join(" "));
    let words = words.trim_end();
    let revision = set.environment.git_revision.trim_end_matches("-dirty");
    let mut commands = vec![
        format!("git checkout {revision}"),
        format!("cargo xtask bench {words}   # writes target/lab/results/"),
        format!("cargo xtask writeup --from target/lab/results {words}"),
    ];
    // A paired comparison times two Rust designs in one process; JMH alone times the JVM's.
    let jvm = lab.jvm_designs();
    if !jvm.contains(&a) && !jvm.contains(&b) {
        commands.push(format!(
            "cargo xtask compare {words}   # the paired A/B table"
        ));
    }
    let mut text = crate::writeup::writeup(lab, set, a, b, &selection, &commands);
    if let Some(paired) = paired {
        let label = |id: &BenchId| format!("{} · `{}`", id.experiment, id.parameter);
        text.push_str(&format!(
            "\nPaired comparison measured now (A and B interleaved, fresh instances each round; \
             `cargo xtask compare`):\n\n{}\n{}",
            paired_table(paired, a, b, label).render(),
            environment_section(paired)
        ));
    }
    Ok(text)
}

/// The page of a paired comparison of the sides labelled `a` and `b` in `set`: one row per case
/// named as the lab's report names it, then the environment.
pub fn comparison_page(lab: &dyn Describe, set: &ResultSet, (a, b): (&str, &str)) -> String {
    let experiments = lab.experiments();
    let label = |id: &BenchId| {
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
    format!(
        "{}\n{}",
        paired_table(set, a, b, label).render(),
        environment_section(set)
    )
}

/// How the decisive verdicts of `first` fared in `second` (wall time, then the tail), and the
/// travel section of `second` against `first`, as a full run's report gives it against the run
/// it replaced.
pub fn rerun_page(lab: &dyn Describe, first: &ResultSet, second: &ResultSet) -> String {
    let mut table = Table::new()
        .column("Lab", Align::Left)
        .column("verdicts on", Align::Left);
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
        table = table.column(header, Align::Right);
    }
    let baselines = crate::lab::baselines(lab);
    let against = ResultSet {
        previous: Some(Box::new(
            first.as_previous(|r| crate::lab::kept_of_previous(r, &[])),
        )),
        ..second.clone()
    };
    let single = |id: &BenchId| crate::lab::single_threaded(lab, id);
    for (metrics, what) in [
        (&crate::verdicts::WALL_TIME[..], "ns/op, ops/s"),
        (&crate::verdicts::TAIL[..], "p99"),
    ] {
        let outcome = crate::verdicts::rerun(first, second, &baselines, metrics, &single);
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
    format!(
        "{}\n## {}\n\n{}",
        table.render(),
        lab.name(),
        crate::travel::section(&against, &baselines)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::TINY;
    use crate::record::fixtures::{passes, set};

    fn measured() -> ResultSet {
        set(vec![passes("base", &[10.0; 8]), passes("fast", &[5.0; 8])])
    }

    #[test]
    fn a_writeup_names_its_sides_and_refuses_an_unknown_one_with_the_valid_ones() {
        let text = writeup_page(&TINY, &measured(), ("base", "fast"), &[], None).unwrap();
        assert!(
            text.starts_with("### `fast` against `base` (tiny)"),
            "{text}"
        );
        assert!(text.contains("cargo xtask writeup --from target/lab/results tiny base fast"));
        let err = writeup_page(&TINY, &measured(), ("base", "slow"), &[], None).unwrap_err();
        assert_eq!(
            err,
            "unknown implementation `slow` in lab tiny; valid: base, fast"
        );
        let err = writeup_page(&TINY, &measured(), ("base", "fast"), &["huge".into()], None);
        assert!(err.unwrap_err().contains("huge"));
    }

    #[test]
    fn a_rerun_of_a_run_against_itself_repeats_every_decisive_verdict() {
        let run = measured();
        let text = rerun_page(&TINY, &run, &run);
        let row = text
            .lines()
            .find(|l| l.starts_with("| tiny | ns/op, ops/s |"))
            .unwrap();
        assert!(row.contains("| 1 | 1 (100.0 %) |"), "{row}");
        assert!(text.contains("\n## tiny\n"), "{text}");
    }

    #[test]
    fn a_comparison_page_labels_its_cases_as_the_report_does_and_states_its_environment() {
        use crate::paired::{PairedEstimate, paired_records};
        use crate::record::Interval;
        use crate::stats::MedianEstimate;
        let estimate = |median: f64| MedianEstimate {
            median,
            interval: Interval {
                lower: median * 0.98,
                upper: median * 1.02,
                confidence: 0.95,
            },
        };
        let paired = PairedEstimate {
            a: estimate(40.0),
            b: estimate(20.0),
            ratio: estimate(0.5),
            pairs: 60,
        };
        let records = paired_records("op", "base", "fast", "small", &paired);
        let page = comparison_page(&TINY, &set(records), ("base", "fast"));
        assert!(page.contains("| op · `small`: small | 40.0 "), "{page}");
        assert!(page.contains("faster |"), "{page}");
        assert!(page.contains("| Cores |"), "{page}");
    }
}
