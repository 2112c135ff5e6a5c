//! Request coalescing (the fix's default): a request that arrives while a generation is running
//! joins it and gets the same result; only a request that finds none starts one. The designs
//! differ in what a result is (a fresh buffer, or a recycled one) and whether a finished result
//! is served again for a while.

use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use crate::{Answer, Exposition, Generator, Scrape};

/// How a coalescing design makes a result and hands it to each joined request.
pub trait Production: Send + Sync + 'static {
    /// One generation's result.
    type Result: Send + Sync + 'static;
    fn produce(&self, generator: &Generator) -> Self::Result;
    /// Which generation a result is.
    fn generation(result: &Self::Result) -> u64;
    /// The exposition for one response.
    fn hand_out(result: &Self::Result) -> Exposition;
}

/// Results as they come: each generation in its own buffer, shared by reference count.
pub struct FreshBuffers;

impl Production for FreshBuffers {
    type Result = Exposition;
    fn produce(&self, generator: &Generator) -> Exposition {
        generator.generate()
    }
    fn generation(result: &Exposition) -> u64 {
        result.generation
    }
    fn hand_out(result: &Exposition) -> Exposition {
        result.clone()
    }
}

/// Fresh buffers, each generation gzipped at most once for all the responses that share it
/// (the write-up's suggested next step: cache the compressed response).
pub struct CompressedOnce;

impl Production for CompressedOnce {
    type Result = Exposition;
    fn produce(&self, generator: &Generator) -> Exposition {
        generator.generate().compressed_once()
    }
    fn generation(result: &Exposition) -> u64 {
        result.generation
    }
    fn hand_out(result: &Exposition) -> Exposition {
        result.clone()
    }
}

struct State<R> {
    /// Requests waiting for the running generation; `None` when none runs.
    waiting: Option<Vec<oneshot::Sender<Answer>>>,
    /// The last result and when it was published (kept only with a window).
    recent: Option<(Instant, Arc<R>)>,
}

struct Shared<P: Production> {
    production: P,
    generator: Arc<Generator>,
    window: Option<Duration>,
    state: Mutex<State<P::Result>>,
}

impl<P: Production> Shared<P> {
    fn state(&self) -> MutexGuard<'_, State<P::Result>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A coalescing endpoint core with its one generator thread (one generation at a time).
pub struct Coalescer<P: Production> {
    shared: Arc<Shared<P>>,
    start: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl<P: Production> Coalescer<P> {
    /// `window`: how long a finished result is served again without generating.
    pub fn start(generator: Arc<Generator>, production: P, window: Option<Duration>) -> Self {
        let shared = Arc::new(Shared {
            production,
            generator,
            window,
            state: Mutex::new(State {
                waiting: None,
                recent: None,
            }),
        });
        let (start, starts) = std::sync::mpsc::channel();
        let worker = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("generator".into())
            .spawn(move || generate_on_demand(&worker, &starts))
            .expect("spawning the generator thread");
        Self {
            shared,
            start: Some(start),
            thread: Some(thread),
        }
    }

    pub fn scrape(
        &self,
        scrape: Scrape,
    ) -> impl std::future::Future<Output = Answer> + Send + 'static {
        let (answer, receiver) = oneshot::channel();
        let ready = {
            let mut state = self.shared.state();
            let recent = state.recent.as_ref().filter(|(finished, _)| {
                self.shared
                    .window
                    .is_some_and(|w| scrape.arrived.saturating_duration_since(*finished) <= w)
            });
            if let Some((_, result)) = recent {
                Some(Answer::Exposition(P::hand_out(result)))
            } else {
                match state.waiting.as_mut() {
                    Some(waiting) => waiting.push(answer),
                    None => {
                        state.waiting = Some(vec![answer]);
                        if let Some(start) = &self.start {
                            let _ = start.send(());
                        }
                    }
                }
                None
            }
        };
        async move {
            match ready {
                Some(answer) => answer,
                None => receiver.await.unwrap_or(Answer::Overloaded),
            }
        }
    }

    pub fn backlog(&self) -> usize {
        self.shared.state().waiting.as_ref().map_or(0, Vec::len)
    }
}

fn generate_on_demand<P: Production>(shared: &Shared<P>, starts: &Receiver<()>) {
    while starts.recv().is_ok() {
        {
            // Short-circuit: when every joined client has already gone, generate nothing (under
            // the lock, so a request joining meanwhile is either seen here or starts anew).
            let mut state = shared.state();
            let abandoned = state
                .waiting
                .as_ref()
                .is_none_or(|w| w.iter().all(oneshot::Sender::is_closed));
            if abandoned {
                state.waiting = None;
                continue;
            }
        }
        let result = Arc::new(shared.production.produce(&shared.generator));
        let waiting = {
            let mut state = shared.state();
            let published = shared.generator.publish(P::generation(&result));
            if shared.window.is_some() {
                state.recent = Some((published, Arc::clone(&result)));
            }
            state.waiting.take().unwrap_or_default()
        };
        for answer in waiting {
            let _ = answer.send(Answer::Exposition(P::hand_out(&result)));
        }
    }
}

impl<P: Production> Drop for Coalescer<P> {
    fn drop(&mut self) {
        self.start = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
