//! Pulsar's buffer mode done right: coalescing, and a result that finished within the last
//! [`WINDOW`] is served again without generating (`metricsBufferResponse`, whose original
//! time-window code the fix removed for its release race).

use std::sync::Arc;
use std::time::Duration;

use crate::coalesce::{Coalescer, FreshBuffers};
use crate::{Answer, Freshness, Generator, MetricsEndpoint, Scrape};

/// How long a finished result is served again. Scrapers poll every 15–60 s, so a one-second-old
/// exposition is as good as a new one to them.
pub const WINDOW: Duration = Duration::from_secs(1);

pub struct CoalescingWindow(Coalescer<FreshBuffers>);

impl MetricsEndpoint for CoalescingWindow {
    const NAME: &'static str = "coalescing-window";
    const FRESHNESS: Freshness = Freshness::FinishedWithin(WINDOW);

    fn new(generator: Arc<Generator>) -> Self {
        Self(Coalescer::start(generator, FreshBuffers, Some(WINDOW)))
    }

    fn scrape(&self, scrape: Scrape) -> impl Future<Output = Answer> + Send + 'static {
        self.0.scrape(scrape)
    }

    fn backlog(&self) -> usize {
        self.0.backlog()
    }
}
