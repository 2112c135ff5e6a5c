//! How a single-thread experiment's run is measured: the steady ones' ops timed together, the
//! one-shot cleanups' each alone with what it removed put back untimed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use labkit::lab::{Runner, Window};

use super::{Dataset, Scenario, Workload};
use crate::PendingAcks;

/// A prepared, warmed-up workload.
pub struct WorkloadRunner<M> {
    workload: Workload<M>,
    one_shot: bool,
    /// A one-shot op ran and its removed entries are not back yet.
    consumed: bool,
}

impl<M: PendingAcks> WorkloadRunner<M> {
    /// `experiment` on `dataset`, prepared and warmed up.
    pub fn prepare(experiment: Scenario, dataset: Dataset) -> Self {
        let mut workload = Workload::<M>::prepare(experiment, dataset);
        black_box(workload.run(Workload::<M>::warm_up_ops(experiment, dataset)));
        Self {
            workload,
            one_shot: experiment.is_one_shot(),
            consumed: false,
        }
    }
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
