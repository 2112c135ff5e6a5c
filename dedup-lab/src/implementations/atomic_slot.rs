//! `atomic-slot`: a concurrent map from producer to an atomic [`WatermarkSlot`]; admission is a
//! lock-free lookup plus one compare-and-swap on the slot. The slot lives inside the map entry and
//! is updated in place, so nothing is allocated after a producer's first message. Replicated
//! positions have slots of their own: a 128-bit compare-and-swap replaces a position whole.

use papaya::HashMap;

use super::{ByName, Hasher, ProducerName, StoreDesign, WatermarkStore};
use crate::DupStatus;
use crate::sequence::{Position, Watermark, WatermarkSlot};

pub type AtomicSlot = ByName<SlotMap>;

pub struct SlotMap;

impl StoreDesign for SlotMap {
    const NAME: &'static str = "atomic-slot";
    const ZERO_ALLOC_STEADY_STATE: bool = true;
    type Ids = Slots<u64>;
    type Positions = Slots<Position>;
}

/// Every producer's slot of one kind.
pub struct Slots<W: Watermark>(HashMap<ProducerName, WatermarkSlot<W>, Hasher>);

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
}

impl<W: Watermark> WatermarkStore<W> for Slots<W> {
    fn admit(&self, producer: &ProducerName, low: W, high: W) -> DupStatus {
        self.with_slot(producer, |slot| slot.admit_span(low, high))
    }

    fn record_persisted(&self, producer: &ProducerName, high: W) {
        self.with_slot(producer, |slot| slot.record_persisted_at(high));
    }

    fn reset_pushed_to_persisted(&self) {
        for (_, slot) in self.0.pin().iter() {
            slot.reset_pushed_to_persisted();
        }
    }

    fn pushed(&self, producer: &str) -> Option<W> {
        self.0.pin().get(producer).and_then(WatermarkSlot::pushed)
    }

    fn persisted(&self, producer: &str) -> Option<W> {
        self.0
            .pin()
            .get(producer)
            .and_then(WatermarkSlot::persisted)
    }

    fn purge(&self, producer: &str) {
        self.0.pin().remove(producer);
    }

    fn advance(&self, producer: &ProducerName, next: fn(Option<W>) -> W) -> W {
        self.with_slot(producer, |slot| slot.advance(next))
    }
}
