//! `sharded-lock`: dashmap's per-shard read-write locks; an admission write-locks only the shard
//! that holds its producer. Replicated positions live in a second sharded map, each position
//! replaced as one unit under its shard's lock.

use dashmap::DashMap;

use super::{ByName, Hasher, ProducerName, StoreDesign, WatermarkStore, Watermarks};
use crate::DupStatus;
use crate::sequence::{Position, Watermark};

pub type ShardedLock = ByName<Sharded>;

pub struct Sharded;

impl StoreDesign for Sharded {
    const NAME: &'static str = "sharded-lock";
    const ZERO_ALLOC_STEADY_STATE: bool = true;
    type Ids = Shards<u64>;
    type Positions = Shards<Position>;
}

/// Every producer's watermarks of one kind in one sharded map.
pub struct Shards<W>(DashMap<ProducerName, Watermarks<W>, Hasher>);

impl<W> Default for Shards<W> {
    fn default() -> Self {
        Self(DashMap::default())
    }
}

impl<W: Watermark> WatermarkStore<W> for Shards<W> {
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

    fn pushed(&self, producer: &str) -> Option<W> {
        self.0.get(producer).and_then(|m| m.pushed)
    }

    fn persisted(&self, producer: &str) -> Option<W> {
        self.0.get(producer).and_then(|m| m.persisted)
    }

    fn purge(&self, producer: &str) {
        self.0.remove(producer);
    }

    fn advance(&self, producer: &ProducerName, next: fn(Option<W>) -> W) -> W {
        let mut marks = match self.0.get_mut(producer) {
            Some(marks) => marks,
            None => self.0.entry(producer.clone()).or_default(),
        };
        let value = next(marks.pushed);
        marks.pushed = Some(value);
        value
    }
}
