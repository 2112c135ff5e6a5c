//! Tests of [`super`].

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

    /// Two callers increment one producer (the JMH shared case), one of them then admitting an
    /// id: the increments return two different ids, none lost, and pushed ends at the highest
    /// value installed.
    #[test]
    fn concurrent_increments_are_never_lost() {
        loom::model(|| {
            let slot = Arc::new(SequenceSlot::<LoomU64>::default());
            let a = {
                let slot = slot.clone();
                loom::thread::spawn(move || slot.increment())
            };
            let b = {
                let slot = slot.clone();
                loom::thread::spawn(move || (slot.increment(), slot.admit(batch(5, 5))))
            };
            let (first, (second, admitted)) = (a.join().unwrap(), b.join().unwrap());
            assert_ne!(first, second, "two increments installed one id");
            assert!(first.max(second) == 1 || first == 6, "{first} {second}");
            assert_eq!(
                admitted,
                DupStatus::NotDup,
                "5 is above both increments before it"
            );
            // Every install is above the one before it: pushed ends at the highest of them.
            assert_eq!(slot.pushed(), Some(first.max(5)));
        });
    }
}
