//! Requests waiting in the server over a run: the design's backlog (requests queued or being
//! generated for) read at fixed instants after the window opened, for the queue-growth chart of
//! the overload, where clients give up and ask again and a queue that keeps what they gave up on
//! grows for as long as the load lasts.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use labkit::lab::Window;
use labkit::record::EventName;

/// The instants the backlog is read at: every [`SLOT`] after the window opened, [`SLOTS`] times
/// at most (a run that ends first has fewer).
pub const SLOT: Duration = Duration::from_millis(100);
pub const SLOTS: usize = 12;

macro_rules! slot_events {
    ($prefix:literal) => {
        [
            EventName::new(concat!($prefix, "100ms")),
            EventName::new(concat!($prefix, "200ms")),
            EventName::new(concat!($prefix, "300ms")),
            EventName::new(concat!($prefix, "400ms")),
            EventName::new(concat!($prefix, "500ms")),
            EventName::new(concat!($prefix, "600ms")),
            EventName::new(concat!($prefix, "700ms")),
            EventName::new(concat!($prefix, "800ms")),
            EventName::new(concat!($prefix, "900ms")),
            EventName::new(concat!($prefix, "1000ms")),
            EventName::new(concat!($prefix, "1100ms")),
            EventName::new(concat!($prefix, "1200ms")),
        ]
    };
}

/// Per slot: the backlog read then, summed over the samples that reached it, and how many did.
/// Their ratio is the mean backlog at that instant (both are counted per 100 requests of the same
/// cells, so the counts' divisor cancels).
pub const WAITING_AT: [EventName; SLOTS] = slot_events!("waiting-at-");
pub const SAMPLED_AT: [EventName; SLOTS] = slot_events!("sampled-at-");

/// The time of slot `k` (0-based) since the window opened, in seconds.
pub fn slot_seconds(k: usize) -> f64 {
    SLOT.as_secs_f64() * (k + 1) as f64
}

/// A server's backlog, readable from any thread.
pub type Probe = Arc<dyn Fn() -> usize + Send + Sync>;

/// Reads a probe at every slot from its start until it is finished.
pub struct Sampler {
    stop: mpsc::Sender<()>,
    thread: JoinHandle<Vec<usize>>,
}

impl Sampler {
    /// Starts reading `probe` now. The thread is the load generator's (it inherits the caller's
    /// CPUs) and its few allocations are left out of the server's counters.
    pub fn start(probe: Probe) -> Self {
        let (stop, stopped) = mpsc::channel();
        let opened = Instant::now();
        let thread = std::thread::spawn(move || {
            labkit::alloc::uncounted(|| {
                let mut read = Vec::with_capacity(SLOTS);
                for k in 0..SLOTS {
                    let at = opened + SLOT * (k as u32 + 1);
                    match stopped.recv_timeout(at.saturating_duration_since(Instant::now())) {
                        Err(RecvTimeoutError::Timeout) => read.push(probe()),
                        _ => break,
                    }
                }
                read
            })
        });
        Self { stop, thread }
    }

    /// Stops reading; the backlog at each slot reached.
    pub fn finish(self) -> Vec<usize> {
        let _ = self.stop.send(());
        self.thread.join().unwrap_or_default()
    }
}

/// Counts what a sampler read into `window`.
pub fn count(window: &mut dyn Window, read: &[usize]) {
    for (k, waiting) in read.iter().enumerate() {
        window.count(WAITING_AT[k], *waiting as u64);
        window.count(SAMPLED_AT[k], 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_sampler_reads_once_per_slot_in_order_until_it_is_finished() {
        let calls = Arc::new(AtomicUsize::new(0));
        let probe: Probe = {
            let calls = Arc::clone(&calls);
            Arc::new(move || calls.fetch_add(1, Ordering::Relaxed) * 10)
        };
        let sampler = Sampler::start(probe);
        std::thread::sleep(SLOT * 2 + SLOT / 2);
        let read = sampler.finish();
        // However late a loaded machine wakes it, it reads once per slot, in order, and not
        // after it was finished.
        let expected: Vec<usize> = (0..read.len()).map(|k| k * 10).collect();
        assert_eq!(read, expected);
        assert!(read.len() <= SLOTS);
        assert_eq!(calls.load(Ordering::Relaxed), read.len());
        let mut tally = labkit::lab::EventTally::default();
        count(&mut tally, &[3, 7]);
        assert_eq!(tally.total(WAITING_AT[1]), 7);
        assert_eq!(tally.total(SAMPLED_AT[0]), 1);
        assert_eq!(tally.total(SAMPLED_AT[2]), 0);
        assert!((slot_seconds(11) - 1.2).abs() < 1e-9);
    }
}
