//! The scenarios: closed-loop virtual users × body size × generation cost (the write-up's k6
//! shape, and the regime where generation dominates), an overload in which clients give up, and
//! an open-loop fixed rate. Stated once here; the lab's description, the benches and the tests all read [`scenarios`].

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::exposition::Broker;
use crate::load::Load;

/// A body size: the synthetic broker's topic count is chosen to give about `bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Body {
    pub name: &'static str,
    pub bytes: usize,
}

pub const BODIES: [Body; 2] = [
    Body {
        name: "1mib",
        bytes: 1 << 20,
    },
    Body {
        name: "16mib",
        bytes: 16 << 20,
    },
];

/// What one generation costs besides encoding the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cost {
    /// Encoding only: transfer, not generation, is what a request waits for (the run measures a
    /// generation's own time: `generating-us`).
    Cheap,
    /// Stats collection dominates: [`DOMINANT_ROUNDS`] of CPU work per topic, many times the
    /// encoding, as in the write-up's broker, which spent seconds collecting.
    Dominant,
}

/// Rounds of the synthetic stats collection per topic in a [`Cost::Dominant`] generation: enough
/// that a generation is a sizeable share of the overload's deadline, so that a serial generator
/// answers only a few users per deadline (the report prints the generation's measured time).
pub const DOMINANT_ROUNDS: u32 = 24_000;

impl Cost {
    fn rounds(self) -> u32 {
        match self {
            Cost::Cheap => 0,
            Cost::Dominant => DOMINANT_ROUNDS,
        }
    }
}

/// The closed loops, as (virtual users, body, generation cost): each answers a question of the
/// write-up or a target, and each runs its slowest design (`serial-queue`, one generation per
/// user and round) through a warm-up round and [`ROUNDS`] measured ones within seconds on two
/// cores.
///
/// - 1, 10 and 100 users on 1 MiB: a generation's own cost, then the write-up's 100 scrapers
///   where transfer, not generation, is what a request waits for;
/// - 300 users on 1 MiB: memory against concurrency past the write-up's users (at 1,000 users a
///   round of `serial-queue` is a thousand generations, and each of its samples four rounds);
/// - 10 and 100 users on 1 MiB with the stats collection dominating: the write-up's own shape
///   (its k6 run: 100 users, a generation many times its transfer);
/// - 1 and 10 users on 16 MiB: the large body. At 30 users the client's one core saturates, and
///   a server with nothing to generate cuts its responses into more, smaller writes than one busy
///   generating, which costs the client more per body: the `static-body` ceiling fell below the
///   coalescing designs there and was not a ceiling. At 100 users `serial-queue`'s round is a
///   hundred generations and transfers of 16 MiB, and at 1,000 a round moves 16 GB. A dominant
///   generation of 16 MiB is left out: it makes one user's sample of each design as long as the
///   whole matrix's others.
pub const CLOSED: [(usize, Body, Cost); 8] = [
    (1, BODIES[0], Cost::Cheap),
    (10, BODIES[0], Cost::Cheap),
    (100, BODIES[0], Cost::Cheap),
    (300, BODIES[0], Cost::Cheap),
    (10, BODIES[0], Cost::Dominant),
    (100, BODIES[0], Cost::Dominant),
    (1, BODIES[1], Cost::Cheap),
    (10, BODIES[1], Cost::Cheap),
];
// Every user of a closed loop connects at once: each must fit the server's accept queue.
const _: () = {
    let mut i = 0;
    while i < CLOSED.len() {
        assert!(
            CLOSED[i].0 < crate::server::LISTEN_BACKLOG as usize,
            "every user must fit the accept queue"
        );
        i += 1;
    }
};

/// Requests each user is answered in a closed loop's measured window, at least: the window
/// holds whole rounds of every design ([`crate::closed_loop`]), after a warm-up round.
pub const ROUNDS: u64 = 3;

/// A closed loop's wall-clock cap, on its warm-up round and on its window: far above the
/// published scenarios' rounds, it only guards a run against a design that stopped answering.
/// Requests still running at it are censored, and the report says so.
pub const CAP: Duration = Duration::from_secs(20);

/// A closed-loop client waits this long before giving up: in practice never (it is longer than
/// the [`CAP`]), but a stuck design cannot hang a run.
pub const PATIENT: Duration = Duration::from_secs(30);

/// The overload: 100 users whose requests expire after 100 ms, on the small body with the stats
/// collection dominating, so that one generation is a sizeable part of the deadline and a serial
/// generator answers a few users per deadline: arrivals exceed its capacity, clients give up and
/// ask again, and a queue that keeps their abandoned requests grows (the write-up's unbounded
/// queue). With the encoding alone, a round of 100 fits in the deadline on a fast core and no
/// queue builds up.
pub const OVERLOAD: (usize, Duration) = (100, Duration::from_millis(100));

/// The gzip scenario: 100 users asking for gzip, each giving up after 500 ms: compressing a body
/// costs many times encoding it, so a design that compresses every response needs longer than
/// the deadline for a round of 100 and part of its clients give up, as in the write-up, where
/// about a quarter of gzip requests timed out.
pub const GZIP: (usize, Duration) = (100, Duration::from_millis(500));

/// Requests per user in one measured run of the overload, at least: about a second of
/// `serial-queue`'s, so that the queue-growth chart ([`crate::waiting`]) sees its queue build up.
pub const OVERLOAD_ROUNDS: usize = 10;

/// Untimed runs of the allocation run's size between its two windows. `coalescing-pooled` takes
/// its buffers in turn, so its first window's generations fill each one; one run more is margin.
pub const PROFILE_WARM_UP: u64 = 1;

/// Requests in the smallest measured run of any scenario (a quick run's whole sample).
pub const MIN_REQUESTS: u64 = 8;

/// The open loops' rates, in percent of the serial design's capacity on the small body (its
/// one-user closed-loop rate, measured by each process before it measures an open loop): below,
/// at and above the capacity of Pulsar's endpoint before the fix, whatever the server does.
pub const OPEN_PERCENTS: [u32; 3] = [50, 100, 200];

/// An open loop's client deadline: a scraper's timeout, so that a queue growing past it shows as
/// censored latencies and timeouts, not as an ever longer run.
pub const OPEN_DEADLINE: Duration = Duration::from_secs(1);

/// How requests arrive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `users` virtual users, each asking again when its last request ended.
    Closed { users: usize },
    /// A fixed rate, `percent` of the serial design's measured capacity.
    Open { percent: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scenario {
    pub shape: Shape,
    pub body: Body,
    pub cost: Cost,
    /// Whether clients ask for gzip (`Accept-Encoding: gzip`).
    pub gzip: bool,
    /// The client's deadline, which is also the server's request timeout.
    pub timeout: Duration,
    /// Whether this is the overload (its name says so).
    pub overload: bool,
}

impl Scenario {
    pub fn name(&self) -> String {
        let cost = match self.cost {
            Cost::Cheap => "",
            Cost::Dominant => "-dominant",
        };
        let gzip = if self.gzip { "-gzip" } else { "" };
        let shape = match self.shape {
            Shape::Closed { users } if self.overload => format!("overload-{users}vu"),
            Shape::Closed { users } => format!("closed-{users}vu"),
            Shape::Open { percent } => format!("open-{percent}pct"),
        };
        format!("{shape}-{}{cost}{gzip}", self.body.name)
    }

    pub fn label(&self) -> String {
        let body = match self.cost {
            Cost::Cheap => format!("{} MiB body", self.body.bytes >> 20),
            Cost::Dominant => format!(
                "{} MiB body, stats collection dominating generation",
                self.body.bytes >> 20
            ),
        };
        let users = |n: usize| {
            if n == 1 {
                "1 user".to_owned()
            } else {
                format!("{n} users")
            }
        };
        match self.shape {
            Shape::Closed { users: n } if self.overload => format!(
                "{}, each giving up after {} ms and asking again, {body}",
                users(n),
                self.timeout.as_millis()
            ),
            Shape::Closed { users: n } if self.gzip => format!(
                "{} asking for gzip, each giving up after {} ms, {body}",
                users(n),
                self.timeout.as_millis()
            ),
            Shape::Closed { users: n } => format!("{} in a closed loop, {body}", users(n)),
            Shape::Open { percent } => format!(
                "{percent} % of `serial-queue`'s capacity, open loop (latency from the scheduled \
                 start, giving up after {} ms), {body}",
                self.timeout.as_millis()
            ),
        }
    }

    /// The fewest requests of one measured run: [`ROUNDS`] per virtual user and at least
    /// [`MIN_REQUESTS`], and for the overload [`OVERLOAD_ROUNDS`] per user, so that clients give
    /// up and ask again long enough for a queue that keeps their abandoned requests to build up.
    pub fn min_requests(&self) -> u64 {
        match self.shape {
            Shape::Closed { users } if self.overload => (users * OVERLOAD_ROUNDS) as u64,
            Shape::Closed { users } => (users as u64 * ROUNDS).max(MIN_REQUESTS),
            Shape::Open { .. } => MIN_REQUESTS,
        }
    }

    /// Whether a request can reach its deadline within a run: not in a closed loop whose cap
    /// ends it before its clients' patience runs out. Only then can a generation be spent on
    /// requests that timed out ([`crate::names::WASTED`]).
    pub fn deadline_reachable(&self) -> bool {
        self.cap().is_none_or(|cap| self.timeout <= cap)
    }

    /// A closed loop's cap ([`CAP`]; its window is whole rounds, [`crate::closed_loop`]). The
    /// overload and gzip scenarios run their requests whole (clients must give up and ask
    /// again), and an open loop's length is its schedule.
    pub fn cap(&self) -> Option<Duration> {
        if self.overload || self.gzip || !matches!(self.shape, Shape::Closed { .. }) {
            return None;
        }
        Some(CAP)
    }

    /// The load generator's shape, given the serial design's capacity in requests/s (asked only
    /// for an open loop; an error there is the scenario's).
    pub fn load(
        &self,
        serial_capacity: impl FnOnce() -> Result<f64, String>,
    ) -> Result<Load, String> {
        Ok(match self.shape {
            Shape::Closed { users } => Load::Closed { users },
            Shape::Open { percent } => Load::Open {
                per_second: (serial_capacity()? * f64::from(percent) / 100.0)
                    .round()
                    .max(1.0) as u32,
            },
        })
    }

    pub fn parse(name: &str) -> Result<Self, String> {
        scenarios()
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| {
                let names: Vec<String> = scenarios().iter().map(Scenario::name).collect();
                format!("unknown scenario `{name}`; valid: {}", names.join(", "))
            })
    }

    /// The broker whose exposition this scenario serves (built once per body size, cost and
    /// process).
    pub fn broker(&self) -> Arc<Broker> {
        static BROKERS: [OnceLock<Arc<Broker>>; 2 * BODIES.len()] =
            [const { OnceLock::new() }; 2 * BODIES.len()];
        let body = BODIES
            .iter()
            .position(|b| *b == self.body)
            .expect("scenarios use the listed bodies");
        let index = 2 * body + usize::from(self.cost == Cost::Dominant);
        Arc::clone(BROKERS[index].get_or_init(|| {
            Arc::new(Broker::with_body_size(self.body.bytes).collecting(self.cost.rounds()))
        }))
    }
}

/// Every scenario, in report order.
pub fn scenarios() -> Vec<Scenario> {
    let mut all = Vec::new();
    let closed = |users, body, cost| Scenario {
        shape: Shape::Closed { users },
        body,
        cost,
        gzip: false,
        timeout: PATIENT,
        overload: false,
    };
    for (users, body, cost) in CLOSED {
        all.push(closed(users, body, cost));
    }
    all.push(Scenario {
        gzip: true,
        timeout: GZIP.1,
        ..closed(GZIP.0, BODIES[0], Cost::Cheap)
    });
    all.push(Scenario {
        overload: true,
        timeout: OVERLOAD.1,
        ..closed(OVERLOAD.0, BODIES[0], Cost::Dominant)
    });
    for percent in OPEN_PERCENTS {
        all.push(Scenario {
            shape: Shape::Open { percent },
            timeout: OPEN_DEADLINE,
            ..closed(1, BODIES[0], Cost::Cheap)
        });
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_parse_back() {
        let all = scenarios();
        assert_eq!(all.len(), 13);
        for s in &all {
            assert_eq!(Scenario::parse(&s.name()).unwrap(), *s);
        }
        let err = Scenario::parse("closed-3vu-16mib").unwrap_err();
        assert!(err.contains("valid: closed-1vu-1mib"), "{err}");
    }

    #[test]
    fn an_open_loop_s_rate_is_its_percent_of_the_capacity_and_a_failed_capacity_is_its_error() {
        let all = scenarios();
        let open = all
            .iter()
            .find(|s| s.shape == Shape::Open { percent: 200 })
            .unwrap();
        assert_eq!(open.load(|| Ok(300.0)), Ok(Load::Open { per_second: 600 }));
        let err = open.load(|| Err("no server".to_owned())).unwrap_err();
        assert_eq!(err, "no server");
        let closed = all.iter().find(|s| s.name() == "closed-10vu-1mib").unwrap();
        let never = || -> Result<f64, String> { panic!("a closed loop needs no capacity") };
        assert_eq!(closed.load(never), Ok(Load::Closed { users: 10 }));
    }

    /// Wasted generations are counted only where a client can give up within a run.
    #[test]
    fn only_scenarios_whose_clients_give_up_within_a_run_can_time_out() {
        let reachable: Vec<String> = scenarios()
            .into_iter()
            .filter(Scenario::deadline_reachable)
            .map(|s| s.name())
            .collect();
        assert_eq!(
            reachable,
            [
                "closed-100vu-1mib-gzip",
                "overload-100vu-1mib-dominant",
                "open-50pct-1mib",
                "open-100pct-1mib",
                "open-200pct-1mib"
            ]
        );
    }
}
