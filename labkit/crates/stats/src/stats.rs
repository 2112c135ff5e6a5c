//! The statistics every verdict rests on, distribution-free: medians, order-statistic intervals of
//! a median (the binomial interval) and the binomial probabilities of a sign test. Nothing here
//! knows a record, a lab or a run.

use serde::{Deserialize, Serialize};

/// A confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub lower: f64,
    pub upper: f64,
    /// Its coverage, e.g. 0.92: written with every interval into the results file, so that a
    /// reader of the JSON knows what the interval claims without this crate's constants.
    pub confidence: f64,
}

/// A median with a distribution-free 95 % confidence interval (order statistics).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MedianEstimate {
    pub median: f64,
    pub interval: Interval,
}

/// P(X = k) for X ~ Bin(n, ½).
pub fn binomial(n: usize, k: usize) -> f64 {
    let mut c = 1.0;
    for i in 0..k {
        c = c * (n - i) as f64 / (i + 1) as f64;
    }
    c * 0.5f64.powi(n as i32)
}

/// The distribution-free interval of the median of `values` (order statistics, the binomial
/// interval): the narrowest pair of ranks whose coverage is at least 95 %, with that coverage.
/// `None` for fewer than 6 values, where even the full range covers less.
pub fn median_interval(values: &[f64]) -> Option<Interval> {
    median_interval_covering(values, 0.95)
}

/// Coverage of the interval a cell's passes get ([`pass_interval`]).
pub const PASS_COVERAGE: f64 = 0.92;

/// The interval of the median of a cell's passes, or of its per-pass ratios: at least
/// [`PASS_COVERAGE`] — the 2nd to the 7th of 8 passes (93.0 %), the 5th to the 12th of 16
/// (92.3 %), the whole range of 6 (96.9 %). At 95 % eight passes would need their whole range,
/// which one pass the machine disturbed can stretch as far as it likes; one rank in from each end
/// is what keeps an A/A twin's interval, and the margin δ taken from it, to the passes' own
/// spread.
pub fn pass_interval(values: &[f64]) -> Option<Interval> {
    median_interval_covering(values, PASS_COVERAGE)
}

/// The narrowest order-statistic interval of the median of `values` covering at least
/// `coverage`.
fn median_interval_covering(values: &[f64], coverage: f64) -> Option<Interval> {
    let tail = (1.0 - coverage) / 2.0;
    let n = values.len();
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    // Outside rank r on either side with probability P(X ≤ r − 1) each.
    let mut outside = 0.0;
    let mut rank = 0;
    while rank < n / 2 {
        let next = outside + binomial(n, rank);
        if next > tail + 1e-12 {
            break;
        }
        outside = next;
        rank += 1;
    }
    (rank > 0).then(|| Interval {
        lower: sorted[rank - 1],
        upper: sorted[n - rank],
        confidence: 1.0 - 2.0 * outside,
    })
}

/// Median of `values` with its [`median_interval`]; `None` for fewer than 6 values, where no
/// such interval exists.
pub fn median_estimate(values: &[f64]) -> Option<MedianEstimate> {
    Some(MedianEstimate {
        median: median(values),
        interval: median_interval(values)?,
    })
}

/// Median of a cell's passes with its [`pass_interval`]; `None` for fewer than 5 passes, where
/// even their whole range covers less.
pub fn pass_estimate(values: &[f64]) -> Option<MedianEstimate> {
    Some(MedianEstimate {
        median: median(values),
        interval: pass_interval(values)?,
    })
}

/// A seeded generator (splitmix64) for the orders a run draws: the same seed, the same orders.
#[derive(Debug, Clone)]
pub struct Seeded {
    state: u64,
}

impl Seeded {
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (for the small `n` used here the modulo bias is negligible).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// A Fisher-Yates shuffle of `items`.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

/// The median of `values` (NaN for none).
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
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
    fn the_median_interval_takes_the_ranks_of_at_least_95_percent() {
        let eight: Vec<f64> = (1..=8).map(f64::from).collect();
        let i = median_interval(&eight).unwrap();
        assert_eq!(
            (i.lower, i.upper),
            (1.0, 8.0),
            "eight values: the whole range"
        );
        assert!((i.confidence - (1.0 - 2.0 / 256.0)).abs() < 1e-12);
        let sixteen: Vec<f64> = (1..=16).rev().map(f64::from).collect();
        let i = median_interval(&sixteen).unwrap();
        assert_eq!((i.lower, i.upper), (4.0, 13.0));
        assert!(i.confidence >= 0.95 && i.confidence < 0.98, "{i:?}");
        assert!(
            median_interval(&[1.0; 5]).is_none(),
            "five cover under 95 %"
        );
    }

    #[test]
    fn a_cells_passes_get_the_ranks_of_at_least_92_percent() {
        let eight: Vec<f64> = (1..=8).rev().map(f64::from).collect();
        let i = pass_interval(&eight).unwrap();
        assert_eq!((i.lower, i.upper), (2.0, 7.0), "one rank in from each end");
        assert!((i.confidence - (1.0 - 2.0 * 9.0 / 256.0)).abs() < 1e-12);
        let sixteen: Vec<f64> = (1..=16).map(f64::from).collect();
        let i = pass_interval(&sixteen).unwrap();
        assert_eq!((i.lower, i.upper), (5.0, 12.0));
        assert!(
            i.confidence >= PASS_COVERAGE && i.confidence < 0.93,
            "{i:?}"
        );
        let six = pass_interval(&[3.0, 1.0, 2.0, 6.0, 5.0, 4.0]).unwrap();
        assert_eq!((six.lower, six.upper), (1.0, 6.0), "six: the whole range");
        assert!(pass_estimate(&[1.0; 4]).is_none(), "four cover under 92 %");
        // One disturbed pass does not stretch the interval.
        let mut ratios = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.3];
        assert!(pass_interval(&ratios).unwrap().upper <= 1.02);
        ratios.sort_by(f64::total_cmp);
        assert_eq!(pass_estimate(&ratios).unwrap().median, 1.0);
    }
}
