//! Paired, interleaved timing of two implementations: A, B, B, A, A, B, … so that drift on a noisy
//! shared machine hits both sides alike, and the comparison is the distribution of per-pair
//! ratios rather than two medians taken minutes apart.

use crate::record::{BenchId, Interval, Metric, Record, RunMode};

/// Pairs per case: enough for a 95 % interval of the median ratio (at least 6), more in full runs.
pub fn pairs_for(mode: RunMode) -> usize {
    match mode {
        RunMode::Smoke => 6,
        RunMode::Quick => 20,
        RunMode::Full => 60,
    }
}

/// A median with a distribution-free 95 % confidence interval (order statistics).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MedianEstimate {
    pub median: f64,
    pub interval: Interval,
}

/// The outcome of [`interleave`]: each side's ns/op and the per-pair ratio B / A.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedEstimate {
    pub a: MedianEstimate,
    pub b: MedianEstimate,
    pub ratio: MedianEstimate,
    pub pairs: usize,
}

/// Median of `values` with the 95 % interval between the order statistics
/// `n/2 ∓ 1.96·√n/2` (the binomial interval for a median); `None` for fewer than 6 values,
/// where no such interval exists.
pub fn median_estimate(values: &[f64]) -> Option<MedianEstimate> {
    let n = values.len();
    if n < 6 {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    let half_width = 1.96 * (n as f64).sqrt() / 2.0;
    let lower = ((n as f64 / 2.0 - half_width).floor().max(0.0)) as usize;
    let upper = ((n as f64 / 2.0 + half_width).ceil() as usize).min(n - 1);
    Some(MedianEstimate {
        median,
        interval: Interval {
            lower: sorted[lower],
            upper: sorted[upper],
            confidence: 0.95,
        },
    })
}

/// Runs `pairs` rounds of one `a` sample and one `b` sample each, alternating which goes first,
/// and estimates both sides and the ratio `b / a` per round. Each closure returns one sample in
/// ns/op. `pairs` must be at least 6.
pub fn interleave(
    pairs: usize,
    mut a: impl FnMut() -> f64,
    mut b: impl FnMut() -> f64,
) -> Option<PairedEstimate> {
    let mut a_samples = Vec::with_capacity(pairs);
    let mut b_samples = Vec::with_capacity(pairs);
    for round in 0..pairs {
        let (x, y) = if round % 2 == 0 {
            let x = a();
            (x, b())
        } else {
            let y = b();
            (a(), y)
        };
        a_samples.push(x);
        b_samples.push(y);
    }
    let ratios: Vec<f64> = a_samples
        .iter()
        .zip(&b_samples)
        .map(|(a, b)| b / a)
        .collect();
    Some(PairedEstimate {
        a: median_estimate(&a_samples)?,
        b: median_estimate(&b_samples)?,
        ratio: median_estimate(&ratios)?,
        pairs,
    })
}

/// The id of the ratio record for B against A.
pub fn ratio_implementation(a: &str, b: &str) -> String {
    format!("{b}-vs-{a}")
}

/// The implementation name B's records carry: `b`, or `<b>-again` when A and B are the same
/// implementation (an A/A run, which shows the noise floor).
pub fn b_side_name(a: &str, b: &str) -> String {
    if a == b {
        format!("{b}-again")
    } else {
        b.to_owned()
    }
}

/// Records for one paired case: each side's ns/op and the ratio B / A, all with their 95 %
/// intervals.
pub fn paired_records(
    experiment: &str,
    a: &str,
    b: &str,
    parameter: &str,
    estimate: &PairedEstimate,
) -> Vec<Record> {
    let record = |implementation: &str, metric: Metric, e: &MedianEstimate| {
        Record::new(
            BenchId::new(experiment, implementation, parameter),
            metric,
            e.median,
        )
        .with_interval(e.interval)
    };
    vec![
        record(a, Metric::NsPerOp, &estimate.a),
        record(&b_side_name(a, b), Metric::NsPerOp, &estimate.b),
        record(
            &ratio_implementation(a, b),
            Metric::PairedRatio,
            &estimate.ratio,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_interval_brackets_the_median_and_narrows_with_more_samples() {
        let values: Vec<f64> = (1..=101).map(f64::from).collect();
        let e = median_estimate(&values).unwrap();
        assert_eq!(e.median, 51.0);
        assert!(e.interval.lower < 51.0 && e.interval.upper > 51.0);
        assert!(
            e.interval.lower >= 40.0 && e.interval.upper <= 62.0,
            "{e:?}"
        );
        assert!(median_estimate(&[1.0, 2.0, 3.0]).is_none());
    }

    #[test]
    fn interleaving_alternates_order_and_reports_the_ratio() {
        let mut calls = Vec::new();
        let calls_a = std::cell::RefCell::new(&mut calls);
        let mut t = 0.0;
        let e = interleave(
            10,
            || {
                calls_a.borrow_mut().push('a');
                10.0
            },
            || {
                calls_a.borrow_mut().push('b');
                t += 1.0;
                20.0 + t % 2.0
            },
        )
        .unwrap();
        assert_eq!(calls[..4], ['a', 'b', 'b', 'a']);
        assert!((e.ratio.median - 2.05).abs() < 0.051, "{e:?}");
        assert!(e.ratio.interval.lower >= 2.0 && e.ratio.interval.upper <= 2.1);
        assert_eq!(e.pairs, 10);
    }
}
