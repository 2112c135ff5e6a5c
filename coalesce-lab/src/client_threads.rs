//! The load generator's threads besides its runtime's: what a client thread spends, so that the
//! server's share of the process's totals can be told apart, and the open loop's pacer.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Release;
use std::time::{Duration, Instant};

use labkit::process::{thread_cpu_time, thread_system_cpu_time, thread_voluntary_switches};
use tokio::sync::Notify;

/// What the client's threads spent: CPU time and voluntary context switches (the times they
/// waited), to be told apart from the server's in the process's totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientCost {
    pub cpu: Duration,
    /// The kernel's part of `cpu`.
    pub system: Duration,
    pub switches: u64,
}

impl ClientCost {
    /// The calling thread's so far.
    pub(crate) fn of_this_thread() -> Self {
        Self {
            cpu: thread_cpu_time(),
            system: thread_system_cpu_time(),
            switches: thread_voluntary_switches(),
        }
    }

    /// The calling thread's since `start`.
    pub(crate) fn since(start: Self) -> Self {
        let now = Self::of_this_thread();
        Self {
            cpu: now.cpu.saturating_sub(start.cpu),
            system: now.system.saturating_sub(start.system),
            switches: now.switches.saturating_sub(start.switches),
        }
    }

    pub(crate) fn plus(self, other: Self) -> Self {
        Self {
            cpu: self.cpu + other.cpu,
            system: self.system + other.system,
            switches: self.switches + other.switches,
        }
    }
}

/// An open loop's schedule, kept by a thread of its own: tokio's timer fires on its 1 ms tick
/// after a deadline (measured: an open loop whose sends each slept to their instant on it started
/// 53 % of them 1–10 ms late, 1.1 ms on average), a thread's sleep with a fine timer slack within
/// µs. The thread releases the sends one by one and rings the runtime, which starts each released
/// send.
pub(crate) struct Pacer {
    pub(crate) released: AtomicU64,
    pub(crate) bell: Notify,
}

impl Pacer {
    pub(crate) fn new() -> Self {
        Self {
            released: AtomicU64::new(0),
            bell: Notify::new(),
        }
    }

    /// Releases send `i` at `start + i × interval`, for `i` below `sends`; returns the thread's
    /// cost (the client's, not the server's).
    pub(crate) fn keep(&self, start: Instant, interval: Duration, sends: u64) -> ClientCost {
        // Without it the kernel wakes the thread up to 50 µs late; where it is refused, the lag
        // histogram shows what that costs.
        let _ = labkit::affinity::fine_timer_slack();
        let cost = ClientCost::of_this_thread();
        for i in 0..sends {
            let at = start + interval * i as u32;
            let now = Instant::now();
            if at > now {
                std::thread::sleep(at - now);
            }
            self.released.store(i + 1, Release);
            self.bell.notify_one();
        }
        ClientCost::since(cost)
    }
}
