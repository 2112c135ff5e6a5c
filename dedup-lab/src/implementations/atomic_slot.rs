//! `atomic-slot`: a concurrent map from producer to an atomic [`WatermarkSlot`]; admission is a
//! lock-free lookup plus one compare-and-swap on the slot. The slot lives inside the map entry and
//! is updated in place, so nothing is allocated after a producer's first message. Replicated
//! positions have slots of their own: a 128-bit compare-and-swap replaces a position whole.

use papaya::HashMap;

use super::{Hasher, ProducerName};
use crate::sequence::{Position, Watermark, WatermarkSlot};
use crate::{DupStatus, SequenceBatch, SequenceDedup};

/// Every producer's slot of one kind.
struct Slots<W: Watermark>(HashMap<ProducerName, WatermarkSlot<W>, Hasher>);

impl<W: Watermark> Default for Slots<W> {
    fn default() -> Self {
        Self(HashMap::default())
    }
}

impl<W: Watermark> Slots<W> {
    fn with_slot<R>(&self, producer: &ProducerName, f: impl FnOnce(&WatermarkSlot<W>) -> R) -> R {
        let slots = self.0.pin();
        match slots.get(producer) {
            Some(slot) => f(slot),
            None => f(slots.get_or_insert_with(producer.clone(), WatermarkSlot::default)),
        }
    }

    fn reset_pushed_to_persisted(&self) {
        for (_, slot) in self.0.pin().iter() {
            slot.reset_pushed_to_persisted();
        }
    }

    fn get<R>(&self, producer: &str, f: impl FnOnce(&WatermarkSlot<W>) -> Option<R>) -> Option<R> {
        self.0.pin().get(producer).and_then(f)
    }
}

#[derive(Default)]
pub struct AtomicSlot {
    slots: Slots<u64>,
    replicated: Slots<Position>,
}

impl SequenceDedup for AtomicSlot {
    const NAME: &'static str = "atomic-slot";
    const ZERO_ALLOC_STEADY_STATE: bool = true;
    type Producer = ProducerName;

    fn connect(&self, producer: &str) -> ProducerName {
        producer.into()
    }

    fn admit(&self, producer: &ProducerName, batch: SequenceBatch) -> DupStatus {
        self.slots.with_slot(producer, |slot| slot.admit(batch))
    }

    fn record_persisted(&self, producer: &ProducerName, batch: SequenceBatch) {
        self.slots
            .with_slot(producer, |slot| slot.record_persisted(batch));
    }

    fn admit_replicated(&self, producer: &ProducerName, position: Position) -> DupStatus {
        self.replicated
            .with_slot(producer, |slot| slot.admit_span(position, position))
    }

    fn record_replicated_persisted(&self, producer: &ProducerName, position: Position) {
        self.replicated
            .with_slot(producer, |slot| slot.record_persisted_at(position));
    }

    fn reset_pushed_to_persisted(&self) {
        self.slots.reset_pushed_to_persisted();
        self.replicated.reset_pushed_to_persisted();
    }

    fn highest_pushed(&self, producer: &str) -> Option<u64> {
        self.slots.get(producer, WatermarkSlot::pushed)
    }

    fn highest_persisted(&self, producer: &str) -> Option<u64> {
        self.slots.get(producer, WatermarkSlot::persisted)
    }

    fn highest_replicated_pushed(&self, producer: &str) -> Option<Position> {
        self.replicated.get(producer, WatermarkSlot::pushed)
    }

    fn highest_replicated_persisted(&self, producer: &str) -> Option<Position> {
        self.replicated.get(producer, WatermarkSlot::persisted)
    }

    fn purge(&self, producer: &str) {
        self.slots.0.pin().remove(producer);
        self.replicated.0.pin().remove(producer);
    }
}
