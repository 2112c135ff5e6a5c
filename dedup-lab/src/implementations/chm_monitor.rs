//! `chm-monitor`: the seed's "topic-wide monitor" arm, Pulsar before #26763, on a model of Java's
//! `ConcurrentHashMap` ([`super::chm`]): `synchronized (highestSequencedPushed)` around a `get` of
//! the pushed id and, for a new id, a `put` of a boxed `Long`, which also locks the key's bin
//! inside the monitor. The persisted id is `put` outside the monitor, as Pulsar does.
//! Replicated positions sit in maps of their own behind a second monitor (Pulsar's
//! `synchronized (highestReplPositionPushed)`). Every accepted update allocates one box, as the
//! seed's 24 B/op. Compare `topic-mutex`: the same monitor over a Rust map of unboxed watermarks.

use std::sync::{Mutex, PoisonError};

use super::chm::{Admission, Boxed, ChmStore, Publish, ValueCell};
use super::{ByName, StoreDesign};
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

/// Watermarks of one kind in the two maps, every admission behind one monitor.
pub type Monitored<W, V = Boxed<W>> = ChmStore<W, Monitor, V>;

/// The topic-wide monitor.
#[derive(Default)]
pub struct Monitor(Mutex<()>);

impl Admission for Monitor {
    fn admit<W: Watermark, V: ValueCell<W>>(&self, at: Publish<'_, W, V>) -> DupStatus {
        // The monitor guards no data of its own: a poisoned one is as good as a clean one.
        let _topic = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match at.pushed.get(at.producer) {
            Some(prev) if at.low <= prev => {
                classify(at.low, Some(prev), at.persisted.get(at.producer))
            }
            _ => {
                at.pushed.put(at.producer, at.high);
                DupStatus::NotDup
            }
        }
    }
}
