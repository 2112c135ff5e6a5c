//! dedup-lab's runners: what `LAB.open` prepares for each case, and how one run measures.

use std::time::Duration;

use labkit::lab::{Runner, Window};

use crate::churn::{Churn, PurgeSweep};
use crate::lab::{Growth, LOST_RACES};
use crate::workload::{Ids, Shape, Worker, run_window};
use crate::{ImplementationBuilder, SequenceBatch, SequenceDedup};

/// What a case prepares for the implementation it is opened on.
#[derive(Clone, Copy)]
pub(crate) enum Setup {
    Admission(Shape, Ids),
    Churn(usize),
    Purge { purging: bool },
    Footprint(Growth),
}

/// Opens a runner of the implementation it is built for.
impl ImplementationBuilder for Setup {
    type Output = Box<dyn Runner>;

    fn build<D: SequenceDedup>(&mut self) -> Box<dyn Runner> {
        match *self {
            Setup::Admission(shape, ids) => {
                let dedup = D::default();
                let workers = shape.prepare_ids(&dedup, ids);
                Box::new(Admission { dedup, workers })
            }
            Setup::Churn(publishers) => Box::new(Churn::<D>::prepare(publishers)),
            Setup::Purge { purging } => Box::new(PurgeSweep::<D>::prepare(purging)),
            Setup::Footprint(growth) => Box::new(Footprint::<D> {
                growth,
                built: None,
            }),
        }
    }
}

/// A deduplicator with a shape's producers connected, each having admitted its first message.
pub(crate) struct Admission<D: SequenceDedup> {
    dedup: D,
    workers: Vec<Worker<D>>,
}

impl<D: SequenceDedup> Runner for Admission<D> {
    fn run(&mut self, warm_up: u64, ops: u64, window: &mut dyn Window) -> Duration {
        let elapsed = run_window(&self.dedup, &mut self.workers, warm_up, ops, window);
        let lost: u64 = self.workers.iter().map(|w| w.lost_races).sum();
        if lost > 0 {
            window.count(LOST_RACES, lost);
        }
        elapsed
    }
}

/// Builds a deduplicator that has admitted one message from each of a growth case's producers,
/// then purged all but the newest it keeps.
pub(crate) struct Footprint<D> {
    growth: Growth,
    built: Option<D>,
}

impl<D: SequenceDedup> Runner for Footprint<D> {
    fn run(&mut self, _: u64, _: u64, window: &mut dyn Window) -> Duration {
        let Growth { producers, kept } = self.growth;
        let names: Vec<String> = (0..producers).map(|i| format!("producer-{i}")).collect();
        let first = SequenceBatch::single(0).expect("0 is a valid id");
        self.built = None;
        window.open();
        let start = std::time::Instant::now();
        let dedup = D::default();
        for name in &names {
            dedup.admit(&dedup.connect(name), first);
        }
        for name in &names[..producers - kept] {
            dedup.purge(name);
        }
        let elapsed = start.elapsed();
        window.close();
        self.built = Some(dedup);
        elapsed
    }
}
