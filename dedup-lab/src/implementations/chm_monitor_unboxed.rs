//! `chm-monitor-unboxed`: the write-up's "topic-wide monitor" arm, Pulsar before #26763, on the model
//! of Java's `ConcurrentHashMap` ([`super::chm`]): `synchronized (highestSequencedPushed)` around
//! a `get` of the pushed id and, for a new id, a `put`, which also locks the key's bin inside the
//! monitor; the persisted id is `put` outside the monitor, as Pulsar does. Each watermark is held
//! in its node (the JVM boxes it: see [`super::chm`] for why the model does not). Replicated
//! positions sit in maps of their own behind a second monitor (Pulsar's
//! `synchronized (highestReplPositionPushed)`). Its JVM original is `jvm-monitor`; compare
//! `topic-mutex`: the same monitor over a Rust map.

use super::chm::Monitored;
use super::{ByName, StoreDesign};
use crate::sequence::Position;

pub type ChmMonitorUnboxed = ByName<TopicMonitorOverChm>;

pub struct TopicMonitorOverChm;

impl StoreDesign for TopicMonitorOverChm {
    const NAME: &'static str = "chm-monitor-unboxed";
    const ZERO_ALLOC_STEADY_STATE: bool = true;
    type Ids = Monitored<u64>;
    type Positions = Monitored<Position>;
}
