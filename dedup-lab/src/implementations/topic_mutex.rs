//! `topic-mutex`: one lock around every producer's watermarks, as Pulsar before #26763
//! (`synchronized (highestSequencedPushed)` is a topic-wide monitor). Replicated positions sit
//! behind a second topic-wide lock of their own, as Pulsar's `synchronized
//! (highestReplPositionPushed)`.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use super::{Hasher, ProducerName, Watermarks};
use crate::sequence::{Position, Watermark};
use crate::{DupStatus, SequenceBatch, SequenceDedup};

/// Every producer's watermarks of one kind behind one lock.
struct Monitor<W>(Mutex<HashMap<ProducerName, Watermarks<W>, Hasher>>);

impl<W> Default for Monitor<W> {
    fn default() -> Self {
        Self(Mutex::default())
    }
}

impl<W: Watermark> Monitor<W> {
    fn lock(&self) -> MutexGuard<'_, HashMap<ProducerName, Watermarks<W>, Hasher>> {
        // A panic while holding the lock cannot leave a watermark half-written (each write is one
        // field store), so a poisoned lock is still consistent.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn admit(&self, producer: &ProducerName, low: W, high: W) -> DupStatus {
        let mut map = self.lock();
        match map.get_mut(producer) {
            Some(marks) => marks.admit_span(low, high),
            None => map
                .entry(producer.clone())
                .or_default()
                .admit_span(low, high),
        }
    }

    fn record_persisted(&self, producer: &ProducerName, high: W) {
        self.lock().entry(producer.clone()).or_default().persisted = Some(high);
    }

    fn reset_pushed_to_persisted(&self) {
        for marks in self.lock().values_mut() {
            marks.pushed = marks.persisted;
        }
    }

    fn get(&self, producer: &str) -> Option<Watermarks<W>> {
        self.lock().get(producer).copied()
    }

    fn purge(&self, producer: &str) {
        self.lock().remove(producer);
    }
}

#[derive(Default)]
pub struct TopicMutex {
    producers: Monitor<u64>,
    replicated: Monitor<Position>,
}

impl SequenceDedup for TopicMutex {
    const NAME: &'static str = "topic-mutex";
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
        self.producers.purge(producer);
        self.replicated.purge(producer);
    }
}
