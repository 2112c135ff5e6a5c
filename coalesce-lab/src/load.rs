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
use labkit::latency::LatencySink;

pub use crate::client_threads::ClientCost;
use crate::client_threads::Pacer;
use crate::closed_loop;
use crate::exchange::{Books, request};
pub use crate::exchange::{Exchange, LAG_EDGES, Load, Plan, Tally};
use crate::http_client::{Connection, connect};

/// Connections of the open loop kept ready before it starts.
const OPEN_LOOP_CONNECTIONS: usize = 8;

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
