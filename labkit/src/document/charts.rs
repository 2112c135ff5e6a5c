//! The charts a report links, as a lab declares them; [`super::render`] draws them.

use crate::chart::Chart;
use crate::record::{Metric, ResultSet};
use crate::report::{Lines, Row, latency_chart, lines_chart, metric_chart};

/// A chart the report links.
pub enum ChartSpec {
    /// Bars of `metric`: a group per row, a bar per implementation.
    Metric {
        stem: String,
        title: String,
        metric: Metric,
        rows: Vec<Row>,
    },
    /// The percentile curves of one row.
    Latency {
        stem: String,
        title: String,
        row: Row,
    },
    /// A metric against a property of the cases, a line per implementation.
    Lines(Lines),
    /// Drawn by the lab.
    Drawn(Chart),
}

impl ChartSpec {
    /// Bars of `metric` over `rows`.
    pub fn bars(
        stem: impl Into<String>,
        title: impl Into<String>,
        metric: Metric,
        rows: Vec<Row>,
    ) -> Self {
        Self::Metric {
            stem: stem.into(),
            title: title.into(),
            metric,
            rows,
        }
    }

    /// The latency percentile curves of `row`.
    pub fn latency(stem: impl Into<String>, title: impl Into<String>, row: Row) -> Self {
        Self::Latency {
            stem: stem.into(),
            title: title.into(),
            row,
        }
    }

    /// The chart drawn from `set`, a bar, curve or line per implementation.
    pub(super) fn draw(&self, set: &ResultSet, implementations: &[&str]) -> Chart {
        match self {
            ChartSpec::Metric {
                stem,
                title,
                metric,
                rows,
            } => metric_chart(set, stem, title, *metric, rows, implementations),
            ChartSpec::Latency { stem, title, row } => {
                latency_chart(set, stem, title, row, implementations)
            }
            ChartSpec::Lines(lines) => lines_chart(set, lines, implementations),
            ChartSpec::Drawn(chart) => chart.clone(),
        }
    }
}
