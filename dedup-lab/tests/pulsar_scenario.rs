//! `MessageDuplicationTest.testIsDuplicate`, step by step, over every implementation.

use dedup_lab::{DupStatus, ImplementationVisitor, SequenceBatch, SequenceDedup};

fn batch(low: u64, high: u64) -> SequenceBatch {
    SequenceBatch::new(low, high).unwrap()
}

struct TestIsDuplicate;

impl ImplementationVisitor for TestIsDuplicate {
    fn visit<D: SequenceDedup>(&mut self) {
        let dedup = D::default();
        let p = dedup.connect("producer1");
        let name = D::NAME;
        // 1: 0, 1, 5 are new
        for id in [0, 1, 5] {
            assert_eq!(
                dedup.admit(&p, batch(id, id)),
                DupStatus::NotDup,
                "{name}: step 1, {id}"
            );
        }
        assert_eq!(dedup.highest_pushed("producer1"), Some(5), "{name}");
        // 2: 0 again with nothing persisted: cannot tell
        assert_eq!(
            dedup.admit(&p, batch(0, 0)),
            DupStatus::Unknown,
            "{name}: step 2"
        );
        // 3: persisted 0, then 0 is a duplicate
        dedup.record_persisted(&p, batch(0, 0));
        assert_eq!(
            dedup.admit(&p, batch(0, 0)),
            DupStatus::Dup,
            "{name}: step 3"
        );
        assert_eq!(
            dedup.highest_pushed("producer1"),
            Some(5),
            "{name}: Dup writes nothing"
        );
        // 4: add failure resets pushed to persisted (0); batch 1..5 is new and stores 5
        dedup.reset_pushed_to_persisted();
        assert_eq!(
            dedup.highest_pushed("producer1"),
            Some(0),
            "{name}: step 4 reset"
        );
        assert_eq!(
            dedup.admit(&p, batch(1, 5)),
            DupStatus::NotDup,
            "{name}: step 4"
        );
        assert_eq!(
            dedup.highest_pushed("producer1"),
            Some(5),
            "{name}: step 4 stores highest"
        );
        // 5: batch 4..8 overlaps pushed (5) and is above persisted (0): the whole batch is Unknown
        assert_eq!(
            dedup.admit(&p, batch(4, 8)),
            DupStatus::Unknown,
            "{name}: step 5"
        );
        assert_eq!(
            dedup.highest_pushed("producer1"),
            Some(5),
            "{name}: Unknown writes nothing"
        );
        assert_eq!(dedup.highest_persisted("producer1"), Some(0), "{name}");
        // purge forgets the producer
        dedup.purge("producer1");
        assert_eq!(dedup.highest_pushed("producer1"), None, "{name}: purge");
        assert_eq!(
            dedup.admit(&p, batch(0, 0)),
            DupStatus::NotDup,
            "{name}: after purge"
        );
    }
}

#[test]
fn test_is_duplicate_over_every_implementation() {
    dedup_lab::for_each_implementation(&mut TestIsDuplicate);
}

#[test]
fn unknown_implementation_names_are_errors_listing_the_valid_ones() {
    let err = dedup_lab::visit_implementation("spinlock", &mut TestIsDuplicate).unwrap_err();
    assert!(
        err.contains("spinlock") && err.contains("topic-mutex"),
        "{err}"
    );
    assert_eq!(
        dedup_lab::implementation_names()[0],
        "topic-mutex",
        "baseline first"
    );
}
