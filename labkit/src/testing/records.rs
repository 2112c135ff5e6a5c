//! Records for tests: one cell's passes, or one exact count, on `op/…/small` of the fixture lab.

use crate::record::{BenchId, Metric, Record};

/// `op/{implementation}/small` in ns/op, one value per pass.
pub fn passes(implementation: &str, values: &[f64]) -> Record {
    Record::from_passes(
        BenchId::new("op", implementation, "small"),
        Metric::NsPerOp,
        values.to_vec(),
    )
}

/// `op/{implementation}/small`: one exact `metric` value.
pub fn count(implementation: &str, metric: Metric, value: f64) -> Record {
    Record::new(BenchId::new("op", implementation, "small"), metric, value)
}
