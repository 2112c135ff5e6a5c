//! The load generator: virtual users on hyper's HTTP/1.1 client over keep-alive connections, on
//! one client thread (a tokio current-thread runtime) beside the server.
//!
//! Written here rather than driving k6, oha or goose because the lab needs, in one process and
//! per request: the body's checksum verified against the server's header (a truncated or
//! recycled body must count as corrupt, not as served), the generation that answered (freshness
//! and coalescing are checked against the server's log), a client deadline that drops the
//! connection like a scraper giving up, and latencies into the kit's HdrHistograms. Two shapes:
//!
//! a closed loop ([`crate::closed_loop`]: k6's shared-iterations executor, as in the write-up's
//! load test, or a window of time), and an open loop at a fixed rate, each latency from its
//! scheduled start, so a stalled server cannot hide its queue (no coordinated omission).

use std::net::SocketAddr;
use std::sync::atomic::Ordering::Acquire;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use futures_util::future::join_all;
use futures_util::stream::FuturesUnordered;
use labkit::alloc::uncounted;
use labkit::lab::Window;
use labkit::latency::{LatencyRecorder, LatencySink};

pub use crate::client_threads::ClientCost;
use crate::client_threads::Pacer;
use crate::closed_loop::{self, Progress};
pub(crate) use crate::http_client::Connection;
use crate::http_client::{Reply, connect, scrape};

/// How requests are offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Load {
    Closed { users: usize },
    Open { per_second: u32 },
}

/// One load run.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub load: Load,
    /// Requests in the measured part.
    pub requests: u64,
    /// When a client gives up on a request and drops its connection.
    pub timeout: Option<Duration>,
    /// Whether requests ask for `Accept-Encoding: gzip` (the checksum covers the bytes sent).
    pub gzip: bool,
    /// A closed loop's wall-clock cap: with one, its warm-up is a round and its window ends when
    /// every user has had its share of `requests`, or at the cap ([`crate::closed_loop`]).
    pub cap: Option<Duration>,
}

/// The upper edges of an open loop's lag histogram (how far behind its schedule a send started);
/// the last bucket holds the sends later than the last edge. A send more than 1 ms late measures
/// the generator falling behind, not the server.
pub const LAG_EDGES: [Duration; 3] = [
    Duration::from_micros(100),
    Duration::from_millis(1),
    Duration::from_millis(10),
];

/// Connections of the open loop kept ready before it starts.
const OPEN_LOOP_CONNECTIONS: usize = 8;

/// How the requests of a run ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// 200 with a body matching its checksum.
    pub served: u64,
    /// 503: refused by a full queue or short-circuited.
    pub refused: u64,
    /// Given up at the client's deadline.
    pub timeouts: u64,
    /// Still running when a closed loop's cap ran out (dropped then).
    pub unfinished: u64,
    /// Any other status, or a connection that failed.
    pub errors: u64,
    /// 200 whose body did not match its checksum: a design bug, never acceptable.
    pub corrupt: u64,
    /// Body bytes of served responses.
    pub body_bytes: u64,
    /// Open loop: microseconds the sends started after their scheduled instants, summed (the
    /// generator's own lag, which a result must be told apart from).
    pub lag_us: u64,
    /// Open loop: sends by how late they started, bucketed by [`LAG_EDGES`].
    pub lag_histogram: [u64; LAG_EDGES.len() + 1],
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.served += other.served;
        self.refused += other.refused;
        self.timeouts += other.timeouts;
        self.unfinished += other.unfinished;
        self.errors += other.errors;
        self.corrupt += other.corrupt;
        self.body_bytes += other.body_bytes;
        self.lag_us += other.lag_us;
        for (sum, n) in self.lag_histogram.iter_mut().zip(other.lag_histogram) {
            *sum += n;
        }
    }
}

/// One served request, for the history checks of the tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exchange {
    pub sent: Instant,
    pub received: Instant,
    pub generation: u64,
}

/// What a run measured.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Wall time of the measured part.
    pub elapsed: Duration,
    /// What the client spent in the measured part (its thread, and an open loop's pacer).
    pub client: ClientCost,
    pub tally: Tally,
    /// Operations the window saw, when a closed loop's cap or straddling requests made them
    /// other than the requests asked for ([`crate::closed_loop`]).
    pub completed: Option<f64>,
    /// Whether requests were dropped unanswered at the end: the server may still be working
    /// for them, and a next run should not share it.
    pub cut: bool,
    /// Served requests, when asked for.
    pub history: Vec<Exchange>,
}

/// One request on a connection (made first when there is none), within the deadline. Returns the
/// tally of this one request and, when served, its exchange; the connection is dropped when the
/// request timed out or failed, as a scraper would.
pub(crate) async fn request(
    addr: SocketAddr,
    slot: &mut Option<Connection>,
    plan: &Plan,
    sent: Instant,
    progress: Option<&Progress>,
) -> (Tally, Option<Exchange>) {
    let attempt = async {
        if slot.is_none() {
            *slot = Some(connect(addr).await.map_err(|_| ())?);
        }
        let connection = slot.as_mut().expect("connected above");
        scrape(connection, plan.gzip, progress)
            .await
            .map_err(|_| ())
    };
    let result = match plan.timeout {
        Some(t) => tokio::time::timeout(t, attempt).await.map_err(|_| ()),
        None => Ok(attempt.await),
    };
    let mut tally = Tally::default();
    let exchange = match result {
        Ok(Ok(Reply::Served { generation, bytes })) => {
            tally.served = 1;
            tally.body_bytes = bytes;
            Some(Exchange {
                sent,
                received: Instant::now(),
                generation,
            })
        }
        Ok(Ok(Reply::Refused)) => {
            tally.refused = 1;
            None
        }
        Ok(Ok(Reply::Corrupt)) => {
            tally.corrupt = 1;
            None
        }
        Ok(Ok(Reply::Failed)) | Ok(Err(())) => {
            tally.errors = 1;
            *slot = None;
            None
        }
        Err(_) => {
            tally.timeouts = 1;
            *slot = None;
            None
        }
    };
    (tally, exchange)
}

/// What a run's requests add to: latencies, tally and history.
pub(crate) struct Books {
    pub(crate) tally: Mutex<Tally>,
    pub(crate) history: Option<Mutex<Vec<Exchange>>>,
}

impl Books {
    pub(crate) fn enter(
        &self,
        recorder: Option<&mut LatencyRecorder>,
        started: Instant,
        outcome: (Tally, Option<Exchange>),
    ) {
        let (tally, exchange) = outcome;
        if let Some(recorder) = recorder {
            // A timeout is a censored latency: the request took at least until it was given up
            // (its deadline, counted from its own send), so it enters as that, not as nothing.
            // Refusals and errors are answers of another kind and stay out.
            match exchange {
                Some(exchange) => recorder.record(exchange.received - started),
                None if tally.timeouts > 0 => recorder.record_censored(started.elapsed()),
                None => {}
            }
        }
        self.tally
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .add(&tally);
        if let (Some(history), Some(exchange)) = (&self.history, exchange) {
            history
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(exchange);
        }
    }
}

/// A load generator bound to one server. Its thread's allocations are left out of the counting
/// allocator's counters (`labkit::alloc::uncounted`): allocation, peak-heap and leak figures are
/// the server's alone. (Peak RSS and CPU time are the whole process's.)
pub struct LoadGenerator {
    addr: SocketAddr,
    runtime: Option<tokio::runtime::Runtime>,
}

impl LoadGenerator {
    pub fn new(addr: SocketAddr) -> Result<Self, String> {
        let runtime = uncounted(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
        })
        .map_err(|e| format!("cannot start the client runtime: {e}"))?;
        Ok(Self {
            addr,
            runtime: Some(runtime),
        })
    }

    fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime.as_ref().expect("present until dropped")
    }

    /// Connects every user and, in a closed loop, runs `warm_up` unmeasured requests over them
    /// (the lab's runner asks for at most one per user; an open loop is not warmed up), then
    /// `plan` (a closed loop in whole rounds within its cap, [`crate::closed_loop`]), with `window`
    /// opened and closed around the measured part on this thread. Latencies go to the window's
    /// sink when it has one: served requests, and timeouts and requests cut at the cap as
    /// censored values (at least their age); refusals and errors are tallied only.
    ///
    /// The history is allocated uncounted; it is meant for tests, not for allocation runs.
    pub fn run(
        &self,
        plan: Plan,
        warm_up: u64,
        window: &mut dyn Window,
        keep_history: bool,
    ) -> Outcome {
        // The history, the books and the client's buffers are the generator's, not the server's;
        // its CPUs are the client's half (`crate::placement`).
        crate::placement::on_client(|| {
            uncounted(|| {
                let latencies = window.latencies();
                let books = Books {
                    tally: Mutex::new(Tally::default()),
                    history: keep_history.then(|| Mutex::new(Vec::new())),
                };
                let (elapsed, client, completed, cut) = self.runtime().block_on(async {
                    match plan.load {
                        Load::Closed { users } => {
                            let mut connections: Vec<Option<Connection>> =
                                join_all((0..users.max(1)).map(|_| connect(self.addr)))
                                    .await
                                    .into_iter()
                                    .map(Result::ok)
                                    .collect();
                            let users = closed_loop::Users {
                                addr: self.addr,
                                connections: &mut connections,
                                plan,
                                latencies,
                                books: &books,
                            };
                            let measured = closed_loop::run(users, warm_up, window).await;
                            for connection in connections.into_iter().flatten() {
                                connection.close().await;
                            }
                            books
                                .tally
                                .lock()
                                .unwrap_or_else(PoisonError::into_inner)
                                .unfinished += measured.unfinished;
                            (
                                measured.elapsed,
                                measured.client,
                                Some(measured.completed),
                                measured.cut,
                            )
                        }
                        Load::Open { per_second } => {
                            let idle: Mutex<Vec<Connection>> = Mutex::new(
                                join_all((0..OPEN_LOOP_CONNECTIONS).map(|_| connect(self.addr)))
                                    .await
                                    .into_iter()
                                    .filter_map(Result::ok)
                                    .collect(),
                            );
                            window.open();
                            let (started, cost) = (Instant::now(), ClientCost::of_this_thread());
                            let pacer = self
                                .open_loop(&idle, plan, per_second, latencies, &books)
                                .await
                                .unwrap_or_else(|e| {
                                    // Nothing was sent: every request counts as an error.
                                    eprintln!("coalesce: {e}");
                                    let mut tally =
                                        books.tally.lock().unwrap_or_else(PoisonError::into_inner);
                                    tally.errors += plan.requests;
                                    ClientCost::default()
                                });
                            let (elapsed, client) =
                                (started.elapsed(), ClientCost::since(cost).plus(pacer));
                            window.close();
                            let idle = idle.into_inner().unwrap_or_else(PoisonError::into_inner);
                            for connection in idle {
                                connection.close().await;
                            }
                            (elapsed, client, None, false)
                        }
                    }
                });
                Outcome {
                    elapsed,
                    client,
                    tally: *books.tally.lock().unwrap_or_else(PoisonError::into_inner),
                    completed,
                    cut,
                    history: books
                        .history
                        .map(|h| h.into_inner().unwrap_or_else(PoisonError::into_inner))
                        .unwrap_or_default(),
                }
            })
        })
    }

    /// Returns the pacer thread's cost, or why it could not start (then nothing was sent).
    async fn open_loop(
        &self,
        idle: &Mutex<Vec<Connection>>,
        plan: Plan,
        per_second: u32,
        latencies: Option<Arc<LatencySink>>,
        books: &Books,
    ) -> Result<ClientCost, String> {
        let interval = Duration::from_secs(1) / per_second.max(1);
        let start = Instant::now();
        let pacer = Arc::new(Pacer::new());
        // Spawned from the client's thread, the pacer shares its CPUs; it allocates nothing the
        // server's counters should see.
        let keeper = {
            let pacer = Arc::clone(&pacer);
            std::thread::Builder::new()
                .name("pacer".to_owned())
                .spawn(move || uncounted(|| pacer.keep(start, interval, plan.requests)))
                .map_err(|e| format!("cannot start the open loop's pacer thread: {e}"))?
        };
        let arrival = |i: u64| {
            let latencies = latencies.clone();
            async move {
                let scheduled = start + interval * i as u32;
                let mut recorder = latencies.as_ref().map(|s| s.recorder());
                let mut slot = idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
                let sent = Instant::now();
                let lag = sent.saturating_duration_since(scheduled);
                let mut outcome = request(self.addr, &mut slot, &plan, sent, None).await;
                outcome.0.lag_us = lag.as_micros() as u64;
                let bucket = LAG_EDGES.iter().position(|edge| lag <= *edge);
                outcome.0.lag_histogram[bucket.unwrap_or(LAG_EDGES.len())] = 1;
                // Latency from the scheduled start, not from when a connection was free.
                books.enter(recorder.as_mut(), scheduled, outcome);
                if let Some(connection) = slot {
                    idle.lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(connection);
                }
            }
        };
        let mut in_flight = FuturesUnordered::new();
        let mut started = 0;
        loop {
            // A ring that comes before this wait is kept as Notify's permit, not lost.
            let rung = pacer.bell.notified();
            while started < pacer.released.load(Acquire) {
                in_flight.push(arrival(started));
                started += 1;
            }
            if started == plan.requests && in_flight.is_empty() {
                break;
            }
            tokio::select! {
                () = rung, if started < plan.requests => {}
                Some(()) = in_flight.next(), if !in_flight.is_empty() => {}
            }
        }
        Ok(keeper.join().unwrap_or_default())
    }
}

impl Drop for LoadGenerator {
    fn drop(&mut self) {
        let runtime = self.runtime.take();
        uncounted(move || drop(runtime));
    }
}
