//! The reference column: one body generated when the server starts and served to every request,
//! so its row is what this machine's loopback, HTTP stack and load generator can do at all (a
//! gzip request gets the body compressed once, at the first such request).

use std::sync::Arc;

use crate::{Answer, Exposition, Freshness, Generator, MetricsEndpoint, Scrape};

pub struct StaticBody(Exposition);

impl MetricsEndpoint for StaticBody {
    const NAME: &'static str = "static-body";
    const FRESHNESS: Freshness = Freshness::Fixed;

    fn new(generator: Arc<Generator>) -> Self {
        Self(generator.generate().compressed_once())
    }

    fn scrape(&self, _: Scrape) -> impl Future<Output = Answer> + Send + 'static {
        std::future::ready(Answer::Exposition(self.0.clone()))
    }

    fn backlog(&self) -> usize {
        0
    }
}
