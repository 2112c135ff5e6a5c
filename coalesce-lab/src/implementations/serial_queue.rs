//! Pulsar before the fix (the baseline): one generator thread behind an unbounded FIFO queue;
//! every request generated on its own, including those whose clients have already given up.

use std::sync::Arc;

use crate::queue::{GeneratorPool, PoolSettings};
use crate::{Answer, Freshness, Generator, MetricsEndpoint, Scrape};

pub struct SerialQueue(GeneratorPool);

impl MetricsEndpoint for SerialQueue {
    const NAME: &'static str = "serial-queue";
    const FRESHNESS: Freshness = Freshness::StartedAfterArrival;

    fn new(generator: Arc<Generator>) -> Self {
        Self(GeneratorPool::start(
            generator,
            PoolSettings {
                threads: 1,
                capacity: None,
                short_circuit: false,
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
