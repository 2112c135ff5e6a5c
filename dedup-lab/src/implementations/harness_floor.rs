//! `harness-floor`: not a design, the harness alone. It keeps nothing: `connect` resolves to `()`,
//! every admission is NotDup, every record and purge is dropped and every watermark read is
//! `None`. Measured in every stage like a design, so that each table can show a design's cost net
//! of what the workload's ids, the call through the trait, the threads and the timer cost anyway.
//! Never a contender: it gets no verdict and no correctness suite (it admits every duplicate, so
//! it could not pass one). Each call hands its argument to `black_box`, so the optimiser can
//! neither skip the workload's ids nor fold the loop around calls that do nothing.

use std::hint::black_box;

use crate::{DupStatus, Position, SequenceBatch, SequenceDedup};

#[derive(Default)]
pub struct HarnessFloor;

impl SequenceDedup for HarnessFloor {
    const NAME: &'static str = labkit::record::FLOOR;
    const ZERO_ALLOC_STEADY_STATE: bool = true;
    type Producer = ();

    fn connect(&self, producer: &str) -> Self::Producer {
        black_box(producer);
    }

    fn admit(&self, _: &Self::Producer, batch: SequenceBatch) -> DupStatus {
        black_box(batch);
        DupStatus::NotDup
    }

    fn record_persisted(&self, _: &Self::Producer, batch: SequenceBatch) {
        black_box(batch);
    }

    fn admit_replicated(&self, _: &Self::Producer, position: Position) -> DupStatus {
        black_box(position);
        DupStatus::NotDup
    }

    fn record_replicated_persisted(&self, _: &Self::Producer, position: Position) {
        black_box(position);
    }

    fn reset_pushed_to_persisted(&self) {}

    fn highest_pushed(&self, _: &str) -> Option<u64> {
        None
    }

    fn highest_persisted(&self, _: &str) -> Option<u64> {
        None
    }

    fn highest_replicated_pushed(&self, _: &str) -> Option<Position> {
        None
    }

    fn highest_replicated_persisted(&self, _: &str) -> Option<Position> {
        None
    }

    fn purge(&self, _: &str) {}

    fn increment_pushed(&self, producer: &Self::Producer) -> u64 {
        black_box(producer);
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_admits_everything_and_keeps_nothing() {
        let floor = HarnessFloor;
        floor.connect("p");
        let producer = ();
        let batch = SequenceBatch::single(7).unwrap();
        assert_eq!(floor.admit(&producer, batch), DupStatus::NotDup);
        floor.record_persisted(&producer, batch);
        assert_eq!(floor.admit(&producer, batch), DupStatus::NotDup);
        assert_eq!(floor.highest_persisted("p"), None);
        let position = Position::new(1, 2).unwrap();
        assert_eq!(
            floor.admit_replicated(&producer, position),
            DupStatus::NotDup
        );
        assert_eq!(floor.highest_replicated_pushed("p"), None);
    }
}
