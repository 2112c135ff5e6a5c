//! The charts a report links, as a lab declares them; [`super::render`] draws them.

use crate::chart::Chart;
use crate::record::Metric;
use crate::report::{Lines, Row};

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
}
