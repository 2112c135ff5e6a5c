//! The cases a lab's answers claim something on, and what a run keeps of the one it replaced so
//! that every claim's row can say whether its verdict held.

use serde::{Deserialize, Serialize};

use crate::record::{Metric, Record};

/// A case one of the lab's answers claims something on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimedCase {
    pub experiment: String,
    pub parameter: String,
    pub metric: Metric,
    /// What the write-up published on it, when it did.
    #[serde(default)]
    pub published: Option<PublishedFigure>,
}

impl ClaimedCase {
    /// Whether `record` is of this case (any implementation).
    pub fn covers(&self, record: &Record) -> bool {
        record.id.experiment == self.experiment
            && record.id.parameter == self.parameter
            && record.metric == self.metric
    }
}

/// A figure the write-up published for one of the lab's cases: before and after the change it
/// measured, in its own unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublishedFigure {
    pub old: f64,
    pub new: f64,
    pub unit: String,
}

/// The metrics a run keeps of the one it replaced for its travel table: wall time (and the
/// throughput it mirrors) and the tail.
const TRAVEL_METRICS: [Metric; 3] = [Metric::NsPerOp, Metric::OpsPerSec, Metric::LatencyP99Ns];

/// Whether a run keeps `record` of the one it replaced: a metric the travel table counts, or a
/// case the lab's answers claim something on (measured or derived), so every answer row can say
/// whether its verdict held.
pub fn kept_of_previous(record: &Record, claimed: &[ClaimedCase]) -> bool {
    TRAVEL_METRICS.contains(&record.metric) || claimed.iter().any(|c| c.covers(record))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_keeps_the_timed_records_and_every_claimed_case_of_the_one_it_replaces() {
        let claimed = [ClaimedCase {
            experiment: "op".into(),
            parameter: "small".into(),
            metric: Metric::PeakHeapBytes,
            published: None,
        }];
        let record = |parameter: &str, metric: Metric| {
            Record::new(
                crate::record::BenchId::new("op", "any", parameter),
                metric,
                1.0,
            )
        };
        assert!(kept_of_previous(
            &record("large", Metric::NsPerOp),
            &claimed
        ));
        assert!(kept_of_previous(
            &record("small", Metric::PeakHeapBytes),
            &claimed
        ));
        assert!(!kept_of_previous(
            &record("large", Metric::PeakHeapBytes),
            &claimed
        ));
        assert!(!kept_of_previous(
            &record("small", Metric::AllocsPerOp),
            &claimed
        ));
    }
}
