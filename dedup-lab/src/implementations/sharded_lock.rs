//! `sharded-lock`: dashmap's per-shard read-write locks; an admission write-locks only the shard
//! that holds its producer. Replicated positions live in a second sharded map, each position
//! replaced as one unit under its shard's lock.

use dashmap::DashMap;

use super::{Hasher, ProducerName, Watermarks};
use crate::sequence::{Position, Watermark};
use crate::{DupStatus, SequenceBatch, SequenceDedup};

/// Every producer's watermarks of one kind in one sharded map.
struct Shards<W>(DashMap<ProducerName, Watermarks<W>, Hasher>);

impl<W> Default for Shards<W> {
    fn default() -> Self {
        Self(DashMap::default())
    }
}

impl<W: Watermark> Shards<W> {
    fn admit(&self, producer: &ProducerName, low: W, high: W) -> DupStatus {
        if let Some(mut marks) = self.0.get_mut(producer) {
            return marks.admit_span(low, high);
        }
        self.0
            .entry(producer.clone())
            .or_default()
            .admit_span(low, high)
    }

    fn record_persisted(&self, producer: &ProducerName, high: W) {
        self.0.entry(producer.clone()).or_default().persisted = Some(high);
    }

    fn reset_pushed_to_persisted(&self) {
        for mut marks in self.0.iter_mut() {
            marks.pushed = marks.persisted;
        }
    }

    fn get(&self, producer: &str) -> Option<Watermarks<W>> {
        self.0.get(producer).map(|m| *m)
    }
}

#[derive(Default)]
pub struct ShardedLock {
    producers: Shards<u64>,
    replicated: Shards<Position>,
}

impl SequenceDedup for ShardedLock {
    const NAME: &'static str = "sharded-lock";
    const ZERO_ALLOC_STEADY_STATE: bool = true;
    type Producer = ProducerName;

    fn connect(&self, producer: &str) -> ProducerName {
        producer.into()
    }

    fn admit(&self, producer: &ProducerName, batch: SequenceBatch) -> DupStatus {
        self.producers.admit(producer, batch.low(), batch.high())
    }

    fn record_persisted(&self, producer: &ProducerName, batch: SequenceBatch) {
        self.producers.record_persisted(producer, batch.high());
    }

    fn admit_replicated(&self, producer: &ProducerName, position: Position) -> DupStatus {
        self.replicated.admit(producer, position, position)
    }

    fn record_replicated_persisted(&self, producer: &ProducerName, position: Position) {
        self.replicated.record_persisted(producer, position);
    }

    fn reset_pushed_to_persisted(&self) {
        self.producers.reset_pushed_to_persisted();
        self.replicated.reset_pushed_to_persisted();
    }

    fn highest_pushed(&self, producer: &str) -> Option<u64> {
        self.producers.get(producer).and_then(|m| m.pushed)
    }

    fn highest_persisted(&self, producer: &str) -> Option<u64> {
        self.producers.get(producer).and_then(|m| m.persisted)
    }

    fn highest_replicated_pushed(&self, producer: &str) -> Option<Position> {
        self.replicated.get(producer).and_then(|m| m.pushed)
    }

    fn highest_replicated_persisted(&self, producer: &str) -> Option<Position> {
        self.replicated.get(producer).and_then(|m| m.persisted)
    }

    fn purge(&self, producer: &str) {
        self.producers.0.remove(producer);
        self.replicated.0.remove(producer);
    }
}
