//! Latency percentiles: each measured operation's latency recorded into an HdrHistogram (one per
//! thread, merged when the thread's recorder drops), summarised as p50 / p90 / p95 / p99 / p99.9
//! / max
//! ([`crate::record::PERCENTILES`], [`crate::record::latency_records`]). The results file keeps
//! each histogram at the quantiles its pages read ([`Latencies::at_quantiles`]).
//!
//! A run records latencies when its [`crate::lab::Window`] hands out a [`LatencySink`]; which
//! experiments do, and whether in their timed samples or in a run of their own, their description
//! says ([`crate::lab::LatencyRecording`]).
//!
//! A latency that is only a lower bound (a request given up at its deadline, one still running
//! when a run ended) is recorded as censored ([`LatencyRecorder::record_censored`]): it enters
//! the histogram at its age and is counted, and a percentile that may fall among such values is
//! not published ([`Latencies::censors`]).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Every recorded latency is kept to within 0.1 % (three significant digits).
pub const SIGNIFICANT_DIGITS: u8 = 3;

fn empty_histogram() -> Histogram<u64> {
    // An auto-resizing histogram: any latency up to u64::MAX ns is recordable.
    Histogram::new(SIGNIFICANT_DIGITS)
        .expect("three significant digits are in hdrhistogram's range")
}

/// A latency histogram in nanoseconds: every non-empty bucket as (the highest latency of the
/// bucket, count), ascending. Recording those pairs again rebuilds the histogram. Stored in the
/// raw results in HdrHistogram's compressed V2 encoding ([`Stored`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "Stored", try_from = "Stored")]
pub struct Latencies {
    pub buckets: Vec<(u64, u64)>,
    /// How many of the recorded latencies are lower bounds (censored), not measured ends.
    pub censored: u64,
}

/// [`Latencies`] as the raw results keep it: `hdr`, the histogram in HdrHistogram's V2 encoding,
/// deflated and in base64 (lossless, and readable by HdrHistogram's own tools, the JVM's
/// included); `buckets`, the pairs themselves, is read from results written before it.
#[derive(Serialize, Deserialize)]
struct Stored {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hdr: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    buckets: Option<Vec<(u64, u64)>>,
    #[serde(default, skip_serializing_if = "is_zero")]
    censored: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl From<Latencies> for Stored {
    fn from(latencies: Latencies) -> Self {
        use base64::Engine;
        use hdrhistogram::serialization::{Serializer, V2DeflateSerializer};
        let mut bytes = Vec::new();
        let encoded = V2DeflateSerializer::new()
            .serialize(&latencies.histogram(), &mut bytes)
            .is_ok();
        // Encoding into memory fails only on a histogram V2 cannot state; the pairs then go as
        // they are, so nothing recorded is lost.
        let (hdr, buckets) = if encoded {
            let text = base64::engine::general_purpose::STANDARD.encode(&bytes);
            (Some(text), None)
        } else {
            (None, Some(latencies.buckets))
        };
        Stored {
            hdr,
            buckets,
            censored: latencies.censored,
        }
    }
}

impl TryFrom<Stored> for Latencies {
    type Error = String;

    fn try_from(stored: Stored) -> Result<Self, String> {
        use base64::Engine;
        let buckets = match (stored.hdr, stored.buckets) {
            (Some(text), _) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(text.as_bytes())
                    .map_err(|e| format!("a latency histogram is not base64: {e}"))?;
                let histogram: Histogram<u64> = hdrhistogram::serialization::Deserializer::new()
                    .deserialize(&mut bytes.as_slice())
                    .map_err(|e| format!("a latency histogram is not HdrHistogram V2: {e:?}"))?;
                Latencies::from_histogram(&histogram).buckets
            }
            (None, Some(buckets)) => buckets,
            (None, None) => {
                return Err("a latency histogram has neither `hdr` nor `buckets`".into());
            }
        };
        Ok(Latencies {
            buckets,
            censored: stored.censored,
        })
    }
}

impl Latencies {
    pub fn from_histogram(histogram: &Histogram<u64>) -> Self {
        Self {
            buckets: histogram
                .iter_recorded()
                .map(|v| (v.value_iterated_to(), v.count_at_value()))
                .collect(),
            censored: 0,
        }
    }

    pub fn histogram(&self) -> Histogram<u64> {
        let mut histogram = empty_histogram();
        for &(latency, count) in &self.buckets {
            histogram
                .record_n(latency, count)
                .expect("an auto-resizing histogram records every value");
        }
        histogram
    }

    /// Both sets of latencies in one histogram.
    pub fn merged(&self, other: &Latencies) -> Latencies {
        let mut histogram = self.histogram();
        histogram
            .add(other.histogram())
            .expect("auto-resizing histograms of one precision add");
        Self {
            censored: self.censored + other.censored,
            ..Self::from_histogram(&histogram)
        }
    }

    /// These latencies reduced to what reading `quantiles` needs: one bucket at each of their
    /// values (and the maximum), holding the latencies above the bucket before it. The count,
    /// the censored count and the value at every quantile asked for (and at the maximum) are the
    /// same as this histogram's; what lies between them is not kept. A committed result set
    /// keeps its histograms so ([`CURVE_QUANTILES`] and the published percentiles).
    pub fn at_quantiles(&self, quantiles: &[f64]) -> Latencies {
        let mut values: Vec<u64> = quantiles
            .iter()
            .chain(&[1.0])
            .filter_map(|&q| self.quantile(q))
            .collect();
        values.sort_unstable();
        values.dedup();
        let mut buckets = Vec::with_capacity(values.len());
        let (mut below, mut seen) = (self.buckets.iter().peekable(), 0);
        for value in values {
            let mut count = 0;
            while let Some(&&(latency, n)) = below.peek() {
                if latency > value {
                    break;
                }
                count += n;
                below.next();
            }
            seen += count;
            if count > 0 {
                buckets.push((value, count));
            }
        }
        debug_assert_eq!(seen, self.count(), "the maximum closes the last bucket");
        Latencies {
            buckets,
            censored: self.censored,
        }
    }

    /// Operations recorded.
    pub fn count(&self) -> u64 {
        self.buckets.iter().map(|(_, c)| c).sum()
    }

    /// The share of the recorded latencies that are censored (0 when none were recorded).
    pub fn censored_share(&self) -> f64 {
        match self.count() {
            0 => 0.0,
            n => self.censored as f64 / n as f64,
        }
    }

    /// Whether the percentile at quantile `q` may be a censored value: when more than `1 − q` of
    /// the latencies are lower bounds (more than 1 % for p99; any at all for the maximum), the
    /// value at `q` may be one of them, and what it reads is the window's, not the design's.
    pub fn censors(&self, q: f64) -> bool {
        self.censored > 0 && self.censored_share() > (1.0 - q).max(0.0)
    }

    /// The latency at quantile `q` (0.5 for the median, 1.0 for the maximum); `None` when empty.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        let histogram = self.histogram();
        (!histogram.is_empty()).then(|| {
            if q >= 1.0 {
                histogram.max()
            } else {
                histogram.value_at_quantile(q)
            }
        })
    }

    /// Points of the percentile curve for a chart: (quantile, latency) at the usual percentiles
    /// the count can resolve (p50, p75, p90, p95, p99, p99.5, p99.9, …), then the maximum, placed
    /// at 1 − 1/(2 × count).
    pub fn curve(&self) -> Vec<(f64, u64)> {
        let count = self.count();
        if count == 0 {
            return Vec::new();
        }
        let mut points: Vec<(f64, u64)> = CURVE_QUANTILES
            .iter()
            .take_while(|&&q| (1.0 - q) * count as f64 >= 1.0)
            .map(|&q| (q, self.quantile(q).unwrap_or(0)))
            .collect();
        let max_at = 1.0 - 0.5 / count as f64;
        points.retain(|(q, _)| *q < max_at);
        points.push((max_at, self.quantile(1.0).unwrap_or(0)));
        points
    }
}

/// The quantiles a chart's percentile curve draws ([`Latencies::curve`]), the maximum aside.
pub const CURVE_QUANTILES: [f64; 10] = [
    0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9995, 0.9999, 0.99999,
];

/// Where the recorders of one measured run merge their latencies.
#[derive(Debug, Default)]
pub struct LatencySink {
    merged: Mutex<Option<Histogram<u64>>>,
    censored: std::sync::atomic::AtomicU64,
}

impl LatencySink {
    pub fn new() -> Arc<Self> {
        Arc::default()
    }

    /// A recorder for one thread (or one task); it merges into this sink when dropped.
    pub fn recorder(self: &Arc<Self>) -> LatencyRecorder {
        LatencyRecorder {
            local: empty_histogram(),
            censored: 0,
            sink: Arc::clone(self),
        }
    }

    /// Everything merged so far (recorders still alive are not included).
    pub fn latencies(&self) -> Latencies {
        let merged = self.merged.lock().unwrap_or_else(PoisonError::into_inner);
        Latencies {
            censored: self.censored.load(std::sync::atomic::Ordering::Relaxed),
            ..merged
                .as_ref()
                .map_or_else(Latencies::default, Latencies::from_histogram)
        }
    }

    fn merge(&self, histogram: &Histogram<u64>, censored: u64) {
        self.censored
            .fetch_add(censored, std::sync::atomic::Ordering::Relaxed);
        let mut merged = self.merged.lock().unwrap_or_else(PoisonError::into_inner);
        match merged.as_mut() {
            Some(m) => m
                .add(histogram)
                .expect("auto-resizing histograms of one precision add"),
            None => *merged = Some(histogram.clone()),
        }
    }
}

/// One thread's latencies; recording touches only this thread's histogram.
#[derive(Debug)]
pub struct LatencyRecorder {
    local: Histogram<u64>,
    censored: u64,
    sink: Arc<LatencySink>,
}

impl LatencyRecorder {
    pub fn record(&mut self, latency: Duration) {
        let ns = u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX);
        self.local
            .record(ns)
            .expect("an auto-resizing histogram records every value");
    }

    /// Records a latency known only to be at least `age` (given up at a deadline, still running
    /// when the run ended): it enters as `age` and is counted as censored.
    pub fn record_censored(&mut self, age: Duration) {
        self.record(age);
        self.censored += 1;
    }

    /// Runs `operation` and records how long it took.
    pub fn timed<T>(&mut self, operation: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let value = operation();
        self.record(started.elapsed());
        value
    }
}

impl Drop for LatencyRecorder {
    fn drop(&mut self) {
        if !self.local.is_empty() {
            self.sink.merge(&self.local, self.censored);
        }
    }
}

/// What recording costs: the latencies of an empty operation timed like a measured one (two
/// clock reads and one histogram update), `samples` times.
pub fn timer_overhead(samples: u64) -> Latencies {
    let sink = LatencySink::new();
    {
        let mut recorder = sink.recorder();
        for _ in 0..samples {
            recorder.timed(|| std::hint::black_box(()));
        }
    }
    sink.latencies()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_histogram_at_its_quantiles_reads_the_same_at_each_and_keeps_every_count() {
        let sink = LatencySink::new();
        {
            let mut recorder = sink.recorder();
            for ns in (1_000..200_000).step_by(7) {
                recorder.record(Duration::from_nanos(ns * ns / 1_000));
            }
            recorder.record_censored(Duration::from_secs(3));
        }
        let full = sink.latencies();
        let kept = full.at_quantiles(&CURVE_QUANTILES);
        assert!(kept.buckets.len() <= CURVE_QUANTILES.len() + 1);
        assert!(full.buckets.len() > 1_000);
        assert_eq!((kept.count(), kept.censored), (full.count(), 1));
        assert_eq!(kept.curve(), full.curve());
        for q in CURVE_QUANTILES.iter().chain(&[1.0]) {
            assert_eq!(kept.quantile(*q), full.quantile(*q), "q {q}");
        }
        assert_eq!(kept.censors(0.99), full.censors(0.99));
        let stored: Latencies =
            serde_json::from_str(&serde_json::to_string(&kept).unwrap()).unwrap();
        assert_eq!(stored, kept);
    }

    #[test]
    fn a_percentile_among_censored_latencies_is_censored() {
        let sink = LatencySink::new();
        {
            let mut recorder = sink.recorder();
            for _ in 0..98 {
                recorder.record(Duration::from_millis(1));
            }
            recorder.record_censored(Duration::from_millis(100));
        }
        let one = sink.latencies();
        assert_eq!((one.count(), one.censored), (99, 1));
        // 1 of 99 is just over 1 %: p99 may be the censored value, p90 may not.
        assert!(one.censors(0.99) && one.censors(1.0) && !one.censors(0.9));
        {
            sink.recorder().record(Duration::from_millis(1));
        }
        let two = sink.latencies();
        assert!(!two.censors(0.99), "1 of 100 is not more than 1 %");
        assert!(two.censors(1.0), "the maximum is a lower bound");
        let merged = two.merged(&one);
        assert_eq!(merged.censored, 2, "merging adds the censored counts");
        let round_trip: Latencies =
            serde_json::from_str(&serde_json::to_string(&merged).unwrap()).unwrap();
        assert_eq!(round_trip, merged);
        let uncensored = serde_json::to_string(&Latencies::default()).unwrap();
        assert!(!uncensored.contains("censored"), "{uncensored}");
    }

    #[test]
    fn stored_histograms_round_trip_exactly_and_the_old_bucket_lists_still_read() {
        let sink = LatencySink::new();
        {
            let mut recorder = sink.recorder();
            // A spread from nanoseconds to seconds, so buckets of every width are stored.
            for i in 1..5_000u64 {
                recorder.record(Duration::from_nanos(i * i * 37 % 3_000_000_000 + i));
            }
            recorder.record_censored(Duration::from_secs(20));
        }
        let latencies = sink.latencies();
        let json = serde_json::to_string(&latencies).unwrap();
        assert!(
            json.contains("\"hdr\"") && !json.contains("buckets"),
            "{json}"
        );
        let pairs = serde_json::to_string(&latencies.buckets).unwrap();
        assert!(
            json.len() * 4 < pairs.len(),
            "{} vs {}",
            json.len(),
            pairs.len()
        );
        let back: Latencies = serde_json::from_str(&json).unwrap();
        assert_eq!(back, latencies);
        let old = format!("{{\"buckets\": {pairs}, \"censored\": 1}}");
        assert_eq!(serde_json::from_str::<Latencies>(&old).unwrap(), latencies);
        for bad in [r#"{"hdr": "not base64!"}"#, r#"{"hdr": "AAAA"}"#, r#"{}"#] {
            let err = serde_json::from_str::<Latencies>(bad)
                .unwrap_err()
                .to_string();
            assert!(err.contains("latency histogram"), "{bad}: {err}");
        }
    }

    #[test]
    fn recorders_merge_and_percentiles_come_from_the_merged_histogram() {
        let sink = LatencySink::new();
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let sink = Arc::clone(&sink);
                std::thread::spawn(move || {
                    let mut recorder = sink.recorder();
                    for i in 1..=250u64 {
                        recorder.record(Duration::from_micros(t * 250 + i));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let latencies = sink.latencies();
        assert_eq!(latencies.count(), 1000);
        let within = |q: f64, micros: u64| {
            let ns = latencies.quantile(q).unwrap() as f64;
            assert!(
                (ns / (micros as f64 * 1e3) - 1.0).abs() < 2e-3,
                "q {q}: {ns} ns, expected {micros} µs"
            );
        };
        within(0.5, 500);
        within(0.99, 990);
        within(1.0, 1000);
        let json = serde_json::to_string(&latencies).unwrap();
        let back: Latencies = serde_json::from_str(&json).unwrap();
        assert_eq!(back, latencies, "lossless in JSON");
    }

    #[test]
    fn merging_adds_counts_and_the_curve_ends_at_the_maximum() {
        let one = |micros: u64, n: u64| {
            let mut h = empty_histogram();
            h.record_n(micros * 1000, n).unwrap();
            Latencies::from_histogram(&h)
        };
        let merged = one(10, 990).merged(&one(5000, 10));
        assert_eq!(merged.count(), 1000);
        assert!(merged.quantile(0.5).unwrap() < 10_100);
        assert!(merged.quantile(0.999).unwrap() > 4_990_000);
        let curve = merged.curve();
        assert_eq!(curve.first().unwrap().0, 0.5);
        assert!(
            curve
                .windows(2)
                .all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1)
        );
        assert_eq!(curve.last().unwrap().1, merged.quantile(1.0).unwrap());
        assert!(Latencies::default().curve().is_empty());
        assert_eq!(Latencies::default().quantile(0.5), None);
    }

    #[test]
    fn the_timer_overhead_is_measured_not_assumed() {
        let overhead = timer_overhead(10_000);
        assert_eq!(overhead.count(), 10_000);
        assert!(overhead.quantile(0.5).is_some());
    }
}
