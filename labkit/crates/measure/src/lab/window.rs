//! What a runner tells its caller about a measured run: where its operations start and end,
//! their latencies, the lab's events, the operations done, a heap its own runtime measured, and a
//! failure.

use std::sync::Arc;

use crate::latency::LatencySink;
use crate::record::EventName;

/// Told when a measured stretch of operations starts and ends (allocation counters, retained
/// bytes). Called on the measuring thread while any workers wait at a barrier.
pub trait Window {
    fn open(&mut self);
    fn close(&mut self);
    /// Where the measured operations' latencies go, when this run records them. No default, nor
    /// for [`Window::count`]: a window that wraps another must say what it forwards.
    fn latencies(&self) -> Option<Arc<LatencySink>>;
    /// `n` more of a lab's own events happened during the measured operations (the wall-time
    /// passes report them per 100 operations and per second).
    fn count(&mut self, event: EventName, n: u64);
    /// The measured stretch did `ops` operations, not the number asked for (a load run that ended
    /// at a time budget; a fraction for those partly done): per-operation figures divide by it.
    /// A runner that never says so did every operation it was asked for.
    fn completed(&mut self, ops: f64);
    /// What the measured operations allocated, or the heap the built structure retains, as the
    /// runtime that ran them measured it (a JVM design: `ThreadMXBean`, a class histogram):
    /// per-operation and retained figures take it instead of this process's counters.
    fn heap_measured(&mut self, heap: MeasuredHeap);
    /// The run did not happen (a JVM that died, a request it refused): what it returned is no
    /// measurement, and the cell is left out with `reason`.
    fn failed(&mut self, reason: String);
}

/// A heap measured by the runtime that ran a runner's operations ([`Window::heap_measured`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MeasuredHeap {
    /// Bytes the measured operations allocated.
    pub allocated_bytes: Option<u64>,
    /// Bytes of live objects the built structure added to the heap.
    pub retained_bytes: Option<u64>,
}

/// A window that keeps only what a run counts: for tests of a lab's runners.
#[derive(Debug, Default)]
pub struct EventTally(Vec<(EventName, u64)>, Option<f64>, Option<String>);

impl EventTally {
    /// Everything counted of `event`, over every run this window saw.
    pub fn total(&self, event: EventName) -> u64 {
        self.0
            .iter()
            .filter(|(e, _)| *e == event)
            .map(|(_, n)| n)
            .sum()
    }

    /// Whether `event` was counted at all (a count of 0 included).
    pub fn counted(&self, event: EventName) -> bool {
        self.0.iter().any(|(e, _)| *e == event)
    }

    /// The operations the last run said it completed ([`Window::completed`]), if it said so.
    pub fn completed(&self) -> Option<f64> {
        self.1
    }

    /// Why the last run failed, if it did ([`Window::failed`]).
    pub fn failure(&self) -> Option<&str> {
        self.2.as_deref()
    }
}

impl Window for EventTally {
    fn open(&mut self) {}
    fn close(&mut self) {}
    fn latencies(&self) -> Option<Arc<LatencySink>> {
        None
    }
    fn count(&mut self, event: EventName, n: u64) {
        self.0.push((event, n));
    }
    fn completed(&mut self, ops: f64) {
        self.1 = Some(ops);
    }
    fn heap_measured(&mut self, _: MeasuredHeap) {}
    fn failed(&mut self, reason: String) {
        self.2 = Some(reason);
    }
}

/// No window: plain timing (a failure is for the caller to see in the time it gets back: none).
impl Window for () {
    fn open(&mut self) {}
    fn close(&mut self) {}
    fn latencies(&self) -> Option<Arc<LatencySink>> {
        None
    }
    fn count(&mut self, _: EventName, _: u64) {}
    fn completed(&mut self, _: f64) {}
    fn heap_measured(&mut self, _: MeasuredHeap) {}
    fn failed(&mut self, _: String) {}
}
