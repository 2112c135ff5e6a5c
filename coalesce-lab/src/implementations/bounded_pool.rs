//! The fix without coalescing: 4 generator threads ("higher concurrency … leads to OOM"), a
//! bounded queue whose overflow is refused at once (503), and requests already past their
//! deadline short-circuited before generation.

use std::sync::Arc;

use crate::queue::{GeneratorPool, PoolSettings};
use crate::{Answer, Freshness, Generator, MetricsEndpoint, Scrape};

/// Generator threads, as in the fix.
pub const THREADS: usize = 4;
/// Requests that may wait for a thread; more are refused.
pub const QUEUE: usize = 2 * THREADS;

pub struct BoundedPool(GeneratorPool);

impl MetricsEndpoint for BoundedPool {
    const NAME: &'static str = "bounded-pool";
    const FRESHNESS: Freshness = Freshness::StartedAfterArrival;
    const ADMITS: Option<usize> = Some(THREADS + QUEUE);

    fn new(generator: Arc<Generator>) -> Self {
        Self(GeneratorPool::start(
            generator,
            PoolSettings {
                threads: THREADS,
                capacity: Some(QUEUE),
                short_circuit: true,
            },
        ))
    }

    fn scrape(&self, scrape: Scrape) -> impl Future<Output = Answer> + Send + 'static {
        self.0.submit(scrape)
    }

    fn backlog(&self) -> usize {
        self.0.backlog()
    }
}
