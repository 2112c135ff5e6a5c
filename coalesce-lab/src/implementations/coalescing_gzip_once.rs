//! Coalescing that also shares the compressed body: a gzip request gets the generation it joined
//! compressed once, by the first response that asks, where the fix compresses each response
//! again (Jetty's `GzipHandler` per request; the write-up saw a quarter of gzip requests time
//! out under load and proposed caching the compressed response).

use std::sync::Arc;

use crate::coalesce::{Coalescer, CompressedOnce};
use crate::{Answer, Freshness, Generator, MetricsEndpoint, Scrape};

pub struct CoalescingGzipOnce(Coalescer<CompressedOnce>);

impl MetricsEndpoint for CoalescingGzipOnce {
    const NAME: &'static str = "coalescing-gzip-once";
    const FRESHNESS: Freshness = Freshness::InFlightAtArrival;

    fn new(generator: Arc<Generator>) -> Self {
        Self(Coalescer::start(generator, CompressedOnce, None))
    }

    fn scrape(&self, scrape: Scrape) -> impl Future<Output = Answer> + Send + 'static {
        self.0.scrape(scrape)
    }

    fn backlog(&self) -> usize {
        self.0.backlog()
    }
}
