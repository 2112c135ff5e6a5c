//! `producer-handle`: the producer resolves its slot once when it connects and keeps an `Arc` to
//! it; each admission is one compare-and-swap with no map lookup and no lock. Connections with the
//! same name share one slot (the registry hands out the same `Arc`), so the reconnect overlap
//! stays linearizable. The registry lock is taken only on connect, purge, reset and reads by name.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use super::{Hasher, ProducerName};
use crate::sequence::SequenceSlot;
use crate::{DupStatus, SequenceBatch, SequenceDedup};

type Registry = HashMap<ProducerName, Arc<SequenceSlot>, Hasher>;

#[derive(Default)]
pub struct ProducerHandle {
    registry: Mutex<Registry>,
}

/// A connection's handle on its producer's slot.
pub struct Handle(Arc<SequenceSlot>);

impl ProducerHandle {
    fn registry(&self) -> MutexGuard<'_, Registry> {
        // Registry updates are single insert/remove calls: a poisoned lock is still consistent.
        self.registry
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl SequenceDedup for ProducerHandle {
    const NAME: &'static str = "producer-handle";
    const ZERO_ALLOC_STEADY_STATE: bool = true;
    type Producer = Handle;

    fn connect(&self, producer: &str) -> Handle {
        let mut registry = self.registry();
        if let Some(slot) = registry.get(producer) {
            return Handle(slot.clone());
        }
        Handle(registry.entry(producer.into()).or_default().clone())
    }

    fn admit(&self, producer: &Handle, batch: SequenceBatch) -> DupStatus {
        producer.0.admit(batch)
    }

    fn record_persisted(&self, producer: &Handle, batch: SequenceBatch) {
        producer.0.record_persisted(batch);
    }

    fn reset_pushed_to_persisted(&self) {
        for slot in self.registry().values() {
            slot.reset_pushed_to_persisted();
        }
    }

    fn highest_pushed(&self, producer: &str) -> Option<u64> {
        self.registry().get(producer).and_then(|slot| slot.pushed())
    }

    fn highest_persisted(&self, producer: &str) -> Option<u64> {
        self.registry()
            .get(producer)
            .and_then(|slot| slot.persisted())
    }

    /// Clears the watermarks; the slot itself is dropped only when no connection holds it, so a
    /// later connect under the same name can never get a second, diverging slot. Handles are
    /// cloned only under the registry lock, so the count cannot grow while we look at it.
    fn purge(&self, producer: &str) {
        let mut registry = self.registry();
        if let Some(slot) = registry.get(producer) {
            slot.clear();
            if Arc::strong_count(slot) == 1 {
                registry.remove(producer);
            }
        }
    }
}
