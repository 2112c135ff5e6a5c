//! coalesce-lab's derived records: from the measured ones, a generation's own time, the p99
//! counted in generations, the peak heap counted in bodies, the offered rate and the generator's
//! lag of an open loop, each design's goodput over the ceiling's, oha's over the lab generator's,
//! and the client's and the server's CPU per request under each tool.

use labkit::record::{BenchId, Metric, Record, ResultSet};

use crate::MetricsEndpoint;
use crate::implementations::static_body::StaticBody;
use crate::lab::{
    CLIENT_CPU_US, FINISHED_GENERATIONS, GENERATING_US, LAG_US, SCHEDULE_US, SCRAPE, SCRAPE_BY_OHA,
    SERVED, SERVER_CPU_US, SERVER_SYSTEM_CPU_US,
};
use crate::waiting::{SAMPLED_AT, SLOTS, WAITING_AT, slot_seconds};
use crate::workload::{Scenario, Shape};

/// Derived: the mean time of one generation in a run, per pass.
pub const GENERATION: &str = "generation";
/// Derived: the p99 latency over one generation's time, in the same run.
pub const P99_IN_GENERATIONS: &str = "p99-in-generations";
/// Derived: the peak live heap over the scenario's body size.
pub const PEAK_HEAP_IN_BODIES: &str = "peak-heap-in-bodies";
/// Derived: the peak live heap above the ceiling's (`static-body`, which holds the same
/// connections and no generation) in the same scenario, over the body size: what the design
/// itself keeps alive.
pub const PEAK_HEAP_OVER_CEILING: &str = "peak-heap-over-ceiling-in-bodies";
/// Derived, open loops: the offered rate (requests over the schedule's span), requests/s.
pub const OFFERED: &str = "offered";
/// Derived, open loops: the load generator's mean lag behind its schedule.
pub const GENERATOR_LAG: &str = "generator-lag";
/// Derived, cross-checked scenarios: oha's goodput and p50 over the lab generator's, same design,
/// scenario and pass.
pub const OHA_OVER_LAB_GOODPUT: &str = "oha-over-lab-goodput";
pub const OHA_OVER_LAB_P50: &str = "oha-over-lab-p50";
/// Derived: a design's goodput over the ceiling's (`static-body`, no generation) in the same
/// scenario, pass by pass.
pub const OF_CEILING: &str = "of-ceiling";

/// The records derived from measured ones, for every design and scenario that has their inputs.
pub fn derived(set: &ResultSet) -> Vec<Record> {
    let mut out = Vec::new();
    let measured = |r: &&Record| r.id.experiment == SCRAPE || r.id.experiment == SCRAPE_BY_OHA;
    for r in set.records.iter().filter(measured) {
        // The ids derived under a fixed experiment name (generation, ceiling, offered rate, lag,
        // heap in bodies) come from the lab's generator alone: oha's rows of the same cell would
        // derive the same ids.
        let lab_generator = r.id.experiment == SCRAPE;
        let derive = |experiment: &str, metric: Metric, value: f64| {
            let id = r.id.with_case(experiment, &r.id.parameter);
            Record::new(id, metric, value)
        };
        match r.metric {
            // Over the generations that finished in the window, which are the ones the time
            // sums: one still running when the window closed has no time yet.
            Metric::EventsPer100Ops(GENERATING_US) if lab_generator => {
                out.extend(generation(set, r));
            }
            Metric::EventsPerSec(SERVED) | Metric::LatencyP50Ns
                if r.id.experiment == SCRAPE_BY_OHA =>
            {
                let experiment = match r.metric {
                    Metric::LatencyP50Ns => OHA_OVER_LAB_P50,
                    _ => OHA_OVER_LAB_GOODPUT,
                };
                let lab = BenchId::new(SCRAPE, &r.id.implementation, &r.id.parameter);
                if let Some(lab) = set.find(&lab, r.metric) {
                    out.extend(ratio(r, lab, experiment));
                }
            }
            Metric::EventsPerSec(SERVED)
                if lab_generator && r.id.implementation != StaticBody::NAME =>
            {
                let ceiling = BenchId::new(SCRAPE, StaticBody::NAME, &r.id.parameter);
                if let Some(ceiling) = set.find(&ceiling, r.metric) {
                    out.extend(ratio(r, ceiling, OF_CEILING));
                }
            }
            // Per 100 requests, µs: 10 × the mean in ns; per second, µs: 10^6 × the share busy.
            Metric::EventsPer100Ops(CLIENT_CPU_US) => {
                let experiment = client_cpu(&r.id.experiment);
                out.push(derive(&experiment, Metric::MeanNs, r.value * 10.0));
            }
            Metric::EventsPerSec(CLIENT_CPU_US) => {
                let experiment = client_busy(&r.id.experiment);
                out.push(derive(&experiment, Metric::Ratio, r.value / 1e6));
            }
            Metric::EventsPer100Ops(SERVER_CPU_US) => {
                let experiment = server_cpu(&r.id.experiment);
                out.push(derive(&experiment, Metric::MeanNs, r.value * 10.0));
            }
            Metric::EventsPer100Ops(SERVER_SYSTEM_CPU_US) => {
                let experiment = server_system_cpu(&r.id.experiment);
                out.push(derive(&experiment, Metric::MeanNs, r.value * 10.0));
            }
            Metric::EventsPerSec(SERVER_CPU_US) => {
                let experiment = server_busy(&r.id.experiment);
                out.push(derive(&experiment, Metric::Ratio, r.value / 1e6));
            }
            // Per 100 requests: the span is 100 / offered rate, in µs; the lag 100 × its mean.
            Metric::EventsPer100Ops(SCHEDULE_US) if r.value > 0.0 && lab_generator => {
                out.push(derive(OFFERED, Metric::OpsPerSec, 1e8 / r.value));
            }
            Metric::EventsPer100Ops(LAG_US) if is_open(&r.id.parameter) && lab_generator => {
                out.push(derive(GENERATOR_LAG, Metric::MeanNs, r.value * 10.0));
            }
            Metric::PeakHeapBytes if lab_generator => out.extend(heap_in_bodies(set, r)),
            Metric::EventsPer100Ops(event) if lab_generator => {
                // The mean backlog at a slot: the backlogs read there over the samples that
                // reached it (the queue-growth chart, [`crate::waiting`]).
                if let Some(k) = WAITING_AT.iter().position(|e| *e == event) {
                    let sampled = set.find(&r.id, Metric::EventsPer100Ops(SAMPLED_AT[k]));
                    out.extend(sampled.and_then(|s| ratio(r, s, &waiting(k))));
                }
            }
            _ => {}
        }
    }
    out.extend(waiting_shape(&out));
    with_ceiling_checks(set, out)
}

/// A generation's mean time in `r`'s cell (per pass when both have passes, so the time compares
/// pass by pass) and the p99 counted in generations; nothing when no generation finished.
fn generation(set: &ResultSet, r: &Record) -> Vec<Record> {
    let Some(generations) = set
        .find(&r.id, Metric::EventsPer100Ops(FINISHED_GENERATIONS))
        .filter(|g| g.value > 0.0)
    else {
        return Vec::new();
    };
    let id = r.id.with_case(GENERATION, &r.id.parameter);
    let ns_per_generation = |us: f64, g: f64| us / g * 1_000.0;
    let Some(record) = r.combined(generations, id, Metric::MeanNs, ns_per_generation) else {
        return Vec::new();
    };
    // No generation finished in the window in some pass: no generation time there.
    if record.value <= 0.0 {
        return Vec::new();
    }
    let p99 = set.find(&r.id, Metric::LatencyP99Ns).map(|p99| {
        let id = r.id.with_case(P99_IN_GENERATIONS, &r.id.parameter);
        Record::new(id, Metric::Ratio, p99.value / record.value)
    });
    p99.into_iter().chain([record]).collect()
}

/// The peak heap of `r`'s cell in bodies, and above the ceiling's in the same scenario.
fn heap_in_bodies(set: &ResultSet, r: &Record) -> Vec<Record> {
    let Ok(scenario) = Scenario::parse(&r.id.parameter) else {
        return Vec::new();
    };
    let body = scenario.body.bytes as f64;
    let derive = |experiment: &str, value: f64| {
        Record::new(
            r.id.with_case(experiment, &r.id.parameter),
            Metric::Ratio,
            value,
        )
    };
    let mut out = vec![derive(PEAK_HEAP_IN_BODIES, r.value / body)];
    let ceiling = BenchId::new(SCRAPE, StaticBody::NAME, &r.id.parameter);
    if let Some(ceiling) = set.find(&ceiling, r.metric) {
        out.push(derive(
            PEAK_HEAP_OVER_CEILING,
            (r.value - ceiling.value) / body,
        ));
    }
    out
}

/// `out` with the ceiling checks, and without the ratios to a ceiling that did not hold: that
/// scenario measured something else than the designs (the check says why).
fn with_ceiling_checks(set: &ResultSet, mut out: Vec<Record>) -> Vec<Record> {
    let checks = crate::conformance::derived(set);
    let invalid = |parameter: &str| {
        checks.iter().any(|c| {
            c.id.experiment == crate::conformance::CEILING_EXCEEDED
                && c.id.parameter == parameter
                && c.value > 0.0
        })
    };
    out.retain(|r| r.id.experiment != OF_CEILING || !invalid(&r.id.parameter));
    out.extend(checks);
    out
}

/// `of` over `over` as `experiment`'s ratio record, pass by pass when both have the same passes
/// (measured in the same processes); `None` when `over` is 0.
fn ratio(of: &Record, over: &Record, experiment: &str) -> Option<Record> {
    let id = of.id.with_case(experiment, &of.id.parameter);
    of.combined(over, id, Metric::Ratio, |a, b| a / b)
}

/// Derived, per design and scenario with a waiting series: requests waiting at the last slot
/// over the first (a queue that grows), and the most waiting at any slot over the users (more
/// than 1: requests kept for clients that gave up on them).
pub const WAITING_GROWTH: &str = "waiting-growth";
pub const WAITING_PEAK_OVER_USERS: &str = "waiting-peak-over-users";

/// The growth and the peak of each waiting series in `derived`.
fn waiting_shape(derived: &[Record]) -> Vec<Record> {
    let mut out = Vec::new();
    let series: Vec<&Record> = derived
        .iter()
        .filter(|r| r.id.experiment.starts_with("waiting-at-"))
        .collect();
    let mut cells: Vec<(&str, &str)> = series
        .iter()
        .map(|r| (r.id.implementation.as_str(), r.id.parameter.as_str()))
        .collect();
    cells.dedup();
    for (design, parameter) in cells {
        let Ok(scenario) = Scenario::parse(parameter) else {
            continue;
        };
        let Shape::Closed { users } = scenario.shape else {
            continue;
        };
        let at = |k: usize| {
            series
                .iter()
                .find(|r| {
                    r.id.experiment == waiting(k)
                        && r.id.implementation == design
                        && r.id.parameter == parameter
                })
                .map(|r| r.value)
        };
        let values: Vec<f64> = (0..crate::waiting::SLOTS).map_while(at).collect();
        let id = |experiment: &str| BenchId::new(experiment, design, parameter);
        let peak = values.iter().copied().fold(0.0, f64::max);
        out.push(Record::new(
            id(WAITING_PEAK_OVER_USERS),
            Metric::Ratio,
            peak / users as f64,
        ));
        if let (Some(first), Some(last)) = (values.first(), values.last())
            && *first > 0.0
        {
            out.push(Record::new(id(WAITING_GROWTH), Metric::Ratio, last / first));
        }
    }
    out
}

/// Derived: the mean number of requests waiting in the server at slot `k` of the window.
pub fn waiting(k: usize) -> String {
    format!("waiting-at-{:.1}s", slot_seconds(k))
}

pub fn is_open(parameter: &str) -> bool {
    Scenario::parse(parameter).is_ok_and(|s| matches!(s.shape, Shape::Open { .. }))
}

/// Derived: the load generator's CPU time per request, and the share of its core it kept busy,
/// per measured experiment (the lab's generator's and oha's).
pub fn client_cpu(measured: &str) -> String {
    format!("{measured}-client-cpu")
}
pub fn client_busy(measured: &str) -> String {
    format!("{measured}-client-busy")
}
/// Derived: the server's CPU time per request, and how many of its cores it kept busy (cores
/// busy, not a share: the server's half may hold more than one).
pub fn server_cpu(measured: &str) -> String {
    format!("{measured}-server-cpu")
}
pub fn server_busy(measured: &str) -> String {
    format!("{measured}-server-busy")
}
/// Derived: the kernel's part of the server's CPU time per request (system time).
pub fn server_system_cpu(measured: &str) -> String {
    format!("{measured}-server-system-cpu")
}

/// The measured experiment a derived one comes from, whose scenarios are its parameters: the
/// cross-check's for the ratios of oha to the lab's generator, the scrapes' for the rest.
pub fn derived_from(derived: &str) -> Option<&'static str> {
    let of_scrapes = [
        GENERATION,
        P99_IN_GENERATIONS,
        PEAK_HEAP_IN_BODIES,
        PEAK_HEAP_OVER_CEILING,
        OF_CEILING,
        OFFERED,
        GENERATOR_LAG,
        crate::conformance::CEILING_EXCEEDED,
        WAITING_GROWTH,
        WAITING_PEAK_OVER_USERS,
        crate::conformance::CENSORED_P99,
        crate::conformance::CAPPED,
    ];
    if [OHA_OVER_LAB_GOODPUT, OHA_OVER_LAB_P50].contains(&derived) {
        Some(SCRAPE_BY_OHA)
    } else if of_scrapes.contains(&derived) || (0..SLOTS).any(|k| waiting(k) == derived) {
        Some(SCRAPE)
    } else {
        None
    }
}

#[cfg(test)]
mod tests;
