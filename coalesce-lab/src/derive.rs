//! coalesce-lab's derived records: from the measured ones, a generation's own time, the p99
//! counted in generations, the peak heap counted in bodies, the offered rate and the generator's
//! lag of an open loop, each design's goodput over the ceiling's, oha's over the lab generator's,
//! and the client's and the server's CPU per request under each tool.

use labkit::lab::{Describe, Experiment};
use labkit::record::{BenchId, Metric, Record, ResultSet};

use crate::MetricsEndpoint;
use crate::implementations::static_body::StaticBody;
use crate::lab::{
    CLIENT_CPU_US, FINISHED_GENERATIONS, GENERATING_US, LAB, LAG_US, SCHEDULE_US, SCRAPE,
    SCRAPE_BY_OHA, SERVED, SERVER_CPU_US, SERVER_SYSTEM_CPU_US,
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
        let find = |metric: Metric| set.find(&r.id, metric).map(|r| r.value);
        let derive = |experiment: &str, metric: Metric, value: f64| {
            let id = r.id.with_case(experiment, &r.id.parameter);
            Record::new(id, metric, value)
        };
        match r.metric {
            // Over the generations that finished in the window, which are the ones the time
            // sums: one still running when the window closed has no time yet.
            Metric::EventsPer100Ops(GENERATING_US) if lab_generator => {
                let Some(generations) = set
                    .find(&r.id, Metric::EventsPer100Ops(FINISHED_GENERATIONS))
                    .filter(|g| g.value > 0.0)
                else {
                    continue;
                };
                // Per pass when both have passes, so the time compares pass by pass.
                let ns_per_generation = |us: f64, g: f64| us / g * 1_000.0;
                let record = match (&r.passes, &generations.passes) {
                    (Some(us), Some(g)) if us.len() == g.len() && g.iter().all(|g| *g > 0.0) => {
                        let id = r.id.with_case(GENERATION, &r.id.parameter);
                        let passes = us.iter().zip(g).map(|(u, g)| ns_per_generation(*u, *g));
                        Record::from_passes(id, Metric::MeanNs, passes.collect())
                    }
                    _ => derive(
                        GENERATION,
                        Metric::MeanNs,
                        ns_per_generation(r.value, generations.value),
                    ),
                };
                // No generation finished in the window in some pass: no generation time there.
                if record.value <= 0.0 || !record.value.is_finite() {
                    continue;
                }
                if let Some(p99) = find(Metric::LatencyP99Ns) {
                    out.push(derive(
                        P99_IN_GENERATIONS,
                        Metric::Ratio,
                        p99 / record.value,
                    ));
                }
                out.push(record);
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
            Metric::PeakHeapBytes if lab_generator => {
                if let Ok(scenario) = Scenario::parse(&r.id.parameter) {
                    let body = scenario.body.bytes as f64;
                    out.push(derive(PEAK_HEAP_IN_BODIES, Metric::Ratio, r.value / body));
                    let ceiling = BenchId::new(SCRAPE, StaticBody::NAME, &r.id.parameter);
                    if let Some(ceiling) = set.find(&ceiling, r.metric) {
                        let above = (r.value - ceiling.value) / body;
                        out.push(derive(PEAK_HEAP_OVER_CEILING, Metric::Ratio, above));
                    }
                }
            }
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
    // A scenario whose ceiling did not hold measured something else than the designs: no ratio
    // to that ceiling is published (the check says why).
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
    match (&of.passes, &over.passes) {
        (Some(a), Some(b)) if a.len() == b.len() && b.iter().all(|v| *v > 0.0) => {
            let passes = a.iter().zip(b).map(|(a, b)| a / b);
            Some(Record::from_passes(id, Metric::Ratio, passes.collect()))
        }
        _ => (over.value > 0.0).then(|| Record::new(id, Metric::Ratio, of.value / over.value)),
    }
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

/// The measured experiment whose parameters `experiment` (measured or derived) has: the
/// cross-check's for oha's and the ratios to it, the scrapes' for the rest.
pub fn measured_experiment(experiment: &str) -> &'static Experiment {
    let oha = [
        SCRAPE_BY_OHA.to_owned(),
        OHA_OVER_LAB_GOODPUT.to_owned(),
        OHA_OVER_LAB_P50.to_owned(),
        client_cpu(SCRAPE_BY_OHA),
        client_busy(SCRAPE_BY_OHA),
        server_cpu(SCRAPE_BY_OHA),
        server_busy(SCRAPE_BY_OHA),
        server_system_cpu(SCRAPE_BY_OHA),
    ];
    if oha.iter().any(|e| e == experiment) {
        &LAB.experiments()[1]
    } else {
        &LAB.experiments()[0]
    }
}

/// The experiments a target's `experiment` stands for: the scrapes, or one derived from them
/// (with the scenarios as its parameters).
pub fn target_experiments(name: &str) -> Vec<(String, Vec<String>)> {
    let known = [
        SCRAPE,
        SCRAPE_BY_OHA,
        GENERATION,
        P99_IN_GENERATIONS,
        PEAK_HEAP_IN_BODIES,
        PEAK_HEAP_OVER_CEILING,
        OF_CEILING,
        OFFERED,
        GENERATOR_LAG,
        OHA_OVER_LAB_GOODPUT,
        OHA_OVER_LAB_P50,
        crate::conformance::CEILING_EXCEEDED,
        WAITING_GROWTH,
        WAITING_PEAK_OVER_USERS,
        crate::conformance::CENSORED_P99,
        crate::conformance::CAPPED,
    ];
    if !known.contains(&name) && !(0..SLOTS).any(|k| waiting(k) == name) {
        return Vec::new();
    }
    let parameters = measured_experiment(name)
        .parameters
        .iter()
        .map(|p| p.name.clone())
        .collect();
    vec![(name.to_owned(), parameters)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::GENERATIONS;
    use labkit::fixture::result_set;

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
        let derived = derived(&s);
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
        let values: Vec<(String, f64)> = derived(&s)
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
        assert_eq!(find("peak-heap-over-ceiling-in-bodies/static-body"), 0.0);
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
        let derived = derived(&s);
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
        let derived = derived(&s);
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
}
