//! `chm-replace`: the seed's "per-producer update" arm, Pulsar #26763 itself, on a model of Java's
//! `ConcurrentHashMap` ([`super::chm`]): read the producer's pushed id without a lock, then
//! `putIfAbsent` a new producer or `replace(name, prev, boxed)` an old one (which locks that
//! producer's bin only), going round again when another connection of the producer won; the box
//! is allocated once per call, at the first write attempt, as the PR's code boxes the id once.
//! Every accepted update allocates one box, as the seed's 24 B/op. Replicated positions keep their topic-wide
//! monitor, as the PR left them (`chm-monitor`'s). Compare `papaya-cas`: the same algorithm on a
//! lock-free Rust map that replaces whole entries.

use super::chm::Chm;
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

/// Pushed and persisted watermarks of one kind in two maps, no topic-wide lock.
pub struct ReplaceLoop<W> {
    pushed: Chm<W>,
    persisted: Chm<W>,
}

impl<W> Default for ReplaceLoop<W> {
    fn default() -> Self {
        Self {
            pushed: Chm::default(),
            persisted: Chm::default(),
        }
    }
}

impl<W: Watermark> WatermarkStore<W> for ReplaceLoop<W> {
    fn admit(&self, producer: &ProducerName, low: W, high: W) -> DupStatus {
        // Boxed once per call, at the first write attempt: the PR's loop boxes the id once, and a
        // duplicate, which writes nothing, needs no box.
        let mut boxed: Option<Box<W>> = None;
        loop {
            let found = self.pushed.get(producer);
            if let Some(prev) = found
                && low <= prev
            {
                return classify(low, found, self.persisted.get(producer));
            }
            let value = boxed.take().unwrap_or_else(|| Box::new(high));
            let attempt = match found {
                None => self
                    .pushed
                    .put_if_absent(producer, value)
                    .map_err(|(_, b)| b),
                Some(prev) => self.pushed.replace(producer, prev, value),
            };
            match attempt {
                Ok(()) => return DupStatus::NotDup,
                // Lost a race: re-read; the new value may now make this a duplicate.
                Err(unused) => boxed = Some(unused),
            }
        }
    }

    fn record_persisted(&self, producer: &ProducerName, high: W) {
        self.persisted.put(producer, Box::new(high));
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
