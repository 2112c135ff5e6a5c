//! The names of the records the lab writes: its experiments, the events a load run counts, and
//! what is derived from them. The bottom of the lab: the runs, the derivations, the conformance
//! checks, the description and the pages all read them.

use labkit::record::EventName;

use crate::load::LAG_EDGES;

/// Requests under load, one scenario per parameter.
pub const SCRAPE: &str = "scrape";
/// The same requests driven by `oha` instead of the lab's generator ([`crate::oha`]), on the
/// scenarios of [`crate::lab::CROSS_CHECKED`].
pub const SCRAPE_BY_OHA: &str = "scrape-by-oha";
/// The lab's own events, counted per 100 requests and per second of a measured run.
pub const SERVED: EventName = EventName::new("served");
/// Body bytes served, in MiB (2^20 bytes): per second, the bandwidth served.
pub const BODY_MIB: EventName = EventName::new("body-mib");
pub const GENERATIONS: EventName = EventName::new("generations");
pub const WASTED: EventName = EventName::new("wasted-generations");
/// Microseconds spent generating (finished generations), so a generation's own time is known.
pub const GENERATING_US: EventName = EventName::new("generating-us");
/// The generations [`GENERATING_US`] sums: those that finished inside the window, each with its
/// whole time (one started in the warm-up too: on 16 MiB with the stats collection dominating, a
/// window is shorter than two generations and may hold none from start to finish). A
/// generation's time divides by these, not by [`GENERATIONS`], which counts those started.
pub const FINISHED_GENERATIONS: EventName = EventName::new("generations-finished");
pub const TIMEOUTS: EventName = EventName::new("timeouts");
/// Requests still running when a closed loop's cap ran out ([`crate::closed_loop`]): their
/// latencies are their ages, lower bounds.
pub const UNFINISHED: EventName = EventName::new("unfinished-at-cap");
/// Requests whose latency entered as a lower bound (given up at their deadline, or unfinished at
/// the cap): a percentile that may fall among them is not published.
pub const CENSORED: EventName = EventName::new("censored");
pub const REFUSED: EventName = EventName::new("refused-503");
pub const ERRORS: EventName = EventName::new("errors");
pub const CORRUPT: EventName = EventName::new("corrupt-bodies");
pub const BACKLOG: EventName = EventName::new("backlog-at-end");
/// Open loop: the schedule's span in µs (the offered rate is requests over it).
pub const SCHEDULE_US: EventName = EventName::new("schedule-us");
/// Open loop: the load generator's lag behind its schedule, summed in µs, and its histogram:
/// sends by how late they started, one event per bucket of [`LAG_EDGES`].
pub const LAG_US: EventName = EventName::new("lag-us");
pub const LAG_HISTOGRAM: [EventName; LAG_EDGES.len() + 1] = [
    EventName::new("lag-to-100us"),
    EventName::new("lag-to-1ms"),
    EventName::new("lag-to-10ms"),
    EventName::new("lag-over-10ms"),
];
/// The load generator's CPU time in µs (the lab's client thread, or oha's process): per second,
/// how busy the client's core was.
pub const CLIENT_CPU_US: EventName = EventName::new("client-cpu-us");
/// The server's CPU time in µs (the process's, less the lab's client thread): per request, what
/// serving one costs; per second, how many of the server's cores it kept busy.
pub const SERVER_CPU_US: EventName = EventName::new("server-cpu-us");
/// The kernel's part of [`SERVER_CPU_US`] (system time: the sockets' copies and TCP).
pub const SERVER_SYSTEM_CPU_US: EventName = EventName::new("server-system-cpu-us");
/// The server's voluntary context switches (the process's, less the lab's client threads): the
/// times a server thread went to sleep waiting for work or a socket, and was woken again.
pub const SERVER_WAITS: EventName = EventName::new("server-waits");
/// The server's writes to its sockets that took bytes, and those that found a socket's buffer
/// full: per request, how finely a response was cut, which follows how the client reads it.
pub const SERVER_WRITES: EventName = EventName::new("server-writes");
pub const SERVER_WRITES_BLOCKED: EventName = EventName::new("server-writes-blocked");

/// Derived: the mean time of one generation in a run, per pass.
pub const GENERATION: &str = "generation";
/// Derived: the p99 latency over one generation's time, in the same run.
pub const P99_IN_GENERATIONS: &str = "p99-in-generations";
/// Derived: the peak live heap over the scenario's body size.
pub const PEAK_HEAP_IN_BODIES: &str = "peak-heap-in-bodies";
/// Derived: the peak live heap above the ceiling's (`static-body`, which holds the same
/// connections and no generation) in the same scenario, over the body size: what the design
/// itself keeps alive.
pub const PEAK_HEAP_OVER_CEILING: &str = "peak-heap-over-ceiling-in-bodies";
/// Derived, open loops: the offered rate (requests over the schedule's span), requests/s.
pub const OFFERED: &str = "offered";
/// Derived, open loops: the load generator's mean lag behind its schedule.
pub const GENERATOR_LAG: &str = "generator-lag";
/// Derived, cross-checked scenarios: oha's goodput and p50 over the lab generator's, same design,
/// scenario and pass.
pub const OHA_OVER_LAB_GOODPUT: &str = "oha-over-lab-goodput";
pub const OHA_OVER_LAB_P50: &str = "oha-over-lab-p50";
/// Derived: a design's goodput over the ceiling's (`static-body`, no generation) in the same
/// scenario, pass by pass.
pub const OF_CEILING: &str = "of-ceiling";

/// Derived, per design and scenario with a waiting series: requests waiting at the last slot
/// over the first (a queue that grows), and the most waiting at any slot over the users (more
/// than 1: requests kept for clients that gave up on them).
pub const WAITING_GROWTH: &str = "waiting-growth";
pub const WAITING_PEAK_OVER_USERS: &str = "waiting-peak-over-users";

/// Derived, per scenario (on `static-body`): how many designs have a p99 published although more
/// than 1 % of its latencies are censored.
pub const CENSORED_P99: &str = "censored-p99-published";

/// Derived, per scenario (on `static-body`): how many designs had a sample end at the cap.
pub const CAPPED: &str = "samples-at-cap";

/// Derived, per scenario (on `static-body`): how many designs served decisively more requests
/// per second than the ceiling; 0 where the ceiling holds.
pub const CEILING_EXCEEDED: &str = "ceiling-exceeded";
