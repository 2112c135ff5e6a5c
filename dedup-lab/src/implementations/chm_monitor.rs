//! `chm-monitor`: the seed's "topic-wide monitor" arm, Pulsar before #26763, on a model of Java's
//! `ConcurrentHashMap` ([`super::chm`]): `synchronized (highestSequencedPushed)` around a `get` of
//! the pushed id and, for a new id, a `put` of a boxed `Long`, which also locks the key's bin
//! inside the monitor. The persisted id is `put` outside the monitor, as Pulsar does.
//! Replicated positions sit in maps of their own behind a second monitor (Pulsar's
//! `synchronized (highestReplPositionPushed)`). Every accepted update allocates one box, as the
//! seed's 24 B/op. Compare `topic-mutex`: the same monitor over a Rust map of unboxed watermarks.

use std::sync::{Mutex, PoisonError};

use super::chm::{Boxed, Chm, ValueCell};
use super::{ByName, ProducerName, StoreDesign, WatermarkStore};
use crate::DupStatus;
use crate::sequence::{Position, Watermark, classify};

pub type ChmMonitor = ByName<TopicMonitorOverChm>;

pub struct TopicMonitorOverChm;

impl StoreDesign for TopicMonitorOverChm {
    const NAME: &'static str = "chm-monitor";
    const ZERO_ALLOC_STEADY_STATE: bool = false;
    type Ids = Monitored<u64>;
    type Positions = Monitored<Position>;
}

/// Pushed and persisted watermarks of one kind in two maps whose nodes hold values as `V` does,
/// admissions behind one monitor.
pub struct Monitored<W, V = Boxed<W>> {
    monitor: Mutex<()>,
    pushed: Chm<W, V>,
    persisted: Chm<W, V>,
}

impl<W, V> Default for Monitored<W, V> {
    fn default() -> Self {
        Self {
            monitor: Mutex::default(),
            pushed: Chm::default(),
            persisted: Chm::default(),
        }
    }
}

impl<W: Watermark, V: ValueCell<W>> WatermarkStore<W> for Monitored<W, V> {
    fn admit(&self, producer: &ProducerName, low: W, high: W) -> DupStatus {
        // The monitor guards no data of its own: a poisoned one is as good as a clean one.
        let _topic = self.monitor.lock().unwrap_or_else(PoisonError::into_inner);
        match self.pushed.get(producer) {
            Some(prev) if low <= prev => classify(low, Some(prev), self.persisted.get(producer)),
            _ => {
                self.pushed.put(producer, high);
                DupStatus::NotDup
            }
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
