//! The scrape workload's runner: a design's server under one scenario's load from a load
//! generator, with what the server did in the window (generations, CPU time, socket writes,
//! the backlog over time) counted beside the requests served.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use labkit::lab::{MeasuredHeap, Runner, Window};
use labkit::latency::LatencySink;
use labkit::record::EventName;

use crate::Generator;
use crate::implementations::serial_queue::SerialQueue;
use crate::load::{ClientCost, Load, LoadGenerator, Plan, Tally};
use crate::names::{
    BACKLOG, BODY_MIB, CENSORED, CLIENT_CPU_US, CORRUPT, ERRORS, FINISHED_GENERATIONS,
    GENERATING_US, GENERATIONS, LAG_HISTOGRAM, LAG_US, REFUSED, SCHEDULE_US, SERVED, SERVER_CPU_US,
    SERVER_SYSTEM_CPU_US, SERVER_WAITS, SERVER_WRITES, SERVER_WRITES_BLOCKED, TIMEOUTS, UNFINISHED,
    WASTED,
};
use crate::oha::Oha;
use crate::server::Server;
use crate::workload::{PATIENT, Scenario};

/// How long a run waits for the server of the run before it to finish the requests that run
/// dropped: about two of the slowest generation a published scenario has, so a coalescing design
/// finishes its one in flight; a queue of a round's requests is left to a new server.
const DRAIN: Duration = Duration::from_secs(1);

/// Requests of each of the serial design's capacity runs (about 0.2 s on 1 MiB), after a few
/// unmeasured ones; the capacity is the median of [`CAPACITY_RUNS`] (one run of 60 varied by a
/// quarter between processes).
const CAPACITY_REQUESTS: u64 = 150;
const CAPACITY_RUNS: usize = 3;

/// `serial-queue`'s requests/s for `scenario`'s broker with one user in a closed loop, measured
/// once per process and broker before the first open loop opens (printed, so a log states the
/// rate an open loop's percent stands for; each pass's own in its own process). A failed
/// measurement is an error of the open loop's case, not a rate made up in its place.
pub(crate) fn serial_capacity(scenario: &Scenario) -> Result<f64, String> {
    static MEASURED: Mutex<Vec<(String, f64)>> = Mutex::new(Vec::new());
    let key = format!("{:?}", (scenario.body, scenario.cost));
    let mut measured = MEASURED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, rate)) = measured.iter().find(|(k, _)| *k == key) {
        return Ok(*rate);
    }
    let rate = measure_serial_capacity(scenario)
        .map_err(|e| format!("cannot measure serial-queue's capacity for an open loop: {e}"))?;
    eprintln!(
        "coalesce: serial-queue capacity, {}: {rate:.0} requests/s",
        scenario.body.name
    );
    measured.push((key, rate));
    Ok(rate)
}

fn measure_serial_capacity(scenario: &Scenario) -> Result<f64, String> {
    let generator = Arc::new(Generator::new(scenario.broker()));
    let server = Server::start::<SerialQueue>(generator, Some(scenario.timeout))
        .map_err(|e| format!("cannot start the capacity server: {e}"))?;
    let plan = Plan {
        load: Load::Closed { users: 1 },
        requests: CAPACITY_REQUESTS,
        timeout: Some(PATIENT),
        gzip: scenario.gzip,
        cap: None,
    };
    let client = LoadGenerator::new(server.addr())?;
    let mut rates = Vec::with_capacity(CAPACITY_RUNS);
    for _ in 0..CAPACITY_RUNS {
        let outcome = client.run(plan, 4, &mut (), false);
        if outcome.tally.served == 0 {
            return Err("a capacity run served nothing".to_owned());
        }
        rates.push(outcome.tally.served as f64 / outcome.elapsed.as_secs_f64());
    }
    Ok(labkit::stats::median(&rates))
}

/// Starts a design's server, with a client connected to it.
pub(crate) type Start = Box<dyn Fn() -> Result<(Server, Generators), String>>;

/// The load generator a runner drives its server with.
pub(crate) enum Generators {
    Lab(LoadGenerator),
    Oha(Oha),
}

/// A design's server under one scenario's load.
pub(crate) struct Scrapes {
    /// The server and its client (none only when starting them again failed).
    running: Option<(Server, Generators)>,
    /// Starts the design's server again, with a client connected to it.
    start: Start,
    /// Whether the last run dropped requests unanswered (those running when its window closed):
    /// the server may still be working for them. The next run waits for it to empty, for at
    /// most [`DRAIN`] (a coalescing design finishes the generation in flight, and keeps its
    /// pooled buffers for a steady second window), and otherwise starts a new one rather than
    /// queue behind them (a serial queue generates for every request it was sent).
    cut: bool,
    load: Load,
    scenario: Scenario,
}

impl Scrapes {
    /// A design's server started by `start`, with its client, for `scenario`'s `load`.
    pub(crate) fn start(start: Start, load: Load, scenario: Scenario) -> Result<Self, String> {
        Ok(Self {
            running: Some(start()?),
            start,
            cut: false,
            load,
            scenario,
        })
    }

    /// After a cut run, a server that does not empty within [`DRAIN`] is replaced: the old one
    /// goes first (its design's threads joined), then a new one starts.
    fn restart_after_a_cut(&mut self) {
        let drained = |running: &(Server, Generators)| running.0.drained_within(DRAIN);
        if std::mem::take(&mut self.cut) && !self.running.as_ref().is_some_and(drained) {
            self.running = None;
            self.running = (self.start)().map_err(|e| eprintln!("coalesce: {e}")).ok();
        }
    }
}

/// The span of an open loop's schedule, µs: 0 for a closed loop.
fn schedule_us(load: Load, ops: u64) -> u64 {
    match load {
        Load::Open { per_second } => ops.saturating_sub(1) * 1_000_000 / u64::from(per_second),
        Load::Closed { .. } => 0,
    }
}

impl Runner for Scrapes {
    // The allocation run's second window follows `PROFILE_WARM_UP` more untimed runs, so a pool of
    // buffers has filled.
    fn run(&mut self, warm_up: u64, ops: u64, window: &mut dyn Window) -> Duration {
        self.restart_after_a_cut();
        let Some((server, client)) = &self.running else {
            // A server that could not start again: a run that served nothing.
            window.open();
            window.close();
            window.count(ERRORS, ops);
            return Duration::from_millis(1);
        };
        // At most one unmeasured request per user: a sample's milliseconds do not depend on warm
        // caches, and each sample starts a new server anyway.
        let warm_up = match self.load {
            Load::Closed { users } => warm_up.min(users as u64),
            Load::Open { .. } => 0,
        };
        let plan = Plan {
            load: self.load,
            requests: ops,
            timeout: Some(self.scenario.timeout),
            gzip: self.scenario.gzip,
            cap: self.scenario.cap(),
        };
        let mut edges = ServerEdges::new(window, server, self.scenario.overload);
        // The outcome, and what the client spent inside this process (the lab's generator all of
        // it; oha only the thread that waited for it), to be told apart from the server's.
        let (outcome, in_process) = match client {
            Generators::Lab(generator) => {
                let outcome = generator.run(plan, warm_up, &mut edges, false);
                let client = outcome.client;
                (outcome, client)
            }
            Generators::Oha(oha) => oha_outcome(oha.run(plan, warm_up, &mut edges), ops),
        };
        let (generations, backlog) = (edges.generations, edges.backlog);
        let waiting = edges.waiting.take();
        // Counted only where a request can time out within the run: elsewhere a generation
        // left unserved is the cap's cut, not waste.
        let wasted = edges
            .closed_at
            .filter(|_| self.scenario.deadline_reachable())
            .map(|closed| server.generator().wasted_between(edges.opened_at, closed));
        let server_cpu = edges.process_cpu.saturating_sub(in_process.cpu);
        let server_system = edges.process_system.saturating_sub(in_process.system);
        let server_waits = edges.process_switches.saturating_sub(in_process.switches);
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
            (GENERATING_US, generating),
            (FINISHED_GENERATIONS, edges.finished),
            (TIMEOUTS, tally.timeouts),
            (UNFINISHED, tally.unfinished),
            (CENSORED, tally.timeouts + tally.unfinished),
            (REFUSED, tally.refused),
            (ERRORS, tally.errors),
            (CORRUPT, tally.corrupt),
            (BACKLOG, backlog as u64),
            (SCHEDULE_US, schedule_us(self.load, ops)),
            (CLIENT_CPU_US, outcome.client.cpu.as_micros() as u64),
            (SERVER_CPU_US, server_cpu.as_micros() as u64),
            (SERVER_SYSTEM_CPU_US, server_system.as_micros() as u64),
            (SERVER_WAITS, server_waits),
            (SERVER_WRITES, edges.writes.0),
            (SERVER_WRITES_BLOCKED, edges.writes.1),
        ] {
            window.count(event, n);
        }
        if let Some(wasted) = wasted {
            window.count(WASTED, wasted);
        }
        if let Some(read) = &waiting {
            crate::waiting::count(window, read);
        }
        // The lag behind the schedule is the lab generator's own measurement: oha reports none,
        // and its rows leave the events out rather than record a lag of 0.
        if let Generators::Lab(_) = client {
            window.count(LAG_US, tally.lag_us);
            for (event, n) in LAG_HISTOGRAM.into_iter().zip(tally.lag_histogram) {
                window.count(event, n);
            }
        }
        if let Some(completed) = outcome.completed {
            window.completed(completed);
        }
        self.cut = outcome.cut;
        outcome.elapsed
    }
}

/// What an oha run served, as the lab's generator reports it, with the client CPU spent in this
/// process (the thread that waited for oha); a run that failed measured nothing: every request
/// counts as an error, and the report's cross-check shows it.
fn oha_outcome(
    run: Result<crate::oha::Outcome, String>,
    ops: u64,
) -> (crate::load::Outcome, ClientCost) {
    match run {
        Ok(o) => (
            crate::load::Outcome {
                elapsed: o.elapsed,
                client: ClientCost {
                    cpu: o.client_cpu,
                    ..ClientCost::default()
                },
                tally: Tally {
                    served: o.served,
                    errors: o.not_served,
                    body_bytes: o.body_bytes,
                    ..Tally::default()
                },
                completed: None,
                cut: false,
                history: Vec::new(),
            },
            o.waiting,
        ),
        Err(e) => {
            eprintln!("coalesce: {e}");
            let outcome = crate::load::Outcome {
                elapsed: Duration::from_millis(1),
                client: ClientCost::default(),
                tally: Tally {
                    errors: ops,
                    ..Tally::default()
                },
                completed: None,
                cut: false,
                history: Vec::new(),
            };
            (outcome, ClientCost::default())
        }
    }
}

/// The measuring window, plus the server's generation counts and the process's CPU time at its
/// edges.
pub(crate) struct ServerEdges<'a> {
    window: &'a mut dyn Window,
    server: &'a Server,
    opened_at: u64,
    /// When the window opened: the generations finished since are the ones `generating` sums.
    opened: Option<Instant>,
    /// When the window closed: the generations finished by then are the window's to count as
    /// wasted, once the run has ended.
    closed_at: Option<Instant>,
    generations: u64,
    generating: Duration,
    /// The generations `generating` sums.
    finished: u64,
    backlog: usize,
    /// Whether the scenario's chart wants the backlog over the window ([`crate::waiting`]).
    sample_waiting: bool,
    /// The backlog at each slot of the window, once it closed, where it was sampled.
    waiting: Option<Vec<usize>>,
    sampler: Option<crate::waiting::Sampler>,
    process_cpu: Duration,
    process_system: Duration,
    process_switches: u64,
    /// The server's socket writes, done and blocked.
    writes: (u64, u64),
}

impl<'a> ServerEdges<'a> {
    /// Edges of `window` on `server`, sampling its backlog over the window when `sample_waiting`.
    fn new(window: &'a mut dyn Window, server: &'a Server, sample_waiting: bool) -> Self {
        Self {
            window,
            server,
            opened_at: 0,
            opened: None,
            closed_at: None,
            generations: 0,
            generating: Duration::ZERO,
            finished: 0,
            backlog: 0,
            sample_waiting,
            waiting: None,
            sampler: None,
            process_cpu: Duration::ZERO,
            process_system: Duration::ZERO,
            process_switches: 0,
            writes: (0, 0),
        }
    }

    fn writes(&self) -> (u64, u64) {
        self.server.writes().counts()
    }
}

impl Window for ServerEdges<'_> {
    fn open(&mut self) {
        self.opened_at = self.server.generator().started();
        self.opened = Some(Instant::now());
        self.process_cpu = labkit::process::cpu_time();
        self.process_system = labkit::process::system_cpu_time();
        self.process_switches = labkit::process::voluntary_switches();
        self.writes = self.writes();
        if self.sample_waiting {
            self.sampler = Some(crate::waiting::Sampler::start(self.server.backlog_probe()));
        }
        self.window.open();
    }

    fn close(&mut self) {
        self.window.close();
        if let Some(sampler) = self.sampler.take() {
            self.waiting = Some(sampler.finish());
        }
        self.process_cpu = labkit::process::cpu_time().saturating_sub(self.process_cpu);
        self.process_system =
            labkit::process::system_cpu_time().saturating_sub(self.process_system);
        self.process_switches =
            labkit::process::voluntary_switches().saturating_sub(self.process_switches);
        let generator = self.server.generator();
        self.generations = generator.started() - self.opened_at;
        let closed = Instant::now();
        self.closed_at = Some(closed);
        if let Some(opened) = self.opened {
            (self.generating, self.finished) = generator.finished_between(opened, closed);
        }
        self.backlog = self.server.backlog();
        let (done, blocked) = self.writes();
        self.writes = (done - self.writes.0, blocked - self.writes.1);
    }

    fn latencies(&self) -> Option<Arc<LatencySink>> {
        self.window.latencies()
    }

    fn count(&mut self, event: EventName, n: u64) {
        self.window.count(event, n);
    }

    fn completed(&mut self, ops: f64) {
        self.window.completed(ops);
    }

    fn heap_measured(&mut self, heap: MeasuredHeap) {
        self.window.heap_measured(heap);
    }

    fn failed(&mut self, reason: String) {
        self.window.failed(reason);
    }
}
