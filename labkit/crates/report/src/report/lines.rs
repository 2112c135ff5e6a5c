//! A chart of one metric against a property of the cases (entries per ledger, users, seconds
//! into a run), one line per implementation: how a design's value grows where a bar chart shows
//! one case at a time. The same points print as a table ([`lines_table`]).

use crate::chart::{Chart, Scale, line_chart};
use crate::record::{BenchId, Metric, ResultSet};
use crate::table::{Align, Table, format_number};

/// What a [`lines_chart`] draws.
pub struct Lines {
    pub stem: String,
    pub title: String,
    pub x_axis: String,
    pub y_axis: String,
    /// Both axes' scale: a log scale draws no point at or below zero.
    pub scale: Scale,
    pub metric: Metric,
    /// Each point's x and the case whose value is its y, with the name its label starts with.
    pub points: Vec<Point>,
    /// The y drawn is the value over this (bytes per MiB, or 1), printed with `unit` and
    /// `decimals` digits after the point.
    pub divisor: f64,
    pub unit: String,
    pub decimals: usize,
}

/// One case on a [`Lines`] chart.
#[derive(Debug, Clone)]
pub struct Point {
    pub x: f64,
    pub experiment: String,
    pub parameter: String,
    pub name: String,
}

impl Lines {
    /// A chart of `metric` through `points`, on log scales with unnamed axes, each value printed
    /// with one decimal and no unit.
    pub fn new(
        stem: impl Into<String>,
        title: impl Into<String>,
        metric: Metric,
        points: Vec<Point>,
    ) -> Self {
        Self {
            stem: stem.into(),
            title: title.into(),
            x_axis: String::new(),
            y_axis: String::new(),
            scale: Scale::Log,
            metric,
            points,
            divisor: 1.0,
            unit: String::new(),
            decimals: 1,
        }
    }

    /// The axes' names and their scale.
    pub fn axes(self, x_axis: &str, y_axis: &str, scale: Scale) -> Self {
        Self {
            x_axis: x_axis.into(),
            y_axis: y_axis.into(),
            scale,
            ..self
        }
    }

    /// Values drawn over `divisor`, printed with `decimals` digits and `unit`.
    pub fn unit(self, unit: &str, divisor: f64, decimals: usize) -> Self {
        Self {
            unit: unit.into(),
            divisor,
            decimals,
            ..self
        }
    }

    /// Each point's y for `implementation`, where one was measured (and is above zero on a log
    /// scale), with the point and its index among the chart's points.
    fn line<'a>(
        &'a self,
        set: &'a ResultSet,
        implementation: &'a str,
    ) -> impl Iterator<Item = (usize, &'a Point, f64)> + 'a {
        self.points.iter().enumerate().filter_map(move |(k, p)| {
            let id = BenchId::new(&p.experiment, implementation, &p.parameter);
            let y = set.find(&id, self.metric)?.value / self.divisor;
            (self.scale == Scale::Linear || y > 0.0).then_some((k, p, y))
        })
    }
}

impl Point {
    pub fn new(x: f64, experiment: &str, parameter: &str, name: impl Into<String>) -> Self {
        Self {
            x,
            experiment: experiment.into(),
            parameter: parameter.into(),
            name: name.into(),
        }
    }
}

/// `lines` drawn for `implementations` from `set`, each point labelled `name: value unit`.
pub fn lines_chart(set: &ResultSet, lines: &Lines, implementations: &[&str]) -> Chart {
    let drawn: Vec<Vec<(f64, f64, String)>> = implementations
        .iter()
        .map(|implementation| {
            lines
                .line(set, implementation)
                .map(|(_, p, y)| {
                    let label = format!("{}: {y:.2$} {}", p.name, lines.unit, lines.decimals);
                    (p.x, y, label)
                })
                .collect()
        })
        .collect();
    Chart {
        stem: lines.stem.clone(),
        title: lines.title.clone(),
        svg: line_chart(
            &lines.title,
            (&lines.x_axis, lines.scale),
            (&lines.y_axis, lines.scale),
            implementations,
            &drawn,
        ),
    }
}

/// The chart's points as a table: a row per implementation, a column per point some
/// implementation has, `—` where it has none.
pub fn lines_table(set: &ResultSet, lines: &Lines, implementations: &[&str]) -> Table {
    let values: Vec<Vec<Option<f64>>> = implementations
        .iter()
        .map(|implementation| {
            let mut row = vec![None; lines.points.len()];
            for (k, _, y) in lines.line(set, implementation) {
                row[k] = Some(y);
            }
            row
        })
        .collect();
    let kept: Vec<usize> = (0..lines.points.len())
        .filter(|&k| values.iter().any(|row| row[k].is_some()))
        .collect();
    let mut table = kept
        .iter()
        .fold(Table::new().column("Design", Align::Left), |table, &k| {
            table.column(&lines.points[k].name, Align::Right)
        });
    for (implementation, row) in implementations.iter().zip(&values) {
        let mut cells = vec![format!("`{implementation}`")];
        cells.extend(
            kept.iter()
                .map(|&k| row[k].map_or_else(|| "—".into(), format_number)),
        );
        table.row(cells);
    }
    table
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
        let set = crate::record::fixtures::set(vec![
            record("a", "small", 2048.0),
            record("a", "large", 0.0),
            record("b", "small", 4096.0),
        ]);
        let point =
            |x: f64, parameter: &str| Point::new(x, "size", parameter, format!("{parameter} case"));
        let points = vec![point(10.0, "small"), point(1000.0, "large")];
        let lines = Lines::new(
            "size",
            "size against entries",
            Metric::RetainedBytes,
            points,
        )
        .axes("entries", "KiB", Scale::Log)
        .unit("KiB", 1024.0, 1);
        let chart = lines_chart(&set, &lines, &["a", "b"]);
        assert!(chart.svg.contains("small case: 2.0 KiB"), "{}", chart.svg);
        assert!(chart.svg.contains("small case: 4.0 KiB"));
        assert!(
            !chart.svg.contains("large case"),
            "a zero has no place on a log scale"
        );
    }

    #[test]
    fn a_table_keeps_the_points_some_design_has_and_zeros_on_a_linear_scale() {
        let record = |implementation: &str, experiment: &str, value: f64| {
            Record::new(
                BenchId::new(experiment, implementation, "load"),
                Metric::Ratio,
                value,
            )
        };
        let set = crate::record::fixtures::set(vec![
            record("a", "at-1", 0.0),
            record("a", "at-2", 5.0),
            record("b", "at-1", 2.0),
        ]);
        let points = ["at-1", "at-2", "at-3"]
            .iter()
            .enumerate()
            .map(|(k, e)| Point::new(k as f64, e, "load", format!("{k} s")))
            .collect();
        let lines = Lines::new("waiting", "waiting", Metric::Ratio, points)
            .axes("s", "waiting", Scale::Linear)
            .unit("waiting", 1.0, 0);
        let table = lines_table(&set, &lines, &["a", "b"]).render();
        assert!(table.contains("| Design | 0 s | 1 s |"), "{table}");
        assert!(!table.contains("2 s"), "no design reached the third point");
        assert!(table.contains("| `b` | 2.00 | — |"), "{table}");
        let chart = lines_chart(&set, &lines, &["a", "b"]);
        assert!(
            chart.svg.contains("0 s: 0 waiting"),
            "a linear scale draws zeros"
        );
    }
}
