//! `producer-handle`: the producer resolves its slot once when it connects and keeps an `Arc` to
//! it; each admission is one compare-and-swap with no map lookup and no lock. Connections with the
//! same name share one slot (the registry hands out the same `Arc`), so the reconnect overlap
//! stays linearizable. The registry lock is taken only on connect, purge, reset and reads by name.
//! A replicator's position slot lives in a second registry, resolved by the connection on its
//! first replicated message and kept from then on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::{Hasher, ProducerName};
use crate::sequence::{Position, Watermark, WatermarkSlot};
use crate::{DupStatus, SequenceBatch, SequenceDedup};

/// Every producer's slot of one kind, shared with the connections that hold it.
struct Registry<W: Watermark>(Mutex<HashMap<ProducerName, Arc<WatermarkSlot<W>>, Hasher>>);

impl<W: Watermark> Default for Registry<W> {
    fn default() -> Self {
        Self(Mutex::default())
    }
}

impl<W: Watermark> Registry<W> {
    fn lock(&self) -> MutexGuard<'_, HashMap<ProducerName, Arc<WatermarkSlot<W>>, Hasher>> {
        // Registry updates are single insert/remove calls: a poisoned lock is still consistent.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The producer's slot, created on first use; and the registry's key for it.
    fn resolve(&self, producer: &str) -> (ProducerName, Arc<WatermarkSlot<W>>) {
        let mut registry = self.lock();
        if let Some((name, slot)) = registry.get_key_value(producer) {
            return (name.clone(), slot.clone());
        }
        let name: ProducerName = producer.into();
        let slot = registry.entry(name.clone()).or_default().clone();
        (name, slot)
    }

    fn reset_pushed_to_persisted(&self) {
        for slot in self.lock().values() {
            slot.reset_pushed_to_persisted();
        }
    }

    fn get<R>(&self, producer: &str, f: impl FnOnce(&WatermarkSlot<W>) -> Option<R>) -> Option<R> {
        self.lock().get(producer).and_then(|slot| f(slot))
    }

    /// Clears the watermarks; the slot itself is dropped only when no connection holds it, so a
    /// later connect under the same name can never get a second, diverging slot. Handles are
    /// cloned only under the registry lock, so the count cannot grow while we look at it.
    fn purge(&self, producer: &str) {
        let mut registry = self.lock();
        if let Some(slot) = registry.get(producer) {
            slot.clear();
            if Arc::strong_count(slot) == 1 {
                registry.remove(producer);
            }
        }
    }
}

#[derive(Default)]
pub struct ProducerHandle {
    registry: Registry<u64>,
    replicated: Registry<Position>,
}

/// A connection's handle on its producer's slots.
pub struct Handle {
    name: ProducerName,
    slot: Arc<WatermarkSlot<u64>>,
    replicated: OnceLock<Arc<WatermarkSlot<Position>>>,
}

impl ProducerHandle {
    fn replicated_slot<'h>(&self, handle: &'h Handle) -> &'h WatermarkSlot<Position> {
        handle
            .replicated
            .get_or_init(|| self.replicated.resolve(&handle.name).1)
    }
}

impl SequenceDedup for ProducerHandle {
    const NAME: &'static str = "producer-handle";
    const ZERO_ALLOC_STEADY_STATE: bool = true;
    type Producer = Handle;

    fn connect(&self, producer: &str) -> Handle {
        let (name, slot) = self.registry.resolve(producer);
        Handle {
            name,
            slot,
            replicated: OnceLock::new(),
        }
    }

    fn admit(&self, producer: &Handle, batch: SequenceBatch) -> DupStatus {
        producer.slot.admit(batch)
    }

    fn record_persisted(&self, producer: &Handle, batch: SequenceBatch) {
        producer.slot.record_persisted(batch);
    }

    fn admit_replicated(&self, producer: &Handle, position: Position) -> DupStatus {
        self.replicated_slot(producer)
            .admit_span(position, position)
    }

    fn record_replicated_persisted(&self, producer: &Handle, position: Position) {
        self.replicated_slot(producer).record_persisted_at(position);
    }

    fn reset_pushed_to_persisted(&self) {
        self.registry.reset_pushed_to_persisted();
        self.replicated.reset_pushed_to_persisted();
    }

    fn highest_pushed(&self, producer: &str) -> Option<u64> {
        self.registry.get(producer, WatermarkSlot::pushed)
    }

    fn highest_persisted(&self, producer: &str) -> Option<u64> {
        self.registry.get(producer, WatermarkSlot::persisted)
    }

    fn highest_replicated_pushed(&self, producer: &str) -> Option<Position> {
        self.replicated.get(producer, WatermarkSlot::pushed)
    }

    fn highest_replicated_persisted(&self, producer: &str) -> Option<Position> {
        self.replicated.get(producer, WatermarkSlot::persisted)
    }

    fn purge(&self, producer: &str) {
        self.registry.purge(producer);
        self.replicated.purge(producer);
    }

    fn increment_pushed(&self, producer: &Handle) -> u64 {
        producer.slot.increment()
    }
}
