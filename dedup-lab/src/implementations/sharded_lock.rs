//! `sharded-lock`: dashmap's per-shard read-write locks; an admission write-locks only the shard
//! that holds its producer.

use dashmap::DashMap;

use super::{Hasher, ProducerName, Watermarks};
use crate::{DupStatus, SequenceBatch, SequenceDedup};

#[derive(Default)]
pub struct ShardedLock {
    producers: DashMap<ProducerName, Watermarks, Hasher>,
}

impl SequenceDedup for ShardedLock {
    const NAME: &'static str = "sharded-lock";
    const ZERO_ALLOC_STEADY_STATE: bool = true;
    type Producer = ProducerName;

    fn connect(&self, producer: &str) -> ProducerName {
        producer.into()
    }

    fn admit(&self, producer: &ProducerName, batch: SequenceBatch) -> DupStatus {
        if let Some(mut marks) = self.producers.get_mut(producer) {
            return marks.admit(batch);
        }
        self.producers
            .entry(producer.clone())
            .or_default()
            .admit(batch)
    }

    fn record_persisted(&self, producer: &ProducerName, batch: SequenceBatch) {
        self.producers
            .entry(producer.clone())
            .or_default()
            .persisted = Some(batch.high());
    }

    fn reset_pushed_to_persisted(&self) {
        for mut marks in self.producers.iter_mut() {
            marks.pushed = marks.persisted;
        }
    }

    fn highest_pushed(&self, producer: &str) -> Option<u64> {
        self.producers.get(producer).and_then(|m| m.pushed)
    }

    fn highest_persisted(&self, producer: &str) -> Option<u64> {
        self.producers.get(producer).and_then(|m| m.persisted)
    }

    fn purge(&self, producer: &str) {
        self.producers.remove(producer);
    }
}
