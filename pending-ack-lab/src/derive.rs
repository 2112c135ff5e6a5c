//! pending-ack-lab's derived records (footprint per entry, cleanups' and scans' instructions per
//! entry net of the harness floor), where each comes from, and its targets' groups of experiments.

use labkit::lab::{Describe, Experiment, Kind};
use labkit::record::{BenchId, FLOOR, Metric, Record, ResultSet, is_floor};

use crate::concurrent::{Lock, Shape, Timed};
use crate::lab::{FOOTPRINT, LAB};
use crate::workload::{Dataset, Scenario, entries_per_op};

/// Every single-thread steady experiment, in a target's `experiment`.
const EVERY_STEADY: &str = "*steady";
/// Every concurrent shape on the designs' own shared forms whose latencies are those of acks, in
/// a target's `experiment`.
const EVERY_ACK_SHAPE: &str = "*concurrent-acks";
/// Footprint per entry, derived from `footprint`.
pub const FOOTPRINT_PER_ENTRY: &str = "footprint-per-entry";
/// Counted instructions per entry an op visits, net of the harness floor, derived from the
/// experiments whose op is one call over many entries: `<experiment>` + this.
const NET_PER_ENTRY: &str = "-net-per-entry";
/// The experiments with a derived `…-net-per-entry`.
const PER_ENTRY_EXPERIMENTS: [Scenario; 2] = [Scenario::RemoveAllUpTo, Scenario::ForEachScan];

fn net_per_entry(experiment: Scenario) -> String {
    format!("{}{NET_PER_ENTRY}", experiment.name())
}

pub fn described(name: &str) -> &'static Experiment {
    labkit::lab::experiment(&LAB, name).expect("the lab's own experiment")
}

/// The measured experiment a derived one comes from: footprint for footprint per entry, a
/// cleanup or scan for its instructions per entry.
pub fn derived_from(derived: &str) -> Option<&'static str> {
    if derived == FOOTPRINT_PER_ENTRY {
        return Some(FOOTPRINT);
    }
    let source = PER_ENTRY_EXPERIMENTS
        .into_iter()
        .find(|e| net_per_entry(*e) == derived);
    source.map(Scenario::name)
}

/// Whether a target's group of experiments selects `experiment`.
fn selects(selector: &str, experiment: &Experiment) -> bool {
    let shape = Shape::find(experiment.name);
    match selector {
        EVERY_STEADY => experiment.kind == Kind::Steady && shape.is_none(),
        EVERY_ACK_SHAPE => shape.is_some_and(|s| s.timed == Timed::Acks && s.lock == Lock::Design),
        _ => false,
    }
}

/// The experiments, with their parameters, a target's `experiment` stands for: a group, or
/// by the kit's rule one experiment, measured or derived.
pub fn target_experiments(selector: &str) -> Vec<(String, Vec<String>)> {
    if ![EVERY_STEADY, EVERY_ACK_SHAPE].contains(&selector) {
        return labkit::targets::target_experiments(&LAB, selector);
    }
    let parameters = |e: &Experiment| e.parameters.iter().map(|p| p.name.clone()).collect();
    LAB.experiments()
        .iter()
        .filter(|e| selects(selector, e))
        .map(|e| (e.name.to_owned(), parameters(e)))
        .collect()
}

/// Footprint divided by each dataset's entry count, as `footprint-per-entry` records, and the
/// cleanups' and scans' counted instructions net of the harness floor per entry they visit, as
/// `<experiment>-net-per-entry` records (none for the floor itself).
pub fn derived(set: &ResultSet) -> Vec<Record> {
    let footprint = set
        .records
        .iter()
        .filter(|r| r.id.experiment == FOOTPRINT && r.metric == Metric::RetainedBytes)
        .filter_map(|r| {
            let dataset = Dataset::find(&r.id.parameter).ok()?;
            let id = r.id.with_case(FOOTPRINT_PER_ENTRY, dataset.name);
            Some(Record::new(id, r.metric, r.value / dataset.entries as f64))
        });
    let per_entry = set
        .records
        .iter()
        .filter(|r| r.metric == Metric::InstructionsPerOp && !is_floor(&r.id.implementation))
        .filter_map(|r| {
            let experiment = PER_ENTRY_EXPERIMENTS
                .into_iter()
                .find(|e| e.name() == r.id.experiment)?;
            let dataset = Dataset::find(&r.id.parameter).ok()?;
            let entries = entries_per_op(experiment, dataset).filter(|n| *n > 0)?;
            let floor = set.find(
                &BenchId::new(&r.id.experiment, FLOOR, &r.id.parameter),
                r.metric,
            )?;
            let id = r.id.with_case(&net_per_entry(experiment), dataset.name);
            Some(Record::new(
                id,
                r.metric,
                (r.value - floor.value) / entries as f64,
            ))
        });
    footprint.chain(per_entry).collect()
}
