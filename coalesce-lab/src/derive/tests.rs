//! Tests of [`super`].

use super::*;
use crate::lab::LAB;
use crate::names::{
    FINISHED_GENERATIONS, GENERATING_US, GENERATION, GENERATIONS, GENERATOR_LAG, LAG_US,
    OF_CEILING, OHA_OVER_LAB_GOODPUT, P99_IN_GENERATIONS, PEAK_HEAP_OVER_CEILING, SCRAPE,
    SCRAPE_BY_OHA, SERVED, WAITING_GROWTH, WAITING_PEAK_OVER_USERS,
};
use labkit::fixture::result_set;
use labkit::lab::Lab;

fn scrape(implementation: &str, parameter: &str, metric: Metric, value: f64) -> Record {
    Record::new(
        BenchId::new(SCRAPE, implementation, parameter),
        metric,
        value,
    )
}

/// `coalescing`'s generations per 100 requests started and finished, and the µs the finished
/// ones took per 100 requests.
fn generations(scenario: &str, per_100: (f64, f64), generating_us: f64) -> Vec<Record> {
    [
        (GENERATIONS, per_100.0),
        (FINISHED_GENERATIONS, per_100.1),
        (GENERATING_US, generating_us),
    ]
    .into_iter()
    .map(|(event, value)| {
        scrape(
            "coalescing",
            scenario,
            Metric::EventsPer100Ops(event),
            value,
        )
    })
    .collect()
}

/// A window that a cap ended while its only generation ran counts a generation started
/// and none finished: no generation time, and no p99 counted in it.
#[test]
fn a_window_with_no_finished_generation_derives_no_generation_time() {
    let scenario = "closed-100vu-1mib-dominant";
    let mut records = generations(scenario, (0.1, 0.0), 0.0);
    records.push(scrape("coalescing", scenario, Metric::LatencyP99Ns, 8e8));
    let s = result_set(&LAB, records);
    let derived = LAB.derived(&s);
    assert!(
        derived
            .iter()
            .all(|r| r.id.experiment != GENERATION && r.id.experiment != P99_IN_GENERATIONS),
        "{derived:?}"
    );
}

#[test]
fn derived_records_count_generations_and_bodies() {
    let scenario = "closed-10vu-16mib";
    // 5 generations per 100 requests started, 4 finished taking 120,000 µs: 30 ms each
    // (the one a cap cut has no time in the sum, and is not in the mean).
    let mut records = generations(scenario, (5.0, 4.0), 120_000.0);
    records.extend([
        scrape("coalescing", scenario, Metric::LatencyP99Ns, 45e6),
        scrape("coalescing", scenario, Metric::EventsPerSec(SERVED), 90.0),
        scrape("static-body", scenario, Metric::EventsPerSec(SERVED), 120.0),
        scrape(
            "coalescing",
            scenario,
            Metric::PeakHeapBytes,
            48.0 * 1024.0 * 1024.0,
        ),
        scrape(
            "static-body",
            scenario,
            Metric::PeakHeapBytes,
            40.0 * 1024.0 * 1024.0,
        ),
    ]);
    let s = result_set(&LAB, records);
    let values: Vec<(String, f64)> = LAB
        .derived(&s)
        .into_iter()
        .map(|r| (r.id.to_string(), r.value))
        .collect();
    let find = |experiment: &str| {
        values
            .iter()
            .find(|(id, _)| id.starts_with(experiment))
            .unwrap()
            .1
    };
    assert_eq!(find("generation/"), 30e6);
    assert_eq!(find(P99_IN_GENERATIONS), 1.5);
    assert_eq!(find("peak-heap-in-bodies/coalescing"), 3.0);
    assert_eq!(find("peak-heap-over-ceiling-in-bodies/coalescing"), 0.5);
    assert!(
        !values
            .iter()
            .any(|(id, _)| id.ends_with("/static-body/closed-10vu-16mib")
                && id.starts_with(PEAK_HEAP_OVER_CEILING)),
        "the ceiling is not above itself"
    );
    assert_eq!(find(OF_CEILING), 0.75);
    let ceilings = values.iter().filter(|(id, _)| id.starts_with(OF_CEILING));
    assert_eq!(
        ceilings.count(),
        1,
        "the ceiling is not a fraction of itself"
    );
}

/// The overload's waiting series: per slot, the backlogs read over the samples that reached
/// it; its growth (last over first) and its peak over the users.
#[test]
fn requests_waiting_derive_a_series_its_growth_and_its_peak_over_the_users() {
    let scenario = "overload-100vu-1mib-dominant";
    let per_100 = |event, value| {
        scrape(
            "serial-queue",
            scenario,
            Metric::EventsPer100Ops(event),
            value,
        )
    };
    // Two samples read 100 and 300 at the first slot, one of them 700 at the second.
    let s = result_set(
        &LAB,
        vec![
            per_100(WAITING_AT[0], 400.0),
            per_100(SAMPLED_AT[0], 2.0),
            per_100(WAITING_AT[1], 700.0),
            per_100(SAMPLED_AT[1], 1.0),
        ],
    );
    let derived = LAB.derived(&s);
    let find = |experiment: &str| {
        derived
            .iter()
            .find(|r| r.id.experiment == experiment)
            .map(|r| r.value)
    };
    assert_eq!(find(&waiting(0)), Some(200.0));
    assert_eq!(find(&waiting(1)), Some(700.0));
    assert_eq!(find(WAITING_GROWTH), Some(3.5));
    assert_eq!(find(WAITING_PEAK_OVER_USERS), Some(7.0));
}

/// oha's rows of a cross-checked cell have the same implementation and scenario as the lab
/// generator's: the ids derived under a fixed name must come from the lab's rows alone, or
/// oha's (a lag it does not measure, its goodput over the lab's ceiling) stand in for them.
#[test]
fn a_cross_checked_cell_derives_each_fixed_id_once_from_the_lab_s_generator() {
    let scenario = "open-100pct-1mib";
    let by_oha = |metric: Metric, value: f64| {
        Record::new(
            BenchId::new(SCRAPE_BY_OHA, "coalescing", scenario),
            metric,
            value,
        )
    };
    let lag = Metric::EventsPer100Ops(LAG_US);
    let s = result_set(
        &LAB,
        vec![
            scrape("coalescing", scenario, lag, 100_000.0),
            by_oha(lag, 0.0),
            scrape("coalescing", scenario, Metric::EventsPerSec(SERVED), 90.0),
            by_oha(Metric::EventsPerSec(SERVED), 45.0),
            scrape("static-body", scenario, Metric::EventsPerSec(SERVED), 100.0),
        ],
    );
    let derived = LAB.derived(&s);
    let values = |experiment: &str| -> Vec<f64> {
        derived
            .iter()
            .filter(|r| r.id.experiment == experiment && r.id.implementation == "coalescing")
            .map(|r| r.value)
            .collect()
    };
    assert_eq!(values(GENERATOR_LAG), [1e6], "1 ms, the lab's mean lag");
    assert_eq!(values(OF_CEILING), [0.9]);
    assert_eq!(values(OHA_OVER_LAB_GOODPUT), [0.5]);
}
