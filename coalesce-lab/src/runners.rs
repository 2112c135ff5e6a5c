//! coalesce-lab's runners: what `LAB.open` prepares for each case, and how one run measures.

use std::sync::Arc;
use std::time::Duration;

use labkit::lab::{Runner, Window};
use labkit::latency::LatencySink;
use labkit::record::EventName;

use crate::lab::{
    BACKLOG, BODY_MIB, CORRUPT, ERRORS, GENERATING_US, GENERATIONS, REFUSED, SERVED, TIMEOUTS,
    WASTED,
};
use crate::load::{Load, LoadGenerator, Plan};
use crate::server::Server;
use crate::workload::Scenario;
use crate::{Generator, ImplementationBuilder, MetricsEndpoint, build_implementation};

/// `implementation` behind a server started for `scenario`, with a load generator connected.
pub(crate) fn open(implementation: &str, scenario: Scenario) -> Result<Box<dyn Runner>, String> {
    build_implementation(implementation, &mut Open(scenario))?
}

/// Opens a runner of the design it is built for.
struct Open(Scenario);

impl ImplementationBuilder for Open {
    type Output = Result<Box<dyn Runner>, String>;

    fn build<E: MetricsEndpoint>(&mut self) -> Self::Output {
        let scenario = self.0;
        let server = Server::start::<E>(
            Arc::new(Generator::new(scenario.broker())),
            Some(scenario.timeout),
        )
        .map_err(|e| format!("cannot start the server: {e}"))?;
        let load = LoadGenerator::new(server.addr())?;
        Ok(Box::new(Scrapes {
            server,
            load,
            scenario,
        }))
    }
}

/// A design's server under one scenario's load.
pub(crate) struct Scrapes {
    server: Server,
    load: LoadGenerator,
    scenario: Scenario,
}

impl Runner for Scrapes {
    // The allocation run's second window follows `PROFILE_WARM_UP` more untimed runs, so a pool of
    // buffers has filled.
    fn run(&mut self, warm_up: u64, ops: u64, window: &mut dyn Window) -> Duration {
        // At most one unmeasured request per user: a sample's milliseconds do not depend on warm
        // caches, and each sample starts a new server anyway.
        let warm_up = match self.scenario.load {
            Load::Closed { users } => warm_up.min(users as u64),
            Load::Open { .. } => 0,
        };
        let plan = Plan {
            load: self.scenario.load,
            requests: ops,
            timeout: Some(self.scenario.timeout),
        };
        let mut edges = ServerEdges {
            window,
            server: &self.server,
            opened_at: 0,
            generations: 0,
            wasted: 0,
            generating: std::time::Duration::ZERO,
            backlog: 0,
        };
        let outcome = self.load.run(plan, warm_up, &mut edges, false);
        let (generations, wasted, backlog) = (edges.generations, edges.wasted, edges.backlog);
        let generating = edges.generating.as_micros() as u64;
        let tally = outcome.tally;
        if tally.corrupt > 0 {
            eprintln!(
                "coalesce: {} of {ops} bodies did not match their checksum",
                tally.corrupt
            );
        }
        for (event, n) in [
            (SERVED, tally.served),
            (BODY_MIB, tally.body_bytes >> 20),
            (GENERATIONS, generations),
            (WASTED, wasted),
            (GENERATING_US, generating),
            (TIMEOUTS, tally.timeouts),
            (REFUSED, tally.refused),
            (ERRORS, tally.errors),
            (CORRUPT, tally.corrupt),
            (BACKLOG, backlog as u64),
        ] {
            window.count(event, n);
        }
        outcome.elapsed
    }
}

/// The measuring window, plus the server's generation counts at its edges.
pub(crate) struct ServerEdges<'a> {
    window: &'a mut dyn Window,
    server: &'a Server,
    opened_at: u64,
    generations: u64,
    wasted: u64,
    generating: std::time::Duration,
    backlog: usize,
}

impl Window for ServerEdges<'_> {
    fn open(&mut self) {
        self.opened_at = self.server.generator().started();
        self.window.open();
    }

    fn close(&mut self) {
        self.window.close();
        let generator = self.server.generator();
        self.generations = generator.started() - self.opened_at;
        self.wasted = generator.wasted_since(self.opened_at);
        self.generating = generator.generating_since(self.opened_at);
        self.backlog = self.server.backlog();
    }

    fn latencies(&self) -> Option<Arc<LatencySink>> {
        self.window.latencies()
    }

    fn count(&mut self, event: EventName, n: u64) {
        self.window.count(event, n);
    }
}
