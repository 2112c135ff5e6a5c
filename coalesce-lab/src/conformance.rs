//! The run's conformance checks, one derived count per scenario (on `static-body`), each 0 when
//! the scenario's numbers are valid:
//!
//! - the ceiling: `static-body` (one body generated when the server starts) measures what the
//!   server, the loopback and the load generator can carry at all, so no design may serve more
//!   requests per second in the same scenario by more than the run's A/A resolution δ: where one
//!   does decisively (every pass agrees, and the interval of its ratio to the ceiling lies above
//!   1 + δ), the scenario measured something else than the designs, and its ratios to the
//!   ceiling are not published; the check says what was saturated. Where the client's core is
//!   saturated under the ceiling, the ceiling is the load generator's capacity, which a design
//!   serving a cached body also reaches: within δ of it, such a design is the ceiling's equal;
//! - censored tails: no design's p99 published with more than 1 % of its latencies censored;
//! - whole rounds: no closed-loop sample of any design ended at the cap, before every user had
//!   been answered its rounds.

use labkit::compare::{Verdict, compare_in};
use labkit::record::{BenchId, Metric, Record, ResultSet};
use labkit::table::{Align, Table, format_number};

use crate::MetricsEndpoint;
use crate::implementations::static_body::StaticBody;
use crate::names::{
    CAPPED, CEILING_EXCEEDED, CENSORED_P99, CLIENT_CPU_US, SCRAPE, SERVED, SERVER_CPU_US,
    UNFINISHED,
};

/// A client or server core busy at least this share of the window is saturated: the rate is
/// that core's, not the design's.
const SATURATED: f64 = 0.9;

/// The check of one scenario.
pub struct Check {
    pub scenario: String,
    /// The ceiling's requests served per second.
    pub ceiling: f64,
    /// The design serving the most requests per second, its rate and the ratio to the ceiling.
    pub best: Option<(String, f64, f64)>,
    /// The designs decisively above the ceiling.
    pub exceeded: Vec<String>,
    /// The share of the client's core and the server's cores the ceiling's run kept busy.
    pub client_busy: Option<f64>,
    pub server_busy: Option<f64>,
}

fn saturated(core: &str, share: Option<f64>) -> Option<String> {
    share
        .filter(|s| *s >= SATURATED)
        .map(|s| format!("the {core} was saturated (busy {s:.2})"))
}

impl Check {
    /// What the check found: the ceiling holds, or the scenario is invalid with the measured
    /// reason.
    pub fn finding(&self) -> String {
        if self.exceeded.is_empty() {
            return match saturated("client's core", self.client_busy) {
                Some(bound) => format!("holds; {bound}: the load generator bounds it"),
                None => "holds".into(),
            };
        }
        let reason = saturated("client's core", self.client_busy)
            .or_else(|| saturated("server's core", self.server_busy))
            .unwrap_or_else(|| "neither core was saturated: cause not established".into());
        format!(
            "**invalid**: {} above the ceiling; {reason}",
            self.exceeded.join(", ")
        )
    }
}

/// Every scenario's check, in the order the run measured them.
pub fn checks(set: &ResultSet) -> Vec<Check> {
    let served = Metric::EventsPerSec(SERVED);
    let margin = set.timing.and_then(|t| t.same_within).unwrap_or(0.0);
    let ceilings = set.records.iter().filter(|r| {
        r.id.experiment == SCRAPE && r.id.implementation == StaticBody::NAME && r.metric == served
    });
    ceilings
        .filter(|c| c.id == BenchId::new(SCRAPE, StaticBody::NAME, &c.id.parameter))
        .map(|ceiling| {
            let designs: Vec<&Record> = crate::measured_names()
                .iter()
                .filter(|name| **name != StaticBody::NAME)
                .filter_map(|name| {
                    set.find(&BenchId::new(SCRAPE, name, &ceiling.id.parameter), served)
                })
                .collect();
            let exceeded = designs
                .iter()
                .filter(|d| {
                    let c = compare_in(set, ceiling, d);
                    let beyond = c.interval.is_some_and(|i| i.lower > 1.0 + margin);
                    matches!(c.verdict, Verdict::Better | Verdict::Worse) && c.ratio > 1.0 && beyond
                })
                .map(|d| d.id.implementation.clone())
                .collect();
            let best = designs
                .iter()
                .max_by(|a, b| a.value.total_cmp(&b.value))
                .map(|d| {
                    let ratio = d.value / ceiling.value;
                    (d.id.implementation.clone(), d.value, ratio)
                });
            let busy = |event| {
                set.find(&ceiling.id, Metric::EventsPerSec(event))
                    .map(|r| r.value / 1e6)
            };
            Check {
                scenario: ceiling.id.parameter.clone(),
                ceiling: ceiling.value,
                best,
                exceeded,
                client_busy: busy(CLIENT_CPU_US),
                server_busy: busy(SERVER_CPU_US),
            }
        })
        .collect()
}

/// The derived records: per scenario, designs above the ceiling, designs with a censored p99
/// published, designs with a sample that ended at the cap.
pub fn derived(set: &ResultSet) -> Vec<Record> {
    let count = |experiment: &str, scenario: &str, n: usize| {
        let id = BenchId::new(experiment, StaticBody::NAME, scenario);
        Record::new(id, Metric::Ratio, n as f64)
    };
    let mut out = Vec::new();
    for check in checks(set) {
        let designs = crate::measured_names();
        let cells = || {
            designs
                .iter()
                .map(|name| BenchId::new(SCRAPE, name, &check.scenario))
        };
        let censored = cells()
            .filter(|id| {
                let published = set.find(id, Metric::LatencyP99Ns).is_some();
                let histogram = set.find(id, Metric::LatencyHistogram);
                let censors = histogram
                    .and_then(|h| h.histogram.as_ref())
                    .is_some_and(|h| h.censors(0.99));
                published && censors
            })
            .count();
        let capped = cells()
            .filter(|id| {
                set.find(id, Metric::EventsPer100Ops(UNFINISHED))
                    .is_some_and(|r| r.value > 0.0)
            })
            .count();
        out.push(count(
            CEILING_EXCEEDED,
            &check.scenario,
            check.exceeded.len(),
        ));
        out.push(count(CENSORED_P99, &check.scenario, censored));
        out.push(count(CAPPED, &check.scenario, capped));
    }
    out
}

/// The check as a table: one row per scenario.
pub fn table(set: &ResultSet) -> Table {
    let mut table = Table::new()
        .column("Scenario", Align::Left)
        .column("`static-body` (req/s)", Align::Right)
        .column("fastest design (req/s, × ceiling)", Align::Right)
        .column("client core busy", Align::Right)
        .column("server cores busy", Align::Right)
        .column("ceiling", Align::Left);
    let share = |s: Option<f64>| s.map_or("—".into(), |s| format!("{s:.2}"));
    for check in checks(set) {
        let best = check
            .best
            .as_ref()
            .map_or("—".into(), |(name, rate, ratio)| {
                format!("`{name}` {} ({ratio:.2}×)", format_number(*rate))
            });
        table.row(vec![
            format!("`{}`", check.scenario),
            format_number(check.ceiling),
            best,
            share(check.client_busy),
            share(check.server_busy),
            check.finding(),
        ]);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use labkit::fixture::result_set;

    fn served(design: &str, passes: &[f64]) -> Record {
        let id = BenchId::new(SCRAPE, design, "closed-10vu-1mib");
        Record::from_passes(id, Metric::EventsPerSec(SERVED), passes.to_vec())
    }

    fn busy(design: &str, share: f64) -> Record {
        let id = BenchId::new(SCRAPE, design, "closed-10vu-1mib");
        Record::new(id, Metric::EventsPerSec(CLIENT_CPU_US), share * 1e6)
    }

    #[test]
    fn a_design_decisively_above_the_ceiling_makes_the_scenario_invalid_with_its_reason() {
        let ceiling = [100.0, 101.0, 99.0, 100.0, 100.5, 99.5];
        let within = [101.0, 99.0, 100.0, 102.0, 98.0, 100.0];
        let above = [130.0, 131.0, 129.0, 130.0, 130.5, 129.5];
        let holds = result_set(
            &crate::lab::LAB,
            vec![
                served("static-body", &ceiling),
                served("coalescing", &within),
            ],
        );
        let held = checks(&holds);
        assert_eq!(held.len(), 1);
        assert_eq!(held[0].finding(), "holds", "noise is not a violation");
        let set = result_set(
            &crate::lab::LAB,
            vec![
                served("static-body", &ceiling),
                served("coalescing", &above),
                busy("static-body", 0.97),
            ],
        );
        let check = &checks(&set)[0];
        assert_eq!(check.exceeded, ["coalescing"]);
        assert!(
            check
                .finding()
                .contains("the client's core was saturated (busy 0.97)"),
            "{}",
            check.finding()
        );
        let derived = derived(&set);
        let of = |experiment: &str| {
            derived
                .iter()
                .find(|r| r.id.experiment == experiment)
                .map(|r| r.value)
        };
        assert_eq!(of(CEILING_EXCEEDED), Some(1.0));
        assert_eq!((of(CENSORED_P99), of(CAPPED)), (Some(0.0), Some(0.0)));
    }

    #[test]
    fn a_design_above_the_ceiling_within_the_resolution_is_its_equal_not_a_violation() {
        let ceiling = [100.0, 101.0, 99.0, 100.0, 100.5, 99.5];
        let slightly = ceiling.map(|v| v * 1.04);
        let records = || {
            vec![
                served("static-body", &ceiling),
                served("coalescing-window", &slightly),
                busy("static-body", 1.0),
            ]
        };
        let strict = result_set(&crate::lab::LAB, records());
        assert_eq!(
            checks(&strict)[0].exceeded,
            ["coalescing-window"],
            "without a resolution, 4 % in every pass is above the ceiling"
        );
        let mut set = result_set(&crate::lab::LAB, records());
        set.timing = Some(labkit::record::TimingMethod {
            first_seed: 1,
            passes: ceiling.len(),
            rounds: 1,
            sample_ns: 0,
            link_order: labkit::record::LinkOrder::Fixed,
            extended_passes: ceiling.len(),
            same_within: Some(0.08),
            stage_seconds: None,
        });
        let check = &checks(&set)[0];
        assert!(
            check.exceeded.is_empty(),
            "within ±8 % it is the ceiling's equal"
        );
        assert_eq!(
            check.finding(),
            "holds; the client's core was saturated (busy 1.00): the load generator bounds it"
        );
    }
}
