//! coalesce-lab's description: what the measurement binaries and the driver run (the runners
//! are [`crate::runners`], the report [`crate::report`]'s).

use std::time::Duration;

use labkit::lab::{Experiment, Kind, LatencyRecording, Parameter, Timing, Typed};
use labkit::record::RunMode;

use crate::MetricsEndpoint;
use crate::implementations::{
    coalescing::Coalescing, serial_queue::SerialQueue, static_body::StaticBody,
};
use crate::names::{
    CAPPED, CEILING_EXCEEDED, CENSORED_P99, OF_CEILING, OFFERED, P99_IN_GENERATIONS, SCRAPE,
    SCRAPE_BY_OHA, WAITING_GROWTH, WAITING_PEAK_OVER_USERS,
};
use crate::runners::{Client, Setup};
use crate::workload::{PROFILE_WARM_UP, Scenario, scenarios};

labkit::lab! {
    pub static LAB: CoalesceLab = "coalesce", "coalesce-lab: the /metrics endpoint under concurrent scrapers";
    cases: Setup = experiments;
    derivations: crate::derive::derivations;
    derived: crate::derive::derived, from {
        P99_IN_GENERATIONS => SCRAPE,
        OFFERED => SCRAPE,
        OF_CEILING => SCRAPE,
        WAITING_GROWTH => SCRAPE,
        WAITING_PEAK_OVER_USERS => SCRAPE,
        CEILING_EXCEEDED => SCRAPE,
        CENSORED_P99 => SCRAPE,
        CAPPED => SCRAPE,
    };
    describe {
        fn tools(&self) -> Vec<labkit::tools::Tool> {
            vec![crate::oha::tool()]
        }

        fn quick_selection(&self) -> Vec<&'static str> {
            QUICK.to_vec()
        }

        // A sample is a load run: one per cell and pass, long enough for many requests, and a closed
        // loop's is whole rounds: a warm-up round, then every user answered at least `ROUNDS` times
        // ([`crate::closed_loop`]). A quick run does not calibrate: each sample is a scenario's
        // minimum run (those rounds, the overload's five rounds). An allocation run is 30 requests
        // (at least every user once), repeated after its warm-up runs. No cell gets passes beyond
        // the standard ones: the cells left unstable are designs within a few percent of the
        // baseline, whose passes keep disagreeing, and a load run's passes are the lab's costliest.
        fn timing(&self, mode: RunMode) -> Timing {
            let standard = Timing::standard(mode);
            let (sample, profile_ops) = match mode {
                RunMode::Full => (Duration::from_millis(100), 30),
                RunMode::Quick => (Duration::ZERO, 10),
                RunMode::Smoke => (Duration::ZERO, 2),
            };
            Timing {
                rounds: 1,
                sample,
                profile_ops,
                extended_passes: standard.passes,
                ..standard
            }
        }
    }
}

/// The scenarios both load generators drive: a closed loop and a fixed rate.
pub const CROSS_CHECKED: [&str; 2] = ["closed-10vu-1mib", "open-100pct-1mib"];
/// The designs oha drives too: the baseline, the fix and the ceiling span the rates the lab's
/// generator measures; the cross-check is of the generators, not of the designs, so the other
/// six are left to the lab's generator alone.
pub const CROSS_CHECKED_DESIGNS: [&str; 3] = [
    <SerialQueue as MetricsEndpoint>::NAME,
    <Coalescing as MetricsEndpoint>::NAME,
    <StaticBody as MetricsEndpoint>::NAME,
];

/// What a quick run measures ([`Describe::quick_selection`]): the scenarios of the headline
/// targets (goodput against the serial queue and the ceiling, p99 and peak heap at the
/// write-up's shape; the queue that grows and the generations wasted under the overload) and the
/// cross-checked closed loop, by both generators. gzip is left to the full run: its targets are
/// the proposed next step's (`coalescing-gzip-once`), not the fix's.
pub const QUICK: [&str; 3] = [
    "closed-100vu-1mib-dominant",
    "overload-100vu-1mib-dominant",
    CROSS_CHECKED[0],
];

/// The scenarios of the main page's tables (the details have every one): the write-up's 100
/// users with cheap and with dominant generation, the most users, the large body, gzip and the
/// overload.
pub const HEADLINE: [&str; 6] = [
    "closed-100vu-1mib",
    "closed-300vu-1mib",
    "closed-100vu-1mib-dominant",
    "closed-10vu-16mib",
    "closed-100vu-1mib-gzip",
    "overload-100vu-1mib-dominant",
];

fn scenario_parameter(scenario: &Scenario) -> Parameter {
    Parameter {
        min_ops: scenario.min_requests(),
        ..Parameter::new(&scenario.name(), &scenario.label(), false)
    }
}

fn experiments() -> Vec<Typed<Setup>> {
    let scrape = |name, description: &str, scenarios: Vec<Scenario>, designs: &[&'static str]| {
        let client = if name == SCRAPE_BY_OHA {
            Client::Oha
        } else {
            Client::Lab
        };
        Experiment {
            implementations: designs.to_vec(),
            // Every sample starts its own server: a backlog one design left behind (an unbounded
            // queue still generating for clients that gave up) cannot slow the next sample.
            fresh_per_sample: true,
            latency: LatencyRecording::InTimedSamples,
            throughput: true,
            process_costs: true,
            profile_warm_up: PROFILE_WARM_UP,
            ..Experiment::of(name, description, Kind::Steady)
        }
        .on(scenarios
            .into_iter()
            .map(|scenario| (scenario_parameter(&scenario), Setup { scenario, client })))
    };
    let cross_checked = scenarios()
        .into_iter()
        .filter(|s| CROSS_CHECKED.contains(&s.name().as_str()))
        .collect();
    vec![
        scrape(
            SCRAPE,
            "one GET /metrics answered (or refused, or given up on) under load",
            scenarios(),
            &[],
        ),
        scrape(
            SCRAPE_BY_OHA,
            "one GET /metrics under load from oha, the established generator",
            cross_checked,
            &CROSS_CHECKED_DESIGNS,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::LAG_EDGES;
    use crate::names::{
        BACKLOG, CORRUPT, ERRORS, GENERATING_US, GENERATIONS, LAG_HISTOGRAM, LAG_US, SERVED,
        SERVER_SYSTEM_CPU_US, SERVER_WAITS, SERVER_WRITES, UNFINISHED,
    };
    use labkit::lab::{BenchCase, Describe, EventTally, Lab};

    // Every scenario is opened and served by the smoke run's optimised build; a debug-build test
    // affords the shortest one.
    labkit::lab_conformance!(LAB, with_implementations, |_, p: &Parameter| {
        p.name == "closed-1vu-1mib"
    });

    #[test]
    fn the_description_has_a_parameter_per_scenario_with_its_minimum_run() {
        let experiments = LAB.experiments();
        assert_eq!(experiments.len(), 2);
        let checked: Vec<&str> = experiments[1]
            .parameters
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(
            checked, CROSS_CHECKED,
            "every cross-checked scenario exists"
        );
        let parameters = &experiments[0].parameters;
        let all = scenarios();
        assert_eq!(parameters.len(), all.len());
        for (parameter, scenario) in parameters.iter().zip(&all) {
            assert_eq!(parameter.name, scenario.name());
            assert_eq!(parameter.min_ops, scenario.min_requests());
            assert!(!parameter.counted, "valgrind does not time a server");
        }
        assert!(
            experiments[0].profile_warm_up > 0,
            "pooled buffers fill first"
        );
    }

    /// The short cross-check: oha drives each cross-checked scenario, every request is served
    /// and timed, and the server's events are counted as for the lab's generator. Agreement
    /// between the two is a benchmark's business (the report's targets), not a test's. Ignored by
    /// a plain `cargo test`, which a fresh clone without the driver's tools must pass.
    #[test]
    #[ignore = "needs oha in .tools/: `cargo xtask test` installs it and runs this test"]
    fn oha_drives_every_cross_checked_scenario() {
        if let Err(why) = crate::oha::tool().installed() {
            panic!("{why}");
        }
        for parameter in CROSS_CHECKED {
            let case = BenchCase::new(SCRAPE_BY_OHA, parameter);
            let mut runner = LAB.open("coalescing", &case).unwrap();
            let mut window = EventTally::default();
            let elapsed = runner.run(2, 12, &mut window);
            assert_eq!(window.total(SERVED), 12, "{parameter}");
            assert_eq!(window.total(ERRORS), 0, "{parameter}");
            assert!(window.total(GENERATIONS) >= 1, "{parameter}");
            assert!(elapsed > Duration::ZERO, "{parameter}");
            assert!(
                !window.counted(LAG_US) && !window.counted(LAG_HISTOGRAM[0]),
                "{parameter}: oha measures no lag behind its schedule; its rows record none"
            );
        }
    }

    #[test]
    fn the_lag_histogram_s_event_names_say_its_edges() {
        let short = |d: Duration| match d.as_micros() {
            us if us < 1000 => format!("{us}us"),
            us => format!("{}ms", us / 1000),
        };
        let mut expected: Vec<String> = LAG_EDGES
            .iter()
            .map(|edge| format!("lag-to-{}", short(*edge)))
            .collect();
        expected.push(format!(
            "lag-over-{}",
            short(LAG_EDGES[LAG_EDGES.len() - 1])
        ));
        let names: Vec<&str> = LAG_HISTOGRAM.iter().map(|e| e.as_str()).collect();
        assert_eq!(names, expected);
    }

    /// A window that ends on its rounds drops the requests still queued behind it, and the serial
    /// queue would generate for them; the runner's next run does not queue behind them (the old
    /// server drained, or a new one): its backlog at the end is at most its own users' requests.
    /// Every user is answered its rounds inside each window, none censored.
    #[test]
    fn a_run_that_dropped_requests_is_followed_by_a_server_with_nothing_left() {
        let case = BenchCase::new(SCRAPE, "closed-10vu-1mib-dominant");
        let mut runner = LAB.open("serial-queue", &case).unwrap();
        for run in 0..2 {
            let mut window = EventTally::default();
            runner.run(10, 30, &mut window);
            assert!(window.total(SERVED) >= 30, "run {run}: {window:?}");
            assert_eq!(window.total(UNFINISHED), 0, "run {run}");
            assert!(window.total(BACKLOG) <= 10, "run {run}: {window:?}");
        }
    }

    #[test]
    fn every_design_opens_and_serves_a_short_run_with_its_events_counted() {
        let case = BenchCase::new(SCRAPE, "closed-1vu-1mib");
        for implementation in LAB.implementations() {
            let mut runner = LAB.open(implementation, &case).unwrap();
            let mut window = EventTally::default();
            runner.run(0, 3, &mut window);
            // One user in whole rounds: its window ends when its third request is answered,
            // with nothing in flight.
            let served = window.total(SERVED);
            assert_eq!(served, 3, "{implementation}");
            assert_eq!(window.completed(), Some(3.0), "{implementation}");
            assert_eq!(window.total(UNFINISHED), 0, "{implementation}");
            assert_eq!(window.total(CORRUPT), 0, "{implementation}");
            assert_eq!(window.total(ERRORS), 0, "{implementation}");
            // One user on one keep-alive connection: the server counts a response's write after
            // its bytes reach the socket, so the client can read the last response before its
            // write is counted (CI saw 2 of 3); every earlier one is counted before the next
            // request.
            let writes = window.total(SERVER_WRITES);
            assert!(
                writes + 1 >= served,
                "{implementation}: a response takes at least one write, {writes} counted"
            );
            assert!(window.counted(SERVER_WAITS) && window.counted(SERVER_SYSTEM_CPU_US));
            let generated = window.total(GENERATIONS);
            assert!(generated <= 3, "{implementation}: {generated} generations");
            if generated > 0 {
                assert!(window.total(GENERATING_US) > 0, "{implementation}");
            }
        }
    }
}
