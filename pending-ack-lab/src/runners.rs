//! pending-ack-lab's runners: what `LAB.open` prepares for each case, and how one run measures.

use std::hint::black_box;
use std::time::{Duration, Instant};

use labkit::lab::{Runner, Window};

use crate::concurrent::Shape;
use crate::workload::{Dataset, RetainedCase, Scenario, Workload};
use crate::{ImplementationBuilder, PendingAcks};

/// What a case prepares for the implementation it is opened on.
#[derive(Clone, Copy)]
pub(crate) enum Setup {
    Timed(Scenario, Dataset),
    Footprint(Dataset),
    RetainedCapacity(RetainedCase),
    Shared(Shape, Dataset),
}

/// Opens a runner of the implementation it is built for.
impl ImplementationBuilder for Setup {
    type Output = Box<dyn Runner>;

    fn build<M: PendingAcks>(&mut self) -> Box<dyn Runner> {
        match *self {
            Setup::Timed(experiment, dataset) => {
                let mut workload = Workload::<M>::prepare(experiment, dataset);
                black_box(workload.run(Workload::<M>::warm_up_ops(experiment, dataset)));
                Box::new(WorkloadRunner {
                    workload,
                    one_shot: experiment.is_one_shot(),
                    consumed: false,
                })
            }
            Setup::Shared(shape, dataset) => crate::concurrent::open::<M>(shape, &dataset),
            Setup::Footprint(dataset) => Box::new(Built::<M> {
                build: Box::new(move || dataset.populate()),
                built: None,
            }),
            Setup::RetainedCapacity(case) => Box::new(Built::<M> {
                build: Box::new(move || case.build()),
                built: None,
            }),
        }
    }
}

/// A prepared, warmed-up workload.
pub(crate) struct WorkloadRunner<M> {
    workload: Workload<M>,
    one_shot: bool,
    /// A one-shot op ran and its removed entries are not back yet.
    consumed: bool,
}

impl<M: PendingAcks> Runner for WorkloadRunner<M> {
    fn run(&mut self, warm_up: u64, ops: u64, window: &mut dyn Window) -> Duration {
        if !self.one_shot {
            black_box(self.workload.run(warm_up));
            window.open();
            let start = Instant::now();
            black_box(self.workload.run(ops));
            let elapsed = start.elapsed();
            window.close();
            return elapsed;
        }
        // Cleanups: each op timed alone; what it removed goes back untimed before the next one,
        // so the write-up's rebuild stays out of the time without dominating the wall time.
        window.open();
        let mut timed = Duration::ZERO;
        for _ in 0..ops {
            if self.consumed {
                self.workload.restore();
            }
            let start = Instant::now();
            black_box(self.workload.run(1));
            timed += start.elapsed();
            self.consumed = true;
        }
        window.close();
        timed
    }
}

/// A map built inside the window and kept until dropped (retained-heap experiments).
pub(crate) struct Built<M> {
    build: Box<dyn Fn() -> M>,
    built: Option<M>,
}

impl<M: PendingAcks> Runner for Built<M> {
    fn run(&mut self, _: u64, _: u64, window: &mut dyn Window) -> Duration {
        self.built = None;
        window.open();
        let start = Instant::now();
        let map = (self.build)();
        let elapsed = start.elapsed();
        window.close();
        self.built = Some(map);
        elapsed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_shot_runners_restore_before_every_op_but_the_first() {
        use crate::implementations::nested_tree::NestedTree;
        let dataset = Dataset::find("50k-in-1").unwrap();
        let mut runner = WorkloadRunner {
            workload: Workload::<NestedTree>::prepare(Scenario::SameLedgerSmallPrefix, dataset),
            one_shot: true,
            consumed: false,
        };
        runner.run(0, 1, &mut ());
        assert_eq!(
            runner.workload.map.len(),
            49_000,
            "the op's removal is not undone"
        );
        runner.run(0, 3, &mut ());
        assert_eq!(
            runner.workload.map.len(),
            49_000,
            "each op found the prefix back"
        );
    }
}
