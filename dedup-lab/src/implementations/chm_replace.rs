//! `chm-replace`: the seed's "per-producer update" arm, Pulsar #26763 itself, on a model of Java's
//! `ConcurrentHashMap` ([`super::chm`]): read the producer's pushed id without a lock, then
//! `putIfAbsent` a new producer or `replace(name, prev, boxed)` an old one (which locks that
//! producer's bin only), going round again when another connection of the producer won. Every
//! accepted update allocates one box, as the seed's 24 B/op (a lost race allocates none here,
//! where the PR's loop boxes the id once before it starts). Replicated positions keep their topic-wide
//! monitor, as the PR left them (`chm-monitor`'s). Compare `papaya-cas`: the same algorithm on a
//! lock-free Rust map that replaces whole entries.

use super::chm::{Boxed, Chm, ValueCell};
use super::chm_monitor::Monitored;
use super::{ByName, ProducerName, StoreDesign, WatermarkStore};
use crate::DupStatus;
use crate::sequence::{Position, Watermark, classify};

pub type ChmReplace = ByName<PerProducerOverChm>;

pub struct PerProducerOverChm;

impl StoreDesign for PerProducerOverChm {
    const NAME: &'static str = "chm-replace";
    const ZERO_ALLOC_STEADY_STATE: bool = false;
    type Ids = ReplaceLoop<u64>;
    type Positions = Monitored<Position>;
}

/// Pushed and persisted watermarks of one kind in two maps whose nodes hold values as `V` does,
/// no topic-wide lock.
pub struct ReplaceLoop<W, V = Boxed<W>> {
    pushed: Chm<W, V>,
    persisted: Chm<W, V>,
}

impl<W, V> Default for ReplaceLoop<W, V> {
    fn default() -> Self {
        Self {
            pushed: Chm::default(),
            persisted: Chm::default(),
        }
    }
}

impl<W: Watermark, V: ValueCell<W>> WatermarkStore<W> for ReplaceLoop<W, V> {
    fn admit(&self, producer: &ProducerName, low: W, high: W) -> DupStatus {
        loop {
            let found = self.pushed.get(producer);
            if let Some(prev) = found
                && low <= prev
            {
                return classify(low, found, self.persisted.get(producer));
            }
            let won = match found {
                None => self.pushed.put_if_absent(producer, high).is_none(),
                Some(prev) => self.pushed.replace(producer, prev, high),
            };
            if won {
                return DupStatus::NotDup;
            }
            // Lost a race: re-read; the new value may now make this a duplicate.
        }
    }

    fn record_persisted(&self, producer: &ProducerName, high: W) {
        self.persisted.put(producer, high);
    }

    /// Not atomic with respect to admission (the trait's contract: only while fenced).
    fn reset_pushed_to_persisted(&self) {
        self.pushed.replace_all_with(&self.persisted);
    }

    fn pushed(&self, producer: &str) -> Option<W> {
        self.pushed.get(producer)
    }

    fn persisted(&self, producer: &str) -> Option<W> {
        self.persisted.get(producer)
    }

    fn purge(&self, producer: &str) {
        self.pushed.remove(producer);
        self.persisted.remove(producer);
    }
}
