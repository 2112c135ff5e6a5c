//! Measured values named in a claim's text and evidence: `metric@experiment/design/parameter`
//! references, resolved against the run's records, and the template value functions that
//! print them ([`crate::template`]).

use super::*;

/// A value a cause refers to.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ref {
    /// A measured record.
    Record(Metric, BenchId),
    /// How far the write-up's figures differ, as a fraction (0.23 for −23 %).
    PublishedChange,
    /// The largest deviation of this row's A/A twin from the baseline over the passes, as a
    /// fraction: how far two equal cells moved apart in this run.
    AaSpread(Metric, String, String),
    /// How far design `1` is from design `0` on the claim's row and metric (|median ratio − 1|,
    /// pass by pass where there are passes), as a fraction.
    LabChange(Metric, BenchId, BenchId),
    /// A number written in the text: the users of a closed loop in `{100 per ops-per-sec@…}`
    /// (its mean latency, by Little's law).
    Number(f64),
}

impl Ref {
    /// `METRIC@EXPERIMENT/IMPLEMENTATION/PARAMETER`, `METRIC@IMPLEMENTATION` (the claim's
    /// experiment and parameter), `published-change`, `aa-spread` (the claim's row and metric), or
    /// `lab-change@A/B` (B against A on the claim's row and metric), or a plain number.
    pub(super) fn parse(text: &str, claim: &Claim) -> Result<Self, String> {
        let text = text.trim();
        if let Ok(number) = text.parse::<f64>() {
            return Ok(Self::Number(number));
        }
        if let Some((a, b)) = text
            .strip_prefix("lab-change@")
            .and_then(|p| p.split_once('/'))
        {
            let metric = Metric::from_key(&claim.metric)?;
            let id = |i: &str| BenchId::new(&claim.experiment, i, &claim.parameter);
            return Ok(Self::LabChange(metric, id(a), id(b)));
        }
        match text {
            "published-change" => return Ok(Self::PublishedChange),
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
            Self::PublishedChange => claim
                .published
                .as_ref()
                .map(|s| (s.new / s.old - 1.0).abs())
                .ok_or_else(|| "the claim has no figures".to_owned()),
            Self::AaSpread(metric, experiment, parameter) => {
                let twin_of = |id: &BenchId| set.find(&id.with_role(Role::Twin), *metric);
                let baseline = set
                    .records
                    .iter()
                    .find(|r| {
                        r.metric == *metric
                            && r.id.experiment == *experiment
                            && r.id.parameter == *parameter
                            && r.id.is_design()
                            && twin_of(&r.id).is_some()
                    })
                    .ok_or("no A/A twin measured on this row")?;
                let twin_record = twin_of(&baseline.id).expect("found above");
                aa_spread(baseline, twin_record).ok_or_else(|| "the A/A twin has no passes".into())
            }
            Self::LabChange(metric, a, b) => {
                let find = |id: &BenchId| {
                    set.find(id, *metric)
                        .ok_or_else(|| format!("`{}@{id}` was not measured", metric.key()))
                };
                Ok((compare_in(set, find(a)?, find(b)?).ratio - 1.0).abs())
            }
            Self::Number(number) => Ok(*number),
        }
    }

    fn show(&self, value: f64) -> String {
        match self {
            Self::Record(metric, _) => format_metric(*metric, value),
            Self::PublishedChange | Self::AaSpread(..) | Self::LabChange(..) => {
                format!("{:.1} %", value * 100.0)
            }
            Self::Number(_) => format_number(value),
        }
    }
}

/// The largest |twin / baseline − 1| over the passes.
pub(super) fn aa_spread(baseline: &Record, twin: &Record) -> Option<f64> {
    let (b, t) = (baseline.passes.as_ref()?, twin.passes.as_ref()?);
    b.iter()
        .zip(t)
        .map(|(b, t)| (t / b - 1.0).abs())
        .max_by(f64::total_cmp)
}

/// The cause's text with its values filled in, or why its evidence does not hold.
pub(super) fn cause_text(set: &ResultSet, claim: &Claim, cause: &Cause) -> Result<String, String> {
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
    template::render(&cause.text, &[], Some(&|call| call_text(set, claim, call)))
}

/// What one value function prints: a value (`v`), a ratio (`ratio`, shown with ×), a quotient
/// (`per`, a plain number: bytes per allocation) or a difference (`minus`, in the first value's
/// unit).
pub(super) fn call_text(set: &ResultSet, claim: &Claim, call: &Call) -> Result<String, String> {
    let value = |r: &str| -> Result<(Ref, f64), String> {
        let parsed = Ref::parse(r, claim)?;
        let value = parsed.value(set, claim)?;
        Ok((parsed, value))
    };
    if let [single] = call.args.as_slice() {
        let (parsed, v) = value(single)?;
        return Ok(parsed.show(v));
    }
    let [a, b] = call.args.as_slice() else {
        return Err(format!("`{}` takes one or two values", call.function));
    };
    let ((first, a), (second, b)) = (value(a)?, value(b)?);
    match call.function {
        "ratio" => {
            // Two records timed pass by pass: the median of their per-pass ratios, as every
            // table and target gives it, not the ratio of the two medians.
            let ratio = match (first.record(set), second.record(set)) {
                (Some(x), Some(y)) if x.passes.is_some() && y.passes.is_some() => {
                    compare_in(set, y, x).ratio
                }
                _ => a / b,
            };
            Ok(format!("{}×", format_number(ratio)))
        }
        "per" => Ok(format_number(a / b)),
        "minus" => Ok(first.show(a - b)),
        other => Err(format!("`{other}` is not a value function")),
    }
}

/// `text` (report prose) with every value function filled with the value measured in `set` and
/// the `settings` it names printed, so prose that cites numbers never has them typed by hand; a
/// value the run lacks reads `(not measured)`, and a text the engine cannot render reads as the
/// engine's error.
pub fn fill_measured(text: &str, set: &ResultSet, settings: &[(&str, String)]) -> String {
    let resolve = |call: &Call| Ok(measured_value(set, call));
    template::render_page(text, &[], settings, Some(&resolve)).unwrap_or_else(|e| e)
}

/// What a value function in report prose prints: the value measured in `set`, or
/// `(not measured)`.
pub fn measured_value(set: &ResultSet, call: &Call) -> String {
    let context = Claim {
        claim: String::new(),
        published: None,
        expect: Some(Direction::Same),
        published_text: None,
        metric: Metric::NsPerOp.key(),
        experiment: String::new(),
        parameter: String::new(),
        resolution: None,
        pairs: None,
        causes: Vec::new(),
        own: false,
        served: false,
        unmeasurable: None,
    };
    call_text(set, &context, call).unwrap_or_else(|_| "(not measured)".into())
}
