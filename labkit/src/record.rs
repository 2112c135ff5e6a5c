//! Result records: one measured number, named `<experiment>/<implementation>/<parameter>`, so
//! every measurement (wall-time passes, gungraun, allocation, footprint) joins on the same id.

use std::fmt;
use std::io::Write;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::env::Environment;
use crate::latency::Latencies;

/// `<experiment>/<implementation>/<parameter>`, e.g. `admission/topic-mutex/shared-2`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct BenchId {
    pub experiment: String,
    pub implementation: String,
    pub parameter: String,
}

impl BenchId {
    pub fn new(experiment: &str, implementation: &str, parameter: &str) -> Self {
        Self {
            experiment: experiment.to_owned(),
            implementation: implementation.to_owned(),
            parameter: parameter.to_owned(),
        }
    }
}

impl fmt::Display for BenchId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{}",
            self.experiment, self.implementation, self.parameter
        )
    }
}

impl FromStr for BenchId {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let parts: Vec<&str> = s.split('/').collect();
        match parts.as_slice() {
            [e, i, p] if !e.is_empty() && !i.is_empty() && !p.is_empty() => Ok(Self::new(e, i, p)),
            _ => Err(format!(
                "bench id `{s}` is not of the form <experiment>/<implementation>/<parameter>"
            )),
        }
    }
}

impl TryFrom<String> for BenchId {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl From<BenchId> for String {
    fn from(id: BenchId) -> String {
        id.to_string()
    }
}

/// What a record measures. The unit follows from the metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Wall time per operation: a run's wall time over the operations each of its workers ran
    /// (per worker-operation with several, as JMH's `avgt` with several threads); the median over
    /// passes of each pass's median sample.
    NsPerOp,
    /// Operations per second summed over the workers.
    OpsPerSec,
    /// Instructions per operation, callgrind via gungraun.
    InstructionsPerOp,
    /// Cycles per operation as callgrind's cache simulation models them (gungraun's estimate:
    /// L1 hits + 5 × LL hits + 35 × RAM hits): a deterministic model, not a measurement.
    EstimatedCyclesPerOp,
    /// Heap allocations per operation in steady state.
    AllocsPerOp,
    /// Heap bytes allocated per operation in steady state.
    BytesPerOp,
    /// Live heap bytes retained by a built structure.
    RetainedBytes,
    /// The same, as the allocator reserved them (malloc usable size).
    RetainedUsableBytes,
    /// Median of per-pair ratios B / A from an interleaved comparison (`<b>-vs-<a>` ids).
    PairedRatio,
    /// A ratio of two measured values of one design, derived by a lab (a latency in generations,
    /// a heap in bodies).
    Ratio,
    /// A mean duration a lab derives from its own events (a generation's time), per pass.
    MeanNs,
    /// Latency percentiles of single operations ([`crate::latency`]): from the histogram of all
    /// passes merged, with each pass's own value kept for pass-by-pass verdicts.
    LatencyP50Ns,
    LatencyP90Ns,
    LatencyP99Ns,
    LatencyP999Ns,
    LatencyMaxNs,
    /// Carries the latency histogram itself ([`Record::histogram`]); its value is the number of
    /// recorded operations.
    LatencyHistogram,
    /// The median cost of timing one operation for a latency histogram (an empty operation timed
    /// the same way), measured in every pass that recorded latencies.
    TimerOverheadNs,
    /// Highest live heap during the measured operations, above the live heap when they started.
    PeakHeapBytes,
    /// Highest resident set size of the measuring process during the measured operations.
    PeakRssBytes,
    /// CPU time of the whole measuring process (user + system) per operation.
    CpuNsPerOp,
    /// Instructions per operation spent in one bucket of code a lab names (the allocator, a map
    /// crate, a lock; [`crate::callgrind`]), from callgrind's self cost per source line.
    InstructionsIn(EventName),
    /// Allocations of at least [`crate::alloc::LARGE_BLOCK`] bytes per operation in steady state
    /// (body-sized buffers, where the small allocations of connections and maps are noise).
    LargeAllocsPerOp,
    /// A lab's own event (its runner names it), counted in the wall-time passes, per 100
    /// operations.
    EventsPer100Ops(EventName),
    /// The same event per second of measured wall time (served requests: goodput).
    EventsPerSec(EventName),
    /// How much the machine disturbed one wall-time pass ([`crate::process::Disturbance`]): the
    /// stolen share of CPU time, involuntary context switches, CPU migrations.
    PassDisturbance(EventName),
}

/// The name of a lab's own counted event, held inline (at most 32 bytes) so that [`Metric`] stays
/// `Copy`; in JSON a plain string.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventName {
    len: u8,
    bytes: [u8; EventName::CAPACITY],
}

impl EventName {
    pub const CAPACITY: usize = 32;

    /// # Panics
    /// When `name` is longer than [`Self::CAPACITY`] bytes (a lab's constant; at compile time
    /// when used in a `const`).
    pub const fn new(name: &str) -> Self {
        match Self::try_new(name) {
            Some(event) => event,
            None => panic!("event names are at most 32 bytes"),
        }
    }

    pub const fn try_new(name: &str) -> Option<Self> {
        let source = name.as_bytes();
        if source.len() > Self::CAPACITY {
            return None;
        }
        let mut bytes = [0; Self::CAPACITY];
        let mut i = 0;
        while i < source.len() {
            bytes[i] = source[i];
            i += 1;
        }
        Some(Self {
            len: source.len() as u8,
            bytes,
        })
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len as usize])
            .expect("built from a str, cut at its end")
    }
}

impl fmt::Debug for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for EventName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for EventName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Self::try_new(&name).ok_or_else(|| {
            serde::de::Error::custom(format!("event name `{name}` is longer than 32 bytes"))
        })
    }
}

impl Metric {
    pub fn unit(self) -> &'static str {
        match self {
            Self::NsPerOp => "ns/op",
            Self::OpsPerSec => "ops/s",
            Self::InstructionsPerOp | Self::InstructionsIn(_) => "instructions/op",
            Self::LargeAllocsPerOp => "large allocs/op",
            Self::EstimatedCyclesPerOp => "est. cycles/op",
            Self::AllocsPerOp => "allocs/op",
            Self::BytesPerOp => "B/op",
            Self::RetainedBytes | Self::RetainedUsableBytes => "B",
            Self::PairedRatio | Self::Ratio => "×",
            Self::LatencyP50Ns
            | Self::LatencyP90Ns
            | Self::LatencyP99Ns
            | Self::LatencyP999Ns
            | Self::LatencyMaxNs
            | Self::TimerOverheadNs
            | Self::MeanNs => "ns",
            Self::LatencyHistogram => "ops recorded",
            Self::PeakHeapBytes | Self::PeakRssBytes => "B",
            Self::CpuNsPerOp => "CPU ns/op",
            Self::EventsPer100Ops(_) => "per 100 ops",
            Self::EventsPerSec(_) => "per s",
            Self::PassDisturbance(_) => "per pass",
        }
    }

    /// The metric's name in references from a lab's files: its JSON name (`ns-per-op`), or for a
    /// named one its JSON name and the name in brackets (`events-per-sec(served)`).
    pub fn key(self) -> String {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::String(name)) => name,
            Ok(serde_json::Value::Object(tagged)) => tagged
                .iter()
                .map(|(k, v)| format!("{k}({})", v.as_str().unwrap_or_default()))
                .collect(),
            _ => format!("{self:?}"),
        }
    }

    /// The metric [`Metric::key`] names.
    pub fn from_key(key: &str) -> Result<Self, String> {
        let value = match key.strip_suffix(')').and_then(|k| k.split_once('(')) {
            Some((variant, name)) => serde_json::json!({ variant: name }),
            None => serde_json::Value::String(key.to_owned()),
        };
        serde_json::from_value(value).map_err(|_| format!("`{key}` is not a metric"))
    }

    /// Whether a larger value is better (throughput) rather than worse (cost).
    /// (A lab's events are neither: their verdicts say "fewer" or "more".)
    pub fn higher_is_better(self) -> bool {
        matches!(self, Self::OpsPerSec)
    }

    /// Whether it is one of the latency percentiles.
    pub fn is_latency_percentile(self) -> bool {
        crate::latency::PERCENTILES.iter().any(|(m, _)| *m == self)
    }
}

/// A confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub lower: f64,
    pub upper: f64,
    /// e.g. 0.95
    pub confidence: f64,
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
    /// that median ([`crate::paired::pass_interval`]) when there are enough passes for one, and
    /// the passes themselves.
    pub fn from_passes(id: BenchId, metric: Metric, passes: Vec<f64>) -> Self {
        let estimate = crate::paired::pass_estimate(&passes);
        let mut record = Self::new(id, metric, crate::paired::median(&passes));
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
}

impl ResultSet {
    /// The record for `id` and `metric`, if measured.
    pub fn find(&self, id: &BenchId, metric: Metric) -> Option<&Record> {
        self.records
            .iter()
            .find(|r| &r.id == id && r.metric == metric)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("result sets contain only serialisable data")
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
impl ResultSet {
    /// `records` as a full run in the tests' fixed environment.
    pub(crate) fn of(records: Vec<Record>) -> Self {
        Self {
            lab: "tiny".into(),
            mode: RunMode::Full,
            environment: Environment::fixed_for_tests(),
            timing: None,
            records,
            repeats: Vec::new(),
        }
    }
}

/// Writes `contents` to `path` through a temporary file in the same directory and a rename, so a
/// reader (or an interrupted run) never sees half a file.
pub fn write_atomic(path: &Path, contents: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("result");
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(contents.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes a measurement binary's records as a JSON array to `out` (atomically), or to stdout.
pub fn emit_records(out: Option<&Path>, records: &[Record]) -> Result<(), String> {
    let json = serde_json::to_string_pretty(records).expect("records are serialisable");
    match out {
        Some(path) => {
            write_atomic(path, &json).map_err(|e| format!("cannot write {}: {e}", path.display()))
        }
        None => {
            println!("{json}");
            Ok(())
        }
    }
}

/// One record per (id, metric) from the records of several wall-time passes: the per-pass values
/// in pass order, summarised by [`Record::from_passes`]. A cell missing from a pass (a pass that
/// failed part-way) keeps the passes it has, which then no longer pair with the others.
///
/// Latency histograms of a cell are merged across passes, and its percentiles are read from the
/// merged histogram (a tail percentile of one pass rests on few operations); each pass's own
/// percentile stays in `passes` for pass-by-pass verdicts.
pub fn combine_passes(passes: &[Vec<Record>]) -> Vec<Record> {
    let mut keys: Vec<(BenchId, Metric)> = Vec::new();
    let mut values: std::collections::HashMap<(BenchId, Metric), Vec<f64>> = Default::default();
    let mut histograms: std::collections::HashMap<BenchId, Latencies> = Default::default();
    for record in passes.iter().flatten() {
        let key = (record.id.clone(), record.metric);
        let cell = values.entry(key.clone()).or_default();
        if cell.is_empty() {
            keys.push(key);
        }
        cell.push(record.value);
        if let Some(histogram) = &record.histogram {
            let merged = histograms.entry(record.id.clone()).or_default();
            *merged = merged.merged(histogram);
        }
    }
    keys.into_iter()
        .map(|key| {
            let passes = values.remove(&key).expect("every key has values");
            let (id, metric) = key;
            let merged = histograms.get(&id);
            match (metric, merged) {
                (Metric::LatencyHistogram, Some(merged)) => {
                    let mut record = Record::new(id, metric, merged.count() as f64);
                    record.histogram = Some(merged.clone());
                    record.passes = Some(passes);
                    record
                }
                (m, Some(merged)) if m.is_latency_percentile() => {
                    let q = crate::latency::PERCENTILES
                        .iter()
                        .find(|(p, _)| *p == m)
                        .map_or(1.0, |(_, q)| *q);
                    let value = merged.quantile(q).unwrap_or(0) as f64;
                    let mut record = Record::new(id, metric, value);
                    record.passes = Some(passes);
                    record
                }
                _ => Record::from_passes(id, metric, passes),
            }
        })
        .collect()
}

/// Reads a JSON array of records written by [`emit_records`].
pub fn load_records(path: &Path) -> Result<Vec<Record>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| format!("{}: not a list of records: {e}", path.display()))
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
            sink.latencies().records(&id)
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
