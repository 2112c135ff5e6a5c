//! The answers a report opens with: each claim of the lab's source write-up (a row of the PR's
//! table, a point of its argument) beside the lab's re-creation of it, `reproduces` or `differs`,
//! and for every difference its cause **shown by measurements of the same run**.
//!
//! A lab writes its claims once, in `report/answers.json`: the seed's figure, the experiment,
//! parameter and metric the lab measures it on, the pairs of designs that stand for the seed's
//! "before" and "after", and for a pair that differs, causes whose text cites measured values
//! (`{allocs-per-op@admission/papaya-cas/single}`) and whose **evidence** (conditions on measured
//! values) must hold in this run for the cause to be shown. A cause whose evidence fails, or a
//! difference with no cause, is printed as `differs — cause not established` and counted at the
//! top, so prose cannot outlive the numbers that backed it.

use serde::Deserialize;

use crate::compare::{Verdict, compare_in};
use crate::lab::twin;
use crate::record::{BenchId, Metric, Record, ResultSet};
use crate::report::format_metric;
use crate::table::{Align, Table, format_change, format_number};

/// A lab's answers file.
#[derive(Debug, Deserialize)]
pub struct Answers {
    /// The write-up the claims come from.
    pub source: String,
    /// Its question, in one sentence.
    pub question: String,
    /// The design pairs every claim is checked on, one column each; the first is the lab's
    /// re-creation of the write-up's own comparison.
    pub pairs: Vec<Pair>,
    pub claims: Vec<Claim>,
}

/// The design standing for the write-up's "before" and the one for its "after".
#[derive(Debug, Clone, Deserialize)]
pub struct Pair {
    pub old: String,
    pub new: String,
    /// What the pair is, for the column heading.
    pub label: String,
}

/// Which way a claim says the "after" design moves the metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    Lower,
    Higher,
    Same,
}

/// One claim of the write-up.
#[derive(Debug, Deserialize)]
pub struct Claim {
    pub claim: String,
    /// The published figures, when the claim has them.
    #[serde(default)]
    pub seed: Option<SeedFigure>,
    /// The claim's direction when it has no figures (an argument, not a table row).
    #[serde(default)]
    pub expect: Option<Direction>,
    /// The claim in the write-up's words, when it has no figures.
    #[serde(default)]
    pub seed_text: Option<String>,
    /// A [`Metric::key`].
    pub metric: String,
    pub experiment: String,
    pub parameter: String,
    /// Pairs for this claim instead of the file's.
    #[serde(default)]
    pub pairs: Option<Vec<Pair>>,
    #[serde(default)]
    pub causes: Vec<Cause>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SeedFigure {
    pub old: f64,
    pub new: f64,
    pub unit: String,
}

/// Why pair `pair` (an index into the claim's pairs) differs from the seed, if `evidence` holds.
#[derive(Debug, Deserialize)]
pub struct Cause {
    #[serde(default)]
    pub pair: usize,
    /// With `{REF}` and `{REF / REF}` placeholders for measured values and their ratio.
    pub text: String,
    pub evidence: Vec<Evidence>,
}

/// A condition on measured values: `value` (or `value / over`) at least / at most a bound.
#[derive(Debug, Deserialize)]
pub struct Evidence {
    pub value: String,
    #[serde(default)]
    pub over: Option<String>,
    #[serde(default)]
    pub at_least: Option<f64>,
    #[serde(default)]
    pub at_most: Option<f64>,
}

/// How one claim came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every pair goes the seed's way.
    Reproduces,
    /// Some pair does not, and each such pair has a cause whose evidence holds.
    Explained,
    /// Some pair differs with no cause this run bears out.
    NotEstablished,
    /// Nothing measured for it in this run.
    NotMeasured,
}

/// The answers checked against one run.
#[derive(Debug)]
pub struct Checked {
    pub outcomes: Vec<Outcome>,
    pub markdown: String,
}

impl Answers {
    pub fn parse(json: &str) -> Result<Self, String> {
        let answers: Self = serde_json::from_str(json).map_err(|e| format!("answers file: {e}"))?;
        if answers.pairs.is_empty() {
            return Err("answers file: no pairs".into());
        }
        for claim in &answers.claims {
            Metric::from_key(&claim.metric)?;
            if claim.seed.is_none() && claim.expect.is_none() {
                return Err(format!(
                    "claim `{}` has neither figures nor a direction",
                    claim.claim
                ));
            }
            let pairs = claim.pairs.as_ref().unwrap_or(&answers.pairs).len();
            for cause in &claim.causes {
                if cause.pair >= pairs {
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

    /// Every implementation the file names, to check against the lab's.
    pub fn implementations(&self) -> Vec<&str> {
        let pairs = self
            .pairs
            .iter()
            .chain(self.claims.iter().flat_map(|c| c.pairs.iter().flatten()));
        pairs
            .flat_map(|p| [p.old.as_str(), p.new.as_str()])
            .collect()
    }

    /// The answers section's body, checked against `set`.
    pub fn check(&self, set: &ResultSet) -> Checked {
        let headers: Vec<String> = self
            .pairs
            .iter()
            .map(|p| format!("{}: `{}` → `{}`", p.label, p.old, p.new))
            .collect();
        let mut table = Table::new()
            .column("The write-up's claim", Align::Left)
            .column("Seed", Align::Right);
        for h in &headers {
            table = table.column(h, Align::Right);
        }
        table = table.column("Answer", Align::Left);
        let mut outcomes = Vec::new();
        for claim in &self.claims {
            let pairs = claim.pairs.as_ref().unwrap_or(&self.pairs);
            let (cells, outcome, answer) = judge(set, claim, pairs);
            outcomes.push(outcome);
            let mut row = vec![claim.claim.clone(), seed_cell(claim)];
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
            row.push(answer);
            table.row(row);
        }
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
             measured in this run, and the cause is shown only when its evidence holds.\n\n{}\n\n{}",
            self.question,
            self.source,
            summary,
            table.render()
        );
        Checked { outcomes, markdown }
    }
}

/// The claim's published figure: `41.1 → 31.6 ns/op (−23.1 %)`, or its words.
fn seed_cell(claim: &Claim) -> String {
    match (&claim.seed, &claim.seed_text) {
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
    match (&claim.seed, claim.expect) {
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

/// The pairs' cells, the claim's outcome and its answer.
fn judge(set: &ResultSet, claim: &Claim, pairs: &[Pair]) -> (Vec<String>, Outcome, String) {
    let metric = Metric::from_key(&claim.metric).expect("checked when parsed");
    let want = claimed(claim);
    let mut cells = Vec::new();
    let mut differing = Vec::new();
    let mut measured = 0;
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
        let c = compare_in(set, old, new);
        let direction = moved(metric, c.verdict);
        let agreement = c
            .agreement
            .map_or(String::new(), |(a, of)| format!(" {a}/{of}"));
        let verdict = match direction {
            _ if !c.ratio.is_finite() => "from 0".to_owned(),
            Some(Direction::Same) => c.verdict_text("same"),
            Some(_) => format!(
                "{}{agreement}",
                crate::report::verdict_word(metric, c.verdict)
            ),
            None => format!("undecided{agreement}"),
        };
        let change = if c.ratio.is_finite() {
            format_change(c.change_percent)
        } else {
            "+∞ %".into()
        };
        let mark = if direction == Some(want) {
            "✓"
        } else {
            "✗"
        };
        // Times with their unit: claims mix nanosecond cycles and millisecond cleanups.
        let show = |v: f64| match metric {
            Metric::NsPerOp => crate::report::format_duration(v),
            _ => format_metric(metric, v),
        };
        cells.push(format!(
            "{} → {} ({change}, {verdict}) {mark}",
            show(old.value),
            show(new.value)
        ));
        if direction != Some(want) {
            differing.push(index);
        }
    }
    if measured == 0 {
        return (
            cells,
            Outcome::NotMeasured,
            "not measured in this run".into(),
        );
    }
    if differing.is_empty() {
        return (cells, Outcome::Reproduces, "**reproduces**".into());
    }
    let mut answer = Vec::new();
    if !differing.contains(&0) {
        answer.push(format!("**reproduces** with {}", pairs[0].label));
    }
    let mut established = true;
    for &index in &differing {
        let label = &pairs[index].label;
        let shown: Vec<Result<String, String>> = claim
            .causes
            .iter()
            .filter(|c| c.pair == index)
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
    (cells, outcome, answer.join("; "))
}

/// A value a cause refers to.
#[derive(Debug, Clone, PartialEq)]
enum Ref {
    /// A measured record.
    Record(Metric, BenchId),
    /// How far the seed's figures differ, as a fraction (0.23 for −23 %).
    SeedChange,
    /// The largest deviation of this row's A/A twin from the baseline over the passes, as a
    /// fraction: how far two equal cells moved apart in this run.
    AaSpread(Metric, String, String),
    /// How far design `1` is from design `0` on the claim's row and metric (|median ratio − 1|,
    /// pass by pass where there are passes), as a fraction.
    LabChange(Metric, BenchId, BenchId),
}

impl Ref {
    /// `METRIC@EXPERIMENT/IMPLEMENTATION/PARAMETER`, `METRIC@IMPLEMENTATION` (the claim's
    /// experiment and parameter), `seed-change`, `aa-spread` (the claim's row and metric), or
    /// `lab-change@A/B` (B against A on the claim's row and metric).
    fn parse(text: &str, claim: &Claim) -> Result<Self, String> {
        let text = text.trim();
        if let Some((a, b)) = text
            .strip_prefix("lab-change@")
            .and_then(|p| p.split_once('/'))
        {
            let metric = Metric::from_key(&claim.metric)?;
            let id = |i: &str| BenchId::new(&claim.experiment, i, &claim.parameter);
            return Ok(Self::LabChange(metric, id(a), id(b)));
        }
        match text {
            "seed-change" => return Ok(Self::SeedChange),
            "aa-spread" => {
                let metric = Metric::from_key(&claim.metric)?;
                return Ok(Self::AaSpread(
                    metric,
                    claim.experiment.clone(),
                    claim.parameter.clone(),
                ));
            }
            _ => {}
        }
        let (metric, id) = text
            .split_once('@')
            .ok_or_else(|| format!("`{text}` is not METRIC@ID"))?;
        let metric = Metric::from_key(metric)?;
        let id = if id.contains('/') {
            id.parse()?
        } else {
            BenchId::new(&claim.experiment, id, &claim.parameter)
        };
        Ok(Self::Record(metric, id))
    }

    /// The record a `METRIC@ID` reference names, if measured.
    fn record<'a>(&self, set: &'a ResultSet) -> Option<&'a Record> {
        match self {
            Self::Record(metric, id) => set.find(id, *metric),
            _ => None,
        }
    }

    fn value(&self, set: &ResultSet, claim: &Claim) -> Result<f64, String> {
        match self {
            Self::Record(metric, id) => set
                .find(id, *metric)
                .map(|r| r.value)
                .ok_or_else(|| format!("`{}@{id}` was not measured", metric.key())),
            Self::SeedChange => claim
                .seed
                .as_ref()
                .map(|s| (s.new / s.old - 1.0).abs())
                .ok_or_else(|| "the claim has no figures".to_owned()),
            Self::AaSpread(metric, experiment, parameter) => {
                let find = |i: &str| set.find(&BenchId::new(experiment, i, parameter), *metric);
                let baseline = set
                    .records
                    .iter()
                    .find(|r| {
                        r.metric == *metric
                            && r.id.experiment == *experiment
                            && r.id.parameter == *parameter
                            && crate::lab::twin_of(&r.id.implementation).is_none()
                            && find(&twin(&r.id.implementation)).is_some()
                    })
                    .ok_or("no A/A twin measured on this row")?;
                let twin_record = find(&twin(&baseline.id.implementation)).expect("found above");
                aa_spread(baseline, twin_record).ok_or_else(|| "the A/A twin has no passes".into())
            }
            Self::LabChange(metric, a, b) => {
                let find = |id: &BenchId| {
                    set.find(id, *metric)
                        .ok_or_else(|| format!("`{}@{id}` was not measured", metric.key()))
                };
                Ok((compare_in(set, find(a)?, find(b)?).ratio - 1.0).abs())
            }
        }
    }

    fn show(&self, value: f64) -> String {
        match self {
            Self::Record(metric, _) => format_metric(*metric, value),
            Self::SeedChange | Self::AaSpread(..) | Self::LabChange(..) => {
                format!("{:.1} %", value * 100.0)
            }
        }
    }
}

/// The largest |twin / baseline − 1| over the passes.
fn aa_spread(baseline: &Record, twin: &Record) -> Option<f64> {
    let (b, t) = (baseline.passes.as_ref()?, twin.passes.as_ref()?);
    b.iter()
        .zip(t)
        .map(|(b, t)| (t / b - 1.0).abs())
        .max_by(f64::total_cmp)
}

/// The cause's text with its values filled in, or why its evidence does not hold.
fn cause_text(set: &ResultSet, claim: &Claim, cause: &Cause) -> Result<String, String> {
    for e in &cause.evidence {
        let value = Ref::parse(&e.value, claim)?.value(set, claim)?;
        let (checked, shown) = match &e.over {
            Some(over) => {
                let divisor = Ref::parse(over, claim)?.value(set, claim)?;
                let ratio = value / divisor;
                (ratio, format!("{} / {} = {ratio:.2}", e.value, over))
            }
            None => (value, format!("{} = {}", e.value, format_number(value))),
        };
        let holds =
            e.at_least.is_none_or(|m| checked >= m) && e.at_most.is_none_or(|m| checked <= m);
        if !holds {
            let bound = match (e.at_least, e.at_most) {
                (Some(l), Some(m)) => format!("between {l} and {m}"),
                (Some(l), None) => format!("at least {l}"),
                (None, Some(m)) => format!("at most {m}"),
                (None, None) => String::new(),
            };
            return Err(format!("{shown}, not {bound}"));
        }
    }
    fill_refs(&cause.text, |r| value_text(set, claim, r))
}

/// The text of one placeholder: a value (`REF`), a ratio (`REF / REF`, shown with ×), a quotient
/// (`REF per REF`, a plain number: bytes per allocation) or a difference (`REF - REF`, in the
/// first value's unit).
fn value_text(set: &ResultSet, claim: &Claim, placeholder: &str) -> Result<String, String> {
    let value = |r: &str| -> Result<(Ref, f64), String> {
        let parsed = Ref::parse(r, claim)?;
        let value = parsed.value(set, claim)?;
        Ok((parsed, value))
    };
    for (operator, combine) in [
        (" / ", Combine::Ratio),
        (" per ", Combine::Quotient),
        (" - ", Combine::Difference),
    ] {
        if let Some((a, b)) = placeholder.split_once(operator) {
            let ((first, a), (second, b)) = (value(a)?, value(b)?);
            return Ok(match combine {
                Combine::Ratio => {
                    // Two records timed pass by pass: the median of their per-pass ratios, as
                    // every table and target gives it, not the ratio of the two medians.
                    let ratio = match (first.record(set), second.record(set)) {
                        (Some(x), Some(y)) if x.passes.is_some() && y.passes.is_some() => {
                            compare_in(set, y, x).ratio
                        }
                        _ => a / b,
                    };
                    format!("{}×", format_number(ratio))
                }
                Combine::Quotient => format_number(a / b),
                Combine::Difference => first.show(a - b),
            });
        }
    }
    let (parsed, v) = value(placeholder)?;
    Ok(parsed.show(v))
}

enum Combine {
    Ratio,
    Quotient,
    Difference,
}

/// `text` (report prose) with every `{METRIC@EXPERIMENT/IMPLEMENTATION/PARAMETER}` and
/// `{REF / REF}` filled with the value measured in `set`, so prose that cites numbers never has
/// them typed by hand; a value the run lacks reads `(not measured)`.
pub fn fill_measured(text: &str, set: &ResultSet) -> String {
    let context = Claim {
        claim: String::new(),
        seed: None,
        expect: Some(Direction::Same),
        seed_text: None,
        metric: Metric::NsPerOp.key(),
        experiment: String::new(),
        parameter: String::new(),
        pairs: None,
        causes: Vec::new(),
    };
    fill_refs(text, |r| {
        Ok(value_text(set, &context, r).unwrap_or_else(|_| "(not measured)".into()))
    })
    .unwrap_or_else(|e| e)
}

/// `text` with every `{…}` replaced by `value(…)`.
fn fill_refs(
    text: &str,
    mut value: impl FnMut(&str) -> Result<String, String>,
) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find('}')
            .ok_or_else(|| format!("unclosed `{{` in `{text}`"))?;
        out.push_str(&value(&rest[start + 1..start + end])?);
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(records: Vec<Record>) -> ResultSet {
        ResultSet::of(records)
    }

    fn passes(implementation: &str, values: &[f64]) -> Record {
        Record::from_passes(
            BenchId::new("op", implementation, "small"),
            Metric::NsPerOp,
            values.to_vec(),
        )
    }

    fn count(implementation: &str, metric: Metric, value: f64) -> Record {
        Record::new(BenchId::new("op", implementation, "small"), metric, value)
    }

    const FILE: &str = r#"{
      "source": "a PR", "question": "Is new faster?",
      "pairs": [{"old": "java-old", "new": "java-new", "label": "model"},
                {"old": "base", "new": "fast", "label": "native"}],
      "claims": [{
        "claim": "1 thread: new is faster", "seed": {"old": 40.0, "new": 30.0, "unit": "ns/op"},
        "metric": "ns-per-op", "experiment": "op", "parameter": "small",
        "causes": [{"pair": 1, "text": "fast allocates {allocs-per-op@fast} per op ({ns-per-op@fast / ns-per-op@base})",
                    "evidence": [{"value": "allocs-per-op@fast", "at_least": 1}]}]
      }]
    }"#;

    #[test]
    fn a_difference_is_explained_only_while_its_evidence_holds() {
        let answers = Answers::parse(FILE).unwrap();
        assert_eq!(
            answers.implementations(),
            ["java-old", "java-new", "base", "fast"]
        );
        let up = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0];
        let down: Vec<f64> = up.iter().map(|v| v * 0.8).collect();
        let twice: Vec<f64> = up.iter().map(|v| v * 2.0).collect();
        let mut records = vec![
            passes("java-old", &up),
            passes("java-new", &down),
            passes("base", &up),
            passes("fast", &twice),
            count("fast", Metric::AllocsPerOp, 1.5),
        ];
        let checked = answers.check(&set(records.clone()));
        assert_eq!(checked.outcomes, [Outcome::Explained]);
        let md = &checked.markdown;
        assert!(md.contains("**reproduces** with model"), "{md}");
        assert!(md.contains("fast allocates 1.50 per op (2.00×)"), "{md}");
        assert!(
            md.contains("13.5 ns → 10.8 ns (−20.0 %, faster 8/8) ✓"),
            "{md}"
        );
        assert!(md.contains("(+100.0 %, slower 8/8) ✗"), "{md}");
        assert!(md.contains("40.0 → 30.0 ns/op (−25.0 %)"), "{md}");

        records[4].value = 0.5;
        let checked = answers.check(&set(records));
        assert_eq!(checked.outcomes, [Outcome::NotEstablished]);
        assert!(
            checked
                .markdown
                .contains("not borne out: allocs-per-op@fast = 0.500, not at least 1"),
            "{}",
            checked.markdown
        );
        let nothing = answers.check(&set(vec![]));
        assert_eq!(nothing.outcomes, [Outcome::NotMeasured]);
    }

    #[test]
    fn undecided_rows_differ_and_the_aa_spread_is_measurable() {
        let answers = Answers::parse(&FILE.replace(
            r#""pair": 1, "text""#,
            r#""pair": 0, "text": "below resolution: seed {seed-change}, A/A {aa-spread}", "evidence": [{"value": "seed-change", "over": "aa-spread", "at_most": 1}]}, {"pair": 1, "text""#,
        ))
        .unwrap();
        let base = [10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 10.0];
        let noisy = [9.0, 11.0, 7.0, 13.0, 10.5, 9.5, 10.0, 10.0];
        let records = vec![
            passes("java-old", &base),
            passes("java-old-again", &noisy),
            passes("java-new", &noisy),
            passes("base", &base),
            passes("fast", &noisy),
        ];
        let checked = answers.check(&set(records));
        let md = &checked.markdown;
        assert!(md.contains("undecided"), "{md}");
        assert!(
            md.contains("below resolution: seed 25.0 %, A/A 30.0 %"),
            "{md}"
        );
        assert_eq!(
            checked.outcomes,
            [Outcome::NotEstablished],
            "pair 1 has no evidence"
        );
    }

    #[test]
    fn prose_cites_measured_values_and_says_what_is_missing() {
        let records = vec![
            count("fast", Metric::AllocsPerOp, 2.0),
            count("base", Metric::AllocsPerOp, 4.0),
        ];
        let text = fill_measured(
            "fast: {allocs-per-op@op/fast/small}, half: {allocs-per-op@op/fast/small / allocs-per-op@op/base/small}, gone: {allocs-per-op@op/gone/small}",
            &set(records),
        );
        assert_eq!(text, "fast: 2.00, half: 0.500×, gone: (not measured)");
        let more = fill_measured(
            "{allocs-per-op@op/base/small - allocs-per-op@op/fast/small} more, {allocs-per-op@op/base/small per allocs-per-op@op/fast/small} each",
            &set(vec![
                count("fast", Metric::AllocsPerOp, 2.0),
                count("base", Metric::AllocsPerOp, 4.0),
            ]),
        );
        assert_eq!(more, "2.00 more, 2.00 each");
        // Timed pass by pass: the median of the per-pass ratios (as the tables and targets give
        // it: 0.5, 0.5, 0.5, 2.0 → 0.5), not the ratio of the medians (10 / 15 = 0.667).
        let timed = |implementation: &str, passes: &[f64]| {
            Record::from_passes(
                BenchId::new("op", implementation, "small"),
                Metric::NsPerOp,
                passes.to_vec(),
            )
        };
        let paired = fill_measured(
            "{ns-per-op@op/fast/small / ns-per-op@op/base/small}",
            &set(vec![
                timed("base", &[10.0, 20.0, 30.0, 5.0]),
                timed("fast", &[5.0, 10.0, 15.0, 10.0]),
            ]),
        );
        assert_eq!(paired, "0.500×");
    }

    #[test]
    fn malformed_files_are_errors() {
        assert!(Answers::parse("{}").is_err());
        let bad_metric = FILE.replace("\"metric\": \"ns-per-op\"", "\"metric\": \"speed\"");
        assert!(Answers::parse(&bad_metric).unwrap_err().contains("`speed`"));
        let bad_pair = FILE.replace("\"pair\": 1", "\"pair\": 7");
        assert!(Answers::parse(&bad_pair).unwrap_err().contains("pair 7"));
        let bad_ref = FILE.replace("allocs-per-op@fast\", \"at_least", "allocs\", \"at_least");
        assert!(Answers::parse(&bad_ref).is_err());
    }
}
