//! coalesce-lab's derived records: from the measured ones, a generation's own time, the p99
//! counted in generations, the peak heap counted in bodies, the offered rate and the generator's
//! lag of an open loop, each design's goodput over the ceiling's, oha's over the lab generator's,
//! and the client's and the server's CPU per request under each tool.

use labkit::derivation::{Derivation, Operand, derive_all};
use labkit::record::{BenchId, Metric, Record, ResultSet};

use crate::MetricsEndpoint;
use crate::implementations::static_body::StaticBody;
use crate::names::{
    CEILING_EXCEEDED, CLIENT_CPU_US, FINISHED_GENERATIONS, GENERATING_US, GENERATION,
    GENERATOR_LAG, LAG_US, OF_CEILING, OFFERED, OHA_OVER_LAB_GOODPUT, OHA_OVER_LAB_P50,
    P99_IN_GENERATIONS, PEAK_HEAP_IN_BODIES, PEAK_HEAP_OVER_CEILING, SCHEDULE_US, SCRAPE,
    SCRAPE_BY_OHA, SERVED, SERVER_CPU_US, SERVER_SYSTEM_CPU_US, WAITING_GROWTH,
    WAITING_PEAK_OVER_USERS,
};
use crate::waiting::{SAMPLED_AT, SLOTS, WAITING_AT, slot_seconds};
use crate::workload::{Scenario, Shape};

/// The records derived from measured ones by a rule the kit states ([`Derivation`]): every one
/// but the few [`derived`] writes. The ids derived under a fixed experiment name come from the
/// lab's generator alone: oha's rows of the same cell would derive the same ids.
pub fn derivations() -> Vec<Derivation> {
    let per_100 = Metric::EventsPer100Ops;
    let from_scrapes = |name: &str, metric| Derivation::new(name, SCRAPE, metric);
    // Over the generations that finished in the window, which are the ones the time sums: one
    // still running when the window closed has no time yet.
    let generation = from_scrapes(GENERATION, per_100(GENERATING_US))
        .over(Operand::Metric(per_100(FINISHED_GENERATIONS)))
        .times(1_000.0)
        .to(Metric::MeanNs);
    let in_bodies = |name: &str| {
        from_scrapes(name, Metric::PeakHeapBytes)
            .over(Operand::Case(body_bytes))
            .to(Metric::Ratio)
    };
    let heap_over_ceiling =
        in_bodies(PEAK_HEAP_OVER_CEILING).minus(Operand::Design(StaticBody::NAME));
    let lag = from_scrapes(GENERATOR_LAG, per_100(LAG_US))
        .times(10.0)
        .to(Metric::MeanNs)
        .only(|id| {
            Scenario::parse(&id.parameter).is_ok_and(|s| matches!(s.shape, Shape::Open { .. }))
        });
    let oha_over_lab = |name: &str, metric| {
        Derivation::new(name, SCRAPE_BY_OHA, metric)
            .over(Operand::Experiment(SCRAPE))
            .to(Metric::Ratio)
    };
    // The mean backlog at a slot: the backlogs read there over the samples that reached it
    // (the queue-growth chart, [`crate::waiting`]).
    let waiting = (0..SLOTS).map(|k| {
        from_scrapes(&waiting(k), per_100(WAITING_AT[k]))
            .over(Operand::Metric(per_100(SAMPLED_AT[k])))
            .to(Metric::Ratio)
    });
    let mut derivations = vec![
        generation,
        in_bodies(PEAK_HEAP_IN_BODIES),
        heap_over_ceiling,
        lag,
        oha_over_lab(OHA_OVER_LAB_GOODPUT, Metric::EventsPerSec(SERVED)),
        oha_over_lab(OHA_OVER_LAB_P50, Metric::LatencyP50Ns),
    ];
    derivations.extend(waiting);
    derivations.extend([SCRAPE, SCRAPE_BY_OHA].into_iter().flat_map(process_costs));
    derivations
}

/// Under the load generator `measured` names (the lab's or oha): the client's and the server's
/// CPU time per request, the kernel's part of the server's (system time), and the cores each
/// kept busy (the server's are cores, not a share: its half may hold more than one). Per 100
/// requests, µs: 10 × the mean in ns; per second, µs: 10^6 × the cores busy.
fn process_costs(measured: &'static str) -> [Derivation; 5] {
    let derive = |what: &str, metric, times, to| {
        let name = format!("{measured}-{what}");
        Derivation::new(name, measured, metric).times(times).to(to)
    };
    let per_request =
        |what, event| derive(what, Metric::EventsPer100Ops(event), 10.0, Metric::MeanNs);
    let busy = |what, event| derive(what, Metric::EventsPerSec(event), 1e-6, Metric::Ratio);
    [
        per_request("client-cpu", CLIENT_CPU_US),
        busy("client-busy", CLIENT_CPU_US),
        per_request("server-cpu", SERVER_CPU_US),
        per_request("server-system-cpu", SERVER_SYSTEM_CPU_US),
        busy("server-busy", SERVER_CPU_US),
    ]
}

/// The records derived by this lab's own rules, from the set with the declared ones: the p99
/// counted in generations, the offered rate of an open loop, each design's goodput over the
/// ceiling's where the ceiling held, the shape of each waiting series, and the run's checks.
pub fn derived(set: &ResultSet) -> Vec<Record> {
    let mut out = Vec::new();
    for r in set.records.iter().filter(|r| r.id.experiment == SCRAPE) {
        match r.metric {
            Metric::LatencyP99Ns => {
                let generation =
                    set.find(&r.id.with_case(GENERATION, &r.id.parameter), Metric::MeanNs);
                out.extend(generation.map(|g| {
                    let id = r.id.with_case(P99_IN_GENERATIONS, &r.id.parameter);
                    Record::new(id, Metric::Ratio, r.value / g.value)
                }));
            }
            // Per 100 requests: the span is 100 / offered rate, in µs.
            Metric::EventsPer100Ops(SCHEDULE_US) if r.value > 0.0 => {
                let id = r.id.with_case(OFFERED, &r.id.parameter);
                out.push(Record::new(id, Metric::OpsPerSec, 1e8 / r.value));
            }
            _ => {}
        }
    }
    let of_ceiling = Derivation::new(OF_CEILING, SCRAPE, Metric::EventsPerSec(SERVED))
        .over(Operand::Design(StaticBody::NAME))
        .to(Metric::Ratio);
    out.extend(derive_all(&[of_ceiling], set));
    out.extend(waiting_shape(set));
    with_ceiling_checks(set, out)
}

/// A scrape's body size in bytes, from its scenario.
fn body_bytes(id: &BenchId) -> Option<f64> {
    Scenario::parse(&id.parameter)
        .ok()
        .map(|s| s.body.bytes as f64)
}

/// `out` with the ceiling checks, and without the ratios to a ceiling that did not hold: that
/// scenario measured something else than the designs (the check says why).
fn with_ceiling_checks(set: &ResultSet, mut out: Vec<Record>) -> Vec<Record> {
    let checks = crate::conformance::derived(set);
    let invalid = |parameter: &str| {
        checks.iter().any(|c| {
            c.id.experiment == CEILING_EXCEEDED && c.id.parameter == parameter && c.value > 0.0
        })
    };
    out.retain(|r| r.id.experiment != OF_CEILING || !invalid(&r.id.parameter));
    out.extend(checks);
    out
}

/// The growth and the peak of each waiting series in `set`.
fn waiting_shape(set: &ResultSet) -> Vec<Record> {
    let mut out = Vec::new();
    let first = waiting(0);
    for cell in set.records.iter().filter(|r| r.id.experiment == first) {
        let Ok(scenario) = Scenario::parse(&cell.id.parameter) else {
            continue;
        };
        let Shape::Closed { users } = scenario.shape else {
            continue;
        };
        let at = |k: usize| {
            let id = cell.id.with_case(&waiting(k), &cell.id.parameter);
            set.find(&id, Metric::Ratio).map(|r| r.value)
        };
        let values: Vec<f64> = (0..SLOTS).map_while(at).collect();
        let id = |experiment: &str| cell.id.with_case(experiment, &cell.id.parameter);
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

#[cfg(test)]
mod tests;
