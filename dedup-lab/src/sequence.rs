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

    /// Pushed becomes `next(pushed)` as one compare-and-swap, retried until it holds; returns the
    /// value installed.
    pub fn advance(&self, next: impl Fn(Option<W>) -> W) -> W {
        let mut current = self.pushed.load(Acquire);
        loop {
            let value = next(W::decode(current));
            match self
                .pushed
                .compare_exchange_weak(current, value.encode(), AcqRel, Acquire)
            {
                Ok(_) => return value,
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

/// The id after `pushed`: 0 for a producer with none.
pub fn next_id(pushed: Option<u64>) -> u64 {
    pushed.map_or(0, |id| id + 1)
}

impl<A: AtomicWord<Value = u64>> WatermarkSlot<u64, A> {
    /// The benchmark's increment ([`crate::SequenceDedup::increment_pushed`]).
    pub fn increment(&self) -> u64 {
        self.advance(next_id)
    }

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
mod tests;
