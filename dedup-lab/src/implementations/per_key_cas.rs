//! `per-key-cas`: the shape of Pulsar #26763 on papaya: read the producer's pushed id, then
//! insert-if-absent or compare-and-replace, retrying when another caller won. Like Java's boxed
//! `Long`, every accepted update installs a new map entry (papaya boxes entries), so it allocates.

use papaya::{Compute, HashMap, Operation};

use super::{Hasher, ProducerName};
use crate::sequence::classify;
use crate::{DupStatus, SequenceBatch, SequenceDedup};

#[derive(Default)]
pub struct PerKeyCas {
    pushed: HashMap<ProducerName, u64, Hasher>,
    persisted: HashMap<ProducerName, u64, Hasher>,
}

impl SequenceDedup for PerKeyCas {
    const NAME: &'static str = "per-key-cas";
    const ZERO_ALLOC_STEADY_STATE: bool = false;
    type Producer = ProducerName;

    fn connect(&self, producer: &str) -> ProducerName {
        producer.into()
    }

    fn admit(&self, producer: &ProducerName, batch: SequenceBatch) -> DupStatus {
        let pushed = self.pushed.pin();
        loop {
            match pushed.get(producer).copied() {
                Some(prev) if batch.low() <= prev => {
                    let persisted = self.persisted.pin().get(producer).copied();
                    return classify(batch, Some(prev), persisted);
                }
                None => {
                    if pushed.try_insert(producer.clone(), batch.high()).is_ok() {
                        return DupStatus::NotDup;
                    }
                }
                Some(prev) => {
                    let replaced = pushed.compute(producer.clone(), |entry| match entry {
                        Some((_, &current)) if current == prev => Operation::Insert(batch.high()),
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

    fn record_persisted(&self, producer: &ProducerName, batch: SequenceBatch) {
        self.persisted.pin().insert(producer.clone(), batch.high());
    }

    fn reset_pushed_to_persisted(&self) {
        let pushed = self.pushed.pin();
        pushed.clear();
        for (name, id) in self.persisted.pin().iter() {
            pushed.insert(name.clone(), *id);
        }
    }

    fn highest_pushed(&self, producer: &str) -> Option<u64> {
        self.pushed.pin().get(producer).copied()
    }

    fn highest_persisted(&self, producer: &str) -> Option<u64> {
        self.persisted.pin().get(producer).copied()
    }

    fn purge(&self, producer: &str) {
        self.pushed.pin().remove(producer);
        self.persisted.pin().remove(producer);
    }
}
