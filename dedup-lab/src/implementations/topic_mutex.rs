//! `topic-mutex`: one lock around every producer's watermarks, as Pulsar before #26763
//! (`synchronized (highestSequencedPushed)` is a topic-wide monitor). Replicated positions sit
//! behind a second topic-wide lock of their own, as Pulsar's `synchronized
//! (highestReplPositionPushed)`.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use super::{ByName, Hasher, ProducerName, StoreDesign, WatermarkStore, Watermarks};
use crate::DupStatus;
use crate::sequence::{Position, Watermark};

pub type TopicMutex = ByName<TopicMonitor>;

pub struct TopicMonitor;

impl StoreDesign for TopicMonitor {
    const NAME: &'static str = "topic-mutex";
    const ZERO_ALLOC_STEADY_STATE: bool = true;
    type Ids = Monitor<u64>;
    type Positions = Monitor<Position>;
}

/// Every producer's watermarks of one kind behind one lock.
pub struct Monitor<W>(Mutex<HashMap<ProducerName, Watermarks<W>, Hasher>>);

impl<W> Default for Monitor<W> {
    fn default() -> Self {
        Self(Mutex::default())
    }
}

impl<W> Monitor<W> {
    fn lock(&self) -> MutexGuard<'_, HashMap<ProducerName, Watermarks<W>, Hasher>> {
        // A panic while holding the lock cannot leave a watermark half-written (each write is one
        // field store), so a poisoned lock is still consistent.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl<W: Watermark> WatermarkStore<W> for Monitor<W> {
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

    fn pushed(&self, producer: &str) -> Option<W> {
        self.lock().get(producer).and_then(|m| m.pushed)
    }

    fn persisted(&self, producer: &str) -> Option<W> {
        self.lock().get(producer).and_then(|m| m.persisted)
    }

    fn purge(&self, producer: &str) {
        self.lock().remove(producer);
    }

    fn advance(&self, producer: &ProducerName, next: fn(Option<W>) -> W) -> W {
        let mut map = self.lock();
        let marks = match map.get_mut(producer) {
            Some(marks) => marks,
            None => map.entry(producer.clone()).or_default(),
        };
        let value = next(marks.pushed);
        marks.pushed = Some(value);
        value
    }
}
