//! One scrape as the load generator makes and books it: the plan it follows, the request on a
//! connection, how it ended ([`Tally`], [`Exchange`]) and where that is entered ([`Books`]).
//! Both loops ([`crate::closed_loop`], the open loop of [`crate::load`]) use it.

use std::net::SocketAddr;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use labkit::latency::LatencyRecorder;

use crate::http_client::{BodyProgress, Connection, Reply, connect, scrape};

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
    pub(crate) fn add(&mut self, other: &Tally) {
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

/// One request on a connection (made first when there is none), within the deadline. Returns the
/// tally of this one request and, when served, its exchange; the connection is dropped when the
/// request timed out or failed, as a scraper would.
pub(crate) async fn request(
    addr: SocketAddr,
    slot: &mut Option<Connection>,
    plan: &Plan,
    sent: Instant,
    progress: Option<&BodyProgress>,
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
