//! The records dedup-lab derives from measured ones: footprint per producer still known, what a
//! purge sweep adds to the publisher's tail.

use labkit::record::{Metric, Record, ResultSet};

use crate::lab::{
    BESIDE_INACTIVE, CASES, FOOTPRINT, FOOTPRINT_PER_PRODUCER, PURGE_ADDED_TAIL, PURGE_SWEEP,
};
use crate::runners::Setup;

/// The records derived from measured ones: footprint per producer still known, and what a purge
/// sweep adds to the publisher's p99.9.
pub fn derived(set: &ResultSet) -> Vec<Record> {
    let mut out = Vec::new();
    for r in &set.records {
        if r.id.experiment == FOOTPRINT
            && r.metric == Metric::RetainedBytes
            && let Some(Setup::Footprint(growth)) = CASES.value(FOOTPRINT, &r.id.parameter)
        {
            let id = r.id.with_case(FOOTPRINT_PER_PRODUCER, &r.id.parameter);
            out.push(Record::new(id, r.metric, r.value / growth.kept as f64));
        }
        if r.id.experiment == PURGE_SWEEP && r.metric == Metric::LatencyP999Ns {
            let alone = r.id.with_case(BESIDE_INACTIVE, &r.id.parameter);
            if let Some(alone) = set.find(&alone, r.metric) {
                let id = r.id.with_case(PURGE_ADDED_TAIL, &r.id.parameter);
                out.push(Record::new(id, r.metric, r.value - alone.value));
            }
        }
    }
    out
}
