//! Ratios against a baseline and an honest verdict: a difference is only called faster or slower
//! when the two confidence intervals do not overlap.

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
    /// Exact counts that are equal.
    Same,
}

impl Verdict {
    /// Word used in tables of time-like metrics.
    pub fn word(self) -> &'static str {
        match self {
            Self::Better => "faster",
            Self::Worse => "slower",
            Self::Inconclusive => "inconclusive",
            Self::Same => "same",
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
