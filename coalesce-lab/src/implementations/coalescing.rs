//! The fix's default: requests arriving while a generation runs join it, and every joined
//! response is the same immutable buffer (`bytes::Bytes`, reference-counted, never copied).

use std::sync::Arc;

use crate::coalesce::{Coalescer, FreshBuffers};
use crate::{Answer, Freshness, Generator, MetricsEndpoint, Scrape};

pub struct Coalescing(Coalescer<FreshBuffers>);

impl MetricsEndpoint for Coalescing {
    const NAME: &'static str = "coalescing";
    const FRESHNESS: Freshness = Freshness::InFlightAtArrival;

    fn new(generator: Arc<Generator>) -> Self {
        Self(Coalescer::start(generator, FreshBuffers, None))
    }

    fn scrape(&self, scrape: Scrape) -> impl Future<Output = Answer> + Send + 'static {
        self.0.scrape(scrape)
    }

    fn backlog(&self) -> usize {
        self.0.backlog()
    }
}
