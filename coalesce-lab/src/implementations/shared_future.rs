//! Coalescing from the ecosystem: the running generation is a `futures::future::Shared` that
//! every request arriving meanwhile clones and awaits; generation runs on tokio's blocking pool.
//! Shows what the hand-rolled coalescers buy over the library's.

use std::sync::{Arc, Mutex, PoisonError};

use futures_util::FutureExt;
use futures_util::future::{BoxFuture, Shared};

use crate::{Answer, Exposition, Freshness, Generator, MetricsEndpoint, Scrape};

type Running = Shared<BoxFuture<'static, Option<Exposition>>>;

pub struct SharedFuture {
    generator: Arc<Generator>,
    running: Mutex<Option<Running>>,
}

impl MetricsEndpoint for SharedFuture {
    const NAME: &'static str = "shared-future";
    const FRESHNESS: Freshness = Freshness::InFlightAtArrival;

    fn new(generator: Arc<Generator>) -> Self {
        Self {
            generator,
            running: Mutex::new(None),
        }
    }

    fn scrape(&self, _: Scrape) -> impl Future<Output = Answer> + Send + 'static {
        let shared = {
            let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
            match running.as_ref().filter(|r| r.peek().is_none()) {
                Some(r) => r.clone(),
                None => {
                    let generator = Arc::clone(&self.generator);
                    let r = tokio::task::spawn_blocking(move || generator.generate())
                        .map(Result::ok)
                        .boxed()
                        .shared();
                    *running = Some(r.clone());
                    r
                }
            }
        };
        async move {
            match shared.await {
                Some(exposition) => Answer::Exposition(exposition),
                None => Answer::Overloaded,
            }
        }
    }

    fn backlog(&self) -> usize {
        let running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        // Every waiting request holds a clone; the slot holds one more.
        running
            .as_ref()
            .filter(|r| r.peek().is_none())
            .map_or(0, |r| r.strong_count().unwrap_or(1).saturating_sub(1))
    }
}
