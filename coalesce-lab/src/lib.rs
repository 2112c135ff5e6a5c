//! coalesce-lab: Pulsar's `/metrics` endpoint (PR #22494, issue #22477) as designs behind one
//! trait, served over real HTTP/1.1 on loopback ([`server`]) and measured under a load generator
//! ([`load`]).
//!
//! Before the fix Pulsar generated the whole exposition once per request, one request at a time
//! from an unbounded queue, including requests whose clients had already given up; the fix
//! short-circuits timed-out requests, bounds the generator pool at 4 threads and coalesces
//! concurrent requests onto one shared result. Every design is one file under
//! [`implementations`]; [`with_implementations!`] is the one list of them that tests and every
//! measurement iterate.

extern crate self as coalesce_lab;

// Every design, the baseline first: the one list that tests, benches, allocation and footprint
// runs iterate. A new design is one file under `implementations/` and one line here.
lab_registry::designs! {
    crate coalesce_lab; trait MetricsEndpoint;
    serial_queue => SerialQueue,
    bounded_pool => BoundedPool,
    coalescing => Coalescing,
    coalescing_window => CoalescingWindow,
    coalescing_pooled => CoalescingPooled,
    shared_future => SharedFuture,
    coalescing_gzip_once => CoalescingGzipOnce,
    static_body => StaticBody,
}

pub mod buffer;
mod client_threads;
mod closed_loop;
pub mod coalesce;
pub mod conformance;
pub mod derive;
mod exchange;
pub mod exposition;
pub mod generation;
mod http_client;
pub mod implementations;
pub mod lab;
pub mod load;
pub mod names;
pub mod oha;
pub mod placement;
pub mod queue;
pub mod report;
mod runners;
mod scrapes;
pub mod server;
pub mod waiting;
pub mod workload;

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use generation::{Exposition, Generator};

/// One request for `/metrics` as the endpoint sees it.
#[derive(Debug, Clone, Copy)]
pub struct Scrape {
    pub arrived: Instant,
    /// When the client gives up (the server's request timeout, Pulsar's
    /// `metricsServletTimeoutMs`); `None` when it waits forever.
    pub deadline: Option<Instant>,
}

impl Scrape {
    pub fn expired(&self, now: Instant) -> bool {
        self.deadline.is_some_and(|d| now >= d)
    }
}

/// An endpoint's answer to one scrape.
#[derive(Debug, Clone)]
pub enum Answer {
    Exposition(Exposition),
    /// Refused at once: the bounded queue is full (HTTP 503).
    Overloaded,
    /// Past its deadline before generation started, so not generated (HTTP 503).
    TimedOut,
}

/// How fresh a design promises an answer to be, relative to its request's arrival; checked for
/// every design at the trait by `tests/model.rs` and over HTTP by `tests/http.rs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// Generated for this request: the generation started after the request arrived.
    StartedAfterArrival,
    /// Coalesced: the design had not yet published the generation (handed it to the requests
    /// waiting for it, [`Generator::publish`]) when the request arrived, so it is at most one
    /// generation older than the request.
    InFlightAtArrival,
    /// Served from a recent result: the generation was published at most this long before
    /// arrival.
    FinishedWithin(Duration),
    /// A body made once when the server started (the loopback-ceiling reference).
    Fixed,
}

impl Freshness {
    /// Whether an answer carrying `generation` (logged as `span`) keeps this promise to a request
    /// that arrived at `arrived`. A design that promises a published generation and never
    /// published it fails.
    pub fn holds(self, span: &generation::Span, generation: u64, arrived: Instant) -> bool {
        match self {
            Freshness::StartedAfterArrival => span.started >= arrived,
            Freshness::InFlightAtArrival => span.published.is_some_and(|p| p >= arrived),
            Freshness::FinishedWithin(window) => {
                span.published.is_some_and(|p| p + window >= arrived)
            }
            Freshness::Fixed => generation == 0,
        }
    }
}

/// A `/metrics` endpoint design. Created per server; dropped when the server stops, which ends its
/// generator threads.
///
/// # Concurrency contract
///
/// `scrape` is called from any of the server's threads, for any number of requests at once. A
/// scrape whose future is dropped (the client disconnected) must not leak its place in a queue or
/// a buffer.
pub trait MetricsEndpoint: Send + Sync + 'static {
    /// The design's name in tables and on the command line.
    const NAME: &'static str;
    const FRESHNESS: Freshness;
    /// Requests it holds at once (running and queued); more are refused with 503. `None`: it
    /// never refuses.
    const ADMITS: Option<usize> = None;

    fn new(generator: Arc<Generator>) -> Self;

    /// Answers one scrape.
    fn scrape(&self, scrape: Scrape) -> impl Future<Output = Answer> + Send + 'static;

    /// Requests queued or being generated right now (an unbounded queue shows here).
    fn backlog(&self) -> usize;
}
