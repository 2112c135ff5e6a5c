//! `atomic-slot`: a concurrent map from producer to an atomic [`SequenceSlot`]; admission is a
//! lock-free lookup plus one compare-and-swap on the slot. The slot lives inside the map entry and
//! is updated in place, so nothing is allocated after a producer's first message.

use papaya::HashMap;

use super::{Hasher, ProducerName};
use crate::sequence::SequenceSlot;
use crate::{DupStatus, SequenceBatch, SequenceDedup};

#[derive(Default)]
pub struct AtomicSlot {
    slots: HashMap<ProducerName, SequenceSlot, Hasher>,
}

impl AtomicSlot {
    fn with_slot<R>(&self, producer: &ProducerName, f: impl FnOnce(&SequenceSlot) -> R) -> R {
        let slots = self.slots.pin();
        match slots.get(producer) {
            Some(slot) => f(slot),
            None => f(slots.get_or_insert_with(producer.clone(), SequenceSlot::default)),
        }
    }
}

impl SequenceDedup for AtomicSlot {
    const NAME: &'static str = "atomic-slot";
    const ZERO_ALLOC_STEADY_STATE: bool = true;
    type Producer = ProducerName;

    fn connect(&self, producer: &str) -> ProducerName {
        producer.into()
    }

    fn admit(&self, producer: &ProducerName, batch: SequenceBatch) -> DupStatus {
        self.with_slot(producer, |slot| slot.admit(batch))
    }

    fn record_persisted(&self, producer: &ProducerName, batch: SequenceBatch) {
        self.with_slot(producer, |slot| slot.record_persisted(batch));
    }

    fn reset_pushed_to_persisted(&self) {
        for (_, slot) in self.slots.pin().iter() {
            slot.reset_pushed_to_persisted();
        }
    }

    fn highest_pushed(&self, producer: &str) -> Option<u64> {
        self.slots
            .pin()
            .get(producer)
            .and_then(SequenceSlot::pushed)
    }

    fn highest_persisted(&self, producer: &str) -> Option<u64> {
        self.slots
            .pin()
            .get(producer)
            .and_then(SequenceSlot::persisted)
    }

    fn purge(&self, producer: &str) {
        self.slots.pin().remove(producer);
    }
}
