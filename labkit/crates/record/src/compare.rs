//! Ratios against a baseline and an honest verdict.
//!
//! Wall time is compared pass by pass: pass `k` of a candidate and pass `k` of the baseline ran in
//! the same process, interleaved, so their ratio is one paired observation, and passes differ in
//! everything a re-run changes (process, code order, stack and heap offsets, case order). Three
//! outcomes are decisive:
//!
//! - `same (±δ)`: the distribution-free interval of the median per-pass ratio (at least 92 %,
//!   [`crate::stats::pass_interval`]) lies within `1 ± δ`, where δ is the run's own A/A
//!   resolution ([`same_within`]);
//! - faster or slower: at least [`agreeing_needed`] of the passes point that way, a sign test
//!   whose nominal false-positive rate ([`nominal_false_positive_rate`]) stays at most
//!   [`DECISION_LEVEL`] over the whole sequence (the [`STANDARD_PASSES`] every cell gets, and
//!   the passes added where those left it undecided);
//! - and `unstable` for passes that disagree more than that.
//!
//! Records without passes but with intervals compare by interval overlap; exact counts by value.

use crate::record::{BenchId, Interval, Metric, Record, ResultSet, Role};
use crate::stats::{binomial, pass_interval};

/// The verdict of one candidate against the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Better than the baseline: passes agree, intervals apart, or exact counts that differ.
    Better,
    /// Worse than the baseline: passes agree, intervals apart, or exact counts that differ.
    Worse,
    /// The intervals overlap, or too few passes: the run cannot tell them apart.
    Inconclusive,
    /// Exact counts that are equal, per-pass values equal in every pass, or a per-pass ratio
    /// whose interval lies within `1 ± δ`.
    Same,
    /// Passes disagree on the direction: a re-run could print either.
    Unstable,
}

/// Fewest passes from which a verdict is taken (smoke and quick runs take fewer than the
/// standard and state their rate).
pub const MIN_PASSES: usize = 6;

/// Passes a full run gives every cell before it adds passes to the undecided ones.
pub const STANDARD_PASSES: usize = 8;

/// Largest nominal false-positive rate of a faster/slower verdict over the whole sequence of
/// passes: two equal designs are called different in at most this share of cells.
pub const DECISION_LEVEL: f64 = 0.01;

/// The chance that two equal designs are called different when the cell's `passes` passes are
/// decided with `needed` agreeing: up to [`STANDARD_PASSES`], unanimity on all of them; beyond,
/// unanimity on the standard passes or, failing it, `needed` of all.
fn sequential_rate(passes: usize, needed: usize) -> f64 {
    if passes <= STANDARD_PASSES {
        return 2.0 * binomial(passes, passes);
    }
    let (first, extra) = (STANDARD_PASSES, passes - STANDARD_PASSES);
    let mut rate = 2.0 * binomial(first, first);
    for below in 1..first {
        for more in 0..=extra {
            let total = below + more;
            if total >= needed || total <= passes - needed {
                rate += binomial(first, below) * binomial(extra, more);
            }
        }
    }
    rate
}

/// How many of `passes` passes must point one way for faster or slower: all of them up to
/// [`STANDARD_PASSES`] (2/2⁸ ≈ 0.8 % at eight); beyond, the fewest that keep the whole
/// sequence's rate at most [`DECISION_LEVEL`] (15 of 16).
pub fn agreeing_needed(passes: usize) -> usize {
    if passes <= STANDARD_PASSES {
        return passes;
    }
    (passes / 2 + 1..=passes)
        .find(|&k| sequential_rate(passes, k) <= DECISION_LEVEL)
        .unwrap_or(passes)
}

/// The nominal false-positive rate of a cell decided on `passes` passes.
pub fn nominal_false_positive_rate(passes: usize) -> f64 {
    sequential_rate(passes, agreeing_needed(passes))
}

/// The run's equivalence margin δ: a per-pass ratio whose interval lies within `1 ± δ` is
/// `same`. It is the A/A resolution of the rows it is derived from: the median half-width
/// (largest distance from 1) of the A/A twins' ratio intervals, rounded up to a whole percent
/// and at least 1 %. `None` without any twin interval.
pub fn same_within(twin_intervals: &[Interval]) -> Option<f64> {
    let widths: Vec<f64> = twin_intervals
        .iter()
        .map(|i| (1.0 - i.lower).max(i.upper - 1.0).max(0.0))
        .collect();
    if widths.is_empty() {
        return None;
    }
    let median = crate::stats::median(&widths);
    // Rounded up to a whole percent; the tolerance keeps 0.03 from becoming 4 % by rounding
    // error.
    Some((((median * 100.0) - 1e-9).ceil() / 100.0).max(0.01))
}

/// The equivalence margin of a run from its records: [`same_within`] of the ns/op ratio
/// intervals of `baseline`'s A/A twin on the rows `rows` picks (the lab's single-threaded rows,
/// whose resolution is the lab's; concurrent rows keep their own spread and are rarely `same`).
pub fn run_margin(
    records: &[Record],
    baseline: &str,
    rows: impl Fn(&BenchId) -> bool,
) -> Option<f64> {
    let ns = |id: &BenchId| {
        records
            .iter()
            .find(|r| r.metric == Metric::NsPerOp && r.id == *id)
    };
    let intervals: Vec<Interval> = records
        .iter()
        .filter(|r| {
            r.metric == Metric::NsPerOp
                && r.id.implementation == baseline
                && r.id.role == Role::Twin
                && rows(&r.id)
        })
        .filter_map(|cell| {
            let base = ns(&BenchId::new(
                &cell.id.experiment,
                baseline,
                &cell.id.parameter,
            ))?;
            pass_interval(&pass_ratios(base, cell)?)
        })
        .collect();
    same_within(&intervals)
}

/// [`compare`] with the run's own equivalence margin.
pub fn compare_in(set: &ResultSet, baseline: &Record, candidate: &Record) -> Comparison {
    compare(baseline, candidate, set.timing.and_then(|t| t.same_within))
}

/// The smallest difference a claim's metric can mean. A value measured once (no passes, no
/// interval) would otherwise call any difference a direction, however small against what the
/// question can tell apart.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Resolution {
    /// In the metric's unit (half a body for a heap counted in bodies).
    pub absolute: Option<f64>,
    /// As a share of the baseline (a JVM's byte counts carry its harness's own few bytes a run).
    pub relative: Option<f64>,
}

/// `c`, a comparison of `baseline` and `candidate`, read at `resolution`: values measured once
/// that are closer than it are the `same`.
pub fn at_resolution(
    mut c: Comparison,
    baseline: &Record,
    candidate: &Record,
    resolution: Resolution,
) -> Comparison {
    let by_value = c.agreement.is_none() && c.interval.is_none();
    let close = resolution
        .absolute
        .is_some_and(|r| (candidate.value - baseline.value).abs() < r)
        || resolution
            .relative
            .is_some_and(|r| (c.ratio - 1.0).abs() < r);
    if by_value && close {
        c.verdict = Verdict::Same;
    }
    c
}

/// How one verdict fared in the run this one replaced ([`crate::travel`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Travel {
    Held,
    /// Another verdict there, or decisive on one side only: CPU-dependent when that run was on
    /// another CPU, a verdict that did not hold when it was on this one.
    Moved,
    New,
}

impl Travel {
    pub fn word(self) -> &'static str {
        match self {
            Self::Held => "held",
            Self::Moved => "did not hold",
            Self::New => "new",
        }
    }
}

/// Whether a verdict decided something (faster, slower, or the same within the margin).
pub fn decisive(v: Verdict) -> bool {
    matches!(v, Verdict::Better | Verdict::Worse | Verdict::Same)
}

/// How a comparison decided here (`now`) fared there (`before`); `None` when neither run decided
/// it, so there is no verdict to travel.
pub fn travel_of(now: &Comparison, before: Option<&Comparison>) -> Option<Travel> {
    match before {
        None if decisive(now.verdict) => Some(Travel::New),
        None => None,
        Some(b) if b.verdict == now.verdict && decisive(now.verdict) => Some(Travel::Held),
        Some(b) if decisive(b.verdict) || decisive(now.verdict) => Some(Travel::Moved),
        Some(_) => None,
    }
}

impl Verdict {
    /// Word used in tables of time-like metrics.
    pub fn word(self) -> &'static str {
        match self {
            Self::Better => "faster",
            Self::Worse => "slower",
            Self::Inconclusive => "inconclusive",
            Self::Same => "same",
            Self::Unstable => "unstable",
        }
    }
}

/// A candidate compared with the baseline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// candidate / baseline
    pub ratio: f64,
    /// (ratio − 1) × 100
    pub change_percent: f64,
    pub verdict: Verdict,
    /// For per-pass comparisons: how many passes point the way the median ratio does, of how
    /// many.
    pub agreement: Option<(usize, usize)>,
    /// For per-pass comparisons: the interval of the median per-pass ratio.
    pub interval: Option<Interval>,
    /// The margin a `same` verdict of a per-pass comparison was taken within.
    pub same_within: Option<f64>,
}

impl Comparison {
    /// The verdict as a table says it: `same (±3 %)` for an equivalence within a margin.
    pub fn verdict_text(&self, word: &str) -> String {
        match (self.verdict, self.same_within) {
            (Verdict::Same, Some(margin)) => format!("same (±{:.0} %)", margin * 100.0),
            _ => word.to_owned(),
        }
    }
}

/// Pass-by-pass ratios of `candidate` to `baseline` over the passes both ran: pass `k` of every
/// cell of a row ran in the same process, and added passes come after the standard ones, so the
/// passes two records share are their common prefix (a cell given added passes beside one that
/// was not compares with it on the standard ones). A pass where both counted nothing is equal
/// (1): `0 / 0` is a NaN, which sorts by its sign bit and would move the median and its interval.
pub fn pass_ratios(baseline: &Record, candidate: &Record) -> Option<Vec<f64>> {
    let ratio = |b: f64, c: f64| if b == 0.0 && c == 0.0 { 1.0 } else { c / b };
    match (&baseline.passes, &candidate.passes) {
        (Some(b), Some(c)) if !b.is_empty() && !c.is_empty() => {
            Some(b.iter().zip(c).map(|(b, c)| ratio(*b, *c)).collect())
        }
        _ => None,
    }
}

fn by_passes(ratios: &[f64], higher_better: bool, same_within: Option<f64>) -> Comparison {
    let ratio = crate::stats::median(ratios);
    let below = ratios.iter().filter(|r| **r < 1.0).count();
    let above = ratios.iter().filter(|r| **r > 1.0).count();
    let n = ratios.len();
    let interval = pass_interval(ratios);
    let (better, worse) = if higher_better {
        (Verdict::Worse, Verdict::Better)
    } else {
        (Verdict::Better, Verdict::Worse)
    };
    let needed = agreeing_needed(n);
    let within = |i: &Interval, margin: f64| i.lower >= 1.0 - margin && i.upper <= 1.0 + margin;
    let verdict = match (interval, same_within) {
        _ if n < MIN_PASSES => Verdict::Inconclusive,
        // Equal in every pass (counted events of the same workload): not a disagreement.
        _ if below == 0 && above == 0 => Verdict::Same,
        (Some(i), Some(margin)) if within(&i, margin) => Verdict::Same,
        _ if below >= needed => better,
        _ if above >= needed => worse,
        _ => Verdict::Unstable,
    };
    Comparison {
        ratio,
        change_percent: (ratio - 1.0) * 100.0,
        verdict,
        // Equal passes all point the way an equal median does.
        agreement: Some((
            match verdict {
                Verdict::Same if below == 0 && above == 0 => n,
                _ if ratio < 1.0 => below,
                _ => above,
            },
            n,
        )),
        interval,
        same_within: (verdict == Verdict::Same && (below > 0 || above > 0))
            .then_some(same_within)
            .flatten(),
    }
}

/// Compares `candidate` with `baseline` (same metric): pass by pass when both have passes, with
/// `same_within` the run's equivalence margin (see [`same_within`]); records with intervals by
/// interval overlap; records without (deterministic counts) by value. [`compare_in`] supplies a
/// result set's own margin.
pub fn compare(baseline: &Record, candidate: &Record, same_within: Option<f64>) -> Comparison {
    let ratio = if baseline.value == 0.0 {
        if candidate.value == 0.0 {
            1.0
        } else {
            f64::INFINITY
        }
    } else {
        candidate.value / baseline.value
    };
    let higher_better = baseline.metric.higher_is_better();
    if let Some(ratios) = pass_ratios(baseline, candidate) {
        return by_passes(&ratios, higher_better, same_within);
    }
    let verdict = match (baseline.interval, candidate.interval) {
        (Some(b), Some(c)) => {
            if c.upper < b.lower {
                if higher_better {
                    Verdict::Worse
                } else {
                    Verdict::Better
                }
            } else if c.lower > b.upper {
                if higher_better {
                    Verdict::Better
                } else {
                    Verdict::Worse
                }
            } else {
                Verdict::Inconclusive
            }
        }
        _ => {
            let (b, c) = (baseline.value, candidate.value);
            // Values that print alike are equal to a reader: "1.06 → 1.06 (less)" would be a
            // verdict the printed numbers contradict.
            let printed = crate::table::format_number;
            if c == b || printed(c) == printed(b) {
                Verdict::Same
            } else if (c > b) == higher_better {
                Verdict::Better
            } else {
                Verdict::Worse
            }
        }
    };
    Comparison {
        ratio,
        change_percent: (ratio - 1.0) * 100.0,
        verdict,
        agreement: None,
        interval: None,
        same_within: None,
    }
}

#[cfg(test)]
mod tests;
