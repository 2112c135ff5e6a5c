//! Coalescing from the ecosystem: the running generation is a `futures::future::Shared` that
//! every request arriving meanwhile clones and awaits; generation runs on tokio's blocking pool.
//! Shows what the hand-rolled coalescers buy over the library's.
//!
//! A `Shared` completes only when one of its waiters next polls it, which on a busy machine can be
//! milliseconds after the generation ended; judged by `Shared` alone, requests arriving meanwhile
//! would join a finished result. So the generating task itself empties the slot, under its lock,
//! the moment its generation ends (publishing it): a request that finds the slot empty starts the
//! next one.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futures_util::FutureExt;
use futures_util::future::{BoxFuture, Shared};

use crate::{Answer, Exposition, Freshness, Generator, MetricsEndpoint, Scrape};

type Running = Shared<BoxFuture<'static, Option<Exposition>>>;

/// The generation requests join, if one is running.
#[derive(Default)]
struct Slot {
    /// Generations started, so a finishing one empties only its own slot.
    started: u64,
    running: Option<Running>,
}

pub struct SharedFuture {
    generator: Arc<Generator>,
    slot: Arc<Mutex<Slot>>,
}

fn lock(slot: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    slot.lock().unwrap_or_else(PoisonError::into_inner)
}

impl SharedFuture {
    /// The running generation, or a new one.
    fn join_or_start(&self) -> Running {
        let mut slot = lock(&self.slot);
        // `peek` also covers a generation that never ran (the runtime refused the task).
        if let Some(running) = slot.running.as_ref().filter(|r| r.peek().is_none()) {
            return running.clone();
        }
        slot.started += 1;
        let (this, generator, shared_slot) = (
            slot.started,
            Arc::clone(&self.generator),
            Arc::clone(&self.slot),
        );
        let running = tokio::task::spawn_blocking(move || {
            let exposition = generator.generate();
            let mut slot = lock(&shared_slot);
            generator.publish(exposition.generation);
            if slot.started == this {
                slot.running = None;
            }
            exposition
        })
        .map(Result::ok)
        .boxed()
        .shared();
        slot.running = Some(running.clone());
        running
    }
}

impl MetricsEndpoint for SharedFuture {
    const NAME: &'static str = "shared-future";
    const FRESHNESS: Freshness = Freshness::InFlightAtArrival;

    fn new(generator: Arc<Generator>) -> Self {
        Self {
            generator,
            slot: Arc::default(),
        }
    }

    fn scrape(&self, _: Scrape) -> impl Future<Output = Answer> + Send + 'static {
        let shared = self.join_or_start();
        async move {
            match shared.await {
                Some(exposition) => Answer::Exposition(exposition),
                None => Answer::Overloaded,
            }
        }
    }

    fn backlog(&self) -> usize {
        // Every waiting request holds a clone; the slot holds one more.
        lock(&self.slot)
            .running
            .as_ref()
            .map_or(0, |r| r.strong_count().unwrap_or(1).saturating_sub(1))
    }
}
