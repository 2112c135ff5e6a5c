//! pending-ack-lab's runners: what `LAB.open` prepares for each case.

use labkit::lab::{Retained, Runner};

use crate::concurrent::Shape;
use crate::workload::{Dataset, RetainedCase, Scenario, WorkloadRunner};
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
                Box::new(WorkloadRunner::<M>::prepare(experiment, dataset))
            }
            Setup::Shared(shape, dataset) => crate::concurrent::open::<M>(shape, &dataset),
            Setup::Footprint(dataset) => Box::new(Retained::new(move || dataset.populate::<M>())),
            Setup::RetainedCapacity(case) => Box::new(Retained::new(move || case.build::<M>())),
        }
    }
}
