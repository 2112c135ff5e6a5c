//! The scenarios, the lab's one dimension: closed-loop virtual users × body size (the write-up's
//! k6 shape), an overload in which clients give up, and an open-loop fixed rate. Stated once
//! here; the lab's description, the benches and the tests all read [`scenarios`].

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

/// Virtual users of the closed-loop scenarios.
pub const CLOSED_USERS: [usize; 3] = [1, 10, 100];

/// A closed-loop client waits this long before giving up: in practice never, but a stuck design
/// cannot hang a run.
pub const PATIENT: Duration = Duration::from_secs(30);

/// The overload: 100 users whose requests expire after 100 ms on the small body, where a serial
/// generator needs about 100 × one generation per round of requests: arrivals exceed its
/// capacity, clients give up and ask again (the write-up's timeout problem).
pub const OVERLOAD: (usize, Duration) = (100, Duration::from_millis(100));

/// Requests per user in one measured run of the overload, at least.
pub const OVERLOAD_ROUNDS: usize = 5;

/// Untimed runs of the allocation run's size between its two windows: after them a design that
/// recycles buffers has made all it needs at every user count, so the second window counts its
/// steady state.
pub const PROFILE_WARM_UP: u64 = 3;

/// Requests in the smallest measured run of any scenario (a quick run's whole sample).
pub const MIN_REQUESTS: u64 = 8;

/// The open loop: this many requests per second on the small body, whatever the server does.
pub const OPEN_RATE: u32 = 150;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scenario {
    pub load: Load,
    pub body: Body,
    /// The client's deadline, which is also the server's request timeout.
    pub timeout: Duration,
    /// Whether this is the overload (its name says so).
    pub overload: bool,
}

impl Scenario {
    pub fn name(&self) -> String {
        match self.load {
            Load::Closed { users } if self.overload => {
                format!("overload-{users}vu-{}", self.body.name)
            }
            Load::Closed { users } => format!("closed-{users}vu-{}", self.body.name),
            Load::Open { per_second } => format!("open-{per_second}rps-{}", self.body.name),
        }
    }

    pub fn label(&self) -> String {
        let body = format!("{} MiB body", self.body.bytes >> 20);
        let users = |n: usize| {
            if n == 1 {
                "1 user".to_owned()
            } else {
                format!("{n} users")
            }
        };
        match self.load {
            Load::Closed { users: n } if self.overload => format!(
                "{}, each giving up after {} ms and asking again, {body}",
                users(n),
                self.timeout.as_millis()
            ),
            Load::Closed { users: n } => format!("{} in a closed loop, {body}", users(n)),
            Load::Open { per_second } => format!(
                "{per_second} requests/s, open loop (latency from the scheduled start), {body}"
            ),
        }
    }

    /// The fewest requests of one measured run: one per virtual user and at least
    /// [`MIN_REQUESTS`], and for the overload [`OVERLOAD_ROUNDS`] per user, so that clients give
    /// up and ask again long enough for a queue that keeps their abandoned requests to build up.
    pub fn min_requests(&self) -> u64 {
        match self.load {
            Load::Closed { users } if self.overload => (users * OVERLOAD_ROUNDS) as u64,
            Load::Closed { users } => (users as u64).max(MIN_REQUESTS),
            Load::Open { .. } => MIN_REQUESTS,
        }
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

    /// The broker whose exposition this scenario serves (built once per body size and process).
    pub fn broker(&self) -> Arc<Broker> {
        static BROKERS: [OnceLock<Arc<Broker>>; BODIES.len()] = [OnceLock::new(), OnceLock::new()];
        let index = BODIES
            .iter()
            .position(|b| *b == self.body)
            .expect("scenarios use the listed bodies");
        Arc::clone(BROKERS[index].get_or_init(|| Arc::new(Broker::with_body_size(self.body.bytes))))
    }
}

/// Every scenario, in report order.
pub fn scenarios() -> Vec<Scenario> {
    let mut all = Vec::new();
    for body in BODIES {
        for users in CLOSED_USERS {
            all.push(Scenario {
                load: Load::Closed { users },
                body,
                timeout: PATIENT,
                overload: false,
            });
        }
    }
    all.push(Scenario {
        load: Load::Closed { users: OVERLOAD.0 },
        body: BODIES[0],
        timeout: OVERLOAD.1,
        overload: true,
    });
    all.push(Scenario {
        load: Load::Open {
            per_second: OPEN_RATE,
        },
        body: BODIES[0],
        timeout: PATIENT,
        overload: false,
    });
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_parse_back() {
        let all = scenarios();
        assert_eq!(all.len(), 8);
        for s in &all {
            assert_eq!(Scenario::parse(&s.name()).unwrap(), *s);
        }
        let err = Scenario::parse("closed-3vu-16mib").unwrap_err();
        assert!(err.contains("valid: closed-1vu-1mib"), "{err}");
    }
}
