//! `chm-replace-unboxed`: `chm-replace` with each watermark held in its node as one atomic word
//! (a `volatile long`) instead of a box per update: the same map, bin lock and loop, so the
//! difference between the two is what a boxed value costs here — an allocation per accepted
//! update and its reclamation through the epoch collector, which the JVM pays as a bump-pointer
//! allocation and garbage collection. Replicated positions keep the topic-wide monitor, as in
//! `chm-replace`, over unboxed positions too.

use super::chm::{ChmStore, Unboxed};
use super::chm_monitor::Monitored;
use super::chm_replace::ReplaceLoop;
use super::{ByName, StoreDesign};
use crate::sequence::Position;

pub type ChmReplaceUnboxed = ByName<PerProducerOverUnboxedChm>;

pub struct PerProducerOverUnboxedChm;

impl StoreDesign for PerProducerOverUnboxedChm {
    const NAME: &'static str = "chm-replace-unboxed";
    const ZERO_ALLOC_STEADY_STATE: bool = true;
    type Ids = ChmStore<u64, ReplaceLoop, Unboxed<u64>>;
    type Positions = Monitored<Position, Unboxed<Position>>;
}
