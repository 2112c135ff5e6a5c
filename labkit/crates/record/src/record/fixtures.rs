//! Records for tests: one cell's passes, or one exact count, on `op/…/small` of the fixture lab,
//! and a result set holding them.

use crate::env::Environment;
use crate::record::{BenchId, Metric, Record, ResultSet, RunMode};

/// `op/{cell}/small` in ns/op, one value per pass (`cell` as ids spell it: `base-again` is the
/// A/A twin).
pub fn passes(cell: &str, values: &[f64]) -> Record {
    Record::from_passes(
        BenchId::spelled("op", cell, "small"),
        Metric::NsPerOp,
        values.to_vec(),
    )
}

/// `op/{cell}/small`: one exact `metric` value.
pub fn count(cell: &str, metric: Metric, value: f64) -> Record {
    Record::new(BenchId::spelled("op", cell, "small"), metric, value)
}

/// `records` as a full run of the fixture lab in the tests' fixed environment.
pub fn set(records: Vec<Record>) -> ResultSet {
    ResultSet {
        lab: "tiny".into(),
        mode: RunMode::Full,
        environment: Environment::fixed_for_tests(),
        timing: None,
        records,
        repeats: Vec::new(),
        previous: None,
    }
}
