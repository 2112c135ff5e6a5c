//! `topic-mutex`: one lock around every producer's watermarks, as Pulsar before #26763
//! (`synchronized (highestSequencedPushed)` is a topic-wide monitor).

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use super::{Hasher, ProducerName, Watermarks};
use crate::{DupStatus, SequenceBatch, SequenceDedup};

#[derive(Default)]
pub struct TopicMutex {
    producers: Mutex<HashMap<ProducerName, Watermarks, Hasher>>,
}

impl TopicMutex {
    fn lock(&self) -> MutexGuard<'_, HashMap<ProducerName, Watermarks, Hasher>> {
        // A panic while holding the lock cannot leave a watermark half-written (each write is one
        // field store), so a poisoned lock is still consistent.
        self.producers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl SequenceDedup for TopicMutex {
    const NAME: &'static str = "topic-mutex";
    const ZERO_ALLOC_STEADY_STATE: bool = true;
    type Producer = ProducerName;

    fn connect(&self, producer: &str) -> ProducerName {
        producer.into()
    }

    fn admit(&self, producer: &ProducerName, batch: SequenceBatch) -> DupStatus {
        let mut map = self.lock();
        match map.get_mut(producer) {
            Some(marks) => marks.admit(batch),
            None => map.entry(producer.clone()).or_default().admit(batch),
        }
    }

    fn record_persisted(&self, producer: &ProducerName, batch: SequenceBatch) {
        self.lock().entry(producer.clone()).or_default().persisted = Some(batch.high());
    }

    fn reset_pushed_to_persisted(&self) {
        for marks in self.lock().values_mut() {
            marks.pushed = marks.persisted;
        }
    }

    fn highest_pushed(&self, producer: &str) -> Option<u64> {
        self.lock().get(producer).and_then(|m| m.pushed)
    }

    fn highest_persisted(&self, producer: &str) -> Option<u64> {
        self.lock().get(producer).and_then(|m| m.persisted)
    }

    fn purge(&self, producer: &str) {
        self.lock().remove(producer);
    }
}
