//! Coalescing that recycles a fixed pool of generation buffers ([`BUFFERS`]): in steady state no
//! new body buffer is allocated, and while clients keep reading at most that many bodies are held
//! however many they are. A generation that finds every buffer still being written waits for one
//! for as long as the last generation took, then takes a new buffer outside the pool (freed with
//! its last response), so a scraper that stops reading cannot hold up the others. Each response
//! holds its own lease of the buffer ([`crate::buffer`]: retain only if alive, free when the last
//! response has finished writing), so a buffer is overwritten only after every response that
//! carried it is gone — the race the write-up's fix closed.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::time::{Duration, Instant};

use bytes::Bytes;

use crate::buffer::{BufferPool, PooledLease};
use crate::coalesce::{Coalescer, Production};
use crate::{Answer, Exposition, Freshness, Generator, MetricsEndpoint, Scrape};

/// One generation in a pooled buffer, held by the publisher's lease while leases are handed out.
pub struct PooledExposition {
    lease: PooledLease,
    generation: u64,
    checksum: u64,
}

/// Buffers per endpoint: one being filled while the responses of the last one are written.
pub const BUFFERS: usize = 2;

/// Room kept past a body, as a fraction of it (1/16): the bodies of one broker differ by a few
/// digits a sample.
const HEADROOM: usize = 16;

pub struct RecycledBuffers {
    pool: BufferPool,
    /// The last body's length: a buffer's first generation reserves about that much, instead of
    /// growing its `Vec` by doubling (which, with another buffer held, peaked at three bodies).
    last_body: AtomicUsize,
    /// How long the last generation took, in µs: how long the next one waits for a pooled buffer
    /// before it takes a new one (waiting longer would cost more than generating).
    last_generation_us: AtomicU64,
}

impl Default for RecycledBuffers {
    fn default() -> Self {
        Self {
            pool: BufferPool::new(BUFFERS),
            last_body: AtomicUsize::new(0),
            last_generation_us: AtomicU64::new(0),
        }
    }
}

/// A body's length with the room kept past it.
fn with_headroom(body: usize) -> usize {
    body + body / HEADROOM
}

impl Production for RecycledBuffers {
    type Result = PooledExposition;

    fn produce(&self, generator: &Generator) -> PooledExposition {
        let patience = Duration::from_micros(self.last_generation_us.load(Relaxed));
        let mut claimed = self.pool.claim(patience);
        let started = Instant::now();
        let (generation, checksum) = claimed.fill(|buffer| {
            if buffer.capacity() == 0 {
                buffer.reserve_exact(with_headroom(self.last_body.load(Relaxed)));
            }
            let filled = generator.generate_into(buffer);
            self.last_body.store(buffer.len(), Relaxed);
            // The very first generation grew its `Vec` by doubling, up to twice the body: keep
            // what the next bodies of about this size need, about one body per buffer.
            let keep = with_headroom(buffer.len());
            if buffer.capacity() > keep + keep / 4 {
                buffer.shrink_to(keep);
            }
            filled
        });
        let took = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.last_generation_us.store(took, Relaxed);
        PooledExposition {
            lease: claimed.publish(),
            generation,
            checksum,
        }
    }

    fn generation(result: &PooledExposition) -> u64 {
        result.generation
    }

    fn hand_out(result: &PooledExposition) -> Exposition {
        let lease = result
            .lease
            .retain()
            .expect("the publisher's lease keeps the buffer published");
        Exposition::new(Bytes::from_owner(lease), result.generation, result.checksum)
    }
}

pub struct CoalescingPooled(Coalescer<RecycledBuffers>);

impl MetricsEndpoint for CoalescingPooled {
    const NAME: &'static str = "coalescing-pooled";
    const FRESHNESS: Freshness = Freshness::InFlightAtArrival;

    fn new(generator: Arc<Generator>) -> Self {
        Self(Coalescer::start(
            generator,
            RecycledBuffers::default(),
            None,
        ))
    }

    fn scrape(&self, scrape: Scrape) -> impl Future<Output = Answer> + Send + 'static {
        self.0.scrape(scrape)
    }

    fn backlog(&self) -> usize {
        self.0.backlog()
    }
}
