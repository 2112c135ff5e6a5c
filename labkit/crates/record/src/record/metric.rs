//! What a record measures ([`super::facts`] has each metric's unit, direction and words).

use std::fmt;

use serde::{Deserialize, Serialize};

/// What a record measures. The unit follows from the metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Wall time per operation: a run's wall time over the operations each of its workers ran
    /// (per worker-operation with several, as JMH's `avgt` with several threads); the median over
    /// passes of each pass's median sample.
    NsPerOp,
    /// JMH's error of a JVM cell's time per operation: the half-width of the 99.9 % confidence
    /// interval of the mean of every measured iteration of every fork, as JMH prints it beside a
    /// score.
    JmhErrorNs,
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
    LatencyP95Ns,
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
    /// Wall-clock seconds the wall-time stage spent on one case ([`crate::measure::case_time_id`]):
    /// opening, calibrating and sampling all its cells, summed over every pass that ran it
    /// (repeats included), so a run's measuring time can be told by case.
    CaseSeconds,
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

    /// Whether it is one of the latency percentiles.
    pub fn is_latency_percentile(self) -> bool {
        PERCENTILES.iter().any(|(m, _)| *m == self)
    }
}

/// The percentiles every latency table shows, as quantiles, with their metrics.
pub const PERCENTILES: [(Metric, f64); 6] = [
    (Metric::LatencyP50Ns, 0.5),
    (Metric::LatencyP90Ns, 0.9),
    (Metric::LatencyP95Ns, 0.95),
    (Metric::LatencyP99Ns, 0.99),
    (Metric::LatencyP999Ns, 0.999),
    (Metric::LatencyMaxNs, 1.0),
];
