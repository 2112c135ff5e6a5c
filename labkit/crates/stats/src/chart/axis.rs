//! A line chart's axes: how values map to positions and where the ticks go, on a logarithmic or
//! a linear scale.

/// How an axis maps values to positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Decades evenly spaced; only positive values are drawn.
    Log,
    /// Values evenly spaced, from 0 (or the lowest value, when below 0).
    Linear,
}

impl Scale {
    pub(super) fn word(self) -> &'static str {
        match self {
            Scale::Log => "logarithmic",
            Scale::Linear => "linear",
        }
    }

    /// Whether `value` can be drawn on this scale.
    pub(super) fn draws(self, value: f64) -> bool {
        match self {
            Scale::Log => value > 0.0 && value.is_finite(),
            Scale::Linear => value.is_finite(),
        }
    }

    /// `value` in the axis's own units (its decade on a log scale).
    pub(super) fn at(self, value: f64) -> f64 {
        match self {
            Scale::Log => value.log10(),
            Scale::Linear => value,
        }
    }

    /// The axis's range around `values`, in its own units, in whole ticks, so that every point
    /// sits inside the frame.
    pub(super) fn range(self, values: &[f64]) -> (f64, f64) {
        let low = values.iter().copied().fold(f64::INFINITY, f64::min);
        let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if values.is_empty() {
            // Nothing to draw: one empty decade, or 0 to 1.
            return (0.0, 1.0);
        }
        match self {
            Scale::Log => {
                let low = log_ticks(low / 2.0, low).last().copied().unwrap_or(low);
                let high = log_ticks(high, high * 2.5).first().copied().unwrap_or(high);
                (low.log10(), high.log10().max(low.log10() + 1.0))
            }
            Scale::Linear => {
                let low = low.min(0.0);
                let step = linear_step(high - low);
                let high = (high / step).ceil() * step;
                (low, if high > low { high } else { low + 1.0 })
            }
        }
    }

    /// The ticks between `low` and `high` (the axis's own units), as values.
    pub(super) fn ticks(self, low: f64, high: f64) -> Vec<f64> {
        match self {
            Scale::Log => log_ticks(10f64.powf(low), 10f64.powf(high)),
            Scale::Linear => {
                let step = linear_step(high - low);
                let first = (low / step).ceil() as i64;
                let last = (high / step + 1e-9).floor() as i64;
                (first..=last).map(|k| k as f64 * step).collect()
            }
        }
    }
}

/// A 1-2-5 step that cuts `span` into at most ten.
fn linear_step(span: f64) -> f64 {
    if span <= 0.0 || !span.is_finite() {
        return 1.0;
    }
    let decade = 10f64.powf((span / 10.0).log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * decade)
        .find(|step| span / step <= 10.0)
        .unwrap_or(10.0 * decade)
}

/// The 1-2-5 sequence of values within `[low, high]`, for log-axis ticks; none unless both bounds
/// are positive and finite (an empty chart has no range).
pub(super) fn log_ticks(low: f64, high: f64) -> Vec<f64> {
    let mut ticks = Vec::new();
    if !(low > 0.0 && low.is_finite() && high.is_finite() && low <= high) {
        return ticks;
    }
    let mut decade = 10f64.powf(low.log10().floor());
    while decade <= high {
        for step in [1.0, 2.0, 5.0] {
            let tick = decade * step;
            // Bounds come back from log10 and powf, so allow for their rounding.
            if tick >= low * (1.0 - 1e-9) && tick <= high * (1.0 + 1e-9) {
                ticks.push(tick);
            }
        }
        decade *= 10.0;
    }
    ticks
}

/// A short tick label: 0.5, 2, 50, 1k, 20k, 1M.
pub(super) fn tick_label(value: f64) -> String {
    match value {
        v if v >= 1e6 => format!("{}M", v / 1e6),
        v if v >= 1e3 => format!("{}k", v / 1e3),
        v => {
            let text = format!("{v:.3}");
            text.trim_end_matches('0').trim_end_matches('.').to_owned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_ticks_follow_one_two_five() {
        assert_eq!(
            log_ticks(1.0, 100.0),
            [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]
        );
        assert_eq!(log_ticks(3.0, 40.0), [5.0, 10.0, 20.0]);
        assert_eq!(
            log_ticks(10f64.powf(5f64.log10()), 10f64.powf(50f64.log10())).len(),
            4
        );
        assert!(log_ticks(f64::INFINITY, 0.0).is_empty());
        assert!(log_ticks(0.0, 10.0).is_empty());
        assert_eq!(tick_label(2000.0), "2k");
        assert_eq!(tick_label(1e6), "1M");
        assert_eq!(tick_label(50.0), "50");
        assert_eq!(tick_label(0.2), "0.2");
    }

    #[test]
    fn a_linear_axis_starts_at_zero_and_ends_on_a_whole_step_above_the_data() {
        let (low, high) = Scale::Linear.range(&[3.0, 117.0, 40.0]);
        assert_eq!((low, high), (0.0, 120.0));
        assert_eq!(
            Scale::Linear.ticks(low, high),
            [0.0, 20.0, 40.0, 60.0, 80.0, 100.0, 120.0]
        );
        // All zeros still give an axis; a flat line is drawn on it.
        assert_eq!(Scale::Linear.range(&[0.0, 0.0]), (0.0, 1.0));
        assert_eq!(Scale::Linear.ticks(0.0, 1.0).first(), Some(&0.0));
        assert!(Scale::Linear.draws(0.0) && !Scale::Log.draws(0.0));
    }
}
