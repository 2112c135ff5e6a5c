//! A PR-ready comparison of two implementations from an existing result set: one line per case
//! with B against A in every metric the run has for both (time with its verdict and how many
//! passes agree, instructions, estimated cycles, allocations, bytes, footprint, p99), then the
//! environment and the commands that reproduce it. Nothing is measured here; `cargo xtask
//! writeup --measure` runs a paired comparison first and adds its table.

use crate::compare::{Verdict, compare_in};
use crate::lab::{ClaimedCase, Describe, Selection};
use crate::record::{BenchId, Metric, ResultSet};
use crate::report::{
    Row, censored_cell, environment_section, format_scaled, values_ratio_note, verdict_word,
};
use crate::table::{Align, Table, format_number};

/// The metrics a write-up shows, in column order, with their headings.
const COLUMNS: [(Metric, &str); 8] = [
    (Metric::NsPerOp, "time/op"),
    (Metric::OpsPerSec, "throughput"),
    (Metric::InstructionsPerOp, "instructions/op"),
    (Metric::EstimatedCyclesPerOp, "est. cycles/op (model)"),
    (Metric::AllocsPerOp, "allocs/op"),
    (Metric::BytesPerOp, "bytes/op"),
    (Metric::RetainedBytes, "retained"),
    (Metric::LatencyP99Ns, "p99"),
];

/// `a → b (ratio, verdict)` for one metric, or `None` when either side lacks it; with `verdicts`
/// false (two runtimes), the ratio alone.
fn cell(
    set: &ResultSet,
    metric: Metric,
    a: &BenchId,
    b: &BenchId,
    verdicts: bool,
) -> Option<String> {
    if let Some(censored) = [a, b].iter().find_map(|id| censored_cell(set, id, metric)) {
        return Some(censored);
    }
    let (ra, rb) = (set.find(a, metric)?, set.find(b, metric)?);
    let c = compare_in(set, ra, rb);
    let ratio = if c.ratio.is_finite() {
        format!("{:.2}×", c.ratio)
    } else {
        "from 0".into()
    };
    let verdict = match (c.verdict, c.agreement) {
        _ if !verdicts => String::new(),
        (Verdict::Same, _) if c.same_within.is_some() => format!(", {}", c.verdict_text("same")),
        (Verdict::Same, _) => String::new(),
        (v, Some((agreeing, of))) => format!(", {} {agreeing}/{of}", verdict_word(metric, v)),
        (v, None) => format!(", {}", verdict_word(metric, v)),
    };
    let per_pass = if c.agreement.is_some() {
        "per pass "
    } else {
        ""
    };
    Some(format!(
        "{} → {} ({per_pass}{ratio}{verdict}{})",
        format_scaled(metric, ra.value),
        format_scaled(metric, rb.value),
        values_ratio_note(ra, rb, &c),
    ))
}

/// What the write-up published on a case (`1,436 → 114.3 ns/op (0.080×)`), beside the lab's own.
fn published_cell(claimed: &[ClaimedCase], experiment: &str, parameter: &str) -> Option<String> {
    let figures: Vec<String> = claimed
        .iter()
        .filter(|c| c.experiment == experiment && c.parameter == parameter)
        .filter_map(|c| c.published.as_ref())
        .map(|s| {
            format!(
                "{} → {} {} ({}×)",
                format_number(s.old),
                format_number(s.new),
                s.unit,
                format_number(s.new / s.old)
            )
        })
        .collect();
    (!figures.is_empty()).then(|| figures.join("; "))
}

/// The write-up's first line: how `b` went against `a` on time per op over the cases shown,
/// verdict by verdict (the run's rule: every pass agrees), or that two runtimes get no verdict.
fn verdict_line(set: &ResultSet, ids: &[(BenchId, BenchId)], verdicts: bool) -> String {
    if !verdicts {
        return "**Verdict:** none: one side runs on the JVM, and a ratio across runtimes is \
                context, not a verdict."
            .into();
    }
    let metric = Metric::NsPerOp;
    let words: Vec<String> = ids
        .iter()
        .filter_map(|(a, b)| {
            let (ra, rb) = (set.find(a, metric)?, set.find(b, metric)?);
            let c = compare_in(set, ra, rb);
            Some(c.verdict_text(verdict_word(metric, c.verdict)))
        })
        .collect();
    if words.is_empty() {
        return "**Verdict:** none: no case has time per op on both sides.".into();
    }
    let mut counted: Vec<(String, usize)> = Vec::new();
    for word in &words {
        match counted.iter_mut().find(|(w, _)| w == word) {
            Some((_, n)) => *n += 1,
            None => counted.push((word.clone(), 1)),
        }
    }
    let parts: Vec<String> = counted.iter().map(|(w, n)| format!("{w} in {n}")).collect();
    format!(
        "**Verdict** (time per op, B against A): {} of {} cases.",
        parts.join(", "),
        words.len()
    )
}

/// The write-up of `b` against `a` over the cases `selection` picks, from `set`, which already
/// holds the lab's derived records ([`crate::lab::Lab::derived`]; the driver asks the lab's binary
/// for them). `commands` are the lines that reproduce it.
pub fn writeup(
    lab: &dyn Describe,
    set: &ResultSet,
    a: &str,
    b: &str,
    selection: &Selection,
    commands: &[String],
) -> String {
    let cores = set.environment.cores;
    // A Rust design and a JVM one are compared as a ratio, never with a verdict.
    let baselines = crate::lab::baselines(lab);
    let verdicts = baselines.of(a) == baselines.of(b);
    let mut rows: Vec<Row> = Vec::new();
    for experiment in lab.experiments() {
        for parameter in &experiment.parameters {
            if selection.selects_case(experiment.name, &parameter.name) {
                rows.push(Row::of(experiment, parameter, cores));
            }
        }
    }
    let cells: Vec<(Row, Vec<Option<String>>)> = rows
        .into_iter()
        .map(|row| {
            let id = |i: &str| BenchId::new(&row.experiment, i, &row.parameter);
            let cells = COLUMNS
                .iter()
                .map(|(m, _)| cell(set, *m, &id(a), &id(b), verdicts))
                .collect();
            (row, cells)
        })
        .filter(|(_, cells): &(Row, Vec<Option<String>>)| cells.iter().any(Option::is_some))
        .collect();
    let shown: Vec<usize> = (0..COLUMNS.len())
        .filter(|i| cells.iter().any(|(_, c)| c[*i].is_some()))
        .collect();
    let claimed = lab.claimed_cases();
    let published_cell = |row: &Row| published_cell(&claimed, &row.experiment, &row.parameter);
    let with_published = cells.iter().any(|(row, _)| published_cell(row).is_some());
    let mut table = Table::new().column("Case", Align::Left);
    if with_published {
        table = table.column("published (before → after)", Align::Right);
    }
    for &i in &shown {
        table = table.column(COLUMNS[i].1, Align::Right);
    }
    for (row, c) in &cells {
        let mut line = vec![format!("{} · {}", row.experiment, row.label)];
        if with_published {
            line.push(published_cell(row).unwrap_or_else(|| "—".into()));
        }
        line.extend(
            shown
                .iter()
                .map(|&i| c[i].clone().unwrap_or_else(|| "—".into())),
        );
        table.row(line);
    }
    let body = if cells.is_empty() {
        format!(
            "Nothing in this result set measures both `{a}` and `{b}` on the cases asked for.\n"
        )
    } else {
        table.render()
    };
    let ids: Vec<(BenchId, BenchId)> = cells
        .iter()
        .map(|(row, _)| {
            let id = |i: &str| BenchId::new(&row.experiment, i, &row.parameter);
            (id(a), id(b))
        })
        .collect();
    let verdict = verdict_line(set, &ids, verdicts);
    let commands: String = commands.iter().map(|c| format!("{c}\n")).collect();
    let reading = reading(a, b, verdicts, with_published);
    format!(
        "### `{b}` against `{a}` ({lab})\n\n{verdict}\n\n{reading}\n\n{body}\n{}\nReproduce (a fresh clone, \
         the Rust toolchain, valgrind, a JDK and Maven):\n\n```sh\n{commands}```\n",
        environment_section(set),
        lab = lab.name(),
    )
}

/// How to read a cell of the write-up comparing `b` against `a`: with verdicts when both run on
/// the same runtime, and the write-up's column when there is one.
fn reading(a: &str, b: &str, verdicts: bool, with_published: bool) -> String {
    let reading = if verdicts {
        "Each cell: `{a}` → `{b}` (medians of the passes), the ratio B / A (for wall time the \
         median of the per-pass ratios, and the two medians' ratio beside it where it falls \
         outside that median's interval) and the verdict with how many of the run's passes \
         agree (a verdict needs all of them). Instruction, cycle-model, allocation and footprint \
         counts are exact for the binary that ran."
    } else {
        "Each cell: `{a}` → `{b}` and the ratio B / A, both measured in the same passes. One runs \
         on the JVM and the other does not: the ratio across the two runtimes is context, never \
         a verdict (each runtime's designs are judged against their own baseline)."
    }
    .replace("{a}", a)
    .replace("{b}", b);
    if with_published {
        format!(
            "{reading} The published column is what the write-up published before → after the change it \
             measured, on its own machine, for the cases it published."
        )
    } else {
        reading
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::TINY;
    use crate::record::Record;

    #[test]
    fn one_line_per_case_both_sides_measured_and_the_commands() {
        let passes = |i: &str, v: &[f64]| {
            Record::from_passes(BenchId::new("op", i, "small"), Metric::NsPerOp, v.to_vec())
        };
        let set = crate::record::fixtures::set(vec![
            passes("base", &[10.0; 8]),
            passes("fast", &[5.0; 8]),
            Record::new(
                BenchId::new("op", "base", "small"),
                Metric::AllocsPerOp,
                1.0,
            ),
            Record::new(
                BenchId::new("op", "fast", "small"),
                Metric::AllocsPerOp,
                0.0,
            ),
            Record::new(
                BenchId::new("cleanup", "base", "small"),
                Metric::NsPerOp,
                3.0,
            ),
        ]);
        let out = writeup(
            &TINY,
            &set,
            "base",
            "fast",
            &Selection::default(),
            &["cargo xtask bench tiny base fast".into()],
        );
        assert!(out.contains("| Case | time/op | allocs/op |"), "{out}");
        assert!(
            out.contains(
                "| op · `small`: small | 10.0 ns → 5.00 ns (per pass 0.50×, faster 8/8) \
                 | 1.00 allocs/op → 0 allocs/op (0.00×, less) |"
            ),
            "{out}"
        );
        assert!(
            out.contains("\n\n**Verdict** (time per op, B against A): faster in 1 of 1 cases."),
            "the verdict comes first: {out}"
        );
        assert!(!out.contains("cleanup"), "one side only: {out}");
        assert!(out.contains("| Git revision | abc1234 |"), "{out}");
        assert!(
            out.contains("```sh\ncargo xtask bench tiny base fast\n```"),
            "{out}"
        );
        let none = writeup(&TINY, &set, "base", "absent", &Selection::default(), &[]);
        assert!(none.contains("Nothing in this result set"), "{none}");
        // `fast` on the JVM: beside a Rust design it gets a ratio, never a verdict.
        let jvm = crate::lab::Description {
            jvm: Some(crate::fixture::jvm_benchmarks(&["fast"])),
            ..crate::lab::Description::of(&TINY)
        };
        let across = writeup(&jvm, &set, "base", "fast", &Selection::default(), &[]);
        assert!(
            across.contains("| op · `small`: small | 10.0 ns → 5.00 ns (per pass 0.50×) |"),
            "{across}"
        );
        assert!(across.contains("context, never a verdict"), "{across}");
        assert!(
            across.contains("**Verdict:** none: one side runs on the JVM"),
            "{across}"
        );
        // The write-up's figure on a case sits beside the lab's, in its own unit.
        let seeded = crate::lab::Description {
            claimed_cases: vec![
                ClaimedCase {
                    experiment: "op".into(),
                    parameter: "small".into(),
                    metric: Metric::NsPerOp,
                    published: Some(crate::lab::PublishedFigure {
                        old: 40.0,
                        new: 10.0,
                        unit: "ns/op".into(),
                    }),
                },
                // A claim without a figure prints none.
                ClaimedCase {
                    experiment: "op".into(),
                    parameter: "large".into(),
                    metric: Metric::NsPerOp,
                    published: None,
                },
            ],
            ..crate::lab::Description::of(&TINY)
        };
        let beside = writeup(&seeded, &set, "base", "fast", &Selection::default(), &[]);
        assert!(
            beside.contains("| Case | published (before → after) | time/op |")
                && beside.contains("| op · `small`: small | 40.0 → 10.0 ns/op (0.250×) | 10.0 ns"),
            "{beside}"
        );
        assert!(beside.contains("published before → after"), "{beside}");
    }
}
