//! `chm-replace-unboxed`: the write-up's "per-producer update" arm, Pulsar #26763 itself, on the model
//! of Java's `ConcurrentHashMap` ([`super::chm`]): read the producer's pushed id without a lock,
//! then `putIfAbsent` a new producer or `replace(name, prev, new)` an old one (which locks that
//! producer's bin only), going round again when another connection of the producer won. Each
//! watermark is held in its node (the JVM boxes it: see [`super::chm`] for why the model does
//! not). Replicated positions keep their topic-wide monitor, as the PR left them. Its JVM original
//! is `jvm-replace`; compare `papaya-cas`: the same algorithm on a lock-free Rust map that replaces
//! whole entries.

use super::chm::{ChmStore, Monitored, ReplaceLoop};
use super::{ByName, StoreDesign};
use crate::sequence::Position;

pub type ChmReplaceUnboxed = ByName<PerProducerOverChm>;

pub struct PerProducerOverChm;

impl StoreDesign for PerProducerOverChm {
    const NAME: &'static str = "chm-replace-unboxed";
    const ZERO_ALLOC_STEADY_STATE: bool = true;
    type Ids = ChmStore<u64, ReplaceLoop>;
    type Positions = Monitored<Position>;
}
