//! The synthetic broker whose metrics `/metrics` exposes: topics with long names (the write-up's
//! long-named-topics scenario) × metric families, encoded as OpenMetrics text by the
//! `prometheus-client` crate. Every value depends on the generation number, so two generations'
//! bodies differ and a response mixing them fails its checksum.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;

/// Metric families per topic, as in a broker's per-topic stats (rates, backlog, storage, …).
pub const FAMILIES: usize = 20;

/// Bytes one topic adds to a body (its 20 samples), measured once from the encoding below; used
/// only to size a broker for a target body size.
const BYTES_PER_TOPIC: usize = 3_560;

/// A broker's topics and the families each reports.
#[derive(Debug)]
pub struct Broker {
    topics: Vec<String>,
    families: Vec<(String, String)>,
    collection_rounds: u32,
}

impl Broker {
    /// A broker with `topics` long-named topics.
    pub fn with_topics(topics: usize) -> Self {
        Self {
            topics: (0..topics)
                .map(|t| {
                    format!(
                        "persistent://public/default/a-long-topic-name-as-in-the-long-named-topics-scenario-{t:08}"
                    )
                })
                .collect(),
            families: (0..FAMILIES)
                .map(|f| {
                    (
                        format!("pulsar_topic_stat_{f:02}"),
                        format!("Synthetic per-topic statistic {f} of the broker"),
                    )
                })
                .collect(),
            collection_rounds: 0,
        }
    }

    /// The same broker, its stats collection costing `rounds` dependent rounds of arithmetic per
    /// topic and generation (CPU work, not a sleep: generations that share a core take turns), as
    /// a broker's walk over each topic's producers, subscriptions and ledgers does. The body does
    /// not change size: this is generation cost independent of what is sent.
    pub fn collecting(mut self, rounds: u32) -> Self {
        self.collection_rounds = rounds;
        self
    }

    /// A broker whose exposition is about `bytes` long.
    pub fn with_body_size(bytes: usize) -> Self {
        Self::with_topics(bytes.div_ceil(BYTES_PER_TOPIC).max(1))
    }

    pub fn topics(&self) -> usize {
        self.topics.len()
    }

    /// Generation `generation`'s exposition, appended to `into` (cleared first; its capacity is
    /// kept, which is what a recycled buffer saves).
    pub fn generate_into(self: &Arc<Self>, generation: u64, into: &mut Vec<u8>) {
        // A flag nobody sets: the generation always completes.
        let _complete = self.generate_unless(generation, into, &Arc::default());
    }

    /// [`Broker::generate_into`], given up at the next topic once `abandon` is set: `into` then
    /// holds a truncated body and the result is [`Abandoned`].
    pub fn generate_unless(
        self: &Arc<Self>,
        generation: u64,
        into: &mut Vec<u8>,
        abandon: &Arc<AtomicBool>,
    ) -> Result<(), Abandoned> {
        into.clear();
        let mut registry = Registry::default();
        registry.register_collector(Box::new(Snapshot {
            broker: Arc::clone(self),
            generation,
            abandon: Arc::clone(abandon),
        }));
        // Writing into a Vec cannot fail, so an error is the snapshot giving up.
        prometheus_client::encoding::text::encode(&mut Utf8Bytes(into), &registry)
            .map_err(|_| Abandoned)
    }

    /// Generation `generation`'s exposition in a new buffer.
    pub fn generate(self: &Arc<Self>, generation: u64) -> Vec<u8> {
        let mut body = Vec::with_capacity(self.topics.len() * BYTES_PER_TOPIC + 4096);
        self.generate_into(generation, &mut body);
        body
    }

    fn encode(
        &self,
        generation: u64,
        abandon: &AtomicBool,
        mut encoder: DescriptorEncoder,
    ) -> fmt::Result {
        let mut marker = encoder.encode_descriptor(
            "pulsar_exposition_generation",
            "Which generation of the exposition this is",
            None,
            MetricType::Gauge,
        )?;
        ConstGauge::new(generation as i64)
            .encode(marker.encode_family(&[("cluster", "standalone")])?)?;
        for (f, (name, help)) in self.families.iter().enumerate() {
            let mut family = encoder.encode_descriptor(name, help, None, MetricType::Gauge)?;
            for (t, topic) in self.topics.iter().enumerate() {
                // Relaxed: whoever gets this body checks the flag again after it ([`Abandoned`]).
                if abandon.load(Relaxed) {
                    return Err(fmt::Error);
                }
                let labels = [
                    ("cluster", "standalone"),
                    ("namespace", "public/default"),
                    ("topic", topic.as_str()),
                ];
                // A topic's stats are collected once per generation, before its first family.
                let collected = if f == 0 {
                    collect(generation, t, self.collection_rounds)
                } else {
                    0
                };
                ConstGauge::new(sample(generation, t, f) ^ collected)
                    .encode(family.encode_family(&labels)?)?;
            }
        }
        Ok(())
    }
}

/// The synthetic stats collection of topic `topic`: `rounds` dependent multiply-xorshift steps
/// (the optimiser can neither skip nor vectorise them), folded to 0 or 1 so the sample stays
/// within its range; 0 rounds cost nothing and change nothing.
fn collect(generation: u64, topic: usize, rounds: u32) -> i64 {
    if rounds == 0 {
        return 0;
    }
    let mut state = generation ^ (topic as u64).rotate_left(17) | 1;
    for _ in 0..rounds {
        state ^= state >> 29;
        state = std::hint::black_box(state.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    }
    (state >> 63) as i64
}

/// Sample `f` of topic `t` in generation `generation`: deterministic, different per generation.
pub fn sample(generation: u64, topic: usize, family: usize) -> i64 {
    let mixed = generation
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add((topic as u64) << 8 | family as u64)
        .wrapping_mul(0xbf58_476d_1ce4_e5b9);
    (mixed >> 40) as i64
}

/// A generation given up part-way because its server is stopping: its buffer holds a truncated
/// body. The server answers nothing from a generator it has stopped, so no client gets one; the
/// flag is read again after the body is handed over, and a read that comes after the read that
/// saw it set sees it set too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abandoned;

/// One generation's view of a broker, as `prometheus-client` wants a collector.
#[derive(Debug)]
struct Snapshot {
    broker: Arc<Broker>,
    generation: u64,
    abandon: Arc<AtomicBool>,
}

impl Collector for Snapshot {
    fn encode(&self, encoder: DescriptorEncoder) -> fmt::Result {
        self.broker.encode(self.generation, &self.abandon, encoder)
    }
}

/// `fmt::Write` into a byte buffer (the encoder writes UTF-8 text).
struct Utf8Bytes<'a>(&'a mut Vec<u8>);

impl fmt::Write for Utf8Bytes<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// The checksum every response carries and every client verifies (XXH3, 64 bits).
pub fn checksum(body: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_differ_and_are_deterministic() {
        let broker = Arc::new(Broker::with_topics(3));
        let (a, b) = (broker.generate(1), broker.generate(2));
        assert_ne!(checksum(&a), checksum(&b));
        assert_eq!(broker.generate(1), a);
        let text = String::from_utf8(a).unwrap();
        assert!(
            text.starts_with("# HELP pulsar_exposition_generation"),
            "{text}"
        );
        assert!(text.contains("pulsar_exposition_generation{cluster=\"standalone\"} 1\n"));
        assert!(text.ends_with("# EOF\n"));
        assert_eq!(
            text.lines().filter(|l| !l.starts_with('#')).count(),
            1 + 3 * FAMILIES
        );
    }

    #[test]
    fn a_generation_abandoned_stops_at_a_topic_and_one_never_abandoned_completes() {
        let broker = Arc::new(Broker::with_topics(3));
        let full = broker.generate(4);
        let mut body = Vec::new();
        let flag = Arc::new(AtomicBool::new(false));
        assert_eq!(broker.generate_unless(4, &mut body, &flag), Ok(()));
        assert_eq!(body, full);
        flag.store(true, Relaxed);
        assert_eq!(broker.generate_unless(4, &mut body, &flag), Err(Abandoned));
        assert!(body.len() < full.len() && full.starts_with(&body));
    }

    #[test]
    fn body_size_follows_the_topic_count() {
        let broker = Arc::new(Broker::with_body_size(1 << 20));
        let len = broker.generate(0).len() as f64;
        assert!((len / (1 << 20) as f64 - 1.0).abs() < 0.05, "{len} bytes");
        let mut reused = Vec::new();
        broker.generate_into(7, &mut reused);
        let capacity = reused.capacity();
        broker.generate_into(8, &mut reused);
        assert_eq!(
            reused.capacity(),
            capacity,
            "a recycled buffer does not grow again"
        );
    }
}
