//! Ratios against a baseline and an honest verdict.
//!
//! Wall time is compared pass by pass: pass `k` of a candidate and pass `k` of the baseline ran in
//! the same process, interleaved, so their ratio is one paired observation, and passes differ in
//! everything a re-run changes (process, code order, stack and heap offsets, case order). A
//! candidate is called faster or slower only when every pass says so, and at least
//! [`MIN_PASSES`] passes ran (a sign test: 2/2ⁿ is the chance that n passes of two equal
//! designs all point the same way); passes that disagree make the cell `unstable`. Records
//! without passes but with intervals compare by interval overlap; exact counts by value.

use crate::record::Record;

/// The verdict of one candidate against the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Better than the baseline, intervals apart (or exact counts that differ).
    Better,
    /// Worse than the baseline, intervals apart (or exact counts that differ).
    Worse,
    /// The intervals overlap: the run cannot tell them apart.
    Inconclusive,
    /// Exact counts that are equal, or per-pass values equal in every pass.
    Same,
    /// Passes disagree on the direction: a re-run could print either.
    Unstable,
}

/// Fewest passes from which a verdict is taken: with six, two equal designs agree in every pass
/// with probability 2/2⁶ ≈ 3.1 %.
pub const MIN_PASSES: usize = 6;

/// The chance that `passes` passes of two equal designs all point the same way, i.e. the nominal
/// false-positive rate of one cell's verdict.
pub fn nominal_false_positive_rate(passes: usize) -> f64 {
    2.0 * 0.5f64.powi(passes as i32)
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
}

/// Pass-by-pass ratios of `candidate` to `baseline`, when both have the same number of passes.
fn pass_ratios(baseline: &Record, candidate: &Record) -> Option<Vec<f64>> {
    match (&baseline.passes, &candidate.passes) {
        (Some(b), Some(c)) if b.len() == c.len() && !b.is_empty() => {
            Some(b.iter().zip(c).map(|(b, c)| c / b).collect())
        }
        _ => None,
    }
}

fn by_passes(ratios: &[f64], higher_better: bool) -> Comparison {
    let ratio = crate::paired::median(ratios);
    let below = ratios.iter().filter(|r| **r < 1.0).count();
    let above = ratios.iter().filter(|r| **r > 1.0).count();
    let n = ratios.len();
    let (better, worse) = if higher_better {
        (Verdict::Worse, Verdict::Better)
    } else {
        (Verdict::Better, Verdict::Worse)
    };
    let verdict = if n < MIN_PASSES {
        Verdict::Inconclusive
    } else if below == 0 && above == 0 {
        // Equal in every pass (counted events of the same workload): not a disagreement.
        Verdict::Same
    } else if below == n {
        better
    } else if above == n {
        worse
    } else {
        Verdict::Unstable
    };
    Comparison {
        ratio,
        change_percent: (ratio - 1.0) * 100.0,
        verdict,
        // Equal passes all point the way an equal median does.
        agreement: Some((
            match verdict {
                Verdict::Same => n,
                _ if ratio < 1.0 => below,
                _ => above,
            },
            n,
        )),
    }
}

/// Compares `candidate` with `baseline` (same metric). Records with intervals are compared by
/// interval overlap; records without (deterministic counts) by value.
pub fn compare(baseline: &Record, candidate: &Record) -> Comparison {
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
        return by_passes(&ratios, higher_better);
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
            if c == b {
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{BenchId, Interval, Metric};

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
        let fast = compare(&base, &timed(50.0, 48.0, 52.0));
        assert_eq!(fast.verdict, Verdict::Better);
        assert!((fast.ratio - 0.5).abs() < 1e-12);
        assert!((fast.change_percent + 50.0).abs() < 1e-9);
        assert_eq!(
            compare(&base, &timed(150.0, 140.0, 160.0)).verdict,
            Verdict::Worse
        );
    }

    #[test]
    fn overlapping_intervals_are_inconclusive_even_with_different_medians() {
        let base = timed(100.0, 90.0, 110.0);
        assert_eq!(
            compare(&base, &timed(92.0, 85.0, 91.0)).verdict,
            Verdict::Inconclusive
        );
        assert_eq!(
            compare(&base, &timed(108.0, 109.0, 120.0)).verdict,
            Verdict::Inconclusive
        );
        // touching at one point is an overlap
        assert_eq!(
            compare(&base, &timed(80.0, 70.0, 90.0)).verdict,
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
        let c = compare(
            &base,
            &passes(Metric::NsPerOp, &[9.0, 19.0, 9.0, 19.0, 9.0, 19.0]),
        );
        assert_eq!((c.verdict, c.agreement), (Verdict::Better, Some((6, 6))));
        let one_off = passes(Metric::NsPerOp, &[9.0, 19.0, 9.0, 21.0, 9.0, 19.0]);
        let c = compare(&base, &one_off);
        assert_eq!((c.verdict, c.agreement), (Verdict::Unstable, Some((5, 6))));
        assert_eq!(c.verdict.word(), "unstable");
        let slower = compare(&base, &passes(Metric::NsPerOp, &[11.0; 6]));
        assert_eq!(
            slower.verdict,
            Verdict::Unstable,
            "slower in 3 passes, faster in 3"
        );
        let twice = passes(Metric::NsPerOp, &[20.0, 40.0, 20.0, 40.0, 20.0, 40.0]);
        let c = compare(&base, &twice);
        assert_eq!((c.verdict, c.ratio), (Verdict::Worse, 2.0));
        let ops = |v: &[f64]| passes(Metric::OpsPerSec, v);
        assert_eq!(
            compare(&ops(&[1.0; 6]), &ops(&[2.0; 6])).verdict,
            Verdict::Better
        );
        let few = compare(
            &passes(Metric::NsPerOp, &[1.0; 5]),
            &passes(Metric::NsPerOp, &[2.0; 5]),
        );
        assert_eq!(
            (few.verdict, few.agreement),
            (Verdict::Inconclusive, Some((5, 5))),
            "under {MIN_PASSES} passes"
        );
        let uneven = compare(&base, &passes(Metric::NsPerOp, &[1.0; 7]));
        assert_eq!(uneven.agreement, None, "unpaired: falls back to intervals");
        assert!((nominal_false_positive_rate(8) - 0.0078125).abs() < 1e-12);
        let equal = compare(&base, &base.clone());
        assert_eq!(
            (equal.verdict, equal.agreement),
            (Verdict::Same, Some((6, 6))),
            "equal in every pass"
        );
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
        assert_eq!(compare(&ops(100.0), &ops(200.0)).verdict, Verdict::Better);
        assert_eq!(compare(&ops(200.0), &ops(100.0)).verdict, Verdict::Worse);
    }

    #[test]
    fn exact_counts_compare_by_value() {
        let count = |v: f64| Record::new(BenchId::new("e", "i", "p"), Metric::AllocsPerOp, v);
        assert_eq!(compare(&count(1.0), &count(0.0)).verdict, Verdict::Better);
        assert_eq!(compare(&count(0.0), &count(0.0)).verdict, Verdict::Same);
        assert_eq!(compare(&count(0.0), &count(0.0)).ratio, 1.0);
        let worse = compare(&count(0.0), &count(2.0));
        assert_eq!(worse.verdict, Verdict::Worse);
        assert!(worse.ratio.is_infinite());
    }
}
