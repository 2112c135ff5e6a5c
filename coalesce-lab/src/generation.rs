//! Generations of the exposition: numbered, timed and logged, so that every response can be traced
//! to the generation that produced it (freshness, wasted work) and checked against its checksum.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Instant;

use bytes::Bytes;
use flate2::Compression;
use flate2::write::GzEncoder;

use crate::exposition::{Abandoned, Broker, checksum};

/// One generated exposition as handed to responses: the body (shared, never copied per
/// response), its generation and its checksum.
#[derive(Debug, Clone)]
pub struct Exposition {
    pub body: Bytes,
    pub generation: u64,
    pub checksum: u64,
    /// Where a design that compresses once per generation keeps the gzipped body for every
    /// response sharing this exposition (its clones); `None`: compressed per response.
    pub gzipped: Option<Arc<OnceLock<Gzipped>>>,
}

impl Exposition {
    pub fn new(body: Bytes, generation: u64, checksum: u64) -> Self {
        Self {
            body,
            generation,
            checksum,
            gzipped: None,
        }
    }

    /// The same exposition, compressed at most once for all its clones.
    pub fn compressed_once(self) -> Self {
        Self {
            gzipped: Some(Arc::default()),
            ..self
        }
    }

    /// The body for `Content-Encoding: gzip`: the shared one, compressed by the first response
    /// that asks, or compressed now for this response alone.
    pub fn gzip(&self) -> Gzipped {
        match &self.gzipped {
            Some(shared) => shared.get_or_init(|| Gzipped::of(&self.body)).clone(),
            None => Gzipped::of(&self.body),
        }
    }
}

/// A body compressed with gzip at the default level (6, as Jetty's `GzipHandler` uses), with the
/// checksum of the compressed bytes that the response carries.
#[derive(Debug, Clone)]
pub struct Gzipped {
    pub body: Bytes,
    pub checksum: u64,
}

impl Gzipped {
    pub fn of(body: &[u8]) -> Self {
        let mut encoder =
            GzEncoder::new(Vec::with_capacity(body.len() / 8), Compression::default());
        // Writing into a Vec cannot fail.
        let _ = encoder.write_all(body);
        let compressed = encoder.finish().unwrap_or_default();
        Self {
            checksum: checksum(&compressed),
            body: Bytes::from(compressed),
        }
    }
}

/// What the log knows about one generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub started: Instant,
    /// `None` while it runs.
    pub finished: Option<Instant>,
    /// When a coalescing design first handed it out, closing it to requests that arrive later
    /// (taken under the design's lock); `None` for designs that generate per request.
    pub published: Option<Instant>,
    /// Whether at least one response carried it before its request's deadline.
    pub served_in_time: bool,
    /// Given up because the server stopped ([`Generator::stop`]); `finished` stays `None`.
    pub abandoned: bool,
}

/// Makes generations for one server: numbers them from 0 and logs each one's span.
#[derive(Debug)]
pub struct Generator {
    broker: Arc<Broker>,
    started: AtomicU64,
    spans: Mutex<Vec<Span>>,
    stopped: Arc<AtomicBool>,
}

impl Generator {
    pub fn new(broker: Arc<Broker>) -> Self {
        Self {
            broker,
            started: AtomicU64::new(0),
            spans: Mutex::new(Vec::new()),
            stopped: Arc::default(),
        }
    }

    /// The server is stopping: a generation running now gives up at its next topic, and so does
    /// every later one, instead of the server's stop waiting for work no client will get (up to
    /// a whole generation, 345 ms on 16 MiB where stats collection dominates).
    pub fn stop(&self) {
        self.stopped.store(true, Relaxed);
    }

    /// Whether [`Generator::stop`] was called: a body handed over after it may be truncated.
    pub fn stopped(&self) -> bool {
        self.stopped.load(Relaxed)
    }

    fn spans_mut(&self) -> std::sync::MutexGuard<'_, Vec<Span>> {
        self.spans.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Generates into `buffer` (cleared first, capacity kept): returns the generation and the
    /// checksum of what `buffer` now holds.
    pub fn generate_into(&self, buffer: &mut Vec<u8>) -> (u64, u64) {
        let generation = {
            let mut spans = self.spans_mut();
            let generation = spans.len() as u64;
            spans.push(Span {
                started: Instant::now(),
                finished: None,
                published: None,
                served_in_time: false,
                abandoned: false,
            });
            self.started.fetch_add(1, Relaxed);
            generation
        };
        let outcome = self
            .broker
            .generate_unless(generation, buffer, &self.stopped);
        let sum = checksum(buffer);
        let span = &mut self.spans_mut()[generation as usize];
        match outcome {
            Ok(()) => span.finished = Some(Instant::now()),
            Err(Abandoned) => span.abandoned = true,
        }
        (generation, sum)
    }

    /// A generation in a buffer of its own.
    pub fn generate(&self) -> Exposition {
        let mut body = Vec::new();
        let (generation, checksum) = self.generate_into(&mut body);
        Exposition::new(Bytes::from(body), generation, checksum)
    }

    /// A coalescing design hands `generation` out from now on: requests that arrive later start
    /// or wait for a newer one (or, within a window, are served this one). Call it under the lock
    /// that decides whether a request joins. Returns the instant logged (the first one, when
    /// called again).
    pub fn publish(&self, generation: u64) -> Instant {
        let mut spans = self.spans_mut();
        let span = &mut spans[generation as usize];
        *span.published.get_or_insert_with(Instant::now)
    }

    /// A response carried `generation` before its request's deadline.
    pub fn served_in_time(&self, generation: u64) {
        if let Some(span) = self.spans_mut().get_mut(generation as usize) {
            span.served_in_time = true;
        }
    }

    /// Generations started so far.
    pub fn started(&self) -> u64 {
        self.started.load(Relaxed)
    }

    /// The log, indexed by generation.
    pub fn spans(&self) -> Vec<Span> {
        self.spans_mut().clone()
    }

    /// The generations that finished between `from` and `to`, wherever they started: how many,
    /// and their whole times summed (a generation's own time, from its start to its finish; one
    /// still running is in neither). A window shorter than two generations still holds one
    /// finish, where it may hold no generation from start to finish.
    pub fn finished_between(&self, from: Instant, to: Instant) -> (std::time::Duration, u64) {
        self.spans_mut()
            .iter()
            .filter_map(|s| {
                s.finished
                    .filter(|f| (from..=to).contains(f))
                    .map(|f| f - s.started)
            })
            .fold((std::time::Duration::ZERO, 0), |(sum, n), d| {
                (sum + d, n + 1)
            })
    }

    /// Generations from number `from` on that finished by `by` and that no response carried in
    /// time: work spent for clients that had already given up. Read after the run: a generation
    /// that finished just before a window closed has its responses handed out just after.
    /// Generations finished later are left out: a run whose window closed drops the requests
    /// still running itself, and what the server finishes for them is not a client's timeout.
    pub fn wasted_between(&self, from: u64, by: Instant) -> u64 {
        self.spans_mut()
            .iter()
            .skip(from as usize)
            .filter(|s| s.finished.is_some_and(|f| f <= by) && !s.served_in_time)
            .count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A window counts the generations that finished inside it, each with its whole time, the
    /// one that started before it opened too.
    #[test]
    fn a_window_sums_the_generations_that_finished_in_it_from_their_starts() {
        let generator = Generator::new(Arc::new(Broker::with_body_size(64 << 10)));
        let before = Instant::now();
        generator.generate();
        let opened = generator.spans()[0].finished.expect("finished");
        generator.generate();
        let closed = Instant::now();
        let spans = generator.spans();
        let second = spans[1].finished.unwrap() - spans[1].started;
        // The first finished as the window opened: a bound is inside.
        let (time, n) = generator.finished_between(opened, closed);
        let first = opened - spans[0].started;
        assert_eq!((time, n), (first + second, 2));
        let (time, n) = generator.finished_between(opened + Duration::from_nanos(1), closed);
        assert_eq!((time, n), (second, 1), "the second's whole time");
        assert_eq!(generator.finished_between(before, before).1, 0);
    }
}
