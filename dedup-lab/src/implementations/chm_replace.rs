//! `chm-replace`: the seed's "per-producer update" arm, Pulsar #26763 itself, on a model of Java's
//! `ConcurrentHashMap` ([`super::chm`]): read the producer's pushed id without a lock, then
//! `putIfAbsent` a new producer or `replace(name, prev, boxed)` an old one (which locks that
//! producer's bin only), going round again when another connection of the producer won. Every
//! accepted update allocates one box, as the seed's 24 B/op (a lost race allocates none here,
//! where the PR's loop boxes the id once before it starts). Replicated positions keep their
//! topic-wide monitor, as the PR left them (`chm-monitor`'s). Compare `papaya-cas`: the same
//! algorithm on a lock-free Rust map that replaces whole entries.

use super::chm::{Admission, ChmStore, Publish, ValueCell};
use super::chm_monitor::Monitored;
use super::{ByName, StoreDesign};
use crate::DupStatus;
use crate::sequence::{Position, Watermark, classify};

pub type ChmReplace = ByName<PerProducerOverChm>;

pub struct PerProducerOverChm;

impl StoreDesign for PerProducerOverChm {
    const NAME: &'static str = "chm-replace";
    const ZERO_ALLOC_STEADY_STATE: bool = false;
    type Ids = ChmStore<u64, ReplaceLoop>;
    type Positions = Monitored<Position>;
}

/// The PR's loop: no topic-wide lock.
#[derive(Default)]
pub struct ReplaceLoop;

impl Admission for ReplaceLoop {
    fn admit<W: Watermark, V: ValueCell<W>>(&self, at: Publish<'_, W, V>) -> DupStatus {
        loop {
            let found = at.pushed.get(at.producer);
            if let Some(prev) = found
                && at.low <= prev
            {
                return classify(at.low, found, at.persisted.get(at.producer));
            }
            let won = match found {
                None => at.pushed.put_if_absent(at.producer, at.high).is_none(),
                Some(prev) => at.pushed.replace(at.producer, prev, at.high),
            };
            if won {
                return DupStatus::NotDup;
            }
            // Lost a race: re-read; the new value may now make this a duplicate.
        }
    }
}
