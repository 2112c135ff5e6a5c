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
    /// Whether the run measured only the cases its names selected: its times are not the lab's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub filtered: bool,
}

impl StageSeconds {
    pub fn total(&self) -> f64 {
        self.allocation + self.instructions + self.wall_time
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
mod tests {
    use super::*;

    fn sample_set() -> ResultSet {
        ResultSet {
            lab: "dedup".into(),
            mode: RunMode::Quick,
            environment: Environment::fixed_for_tests(),
            timing: None,
            records: vec![
                Record::new(
                    BenchId::new("admission", "topic-mutex", "single"),
                    Metric::NsPerOp,
                    41.5,
                )
                .with_interval(Interval {
                    lower: 40.0,
                    upper: 43.0,
                    confidence: 0.95,
                }),
                Record::new(
                    BenchId::new("footprint", "atomic-slot", "500"),
                    Metric::RetainedBytes,
                    1e4,
                ),
            ],
            repeats: Vec::new(),
            previous: None,
        }
    }

    #[test]
    fn metric_keys_round_trip() {
        for metric in [
            Metric::NsPerOp,
            Metric::EventsPerSec(EventName::new("served")),
            Metric::InstructionsIn(EventName::new("allocator")),
        ] {
            assert_eq!(Metric::from_key(&metric.key()), Ok(metric));
        }
        assert_eq!(Metric::NsPerOp.key(), "ns-per-op");
        assert_eq!(
            Metric::EventsPer100Ops(EventName::new("served")).key(),
            "events-per100-ops(served)"
        );
        assert!(Metric::from_key("speed").is_err());
    }

    #[test]
    fn bench_id_round_trips_and_rejects_malformed() {
        let id: BenchId = "admission/topic-mutex/shared-2".parse().unwrap();
        assert_eq!(id, BenchId::new("admission", "topic-mutex", "shared-2"));
        assert_eq!(id.to_string(), "admission/topic-mutex/shared-2");
        for bad in ["", "a/b", "a/b/c/d", "a//c"] {
            assert!(bad.parse::<BenchId>().is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn result_set_json_round_trip() {
        let set = sample_set();
        let back = ResultSet::from_json(&set.to_json()).unwrap();
        assert_eq!(back, set);
        assert!(set.to_json().contains("\"admission/topic-mutex/single\""));
        assert!(ResultSet::from_json("{\"lab\": 3}").is_err());
    }

    #[test]
    fn passes_combine_into_one_record_per_cell_with_median_and_interval() {
        let id = BenchId::new("e", "i", "p");
        let pass = |v: f64| {
            vec![
                Record::new(id.clone(), Metric::NsPerOp, v),
                Record::new(id.clone(), Metric::OpsPerSec, 1e9 / v),
            ]
        };
        let passes: Vec<Vec<Record>> = [5.0, 1.0, 4.0, 2.0, 3.0, 6.0].map(pass).to_vec();
        let combined = combine_passes(&passes);
        assert_eq!(combined.len(), 2);
        let ns = &combined[0];
        assert_eq!((ns.metric, ns.value), (Metric::NsPerOp, 3.5));
        assert_eq!(
            ns.passes.as_deref(),
            Some(&[5.0, 1.0, 4.0, 2.0, 3.0, 6.0][..]),
            "pass order kept"
        );
        let ci = ns.interval.unwrap();
        assert_eq!((ci.lower, ci.upper), (1.0, 6.0), "six passes: the extremes");
        let two = combine_passes(&passes[..2]);
        assert_eq!(
            (two[0].value, two[0].interval),
            (3.0, None),
            "no interval from two passes"
        );
        let round_trip: Record = serde_json::from_str(&serde_json::to_string(ns).unwrap()).unwrap();
        assert_eq!(&round_trip, ns);
    }

    #[test]
    fn latency_histograms_merge_across_passes_and_percentiles_follow_the_merge() {
        let id = BenchId::new("e", "i", "p");
        let pass = |micros: u64| {
            let sink = crate::latency::LatencySink::new();
            {
                let mut recorder = sink.recorder();
                for _ in 0..100 {
                    recorder.record(std::time::Duration::from_micros(micros));
                }
            }
            latency_records(&id, &sink.latencies())
        };
        let combined = combine_passes(&[pass(10), pass(1000)]);
        let histogram = combined
            .iter()
            .find(|r| r.metric == Metric::LatencyHistogram)
            .unwrap();
        assert_eq!(histogram.value, 200.0);
        assert_eq!(histogram.passes.as_deref(), Some(&[100.0, 100.0][..]));
        let p99 = combined
            .iter()
            .find(|r| r.metric == Metric::LatencyP99Ns)
            .unwrap();
        assert!(
            p99.value > 990_000.0,
            "from the merged histogram: {}",
            p99.value
        );
        assert_eq!(
            p99.passes.as_ref().unwrap().len(),
            2,
            "each pass's own p99 kept"
        );
        let p50 = combined
            .iter()
            .find(|r| r.metric == Metric::LatencyP50Ns)
            .unwrap();
        assert!(p50.value < 10_100.0, "{}", p50.value);
    }

    #[test]
    fn event_names_are_strings_in_json_and_bounded() {
        let metric = Metric::EventsPer100Ops(EventName::new("generations"));
        let json = serde_json::to_string(&metric).unwrap();
        assert_eq!(json, r#"{"events-per100-ops":"generations"}"#);
        assert_eq!(serde_json::from_str::<Metric>(&json).unwrap(), metric);
        assert!(EventName::try_new(&"x".repeat(33)).is_none());
        assert!(
            serde_json::from_str::<Metric>(&format!(
                r#"{{"events-per100-ops":"{}"}}"#,
                "x".repeat(40)
            ))
            .is_err()
        );
    }

    #[test]
    fn write_atomic_replaces_whole_file_and_leaves_no_temporaries() {
        let dir = std::env::temp_dir().join(format!("labkit-atomic-{}", std::process::id()));
        let path = dir.join("out.json");
        write_atomic(&path, "first").unwrap();
        write_atomic(&path, "second").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "second");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "temporaries left behind: {names:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
