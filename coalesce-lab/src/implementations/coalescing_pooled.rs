//! Coalescing that recycles its generation buffers: in steady state no new body buffer is
//! allocated. Each response holds its own lease of the buffer ([`crate::buffer`]: retain only if
//! alive, free when the last response has finished writing), so a buffer is overwritten only
//! after every response that carried it is gone — the race the seed's fix closed.

use std::sync::Arc;

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

#[derive(Default)]
pub struct RecycledBuffers(BufferPool);

impl Production for RecycledBuffers {
    type Result = PooledExposition;

    fn produce(&self, generator: &Generator) -> PooledExposition {
        let mut claimed = self.0.claim();
        let (generation, checksum) = claimed.fill(|buffer| generator.generate_into(buffer));
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
