//! Sequence ids, the three-valued answer, and the lock-free per-producer slot that the
//! `atomic-slot` and `producer-handle` designs share (and that the loom model checks).

use std::sync::atomic::Ordering::{AcqRel, Acquire, Release};
use std::sync::atomic::{AtomicU64, Ordering};

/// Largest sequence id Pulsar can carry (a Java `long`, never negative).
pub const MAX_SEQUENCE_ID: u64 = i64::MAX as u64;

/// Pulsar's `MessageDupStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DupStatus {
    /// Definitely new: the lowest id is above the producer's highest pushed id. The only answer
    /// that writes (pushed becomes the batch's highest id).
    NotDup,
    /// Definitely a duplicate: the lowest id is at or below the highest persisted id.
    Dup,
    /// An earlier copy is in flight (pushed but not persisted): the client must retry.
    Unknown,
}

/// Rejected input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DedupError {
    /// A sequence id above [`MAX_SEQUENCE_ID`].
    SequenceIdOutOfRange(u64),
}

impl std::fmt::Display for DedupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::SequenceIdOutOfRange(id) => {
                write!(
                    f,
                    "sequence id {id} is out of range (0..={MAX_SEQUENCE_ID})"
                )
            }
        }
    }
}

impl std::error::Error for DedupError {}

/// The ids of one publish: a single message (`low == high`) or a batch. Admission checks the
/// lowest id and stores the highest, as `isDuplicateNormal` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SequenceBatch {
    low: u64,
    high: u64,
}

impl SequenceBatch {
    /// A batch from its lowest and highest id. Like Pulsar, a highest id below the lowest is
    /// read as the lowest (`high = max(highestSequenceId, sequenceId)`).
    pub fn new(low: u64, high: u64) -> Result<Self, DedupError> {
        for id in [low, high] {
            if id > MAX_SEQUENCE_ID {
                return Err(DedupError::SequenceIdOutOfRange(id));
            }
        }
        Ok(Self {
            low,
            high: high.max(low),
        })
    }

    /// A single message.
    pub fn single(id: u64) -> Result<Self, DedupError> {
        Self::new(id, id)
    }

    pub fn low(self) -> u64 {
        self.low
    }

    pub fn high(self) -> u64 {
        self.high
    }
}

/// The three-valued decision on plain values, written once for every design:
/// `pushed`/`persisted` are the producer's current watermarks.
pub fn classify(batch: SequenceBatch, pushed: Option<u64>, persisted: Option<u64>) -> DupStatus {
    match pushed {
        Some(p) if batch.low <= p => match persisted {
            Some(q) if batch.low <= q => DupStatus::Dup,
            _ => DupStatus::Unknown,
        },
        _ => DupStatus::NotDup,
    }
}

/// The atomic operations a [`SequenceSlot`] needs, so the model checker can substitute its own
/// instrumented atomics for `std`'s.
pub trait AtomicWord: Send + Sync {
    fn new(value: u64) -> Self;
    fn load(&self, order: Ordering) -> u64;
    fn store(&self, value: u64, order: Ordering);
    fn compare_exchange_weak(
        &self,
        current: u64,
        new: u64,
        success: Ordering,
        failure: Ordering,
    ) -> Result<u64, u64>;
}

/// Implements [`AtomicWord`] for an atomic type with `std`'s `AtomicU64` method set.
macro_rules! impl_atomic_word {
    ($atomic:ty) => {
        impl AtomicWord for $atomic {
            fn new(value: u64) -> Self {
                <$atomic>::new(value)
            }
            fn load(&self, order: Ordering) -> u64 {
                <$atomic>::load(self, order)
            }
            fn store(&self, value: u64, order: Ordering) {
                <$atomic>::store(self, value, order)
            }
            fn compare_exchange_weak(
                &self,
                current: u64,
                new: u64,
                success: Ordering,
                failure: Ordering,
            ) -> Result<u64, u64> {
                <$atomic>::compare_exchange_weak(self, current, new, success, failure)
            }
        }
    };
}

impl_atomic_word!(AtomicU64);

/// One producer's watermarks as two atomic words. A word holds `id + 1`, and 0 means "none yet",
/// so a producer needs no allocation and no lock after its slot exists.
pub struct SequenceSlot<A = AtomicU64> {
    pushed: A,
    persisted: A,
}

fn encode(id: u64) -> u64 {
    id + 1 // ids are at most MAX_SEQUENCE_ID, so this cannot overflow
}

fn decode(word: u64) -> Option<u64> {
    word.checked_sub(1)
}

impl<A: AtomicWord> Default for SequenceSlot<A> {
    fn default() -> Self {
        Self {
            pushed: A::new(0),
            persisted: A::new(0),
        }
    }
}

impl<A: AtomicWord> SequenceSlot<A> {
    /// Admission as one compare-and-swap: the decision is taken on the value the CAS replaces, so
    /// two callers can never both see `NotDup` for overlapping ids, and `pushed` only grows.
    /// The duplicate branches never write.
    #[inline]
    pub fn admit(&self, batch: SequenceBatch) -> DupStatus {
        let mut current = self.pushed.load(Acquire);
        loop {
            let pushed = decode(current);
            if pushed.is_some_and(|p| batch.low <= p) {
                return classify(batch, pushed, self.persisted());
            }
            match self
                .pushed
                .compare_exchange_weak(current, encode(batch.high), AcqRel, Acquire)
            {
                Ok(_) => return DupStatus::NotDup,
                Err(actual) => current = actual,
            }
        }
    }

    /// Pulsar's `recordMessagePersistedNormal`: persisted becomes the batch's highest id.
    pub fn record_persisted(&self, batch: SequenceBatch) {
        self.persisted.store(encode(batch.high), Release);
    }

    /// The add-failure path: pushed goes back to persisted (or to none).
    pub fn reset_pushed_to_persisted(&self) {
        self.pushed.store(self.persisted.load(Acquire), Release);
    }

    /// Forget both watermarks (purge of an inactive producer).
    pub fn clear(&self) {
        self.pushed.store(0, Release);
        self.persisted.store(0, Release);
    }

    pub fn pushed(&self) -> Option<u64> {
        decode(self.pushed.load(Acquire))
    }

    pub fn persisted(&self) -> Option<u64> {
        decode(self.persisted.load(Acquire))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_normalises_high_and_rejects_out_of_range() {
        let b = SequenceBatch::new(5, 3).unwrap();
        assert_eq!((b.low(), b.high()), (5, 5));
        assert!(SequenceBatch::single(MAX_SEQUENCE_ID).is_ok());
        assert_eq!(
            SequenceBatch::single(MAX_SEQUENCE_ID + 1),
            Err(DedupError::SequenceIdOutOfRange(MAX_SEQUENCE_ID + 1))
        );
        assert!(SequenceBatch::new(0, u64::MAX).is_err());
        assert!(
            DedupError::SequenceIdOutOfRange(u64::MAX)
                .to_string()
                .contains("out of range")
        );
    }

    #[test]
    fn slot_handles_extreme_ids() {
        let slot = SequenceSlot::<AtomicU64>::default();
        let max = SequenceBatch::single(MAX_SEQUENCE_ID).unwrap();
        assert_eq!(
            slot.admit(SequenceBatch::single(0).unwrap()),
            DupStatus::NotDup
        );
        assert_eq!(slot.admit(max), DupStatus::NotDup);
        assert_eq!(slot.pushed(), Some(MAX_SEQUENCE_ID));
        assert_eq!(slot.admit(max), DupStatus::Unknown);
        slot.record_persisted(max);
        assert_eq!(slot.admit(max), DupStatus::Dup);
    }

    /// Exhaustive interleavings of the slot's CAS logic with loom's instrumented atomics.
    mod loom_model {
        use super::super::*;
        use loom::sync::Arc;
        use loom::sync::atomic::AtomicU64 as LoomU64;

        impl_atomic_word!(LoomU64);

        fn batch(low: u64, high: u64) -> SequenceBatch {
            SequenceBatch::new(low, high).unwrap()
        }

        /// Three callers race on one producer (the reconnect overlap): the same id is admitted
        /// NotDup exactly once, and pushed ends at the highest admitted id.
        #[test]
        fn same_id_is_admitted_once_among_three_callers() {
            loom::model(|| {
                let slot = Arc::new(SequenceSlot::<LoomU64>::default());
                let handles: Vec<_> = [batch(1, 1), batch(1, 1), batch(1, 2)]
                    .into_iter()
                    .map(|b| {
                        let slot = slot.clone();
                        loom::thread::spawn(move || (b, slot.admit(b)))
                    })
                    .collect();
                let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
                let admitted: Vec<_> = results
                    .iter()
                    .filter(|(_, s)| *s == DupStatus::NotDup)
                    .collect();
                assert_eq!(admitted.len(), 1, "{results:?}");
                assert_eq!(slot.pushed(), Some(admitted[0].0.high()));
                assert!(
                    results.iter().all(|(_, s)| *s != DupStatus::Dup),
                    "nothing persisted"
                );
            });
        }

        /// Increasing ids from two callers plus a persistence record: pushed never goes
        /// backwards, every NotDup was above everything admitted before it, and a Dup answer
        /// only ever comes from an id at or below a persisted id.
        #[test]
        fn pushed_is_monotonic_under_concurrent_admission_and_persistence() {
            loom::model(|| {
                let slot = Arc::new(SequenceSlot::<LoomU64>::default());
                assert_eq!(slot.admit(batch(0, 0)), DupStatus::NotDup);
                let a = {
                    let slot = slot.clone();
                    loom::thread::spawn(move || {
                        let first = slot.admit(batch(2, 3));
                        let seen = slot.pushed().unwrap();
                        (first, seen)
                    })
                };
                let b = {
                    let slot = slot.clone();
                    loom::thread::spawn(move || {
                        slot.record_persisted(batch(0, 0));
                        slot.admit(batch(1, 1))
                    })
                };
                let (first, seen) = a.join().unwrap();
                let second = b.join().unwrap();
                assert_eq!(first, DupStatus::NotDup, "2..3 is above everything else");
                assert!(seen >= 3, "pushed went backwards: {seen}");
                // (1,1) is new only if it won the race before (2,3).
                assert_ne!(second, DupStatus::Dup, "1 was never persisted");
                assert_eq!(slot.pushed(), Some(3));
            });
        }
    }
}
