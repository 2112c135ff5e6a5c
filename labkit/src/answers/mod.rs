//! The answers a report opens with: each claim of the lab's source write-up (a row of the PR's
//! table, a point of its argument) beside the lab's re-creation of it, `reproduces` or `differs`,
//! and for every difference its cause **shown by measurements of the same run**.
//!
//! A lab whose write-up measured Java designs answers on the JVM ([`JvmSide`], [`jvm`]): the
//! claim reproduces when the write-up's two arms, run on the JVM here, go its way; the Rust
//! designs are context beside them, and each Rust model of a Java design is calibrated against
//! its JVM original. A lab without a JVM side answers on its pairs of designs.
//!
//! A lab writes its claims once, in `report/answers.json`: the write-up's figure, the experiment,
//! parameter and metric the lab measures it on, the pairs of designs that stand for the write-up's
//! "before" and "after", and for a pair that differs, causes whose text cites measured values
//! (`{{ v('allocs-per-op@admission/papaya-cas/single') }}`, a [`crate::template`]) and whose
//! **evidence** (conditions on measured values) must hold in this run for the cause to be shown. A cause whose evidence fails, or a
//! difference with no cause, is printed as `differs — cause not established` and counted at the
//! top, so prose cannot outlive the numbers that backed it.

use serde::Deserialize;

use crate::compare::{Comparison, Resolution, Verdict, at_resolution, compare_in};
use crate::record::{BenchId, Metric, Record, ResultSet, Role};
use crate::report::format_metric;
use crate::table::{Align, Table, format_change, format_number};
use crate::template::{self, Call};
use crate::travel::{self, Travel};

mod file;
mod jvm;
mod refs;
mod rows;

pub use file::*;
pub use jvm::MODEL_BAND;
use refs::*;
pub use refs::{fill_measured, measured_value};
use rows::*;

/// A lab's answers file.
#[derive(Debug, Deserialize)]
pub struct Answers {
    /// The write-up the claims come from.
    pub source: String,
    /// Its question, in one sentence.
    pub question: String,
    /// The design pairs every claim is checked on, one column each; the first is the lab's
    /// re-creation of the write-up's own comparison. Not used with a JVM side.
    #[serde(default)]
    pub pairs: Vec<Pair>,
    /// The write-up's own designs run on the JVM, which decide its claims.
    #[serde(default)]
    pub jvm: Option<JvmSide>,
    /// How the lab counts failed requests: read for every claim about served requests.
    #[serde(default)]
    pub failures: Option<Failures>,
    pub claims: Vec<Claim>,
    /// Without a JVM side: what the verdict paragraph says after its counts (may cite this run's
    /// values, [`fill_measured`]): what this machine decides, said once rather than in each row.
    #[serde(default)]
    pub verdict: Option<String>,
}

/// How one claim came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every pair goes the write-up's way.
    Reproduces,
    /// Some pair does not, and each such pair has a cause whose evidence holds.
    Explained,
    /// Some pair differs with no cause this run bears out.
    NotEstablished,
    /// The run cannot tell which way it went: its verdict is `unstable` (passes disagree) or
    /// `inconclusive` (too few passes).
    Unstable,
    /// It did not go the write-up's way on a shape with more threads than this machine has
    /// cores, where the write-up had a hardware thread for each: the machine's, not the
    /// designs' (a larger machine runs the command the row gives).
    NotComparable,
    /// Nothing measured for it in this run.
    NotMeasured,
}

/// The answers checked against one run.
#[derive(Debug)]
pub struct Checked {
    pub outcomes: Vec<Outcome>,
    /// Per claim counted in `outcomes`: how its verdict fared in the run this one replaced.
    pub travel: Vec<Option<Travel>>,
    pub markdown: String,
    /// What goes to the details page instead (the models' calibration, claim by claim).
    pub details: String,
}

impl Answers {
    pub fn parse(json: &str) -> Result<Self, String> {
        let answers: Self = serde_json::from_str(json).map_err(|e| format!("answers file: {e}"))?;
        if answers.pairs.is_empty() && answers.jvm.is_none() {
            return Err("answers file: no pairs and no JVM side".into());
        }
        for claim in &answers.claims {
            Metric::from_key(&claim.metric)?;
            if claim.published.is_none() && claim.expect.is_none() {
                return Err(format!(
                    "claim `{}` has neither figures nor a direction",
                    claim.claim
                ));
            }
            let pairs = claim.pairs.as_ref().unwrap_or(&answers.pairs).len();
            for cause in &claim.causes {
                if cause.explains.0.is_empty() {
                    return Err(format!(
                        "a cause of `{}` does not say which direction of the verdict it explains",
                        claim.claim
                    ));
                }
                if answers.jvm.is_none() && cause.pair >= pairs {
                    return Err(format!(
                        "a cause of `{}` names pair {}",
                        claim.claim, cause.pair
                    ));
                }
                for e in &cause.evidence {
                    for r in std::iter::once(&e.value).chain(&e.over) {
                        Ref::parse(r, claim)?;
                    }
                }
            }
        }
        Ok(answers)
    }

    /// Every case a claim is answered on, with the write-up's figure where it has one
    /// ([`crate::lab::Describe::claimed_cases`]); a claim the lab cannot measure has none.
    pub fn claimed_cases(&self) -> Vec<crate::lab::ClaimedCase> {
        self.claims
            .iter()
            .filter(|claim| claim.unmeasurable.is_none())
            .filter_map(|claim| {
                Some(crate::lab::ClaimedCase {
                    experiment: claim.experiment.clone(),
                    parameter: claim.parameter.clone(),
                    metric: Metric::from_key(&claim.metric).ok()?,
                    published: claim.published.clone(),
                })
            })
            .collect()
    }

    /// Every implementation the file names, to check against the lab's.
    pub fn implementations(&self) -> Vec<&str> {
        let pairs = self
            .pairs
            .iter()
            .chain(self.claims.iter().flat_map(|c| c.pairs.iter().flatten()));
        let jvm = self.jvm.iter().flat_map(|j| {
            let models = j.models.iter().flat_map(|m| [&m.model, &m.original]);
            [&j.old, &j.new]
                .into_iter()
                .chain(models)
                .chain(&j.rust)
                .map(String::as_str)
        });
        pairs
            .flat_map(|p| [p.old.as_str(), p.new.as_str()])
            .chain(jvm)
            .collect()
    }

    /// The answers section's body, checked against `set`.
    pub fn check(&self, set: &ResultSet) -> Checked {
        if let Some(side) = &self.jvm {
            return jvm::check(self, side, set);
        }
        let headers: Vec<String> = self
            .pairs
            .iter()
            .map(|p| format!("{}: `{}` → `{}`", p.label, p.old, p.new))
            .collect();
        let mut table = Table::new()
            .column("The write-up's claim", Align::Left)
            .column("Published", Align::Right);
        for h in &headers {
            table = table.column(h, Align::Right);
        }
        table = table
            .column("Answer", Align::Left)
            .column(TRAVEL_COLUMN, Align::Left);
        let mut own_table = table.clone();
        let mut outcomes = Vec::new();
        let mut travels = Vec::new();
        for claim in &self.claims {
            let pairs = claim.pairs.as_ref().unwrap_or(&self.pairs);
            let (cells, outcome, answer, (travel, travel_text)) =
                judge(set, claim, pairs, self.failures.as_ref());
            if !claim.own {
                outcomes.push(outcome);
                travels.push(travel);
            }
            let mut row = vec![claim.claim.clone(), published_cell(claim)];
            if claim.pairs.is_some() {
                // Its own pairs: shown in the first column, named.
                let own: Vec<String> = pairs
                    .iter()
                    .zip(&cells)
                    .map(|(p, c)| format!("`{}` → `{}`: {c}", p.old, p.new))
                    .collect();
                row.push(own.join("<br>"));
                row.extend(std::iter::repeat_n(String::new(), headers.len() - 1));
            } else {
                row.extend(cells);
            }
            row.extend([answer, travel_text]);
            if claim.own {
                own_table.row(row);
            } else {
                table.row(row);
            }
        }
        let own = if self.claims.iter().any(|c| c.own) {
            format!(
                "\n\n### The lab's own questions (not in the write-up)\n\n{}",
                own_table.render()
            )
        } else {
            String::new()
        };
        let count = |o: Outcome| outcomes.iter().filter(|x| **x == o).count();
        let summary = format!(
            "{} claims: **{} reproduce**, **{} differ with a cause measured in this run**, **{} \
             differ — cause not established**{}.",
            outcomes.len(),
            count(Outcome::Reproduces),
            count(Outcome::Explained),
            count(Outcome::NotEstablished),
            match count(Outcome::NotMeasured) {
                0 => String::new(),
                n => format!(", {n} not measured in this run"),
            }
        );
        let markdown = format!(
            "{}\n\n_Source: {}._ A pair reproduces a claim when its verdict in this run goes the \
             claim's way (wall time: every pass agrees; counts: by value); magnitudes are \
             compared in the text, not judged. Every **differs** names its cause with values \
             measured in this run, and the cause is shown only when its evidence holds and the \
             verdict went the way it explains.\n\n{}\n\n{}{own}",
            self.question,
            self.source,
            summary,
            table.render()
        );
        Checked {
            outcomes,
            travel: travels,
            markdown,
            details: String::new(),
        }
    }
}

/// The paragraph a report opens with: with a JVM side, what reproduces on the JVM here
/// ([`jvm::verdict_paragraph`]); without one, the claims' counts in this run and the answers'
/// own `verdict` text; `None` when neither applies.
pub fn verdict_paragraph(answers: &Answers, set: &ResultSet) -> Option<String> {
    if answers.jvm.is_some() {
        return jvm::verdict_paragraph(answers, set);
    }
    let text = answers.verdict.as_ref()?;
    let checked = answers.check(set);
    let outcomes = checked.outcomes;
    let count = |o: Outcome| outcomes.iter().filter(|x| **x == o).count();
    let parts: Vec<String> = [
        (Outcome::Explained, "differ", " with a cause measured"),
        (Outcome::NotEstablished, "differ", ", cause not established"),
        (Outcome::Unstable, "", "unstable"),
        (Outcome::NotMeasured, "", "not measured"),
    ]
    .into_iter()
    .filter(|(o, _, _)| count(*o) > 0)
    .map(|(o, verb, rest)| match (count(o), verb) {
        (1, "differ") => format!("1 differs{rest}"),
        (n, verb) => format!("{n} {verb}{rest}").replace("  ", " "),
    })
    .collect();
    let rest = if parts.is_empty() {
        String::new()
    } else {
        format!("; {}", parts.join("; "))
    };
    Some(format!(
        "**Verdict.** Here ({} cores), {} of the write-up's {} {} {}{rest}.{} {}",
        set.environment.cores,
        count(Outcome::Reproduces),
        outcomes.len(),
        if outcomes.len() == 1 {
            "claim"
        } else {
            "claims"
        },
        reproduce_verb(count(Outcome::Reproduces)),
        travel_sentence(set, &checked.travel),
        fill_measured(text, set, &[])
    ))
}

/// A value as a claim's row shows it: times with their unit (claims mix nanosecond cycles and
/// millisecond cleanups).
fn show(metric: Metric, value: f64) -> String {
    match metric.facts().quantity {
        crate::record::Quantity::Nanoseconds => crate::report::format_scaled(metric, value),
        _ => format_metric(metric, value),
    }
}

/// One pair on a claim: `old → new (change, verdict in agreeing of all passes) ✓`, the mark
/// saying whether it went the claim's way (`want`). The change is the two values' own, which a
/// reader can check; the median of the per-pass ratios the verdict rests on is in the details.
fn pair_cell(
    metric: Metric,
    old: &Record,
    new: &Record,
    c: &Comparison,
    want: Direction,
) -> String {
    let direction = moved(metric, c.verdict);
    let agreement = c
        .agreement
        .map_or(String::new(), |(a, of)| format!(" in {a} of {of} passes"));
    let verdict = match direction {
        _ if !c.ratio.is_finite() => "from 0".to_owned(),
        Some(Direction::Same) => c.verdict_text("same"),
        Some(_) => format!(
            "{}{agreement}",
            crate::report::verdict_word(metric, c.verdict)
        ),
        None => format!("{}{agreement}", c.verdict.word()),
    };
    let change = match (old.value, new.value) {
        (o, n) if o == n => format_change(0.0),
        (0.0, _) => "+∞ %".to_owned(),
        (o, n) => format_change((n / o - 1.0) * 100.0),
    };
    let mark = if direction == Some(want) {
        "✓"
    } else {
        "✗"
    };
    format!(
        "{} → {} ({change}, {verdict}) {mark}",
        show(metric, old.value),
        show(metric, new.value)
    )
}

/// The claim's published figure: `41.1 → 31.6 ns/op (−23.1 %)`, or its words.
fn published_cell(claim: &Claim) -> String {
    match (&claim.published, &claim.published_text) {
        (Some(s), _) => format!(
            "{} → {} {} ({})",
            format_number(s.old),
            format_number(s.new),
            s.unit,
            format_change((s.new / s.old - 1.0) * 100.0)
        ),
        (None, Some(text)) => text.clone(),
        (None, None) => String::new(),
    }
}

/// The direction the claim states.
fn claimed(claim: &Claim) -> Direction {
    match (&claim.published, claim.expect) {
        (Some(s), _) => {
            let change = s.new / s.old - 1.0;
            if change.abs() < 0.01 {
                Direction::Same
            } else if change < 0.0 {
                Direction::Lower
            } else {
                Direction::Higher
            }
        }
        (None, Some(d)) => d,
        (None, None) => Direction::Same,
    }
}

/// Which way `verdict` moved a metric; `None` when the run cannot tell.
fn moved(metric: Metric, verdict: Verdict) -> Option<Direction> {
    let better = if metric.higher_is_better() {
        Direction::Higher
    } else {
        Direction::Lower
    };
    let worse = if better == Direction::Higher {
        Direction::Lower
    } else {
        Direction::Higher
    };
    match verdict {
        Verdict::Better => Some(better),
        Verdict::Worse => Some(worse),
        Verdict::Same => Some(Direction::Same),
        Verdict::Unstable | Verdict::Inconclusive => None,
    }
}

/// The share of requests `design` failed on `claim`'s case, in percent, when the claim is about
/// served requests and it failed more than the write-up's runs did.
fn refused(
    set: &ResultSet,
    claim: &Claim,
    design: &str,
    failures: Option<&Failures>,
) -> Option<f64> {
    let failures = failures.filter(|_| claim.served)?;
    let id = BenchId::new(&claim.experiment, design, &claim.parameter);
    let failed: f64 = failures
        .metrics
        .iter()
        .filter_map(|key| set.find(&id, Metric::from_key(key).ok()?))
        .map(|r| r.value)
        .sum();
    (failed > failures.published_percent + 0.05).then_some(failed)
}

/// The pairs' cells, the claim's outcome, its answer and how it fared in the last run.
fn judge(
    set: &ResultSet,
    claim: &Claim,
    pairs: &[Pair],
    failures: Option<&Failures>,
) -> (Vec<String>, Outcome, String, RowTravel) {
    let metric = Metric::from_key(&claim.metric).expect("checked when parsed");
    let want = claimed(claim);
    let mut cells = Vec::new();
    let mut differing = Vec::new();
    let mut refusing: Vec<(usize, f64)> = Vec::new();
    let mut measured = 0;
    let mut travelled = Vec::new();
    for (index, pair) in pairs.iter().enumerate() {
        let find = |i: &str| {
            set.find(
                &BenchId::new(&claim.experiment, i, &claim.parameter),
                metric,
            )
        };
        let (Some(old), Some(new)) = (find(&pair.old), find(&pair.new)) else {
            cells.push("not measured".into());
            continue;
        };
        measured += 1;
        let resolution = Resolution {
            absolute: claim.resolution,
            relative: None,
        };
        let c = at_resolution(compare_in(set, old, new), old, new, resolution);
        travelled.push(pair_travel(set, (old, new), &c, resolution));
        let direction = moved(metric, c.verdict);
        match refused(set, claim, &pair.new, failures) {
            Some(failed) => {
                cells.push(format!(
                    "{}<br>refuses {failed:.1} %",
                    pair_cell(metric, old, new, &c, want).replace(" ✓", " ✗")
                ));
                refusing.push((index, failed));
            }
            None => {
                cells.push(pair_cell(metric, old, new, &c, want));
                if direction != Some(want) {
                    differing.push((index, direction));
                }
            }
        }
    }
    let travel = row_travel(travelled);
    if measured == 0 {
        return (
            cells,
            Outcome::NotMeasured,
            "not measured in this run".into(),
            travel,
        );
    }
    if differing.is_empty() && refusing.is_empty() {
        return (cells, Outcome::Reproduces, "**reproduces**".into(), travel);
    }
    let mut answer = Vec::new();
    let first_pair = |index: &usize| *index == 0;
    if !differing.iter().any(|(i, _)| first_pair(i)) && !refusing.iter().any(|(i, _)| first_pair(i))
    {
        answer.push(format!("**reproduces** with {}", pairs[0].label));
    }
    for &(index, failed) in &refusing {
        let published = failures.map_or(0.0, |f| f.published_percent);
        answer.push(format!(
            "**refuses {failed:.1} %** ({}): it fails more requests than the write-up's runs \
             ({published:.1} %), so its served requests say nothing of the claim",
            pairs[index].label
        ));
    }
    let mut established = true;
    for &(index, direction) in &differing {
        let label = &pairs[index].label;
        let shown: Vec<Result<String, String>> = claim
            .causes
            .iter()
            .filter(|c| c.pair == index && c.explains.covers(direction))
            .map(|c| cause_text(set, claim, c))
            .collect();
        match shown.iter().find_map(|s| s.as_ref().ok()) {
            Some(text) => answer.push(format!("**differs** ({label}): {text}")),
            None => {
                established = false;
                let why = shown
                    .iter()
                    .filter_map(|s| s.as_ref().err())
                    .map(|e| format!(" (the stated cause is not borne out: {e})"))
                    .collect::<String>();
                answer.push(format!(
                    "**differs — cause not established** ({label}){why}"
                ));
            }
        }
    }
    let outcome = if established {
        Outcome::Explained
    } else {
        Outcome::NotEstablished
    };
    (cells, outcome, answer.join("; "), travel)
}

#[cfg(test)]
mod tests;
