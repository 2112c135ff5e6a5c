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

/// How one verdict fared in the run this one replaced ([`crate::travel`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Travel {
    Held,
    CpuDependent,
    New,
}

impl Travel {
    pub fn word(self) -> &'static str {
        match self {
            Self::Held => "held",
            Self::CpuDependent => "CPU-dependent",
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
        Some(b) if decisive(b.verdict) || decisive(now.verdict) => Some(Travel::CpuDependent),
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
/// was not compares with it on the standard ones).
pub fn pass_ratios(baseline: &Record, candidate: &Record) -> Option<Vec<f64>> {
    match (&baseline.passes, &candidate.passes) {
        (Some(b), Some(c)) if !b.is_empty() && !c.is_empty() => {
            Some(b.iter().zip(c).map(|(b, c)| c / b).collect())
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
mod tests {
    use super::*;
    use crate::record::{BenchId, Metric};

    fn cmp(baseline: &Record, candidate: &Record) -> Comparison {
        compare(baseline, candidate, None)
    }

    fn timed(value: f64, lower: f64, upper: f64) -> Record {
        Record::new(BenchId::new("e", "i", "p"), Metric::NsPerOp, value).with_interval(Interval {
            lower,
            upper,
            confidence: 0.95,
        })
    }

    #[test]
    fn separated_intervals_give_faster_or_slower() {
        let base = timed(100.0, 95.0, 105.0);
        let fast = cmp(&base, &timed(50.0, 48.0, 52.0));
        assert_eq!(fast.verdict, Verdict::Better);
        assert!((fast.ratio - 0.5).abs() < 1e-12);
        assert!((fast.change_percent + 50.0).abs() < 1e-9);
        assert_eq!(
            cmp(&base, &timed(150.0, 140.0, 160.0)).verdict,
            Verdict::Worse
        );
    }

    #[test]
    fn overlapping_intervals_are_inconclusive_even_with_different_medians() {
        let base = timed(100.0, 90.0, 110.0);
        assert_eq!(
            cmp(&base, &timed(92.0, 85.0, 91.0)).verdict,
            Verdict::Inconclusive
        );
        assert_eq!(
            cmp(&base, &timed(108.0, 109.0, 120.0)).verdict,
            Verdict::Inconclusive
        );
        // touching at one point is an overlap
        assert_eq!(
            cmp(&base, &timed(80.0, 70.0, 90.0)).verdict,
            Verdict::Inconclusive
        );
    }

    fn passes(metric: Metric, values: &[f64]) -> Record {
        Record::from_passes(BenchId::new("e", "i", "p"), metric, values.to_vec())
    }

    #[test]
    fn passes_compare_pass_by_pass_and_every_pass_must_agree() {
        let base = passes(Metric::NsPerOp, &[10.0, 20.0, 10.0, 20.0, 10.0, 20.0]);
        // Always a little faster than the baseline in the same pass, although the values of the
        // two overlap completely across passes.
        let c = cmp(
            &base,
            &passes(Metric::NsPerOp, &[9.0, 19.0, 9.0, 19.0, 9.0, 19.0]),
        );
        assert_eq!((c.verdict, c.agreement), (Verdict::Better, Some((6, 6))));
        let one_off = passes(Metric::NsPerOp, &[9.0, 19.0, 9.0, 21.0, 9.0, 19.0]);
        let c = cmp(&base, &one_off);
        assert_eq!((c.verdict, c.agreement), (Verdict::Unstable, Some((5, 6))));
        assert_eq!(c.verdict.word(), "unstable");
        let slower = cmp(&base, &passes(Metric::NsPerOp, &[11.0; 6]));
        assert_eq!(
            slower.verdict,
            Verdict::Unstable,
            "slower in 3 passes, faster in 3"
        );
        let twice = passes(Metric::NsPerOp, &[20.0, 40.0, 20.0, 40.0, 20.0, 40.0]);
        let c = cmp(&base, &twice);
        assert_eq!((c.verdict, c.ratio), (Verdict::Worse, 2.0));
        let ops = |v: &[f64]| passes(Metric::OpsPerSec, v);
        assert_eq!(
            cmp(&ops(&[1.0; 6]), &ops(&[2.0; 6])).verdict,
            Verdict::Better
        );
        let few = cmp(
            &passes(Metric::NsPerOp, &[1.0; 5]),
            &passes(Metric::NsPerOp, &[2.0; 5]),
        );
        assert_eq!(
            (few.verdict, few.agreement),
            (Verdict::Inconclusive, Some((5, 5))),
            "under {MIN_PASSES} passes"
        );
        let longer = cmp(&base, &passes(Metric::NsPerOp, &[1.0; 7]));
        assert_eq!(
            longer.agreement,
            Some((6, 6)),
            "added passes of one side: compared on the passes both ran"
        );
        assert!((nominal_false_positive_rate(8) - 0.0078125).abs() < 1e-12);
        let equal = cmp(&base, &base.clone());
        assert_eq!(
            (equal.verdict, equal.agreement),
            (Verdict::Same, Some((6, 6))),
            "equal in every pass"
        );
    }

    #[test]
    fn added_passes_keep_the_sequence_at_the_decision_level() {
        assert_eq!(agreeing_needed(8), 8);
        assert_eq!(agreeing_needed(6), 6, "quick runs: unanimity, rate stated");
        // 14 of 16 alone would be 0.4 %, but after a first look at eight the whole sequence
        // would call 1.09 % of equal pairs different; 15 of 16 keeps it at 0.81 %.
        assert_eq!(agreeing_needed(16), 15);
        let rate = nominal_false_positive_rate(16);
        assert!((rate - 0.008_056_640_625).abs() < 1e-12, "{rate}");
        assert!(sequential_rate(16, 14) > DECISION_LEVEL);
        for n in STANDARD_PASSES..=32 {
            assert!(nominal_false_positive_rate(n) <= DECISION_LEVEL, "{n}");
        }
        let base = passes(Metric::NsPerOp, &[10.0; 16]);
        let mut values = [9.0; 16];
        values[3] = 11.0;
        let c = cmp(&base, &passes(Metric::NsPerOp, &values));
        assert_eq!((c.verdict, c.agreement), (Verdict::Better, Some((15, 16))));
        values[4] = 11.0;
        let c = cmp(&base, &passes(Metric::NsPerOp, &values));
        assert_eq!(
            (c.verdict, c.agreement),
            (Verdict::Unstable, Some((14, 16)))
        );
    }

    #[test]
    fn a_ratio_interval_inside_the_margin_is_same_and_says_its_margin() {
        let base = passes(Metric::NsPerOp, &[10.0; 8]);
        let close = passes(
            Metric::NsPerOp,
            &[9.9, 10.1, 10.2, 9.8, 10.0, 9.9, 10.1, 10.0],
        );
        let c = compare(&base, &close, Some(0.03));
        assert_eq!(c.verdict, Verdict::Same);
        assert_eq!(c.verdict_text("slower"), "same (±3 %)");
        assert_eq!(cmp(&base, &close).verdict, Verdict::Unstable, "no margin");
        // Consistently 1 % faster, inside a 3 % margin: same, not faster.
        let c = compare(&base, &passes(Metric::NsPerOp, &[9.9; 8]), Some(0.03));
        assert_eq!(c.verdict, Verdict::Same);
        // 10 % slower in every pass is outside it.
        let c = compare(&base, &passes(Metric::NsPerOp, &[11.0; 8]), Some(0.03));
        assert_eq!((c.verdict, c.same_within), (Verdict::Worse, None));
        assert_eq!(c.verdict_text("slower"), "slower");
        let i = c.interval.unwrap();
        assert!((i.lower - 1.1).abs() < 1e-12 && (i.upper - 1.1).abs() < 1e-12);
    }

    #[test]
    fn the_margin_is_the_median_twin_half_width_rounded_up() {
        let interval = |lower, upper| Interval {
            lower,
            upper,
            confidence: 0.99,
        };
        let twins = [
            interval(0.99, 1.012),
            interval(0.97, 1.01),
            interval(0.80, 1.50),
        ];
        assert_eq!(same_within(&twins), Some(0.03));
        assert_eq!(
            same_within(&[interval(0.999, 1.001)]),
            Some(0.01),
            "a floor"
        );
        assert_eq!(same_within(&[]), None);
    }

    #[test]
    fn throughput_is_better_when_higher() {
        let ops = |v: f64| {
            Record::new(BenchId::new("e", "i", "p"), Metric::OpsPerSec, v).with_interval(Interval {
                lower: v * 0.99,
                upper: v * 1.01,
                confidence: 0.95,
            })
        };
        assert_eq!(cmp(&ops(100.0), &ops(200.0)).verdict, Verdict::Better);
        assert_eq!(cmp(&ops(200.0), &ops(100.0)).verdict, Verdict::Worse);
    }

    #[test]
    fn exact_counts_compare_by_value() {
        let count = |v: f64| Record::new(BenchId::new("e", "i", "p"), Metric::AllocsPerOp, v);
        assert_eq!(cmp(&count(1.0), &count(0.0)).verdict, Verdict::Better);
        assert_eq!(cmp(&count(0.0), &count(0.0)).verdict, Verdict::Same);
        assert_eq!(cmp(&count(0.0), &count(0.0)).ratio, 1.0);
        let worse = cmp(&count(0.0), &count(2.0));
        assert_eq!(worse.verdict, Verdict::Worse);
        assert!(worse.ratio.is_infinite());
        // 1.0601 and 1.0598 both print 1.06: not "less".
        assert_eq!(cmp(&count(1.0601), &count(1.0598)).verdict, Verdict::Same);
        assert_eq!(cmp(&count(1.06), &count(1.07)).verdict, Verdict::Worse);
    }
}
