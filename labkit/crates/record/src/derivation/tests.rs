use super::*;
use crate::record::EventName;
use crate::record::fixtures::set;

fn record(id: &str, metric: Metric, passes: &[f64]) -> Record {
    let id: BenchId = id.parse().unwrap();
    match passes {
        [value] => Record::new(id, metric, *value),
        _ => Record::from_passes(id, metric, passes.to_vec()),
    }
}

fn derived(derivations: &[Derivation], records: Vec<Record>) -> Vec<(String, f64)> {
    let out = derive_all(derivations, &set(records));
    out.iter().map(|r| (r.id.to_string(), r.value)).collect()
}

#[test]
fn a_ratio_to_a_design_pairs_the_passes_and_skips_the_design_itself() {
    let ceiling = Derivation::new("of-ceiling", "op", Metric::OpsPerSec)
        .over(Operand::Design("top"))
        .to(Metric::Ratio);
    let records = vec![
        record("op/top/small", Metric::OpsPerSec, &[100.0, 200.0, 400.0]),
        record("op/base/small", Metric::OpsPerSec, &[50.0, 50.0, 50.0]),
        // An A/A twin is over the design's own record, not over a twin of it.
        record("op/top-again/small", Metric::OpsPerSec, &[1.0, 1.0, 1.0]),
        record(
            "op/base-again/small",
            Metric::OpsPerSec,
            &[100.0, 100.0, 100.0],
        ),
    ];
    let out = derive_all(std::slice::from_ref(&ceiling), &set(records.clone()));
    assert_eq!(
        out.len(),
        2,
        "the ceiling, and its twin, not over itself: {out:?}"
    );
    // Pass by pass: 0.5, 0.25, 0.125, whose median is not 50 over the ceiling's median 200.
    assert_eq!(out[0].id.to_string(), "of-ceiling/base/small");
    assert_eq!(out[0].passes.as_deref(), Some(&[0.5, 0.25, 0.125][..]));
    assert_eq!(out[0].value, 0.25);
    assert_eq!(
        derived(&[ceiling], records)[1],
        ("of-ceiling/base-again/small".into(), 0.5)
    );
}

#[test]
fn a_difference_is_of_the_published_values_and_a_twin_is_against_its_twin() {
    let added = Derivation::new("added-tail", "sweep", Metric::LatencyP999Ns)
        .minus(Operand::Experiment("alone"));
    let records = vec![
        record(
            "sweep/base/small",
            Metric::LatencyP999Ns,
            &[10.0, 30.0, 20.0],
        ),
        record("alone/base/small", Metric::LatencyP999Ns, &[1.0, 2.0, 12.0]),
        record("sweep/base-again/small", Metric::LatencyP999Ns, &[7.0]),
        record("alone/base-again/small", Metric::LatencyP999Ns, &[3.0]),
        // No reference case: nothing derived.
        record("sweep/other/small", Metric::LatencyP999Ns, &[7.0]),
    ];
    assert_eq!(
        derived(&[added], records),
        [
            ("added-tail/base/small".into(), 18.0),
            ("added-tail/base-again/small".into(), 4.0),
        ]
    );
}

#[test]
fn a_cell_over_its_own_metric_or_its_case_s_number_scaled_and_filtered() {
    const TOTAL: EventName = EventName::new("total-us");
    const COUNT: EventName = EventName::new("count");
    let mean = Derivation::new("mean", "op", Metric::EventsPer100Ops(TOTAL))
        .over(Operand::Metric(Metric::EventsPer100Ops(COUNT)))
        .times(1_000.0)
        .to(Metric::MeanNs);
    let entries = |id: &BenchId| (id.implementation != "none").then_some(4.0);
    let per_entry = Derivation::new("per-entry", "op", Metric::RetainedBytes)
        .minus(Operand::Design("floor"))
        .over(Operand::Case(entries))
        .only(|id| id.parameter == "small");
    let records = vec![
        record("op/base/small", Metric::EventsPer100Ops(TOTAL), &[6.0]),
        record("op/base/small", Metric::EventsPer100Ops(COUNT), &[3.0]),
        // No count finished: a division by zero derives nothing.
        record("op/zero/small", Metric::EventsPer100Ops(TOTAL), &[6.0]),
        record("op/zero/small", Metric::EventsPer100Ops(COUNT), &[0.0]),
        record("op/floor/small", Metric::RetainedBytes, &[8.0]),
        record("op/base/small", Metric::RetainedBytes, &[48.0]),
        record("op/none/small", Metric::RetainedBytes, &[48.0]),
        record("op/base/large", Metric::RetainedBytes, &[48.0]),
    ];
    assert_eq!(
        derived(&[mean, per_entry.clone()], records),
        [
            ("mean/base/small".into(), 2_000.0),
            ("per-entry/base/small".into(), 10.0),
        ]
    );
    assert_eq!(
        source_of(std::slice::from_ref(&per_entry), "per-entry"),
        Some("op")
    );
    assert_eq!(source_of(&[per_entry], "op"), None);
}
