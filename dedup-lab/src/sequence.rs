//! Sequence ids, replicated messages' source positions, the three-valued answer, and the
//! lock-free watermark slot that the `atomic-slot` and `producer-handle` designs share (and that
//! the loom models check): one atomic word per watermark, 64 bits for a sequence id, 128 for a
//! (ledger, entry) position, so a position is compared and replaced as one unit.

use std::marker::PhantomData;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Release};
use std::sync::atomic::{AtomicU64, Ordering};

use portable_atomic::AtomicU128;

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
    /// A ledger or entry id above [`MAX_SEQUENCE_ID`] (both are Java longs, never negative).
    PositionOutOfRange { ledger: u64, entry: u64 },
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
            Self::PositionOutOfRange { ledger, entry } => write!(
                f,
                "position {ledger}:{entry} is out of range (ledger and entry ids 0..={MAX_SEQUENCE_ID})"
            ),
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

/// A replicated message's position in its source cluster (Pulsar's `ReplSourcePosition`):
/// ordered by ledger id, then entry id, as `isReplPositionAtOrBefore` compares them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    ledger: u64,
    entry: u64,
}

impl Position {
    pub fn new(ledger: u64, entry: u64) -> Result<Self, DedupError> {
        if ledger > MAX_SEQUENCE_ID || entry > MAX_SEQUENCE_ID {
            return Err(DedupError::PositionOutOfRange { ledger, entry });
        }
        Ok(Self { ledger, entry })
    }

    pub fn ledger(self) -> u64 {
        self.ledger
    }

    pub fn entry(self) -> u64 {
        self.entry
    }
}

/// The three-valued decision on plain values, written once for every design and both kinds of
/// watermark: `low` is the lowest id of what arrives, `pushed`/`persisted` the producer's current
/// watermarks.
pub fn classify<W: Ord>(low: W, pushed: Option<W>, persisted: Option<W>) -> DupStatus {
    match pushed {
        Some(p) if low <= p => match persisted {
            Some(q) if low <= q => DupStatus::Dup,
            _ => DupStatus::Unknown,
        },
        _ => DupStatus::NotDup,
    }
}

/// A watermark: a sequence id or a source position, kept in an atomic word as `encode(w)`, with
/// zero for "none yet", so a slot needs no allocation and no lock once it exists.
pub trait Watermark: Copy + Ord + Send + Sync + 'static {
    /// The value of the word that holds it.
    type Word: Copy + Eq + Send + Sync;
    /// The atomic word the designs use (loom tests substitute their own).
    type Atomic: AtomicWord<Value = Self::Word>;
    /// The word of "none yet".
    const NONE: Self::Word;
    fn encode(self) -> Self::Word;
    fn decode(word: Self::Word) -> Option<Self>;
}

impl Watermark for u64 {
    type Word = u64;
    type Atomic = AtomicU64;
    const NONE: u64 = 0;
    fn encode(self) -> u64 {
        self + 1 // ids are at most MAX_SEQUENCE_ID, so this cannot overflow
    }
    fn decode(word: u64) -> Option<u64> {
        word.checked_sub(1)
    }
}

/// A position as one 128-bit word, ledger in the high half: the word's order is the position's
/// lexicographic order, so one compare-and-swap compares and replaces the pair as one unit.
/// `portable-atomic` uses `cmpxchg16b` (detected at run time on x86-64; a lock only on CPUs
/// without it, which [`PositionSlot::is_lock_free`] reports).
impl Watermark for Position {
    type Word = u128;
    type Atomic = AtomicU128;
    const NONE: u128 = 0;
    fn encode(self) -> u128 {
        // The ledger id is at most MAX_SEQUENCE_ID (2^63 - 1), so this cannot overflow.
        ((u128::from(self.ledger) << 64) | u128::from(self.entry)) + 1
    }
    fn decode(word: u128) -> Option<Position> {
        word.checked_sub(1).map(|v| Position {
            ledger: (v >> 64) as u64,
            entry: v as u64,
        })
    }
}

/// The atomic operations a [`WatermarkSlot`] needs, so the model checker can substitute its own
/// instrumented atomics for the real ones.
pub trait AtomicWord: Send + Sync {
    type Value: Copy + Eq;
    fn new(value: Self::Value) -> Self;
    fn load(&self, order: Ordering) -> Self::Value;
    fn store(&self, value: Self::Value, order: Ordering);
    fn compare_exchange_weak(
        &self,
        current: Self::Value,
        new: Self::Value,
        success: Ordering,
        failure: Ordering,
    ) -> Result<Self::Value, Self::Value>;
}

/// Implements [`AtomicWord`] for an atomic type with `std`'s atomic method set.
macro_rules! impl_atomic_word {
    ($atomic:ty, $value:ty) => {
        impl AtomicWord for $atomic {
            type Value = $value;
            fn new(value: $value) -> Self {
                <$atomic>::new(value)
            }
            fn load(&self, order: Ordering) -> $value {
                <$atomic>::load(self, order)
            }
            fn store(&self, value: $value, order: Ordering) {
                <$atomic>::store(self, value, order)
            }
            fn compare_exchange_weak(
                &self,
                current: $value,
                new: $value,
                success: Ordering,
                failure: Ordering,
            ) -> Result<$value, $value> {
                <$atomic>::compare_exchange_weak(self, current, new, success, failure)
            }
        }
    };
}

impl_atomic_word!(AtomicU64, u64);
impl_atomic_word!(AtomicU128, u128);

/// One producer's pushed and persisted watermarks as two atomic words.
pub struct WatermarkSlot<W: Watermark, A = <W as Watermark>::Atomic> {
    pushed: A,
    persisted: A,
    watermark: PhantomData<W>,
}

/// A producer's sequence-id watermarks.
pub type SequenceSlot<A = AtomicU64> = WatermarkSlot<u64, A>;
/// A replicator producer's source-position watermarks.
pub type PositionSlot<A = AtomicU128> = WatermarkSlot<Position, A>;

impl<W: Watermark, A: AtomicWord<Value = W::Word>> Default for WatermarkSlot<W, A> {
    fn default() -> Self {
        Self {
            pushed: A::new(W::NONE),
            persisted: A::new(W::NONE),
            watermark: PhantomData,
        }
    }
}

impl<W: Watermark, A: AtomicWord<Value = W::Word>> WatermarkSlot<W, A> {
    /// Admission of `low..=high` as one compare-and-swap: the decision is taken on the value the
    /// CAS replaces, so two callers can never both see `NotDup` for overlapping ids, and `pushed`
    /// only grows. The duplicate branches never write.
    #[inline]
    pub fn admit_span(&self, low: W, high: W) -> DupStatus {
        let mut current = self.pushed.load(Acquire);
        loop {
            let pushed = W::decode(current);
            if pushed.is_some_and(|p| low <= p) {
                return classify(low, pushed, self.persisted());
            }
            match self
                .pushed
                .compare_exchange_weak(current, high.encode(), AcqRel, Acquire)
            {
                Ok(_) => return DupStatus::NotDup,
                Err(actual) => current = actual,
            }
        }
    }

    /// The add completed: persisted becomes `high` (Pulsar's `recordMessagePersisted*`).
    pub fn record_persisted_at(&self, high: W) {
        self.persisted.store(high.encode(), Release);
    }

    /// The add-failure path: pushed goes back to persisted (or to none).
    pub fn reset_pushed_to_persisted(&self) {
        self.pushed.store(self.persisted.load(Acquire), Release);
    }

    /// Forget both watermarks (purge of an inactive producer).
    pub fn clear(&self) {
        self.pushed.store(W::NONE, Release);
        self.persisted.store(W::NONE, Release);
    }

    pub fn pushed(&self) -> Option<W> {
        W::decode(self.pushed.load(Acquire))
    }

    pub fn persisted(&self) -> Option<W> {
        W::decode(self.persisted.load(Acquire))
    }
}

impl<A: AtomicWord<Value = u64>> WatermarkSlot<u64, A> {
    /// Admission of a sequence batch (its lowest id decides, its highest is stored).
    #[inline]
    pub fn admit(&self, batch: SequenceBatch) -> DupStatus {
        self.admit_span(batch.low, batch.high)
    }

    /// Pulsar's `recordMessagePersistedNormal`: persisted becomes the batch's highest id.
    pub fn record_persisted(&self, batch: SequenceBatch) {
        self.record_persisted_at(batch.high);
    }
}

impl PositionSlot {
    /// Whether the 128-bit compare-and-swap runs without a lock on this CPU.
    pub fn is_lock_free() -> bool {
        AtomicU128::is_lock_free()
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

    #[test]
    fn positions_order_lexicographically_as_words_and_reject_out_of_range_ids() {
        let max = MAX_SEQUENCE_ID;
        let positions = [
            (0, 0),
            (0, 1),
            (0, max),
            (1, 0),
            (1, 5),
            (max, 0),
            (max, max),
        ]
        .map(|(l, e)| Position::new(l, e).unwrap());
        for pair in positions.windows(2) {
            assert!(pair[0] < pair[1]);
            assert!(pair[0].encode() < pair[1].encode(), "{pair:?}");
        }
        for p in positions {
            assert_ne!(p.encode(), Position::NONE);
            assert_eq!(Position::decode(p.encode()), Some(p));
        }
        assert_eq!(Position::decode(Position::NONE), None);
        let err = Position::new(max + 1, 0).unwrap_err();
        assert_eq!(
            err,
            DedupError::PositionOutOfRange {
                ledger: max + 1,
                entry: 0
            }
        );
        assert!(err.to_string().contains("out of range"));
        assert!(Position::new(0, u64::MAX).is_err());
    }

    #[test]
    fn position_slot_keeps_pushed_and_persisted_positions() {
        let slot: PositionSlot = PositionSlot::default();
        let p = |l, e| Position::new(l, e).unwrap();
        assert_eq!(slot.admit_span(p(3, 7), p(3, 7)), DupStatus::NotDup);
        assert_eq!(slot.admit_span(p(2, 900), p(2, 900)), DupStatus::Unknown);
        slot.record_persisted_at(p(3, 0));
        assert_eq!(slot.admit_span(p(2, 900), p(2, 900)), DupStatus::Dup);
        assert_eq!(slot.admit_span(p(3, 8), p(3, 8)), DupStatus::NotDup);
        slot.reset_pushed_to_persisted();
        assert_eq!(slot.pushed(), Some(p(3, 0)));
        slot.clear();
        assert_eq!((slot.pushed(), slot.persisted()), (None, None));
    }

    /// The machines this lab runs on (x86-64 with `cmpxchg16b`): the position slot's
    /// compare-and-swap takes no lock, as the `atomic-slot` and `producer-handle` rows assume.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_position_slot_is_lock_free_here() {
        assert!(PositionSlot::is_lock_free());
    }

    /// Exhaustive interleavings of the slot's CAS logic with loom's instrumented atomics.
    mod loom_model {
        use super::super::*;
        use loom::sync::Arc;
        use loom::sync::atomic::AtomicU64 as LoomU64;

        impl_atomic_word!(LoomU64, u64);

        /// loom has no 128-bit atomic: a loom mutex around the word makes each operation one
        /// step, as `cmpxchg16b` is one instruction, so loom still explores every interleaving
        /// of the slot's operations on its two words.
        struct LoomU128(loom::sync::Mutex<u128>);

        impl AtomicWord for LoomU128 {
            type Value = u128;
            fn new(value: u128) -> Self {
                Self(loom::sync::Mutex::new(value))
            }
            fn load(&self, _: Ordering) -> u128 {
                *self.0.lock().unwrap()
            }
            fn store(&self, value: u128, _: Ordering) {
                *self.0.lock().unwrap() = value;
            }
            fn compare_exchange_weak(
                &self,
                current: u128,
                new: u128,
                _: Ordering,
                _: Ordering,
            ) -> Result<u128, u128> {
                let mut word = self.0.lock().unwrap();
                if *word == current {
                    *word = new;
                    Ok(current)
                } else {
                    Err(*word)
                }
            }
        }

        fn position(ledger: u64, entry: u64) -> Position {
            Position::new(ledger, entry).unwrap()
        }

        /// Two replicator connections race on one source position, one of them then sending a
        /// position of an earlier ledger: exactly one NotDup for the shared position, pushed ends
        /// at it, and positions before it are Dup or Unknown by the persisted one.
        #[test]
        fn a_position_is_admitted_once_and_compared_as_one_unit() {
            loom::model(|| {
                let slot = Arc::new(PositionSlot::<LoomU128>::default());
                slot.record_persisted_at(position(1, 9));
                let racer = |then: Option<Position>| {
                    let slot = slot.clone();
                    loom::thread::spawn(move || {
                        let shared = slot.admit_span(position(2, 0), position(2, 0));
                        let later = then.map(|p| slot.admit_span(p, p));
                        (shared, later)
                    })
                };
                let (a, b) = (racer(None), racer(Some(position(1, 10))));
                let (a, b) = (a.join().unwrap(), b.join().unwrap());
                let admitted = [a.0, b.0]
                    .iter()
                    .filter(|s| **s == DupStatus::NotDup)
                    .count();
                assert_eq!(admitted, 1, "{a:?} {b:?}");
                // (1, 10) comes after (2, 0) in b's own order: above persisted, below pushed.
                assert_eq!(b.1, Some(DupStatus::Unknown));
                assert_eq!(slot.pushed(), Some(position(2, 0)));
                assert_eq!(
                    slot.admit_span(position(1, 9), position(1, 9)),
                    DupStatus::Dup
                );
            });
        }

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
