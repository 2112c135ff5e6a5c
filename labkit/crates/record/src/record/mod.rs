//! Result records: one measured number, named `<experiment>/<implementation>/<parameter>`, so
//! every measurement (wall-time passes, gungraun, allocation, footprint) joins on the same id.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::env::Environment;
use crate::latency::Latencies;
pub use crate::stats::Interval;

mod facts;
pub mod fixtures;
mod id;
mod io;
mod lines;
mod metric;
mod roles;

pub use facts::{Facts, Quantity};
pub use id::{BenchId, Role};
pub use io::{combine_passes, emit_records, load_records, write_atomic};
pub use metric::{EventName, Metric, PERCENTILES};
pub use roles::*;

/// The percentile records of `id` from `latencies`, and the histogram itself (a
/// [`Metric::LatencyHistogram`] record whose value is the number of recorded operations).
pub fn latency_records(id: &BenchId, latencies: &Latencies) -> Vec<Record> {
    let mut records: Vec<Record> = PERCENTILES
        .iter()
        .filter_map(|&(metric, q)| {
            latencies
                .quantile(q)
                .map(|ns| Record::new(id.clone(), metric, ns as f64))
        })
        .collect();
    let mut histogram = Record::new(
        id.clone(),
        Metric::LatencyHistogram,
        latencies.count() as f64,
    );
    histogram.histogram = Some(latencies.clone());
    records.push(histogram);
    records
}

/// The quantiles a committed histogram keeps: the charts' and the published percentiles'.
fn kept_quantiles() -> Vec<f64> {
    let mut quantiles = crate::latency::CURVE_QUANTILES.to_vec();
    quantiles.extend(PERCENTILES.iter().map(|(_, q)| *q));
    quantiles
}

/// Significant digits a committed value keeps ([`ResultSet::compacted`]).
pub const KEPT_DIGITS: i32 = 6;

/// `x` to [`KEPT_DIGITS`] significant digits; zero and non-finite values as they are.
pub fn rounded(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    // Dividing by an exact power of ten (not multiplying by an inexact one) makes the result the
    // double nearest the rounded decimal, so the file prints it in at most that many digits.
    let shift = KEPT_DIGITS - 1 - x.abs().log10().floor() as i32;
    let power = 10f64.powi(shift.abs());
    let kept = if shift >= 0 {
        (x * power).round() / power
    } else {
        (x / power).round() * power
    };
    if kept.is_finite() { kept } else { x }
}

/// One measured number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub id: BenchId,
    pub metric: Metric,
    pub value: f64,
    pub unit: String,
    /// Present for sampled metrics (time); absent for deterministic counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// The value each pass of the wall-time stage measured, in pass order (pass `k` of every
    /// cell of a run ran in the same process), so cells compare pass by pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes: Option<Vec<f64>>,
    /// The latency histogram of a [`Metric::LatencyHistogram`] record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<Latencies>,
}

impl Record {
    pub fn new(id: BenchId, metric: Metric, value: f64) -> Self {
        Self {
            id,
            metric,
            value,
            unit: metric.unit().to_owned(),
            interval: None,
            passes: None,
            histogram: None,
        }
    }

    pub fn with_interval(mut self, interval: Interval) -> Self {
        self.interval = Some(interval);
        self
    }

    /// A record summarising per-pass values: their median, the distribution-free interval of
    /// that median ([`crate::stats::pass_interval`]) when there are enough passes for one, and
    /// the passes themselves.
    pub fn from_passes(id: BenchId, metric: Metric, passes: Vec<f64>) -> Self {
        let estimate = crate::stats::pass_estimate(&passes);
        let mut record = Self::new(id, metric, crate::stats::median(&passes));
        record.interval = estimate.map(|e| e.interval);
        record.passes = Some(passes);
        record
    }

    /// `f` of this record's value and `other`'s, as a record of `id` and `metric`: pass by pass
    /// when both have as many passes (measured in the same processes, so the result keeps their
    /// spread) and `f` is finite in each, else of the two values. `None` where that is not
    /// finite either (a division by zero).
    pub fn combined(
        &self,
        other: &Record,
        id: BenchId,
        metric: Metric,
        f: impl Fn(f64, f64) -> f64,
    ) -> Option<Record> {
        if let (Some(a), Some(b)) = (&self.passes, &other.passes)
            && a.len() == b.len()
        {
            let passes: Vec<f64> = a.iter().zip(b).map(|(a, b)| f(*a, *b)).collect();
            if passes.iter().all(|v| v.is_finite()) {
                return Some(Record::from_passes(id, metric, passes));
            }
        }
        let value = f(self.value, other.value);
        value.is_finite().then(|| Record::new(id, metric, value))
    }
}

/// How a result set was produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunMode {
    /// Full measurement settings.
    Full,
    /// Short measurement, wider intervals.
    Quick,
    /// One iteration per benchmark: proves the pipeline runs; the numbers mean nothing.
    Smoke,
}

impl RunMode {
    /// The flag a measurement binary takes for this mode (see [`crate::args::RunArgs`]).
    pub fn bench_flag(self) -> Option<&'static str> {
        match self {
            Self::Full => None,
            Self::Quick => Some("--quick"),
            Self::Smoke => Some("--test"),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Quick => "quick (short measurement, wider intervals)",
            Self::Smoke => "smoke (pipeline check only; numbers are meaningless)",
        }
    }
}

/// How the code was laid out across a run's wall-time passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkOrder {
    /// Each pass ran a binary linked with its own order of code sections.
    ShuffledPerPass,
    /// Every pass ran the same binary (`cargo xtask bench --fixed-layout`).
    Fixed,
}

/// How the wall-time stage of a run sampled, so a report can say what its verdicts rest on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TimingMethod {
    /// Pass `k` (from 1) ran with seed `first_seed + k − 1`: its link order, environment size,
    /// heap spacers and orders.
    #[serde(default)]
    pub first_seed: u64,
    pub passes: usize,
    /// Interleaved samples of every cell per pass.
    pub rounds: usize,
    /// Shortest timed part of one sample.
    pub sample_ns: u64,
    pub link_order: LinkOrder,
    /// Passes an undecided cell could get in all (standard ones included); 0 in older runs.
    #[serde(default)]
    pub extended_passes: usize,
    /// The equivalence margin δ this run's A/A twins resolve ([`crate::compare::same_within`]):
    /// a per-pass ratio whose interval lies within `1 ± δ` is `same`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_within: Option<f64>,
    /// How long each stage of the run took; absent in older runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage_seconds: Option<StageSeconds>,
}

/// The wall-clock seconds of a run's three stages, as the driver measured them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StageSeconds {
    pub allocation: f64,
    pub instructions: f64,
    pub wall_time: f64,
    /// The JVM side's: JMH's forks and JOL's weighings (0 for a lab without one).
    #[serde(default)]
    pub jvm: f64,
    /// Whether the run measured only the cases its names selected: its times are not the lab's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub filtered: bool,
}

impl StageSeconds {
    pub fn total(&self) -> f64 {
        self.allocation + self.instructions + self.wall_time + self.jvm
    }
}

/// A pass run again with its own seed, on some of its cases or whole, and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassRepeat {
    /// The pass, from 1, and its seed (its link order, stack and heap offsets, orders).
    pub pass: usize,
    pub seed: u64,
    /// The cases run again (`experiment/parameter`); empty for the whole pass.
    #[serde(default)]
    pub cases: Vec<String>,
    pub reason: RepeatReason,
    /// For an outlier repeat: the cells whose ratio to the baseline was the outlier.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<RepeatedCell>,
    pub outcome: RepeatOutcome,
}

/// Why a pass was run again.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RepeatReason {
    /// A cell's ratio in it was an outlier against its other passes.
    Outlier,
    /// The machine stole this share of its CPU time (`again`: the repeat's).
    Disturbed { steal_share: f64, again: f64 },
}

/// One outlying cell of a repeated pass: its ratio to the baseline the first time and again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepeatedCell {
    pub id: BenchId,
    pub metric: Metric,
    pub first: f64,
    pub again: f64,
    pub outlier_again: bool,
}

/// What a repeat showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RepeatOutcome {
    /// Not an outlier (or less disturbed) again: the machine's; the repeat replaced the first.
    Machine,
    /// An outlier again with the same seed: the placement's; the first stays, and the report
    /// lists it.
    Placement,
    /// Some outliers reappeared, some not: the first stays.
    Mixed,
}

/// Everything one run of one lab measured, with the environment it ran in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultSet {
    pub lab: String,
    pub mode: RunMode,
    pub environment: Environment,
    /// Absent when the run timed nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<TimingMethod>,
    pub records: Vec<Record>,
    /// The passes the wall-time stage ran again ([`crate::passes`]), both measurements recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repeats: Vec<PassRepeat>,
    /// The run this one replaced (its environment, its margin and its timed records), against
    /// which the report says which verdicts travelled ([`ResultSet::as_previous`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<Box<ResultSet>>,
}

impl ResultSet {
    /// What a later run keeps of this one to compare its verdicts with: the environment, the
    /// timing (its margin) and the records `keep` chooses (labkit's `lab::kept_of_previous`),
    /// without histograms, repeats or this run's own previous run.
    pub fn as_previous(&self, keep: impl Fn(&Record) -> bool) -> ResultSet {
        ResultSet {
            records: self
                .records
                .iter()
                .filter(|r| keep(r))
                .map(|r| Record {
                    histogram: None,
                    ..r.clone()
                })
                .collect(),
            repeats: Vec::new(),
            previous: None,
            ..self.clone()
        }
    }

    /// This set as the results directory keeps it: every value, pass and interval bound to
    /// [`KEPT_DIGITS`] significant digits (far finer than any spread between passes), and every
    /// histogram at the quantiles a page reads ([`Latencies::at_quantiles`]: the percentile
    /// records were read from the whole histogram before). The previous run's records are kept
    /// as they were read.
    pub fn compacted(&self) -> ResultSet {
        let records = self
            .records
            .iter()
            .map(|r| Record {
                value: rounded(r.value),
                interval: r.interval.map(|i| Interval {
                    lower: rounded(i.lower),
                    upper: rounded(i.upper),
                    confidence: rounded(i.confidence),
                }),
                passes: r
                    .passes
                    .as_ref()
                    .map(|p| p.iter().copied().map(rounded).collect()),
                histogram: r
                    .histogram
                    .as_ref()
                    .map(|h| h.at_quantiles(&kept_quantiles())),
                ..r.clone()
            })
            .collect();
        ResultSet {
            records,
            ..self.clone()
        }
    }

    /// The record for `id` and `metric`, if measured.
    pub fn find(&self, id: &BenchId, metric: Metric) -> Option<&Record> {
        self.records
            .iter()
            .find(|r| &r.id == id && r.metric == metric)
    }

    pub fn to_json(&self) -> String {
        lines::to_string(self).expect("result sets contain only serialisable data")
    }

    pub fn from_json(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|e| format!("not a lab result set: {e}"))
    }

    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Self::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests;
