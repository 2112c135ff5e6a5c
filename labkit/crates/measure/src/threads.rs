//! A measured window over several threads, for runners of multi-thread shapes: every thread does
//! its untimed preparation, the window opens once all are ready, and the clock runs from the
//! first thread's release until the last one is done, each read by the thread itself: on
//! oversubscribed cores, a coordinating thread woken after the release may run only after some
//! workers have finished, and a clock it started then would miss their work.

use std::cell::RefCell;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use crate::lab::Window;

/// One thread of [`timed_threads`]: what it runs, given its [`StartLine`].
pub type TimedThread<'env> = Box<dyn FnOnce(&StartLine<'_>) + Send + 'env>;

/// Where a thread of [`timed_threads`] waits for the measured window: what it does before
/// passing is untimed preparation, what follows is measured.
pub struct StartLine<'a> {
    pass: RefCell<Option<Box<dyn FnOnce() + 'a>>>,
}

impl<'a> StartLine<'a> {
    fn new(pass: impl FnOnce() + 'a) -> Self {
        Self {
            pass: RefCell::new(Some(Box::new(pass))),
        }
    }

    /// Waits until every thread is ready and the window is open. Passing again does nothing; a
    /// thread that never passes passes when it returns.
    pub fn pass(&self) {
        let pass = self.pass.borrow_mut().take();
        if let Some(pass) = pass {
            pass();
        }
    }
}

/// Runs each of `threads` on a scoped thread of its own, opens `window` once every one has
/// reached its start line, releases them together, and closes `window` once all have returned. Returns
/// the measured wall time: from the first thread's release to the last one's return, as the
/// threads read the clock themselves. A single thread runs on the calling thread, with no spawn
/// or barrier (its stack is the one the pass placed).
pub fn timed_threads(window: &mut dyn Window, threads: Vec<TimedThread<'_>>) -> Duration {
    if threads.len() == 1 {
        let thread = threads.into_iter().next().expect("one thread");
        let began = std::cell::Cell::new(None);
        {
            let start = StartLine::new(|| {
                window.open();
                began.set(Some(Instant::now()));
            });
            thread(&start);
            start.pass();
        }
        let elapsed = began.get().map_or(Duration::ZERO, |b| b.elapsed());
        window.close();
        return elapsed;
    }
    let ready = Barrier::new(threads.len() + 1);
    let start = Barrier::new(threads.len() + 1);
    let done = Barrier::new(threads.len() + 1);
    let edges = std::sync::Mutex::new(None::<(Instant, Instant)>);
    std::thread::scope(|scope| {
        for thread in threads {
            let (ready, start, done, edges) = (&ready, &start, &done, &edges);
            scope.spawn(move || {
                let released = std::cell::Cell::new(None);
                let start = StartLine::new(|| {
                    ready.wait();
                    start.wait();
                    released.set(Some(Instant::now()));
                });
                thread(&start);
                start.pass();
                let ended = Instant::now();
                let released = released.get().unwrap_or(ended);
                let mut edges = edges.lock().unwrap_or_else(|e| e.into_inner());
                *edges = Some(match *edges {
                    Some((first, last)) => (first.min(released), last.max(ended)),
                    None => (released, ended),
                });
                drop(edges);
                done.wait();
            });
        }
        ready.wait();
        window.open();
        start.wait();
        done.wait();
        window.close();
    });
    let edges = edges.into_inner().unwrap_or_else(|e| e.into_inner());
    edges.map_or(Duration::ZERO, |(first, last)| last - first)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;

    /// Records what each thread had done when the window opened and closed.
    struct Edges<'a> {
        done: &'a AtomicU64,
        at_open: Option<u64>,
        at_close: Option<u64>,
    }

    impl Window for Edges<'_> {
        fn open(&mut self) {
            self.at_open = Some(self.done.load(Ordering::SeqCst));
        }
        fn close(&mut self) {
            self.at_close = Some(self.done.load(Ordering::SeqCst));
        }
        fn latencies(&self) -> Option<std::sync::Arc<crate::latency::LatencySink>> {
            None
        }
        fn count(&mut self, _: crate::record::EventName, _: u64) {}
        fn completed(&mut self, _: f64) {}
        fn heap_measured(&mut self, _: crate::lab::MeasuredHeap) {}
        fn failed(&mut self, _: String) {}
    }

    #[test]
    fn the_window_holds_exactly_the_work_after_each_gate() {
        for n in [1, 3] {
            let done = AtomicU64::new(0);
            let mut window = Edges {
                done: &done,
                at_open: None,
                at_close: None,
            };
            let threads: Vec<TimedThread<'_>> = (0..n)
                .map(|t| {
                    let done = &done;
                    Box::new(move |start: &StartLine<'_>| {
                        done.fetch_add(1, Ordering::SeqCst);
                        start.pass();
                        done.fetch_add(10, Ordering::SeqCst);
                        // A thread that never passes (the last) passes on returning.
                        if t == 0 {
                            start.pass();
                        }
                    }) as TimedThread<'_>
                })
                .collect();
            timed_threads(&mut window, threads);
            assert_eq!(window.at_open, Some(n), "{n} threads: all prepared");
            assert_eq!(window.at_close, Some(11 * n), "{n} threads: all done");
        }
    }

    #[test]
    fn a_thread_that_never_passes_its_gate_does_not_hang_the_others() {
        let done = AtomicU64::new(0);
        let mut window = Edges {
            done: &done,
            at_open: None,
            at_close: None,
        };
        let threads: Vec<TimedThread<'_>> = vec![
            Box::new(|start: &StartLine<'_>| {
                start.pass();
                done.fetch_add(1, Ordering::SeqCst);
            }),
            Box::new(|_: &StartLine<'_>| {
                done.fetch_add(1, Ordering::SeqCst);
            }),
        ];
        timed_threads(&mut window, threads);
        assert_eq!(window.at_close, Some(2));
    }
}
