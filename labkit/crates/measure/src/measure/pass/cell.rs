//! One cell of a row in a pass: its runs, samples, latencies and the lab's events.

use std::sync::Arc;
use std::time::Duration;

use super::super::TimedRun;
use crate::lab::{MeasuredHeap, Window};
use crate::latency::{Latencies, LatencySink};
use crate::record::{BenchId, EventName};

/// One cell of a row in a pass: an implementation (or the A/A twin), its samples in ns/op, the
/// latencies it recorded and the lab's events its samples counted.
pub(super) struct Cell {
    pub(super) id: BenchId,
    pub(super) run: TimedRun,
    pub(super) ops: u64,
    pub(super) samples: Vec<f64>,
    pub(super) latencies: Latencies,
    pub(super) events: Events,
}

/// A lab's events counted over a cell's samples, with the operations (completed: a fraction for
/// a run that ended at its budget) and time they took.
#[derive(Default)]
pub(super) struct Events {
    pub(super) counts: Vec<(EventName, u64)>,
    pub(super) ops: f64,
    pub(super) elapsed: Duration,
}

/// The window of one timed sample: a latency sink when recording, the events counted, and the
/// operations done when the run ended at its budget.
struct SampleWindow<'a> {
    sink: Option<Arc<LatencySink>>,
    events: &'a mut Events,
    completed: Option<f64>,
}

impl Window for SampleWindow<'_> {
    fn open(&mut self) {}
    fn close(&mut self) {}
    fn latencies(&self) -> Option<Arc<LatencySink>> {
        self.sink.clone()
    }
    fn count(&mut self, event: EventName, n: u64) {
        self.events.add(event, n);
    }
    fn completed(&mut self, ops: f64) {
        self.completed = Some(ops);
    }
    fn heap_measured(&mut self, _: MeasuredHeap) {}
    // `Cell::take` runs through `TimedRun`, which keeps a failure before it reaches here.
    fn failed(&mut self, _: String) {}
}

impl Events {
    fn add(&mut self, event: EventName, n: u64) {
        match self.counts.iter_mut().find(|(e, _)| *e == event) {
            Some((_, total)) => *total += n,
            None => self.counts.push((event, n)),
        }
    }
}

/// Operations to divide by: those done, or one when none were (a rate of at most one per run,
/// never a division by zero).
pub(super) fn at_least_one_if_none(ops: f64) -> f64 {
    if ops > 0.0 { ops } else { 1.0 }
}

/// One sample of a cell, not yet kept: the operations asked for and done, its time, and what its
/// window recorded.
pub(super) struct Sample {
    pub(super) asked: u64,
    pub(super) ops: f64,
    pub(super) elapsed: Duration,
    events: Events,
    latencies: Option<Latencies>,
}

impl Cell {
    /// One sample's wall time per operation; latencies recorded into the cell when `record`.
    pub(super) fn sample(&mut self, record: bool) -> Result<f64, String> {
        let sample = self.take(self.ops, record)?;
        Ok(self.keep(sample))
    }

    /// Runs one sample of `ops` operations (latencies recorded when `record`) without keeping it.
    pub(super) fn take(&mut self, ops: u64, record: bool) -> Result<Sample, String> {
        let sink = record.then(LatencySink::new);
        let mut events = Events::default();
        let mut window = SampleWindow {
            sink: sink.clone(),
            events: &mut events,
            completed: None,
        };
        let elapsed = (self.run)(ops, &mut window)?;
        let done = window.completed.unwrap_or(ops as f64);
        Ok(Sample {
            asked: ops,
            ops: done,
            elapsed,
            events,
            latencies: sink.map(|s| s.latencies()),
        })
    }

    /// Adds `sample`'s events and latencies to the cell's; returns its ns/op. A sample that
    /// completed nothing before its budget counts as one operation: its rate is at most that.
    pub(super) fn keep(&mut self, sample: Sample) -> f64 {
        for (event, n) in sample.events.counts {
            self.events.add(event, n);
        }
        self.events.ops += sample.ops;
        self.events.elapsed += sample.elapsed;
        if let Some(latencies) = sample.latencies {
            self.latencies = self.latencies.merged(&latencies);
        }
        sample.elapsed.as_nanos() as f64 / at_least_one_if_none(sample.ops)
    }
}
