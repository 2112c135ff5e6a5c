//! dedup-lab's runners: what `LAB.open` prepares for each case (each workload's module has the
//! runner that measures it).

use labkit::lab::Runner;

use crate::churn::{Churn, PurgeSweep};
use crate::footprint::Growth;
use crate::workload::{Admission, Ids, Shape};
use crate::{ImplementationBuilder, SequenceDedup};

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
            Setup::Admission(shape, ids) => Box::new(Admission::<D>::prepare(shape, ids)),
            Setup::Churn(publishers) => Box::new(Churn::<D>::prepare(publishers)),
            Setup::Purge { purging } => Box::new(PurgeSweep::<D>::prepare(purging)),
            Setup::Footprint(growth) => Box::new(growth.runner::<D>()),
        }
    }
}
