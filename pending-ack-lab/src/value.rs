//! The stored value and the cleanup mark, validated where they are built so no design ever sees a
//! negative remaining count.

use std::fmt;

/// Why a value or mark was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PendingAckError {
    /// Pulsar's `pack()` throws for a negative remaining count; here it is a value, not a panic.
    NegativeRemaining(i64),
    /// A mark entry below -1 (Pulsar uses -1 for "before the first entry of the ledger").
    NegativeMarkEntry(i64),
    /// Ledger ids are never negative.
    NegativeLedger(i64),
}

impl fmt::Display for PendingAckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NegativeRemaining(r) => {
                write!(
                    f,
                    "remaining unacked count {r} is negative (must be 0..=2^31-1)"
                )
            }
            Self::NegativeMarkEntry(e) => write!(
                f,
                "mark entry id {e} is invalid (-1 means before the first entry; below that is an error)"
            ),
            Self::NegativeLedger(l) => write!(f, "ledger id {l} is negative"),
        }
    }
}

impl std::error::Error for PendingAckError {}

/// (remainingUnacked ≥ 0, stickyKeyHash) packed into one `u64` as Pulsar packs it:
/// `remaining << 32 | (hash as u32)`. The top bit is always 0, so `u64::MAX` can never be a value
/// (designs use it as an "absent" marker).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct PendingAck(u64);

impl PendingAck {
    /// Largest remaining count (Java's `int` maximum).
    pub const MAX_REMAINING: u32 = i32::MAX as u32;

    /// Never a valid value (top bit set): a marker for empty slots inside designs.
    pub(crate) const ABSENT: Self = Self(u64::MAX);

    pub fn new(remaining: i32, sticky_key_hash: i32) -> Result<Self, PendingAckError> {
        if remaining < 0 {
            return Err(PendingAckError::NegativeRemaining(remaining.into()));
        }
        Ok(Self::packed(remaining as u32, sticky_key_hash))
    }

    /// For `remaining` already known to be in range.
    pub(crate) fn packed(remaining: u32, sticky_key_hash: i32) -> Self {
        debug_assert!(remaining <= Self::MAX_REMAINING);
        Self(u64::from(remaining) << 32 | u64::from(sticky_key_hash as u32))
    }

    pub fn remaining(self) -> u32 {
        (self.0 >> 32) as u32
    }

    pub fn sticky_key_hash(self) -> i32 {
        self.0 as u32 as i32
    }

    /// The packed word, as Pulsar stores it.
    pub fn to_bits(self) -> u64 {
        self.0
    }

    /// The value for packed `bits`, or `None` when they cannot be a value (top bit set).
    pub fn from_bits(bits: u64) -> Option<Self> {
        (bits >> 63 == 0).then_some(Self(bits))
    }

    /// This value after `acked` more messages are acknowledged, or `None` when the count would
    /// leave `0..=i32::MAX`.
    pub fn with_acked(self, acked: i32) -> Option<Self> {
        let remaining = i64::from(self.remaining()) - i64::from(acked);
        let remaining = u32::try_from(remaining)
            .ok()
            .filter(|r| *r <= Self::MAX_REMAINING)?;
        Some(Self::packed(remaining, self.sticky_key_hash()))
    }
}

impl fmt::Debug for PendingAck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingAck")
            .field("remaining", &self.remaining())
            .field("sticky_key_hash", &self.sticky_key_hash())
            .finish()
    }
}

/// A mark-delete position for [`remove_all_up_to`](crate::PendingAcks::remove_all_up_to): every
/// ledger before `ledger`, and in `ledger` every entry id up to `entry` (`None`: none of them,
/// Pulsar's entry -1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mark {
    pub ledger: u64,
    pub entry: Option<u64>,
}

impl Mark {
    /// Up to and including (ledger, entry).
    pub fn at(ledger: u64, entry: u64) -> Self {
        Self {
            ledger,
            entry: Some(entry),
        }
    }

    /// Every ledger before `ledger`, nothing in it.
    pub fn before(ledger: u64) -> Self {
        Self {
            ledger,
            entry: None,
        }
    }

    /// From Pulsar's signed `(markLedger, markEntry)`, where entry -1 means "before the ledger".
    pub fn from_signed(ledger: i64, entry: i64) -> Result<Self, PendingAckError> {
        let ledger = u64::try_from(ledger).map_err(|_| PendingAckError::NegativeLedger(ledger))?;
        match entry {
            -1 => Ok(Self::before(ledger)),
            e => u64::try_from(e)
                .map(|e| Self::at(ledger, e))
                .map_err(|_| PendingAckError::NegativeMarkEntry(entry)),
        }
    }

    /// Whether (ledger, entry) is at or before the mark.
    pub fn covers(self, ledger: u64, entry: u64) -> bool {
        ledger < self.ledger || (ledger == self.ledger && self.entry.is_some_and(|m| entry <= m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips_extremes_like_pulsar() {
        for (r, h) in [(0, 0), (1, -1), (i32::MAX, i32::MIN), (16, 31 * 7)] {
            let v = PendingAck::new(r, h).unwrap();
            assert_eq!((v.remaining(), v.sticky_key_hash()), (r as u32, h));
            assert_eq!(v.to_bits(), ((r as u64) << 32) | (h as u32 as u64));
            assert_eq!(PendingAck::from_bits(v.to_bits()), Some(v));
        }
        assert_eq!(PendingAck::from_bits(u64::MAX), None);
    }

    #[test]
    fn negative_remaining_is_an_error_not_a_panic() {
        let err = PendingAck::new(-1, 5).unwrap_err();
        assert_eq!(err, PendingAckError::NegativeRemaining(-1));
        assert!(err.to_string().contains("negative"));
    }

    #[test]
    fn acking_keeps_zero_and_refuses_to_go_below_or_overflow() {
        let v = PendingAck::new(2, -7).unwrap();
        assert_eq!(v.with_acked(2).unwrap().remaining(), 0);
        assert_eq!(v.with_acked(2).unwrap().sticky_key_hash(), -7);
        assert_eq!(v.with_acked(3), None);
        assert_eq!(v.with_acked(-3).unwrap().remaining(), 5);
        let max = PendingAck::new(i32::MAX, 0).unwrap();
        assert_eq!(max.with_acked(-1), None);
        assert_eq!(
            PendingAck::new(0, 0).unwrap().with_acked(i32::MIN + 1),
            Some(PendingAck::new(i32::MAX, 0).unwrap())
        );
    }

    #[test]
    fn marks_follow_pulsar_ordering_and_minus_one() {
        let m = Mark::from_signed(3, 10).unwrap();
        assert!(m.covers(2, u64::MAX) && m.covers(3, 10) && !m.covers(3, 11) && !m.covers(4, 0));
        let before = Mark::from_signed(3, -1).unwrap();
        assert!(before.covers(2, 5) && !before.covers(3, 0));
        assert_eq!(
            Mark::from_signed(3, -2),
            Err(PendingAckError::NegativeMarkEntry(-2))
        );
        assert_eq!(
            Mark::from_signed(-1, 0),
            Err(PendingAckError::NegativeLedger(-1))
        );
    }
}
