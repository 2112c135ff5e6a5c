//! `papaya-cas`: the algorithm of Pulsar #26763 (read the producer's pushed id, then
//! insert-if-absent or compare-and-replace, retrying when another caller won) on papaya, a
//! lock-free Rust hash map. It is not a model of Java's `ConcurrentHashMap` (that is
//! `chm-replace-unboxed`): papaya's compare-and-replace is a `compute` that installs a new entry
//! (key and value, boxed together) with a CAS on the bucket and retires the old one through
//! epoch-based reclamation, where Java's `replace` locks the bin and overwrites one field with a
//! boxed `Long` that the garbage collector frees. So every accepted update allocates and later
//! frees an entry. Replicated positions take the same path in maps of their own, a position being
//! one value replaced whole (as the `compute` variant of Pulsar's replication path does).

use papaya::{Compute, HashMap, Operation};

use super::{ByName, Hasher, ProducerName, StoreDesign, WatermarkStore};
use crate::DupStatus;
use crate::sequence::{Position, Watermark, classify};

pub type PapayaCas = ByName<PapayaKeys>;

pub struct PapayaKeys;

impl StoreDesign for PapayaKeys {
    const NAME: &'static str = "papaya-cas";
    const ZERO_ALLOC_STEADY_STATE: bool = false;
    type Ids = CasMaps<u64>;
    type Positions = CasMaps<Position>;
}

/// Pushed and persisted watermarks of one kind, one map each.
pub struct CasMaps<W> {
    pushed: HashMap<ProducerName, W, Hasher>,
    persisted: HashMap<ProducerName, W, Hasher>,
}

impl<W> Default for CasMaps<W> {
    fn default() -> Self {
        Self {
            pushed: HashMap::default(),
            persisted: HashMap::default(),
        }
    }
}

impl<W: Watermark> WatermarkStore<W> for CasMaps<W> {
    fn admit(&self, producer: &ProducerName, low: W, high: W) -> DupStatus {
        let pushed = self.pushed.pin();
        loop {
            match pushed.get(producer).copied() {
                Some(prev) if low <= prev => {
                    let persisted = self.persisted.pin().get(producer).copied();
                    return classify(low, Some(prev), persisted);
                }
                None => {
                    if pushed.try_insert(producer.clone(), high).is_ok() {
                        return DupStatus::NotDup;
                    }
                }
                Some(prev) => {
                    let replaced = pushed.compute(producer.clone(), |entry| match entry {
                        Some((_, &current)) if current == prev => Operation::Insert(high),
                        _ => Operation::Abort(()),
                    });
                    if !matches!(replaced, Compute::Aborted(())) {
                        return DupStatus::NotDup;
                    }
                }
            }
            // Lost a race: re-read; the new value may now make this a duplicate.
        }
    }

    fn record_persisted(&self, producer: &ProducerName, high: W) {
        self.persisted.pin().insert(producer.clone(), high);
    }

    /// Not atomic with respect to admission (the trait's contract: only while fenced).
    fn reset_pushed_to_persisted(&self) {
        let pushed = self.pushed.pin();
        pushed.clear();
        for (name, id) in self.persisted.pin().iter() {
            pushed.insert(name.clone(), *id);
        }
    }

    fn pushed(&self, producer: &str) -> Option<W> {
        self.pushed.pin().get(producer).copied()
    }

    fn persisted(&self, producer: &str) -> Option<W> {
        self.persisted.pin().get(producer).copied()
    }

    fn purge(&self, producer: &str) {
        self.pushed.pin().remove(producer);
        self.persisted.pin().remove(producer);
    }

    /// The PR's loop on papaya: read, then insert-if-absent or compare-and-replace, until it wins.
    fn advance(&self, producer: &ProducerName, next: fn(Option<W>) -> W) -> W {
        let pushed = self.pushed.pin();
        loop {
            let found = pushed.get(producer).copied();
            let value = next(found);
            let won = match found {
                None => pushed.try_insert(producer.clone(), value).is_ok(),
                Some(prev) => !matches!(
                    pushed.compute(producer.clone(), |entry| match entry {
                        Some((_, &current)) if current == prev => Operation::Insert(value),
                        _ => Operation::Abort(()),
                    }),
                    Compute::Aborted(())
                ),
            };
            if won {
                return value;
            }
        }
    }
}
