//! A chart of one metric against a property of the cases (entries per ledger, users), one line
//! per implementation, on log scales: how a design's cost grows where a bar chart shows one case
//! at a time.

use crate::chart::{Chart, log_log_chart};
use crate::record::{BenchId, Metric, ResultSet};

/// What a [`lines_chart`] draws.
pub struct Lines {
    pub stem: String,
    pub title: String,
    pub x_axis: String,
    pub y_axis: String,
    pub metric: Metric,
    pub experiment: String,
    /// Each point's x and the parameter whose value is its y, with the name its label starts with.
    pub points: Vec<Point>,
    /// The y drawn is the value over this (bytes per MiB, or 1), printed with `unit`.
    pub divisor: f64,
    pub unit: String,
}

/// One case on a [`Lines`] chart.
#[derive(Debug, Clone)]
pub struct Point {
    pub x: f64,
    pub parameter: String,
    pub name: String,
}

/// `lines` drawn for `implementations` from `set`: a point where a value was measured and is
/// above zero (a log scale has no zero), labelled `name: value unit`.
pub fn lines_chart(set: &ResultSet, lines: &Lines, implementations: &[&str]) -> Chart {
    let drawn: Vec<Vec<(f64, f64, String)>> = implementations
        .iter()
        .map(|implementation| {
            lines
                .points
                .iter()
                .filter_map(|p| {
                    let id = BenchId::new(&lines.experiment, implementation, &p.parameter);
                    let y = set.find(&id, lines.metric)?.value / lines.divisor;
                    let label = format!("{}: {y:.1} {}", p.name, lines.unit);
                    (y > 0.0).then_some((p.x, y, label))
                })
                .collect()
        })
        .collect();
    Chart {
        stem: lines.stem.clone(),
        title: lines.title.clone(),
        svg: log_log_chart(
            &lines.title,
            &lines.x_axis,
            &lines.y_axis,
            implementations,
            &drawn,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Record;

    #[test]
    fn a_line_per_design_through_the_measured_points_above_zero() {
        let record = |implementation: &str, parameter: &str, value: f64| {
            Record::new(
                BenchId::new("size", implementation, parameter),
                Metric::RetainedBytes,
                value,
            )
        };
        let set = ResultSet::of(vec![
            record("a", "small", 2048.0),
            record("a", "large", 0.0),
            record("b", "small", 4096.0),
        ]);
        let point = |x: f64, parameter: &str| Point {
            x,
            parameter: parameter.into(),
            name: format!("{parameter} case"),
        };
        let lines = Lines {
            stem: "size".into(),
            title: "size against entries".into(),
            x_axis: "entries".into(),
            y_axis: "KiB".into(),
            metric: Metric::RetainedBytes,
            experiment: "size".into(),
            points: vec![point(10.0, "small"), point(1000.0, "large")],
            divisor: 1024.0,
            unit: "KiB".into(),
        };
        let chart = lines_chart(&set, &lines, &["a", "b"]);
        assert!(chart.svg.contains("small case: 2.0 KiB"), "{}", chart.svg);
        assert!(chart.svg.contains("small case: 4.0 KiB"));
        assert!(
            !chart.svg.contains("large case"),
            "a zero has no place on a log scale"
        );
    }
}
