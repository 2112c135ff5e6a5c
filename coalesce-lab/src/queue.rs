//! Generator threads fed from a FIFO queue, one generation per request: Pulsar's endpoint before
//! the fix (one thread, an unbounded queue, every request generated) and the fix's pool (more
//! threads, a bounded queue, expired requests short-circuited). The designs are settings of it.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Instant;

use tokio::sync::oneshot;

use crate::{Answer, Generator, Scrape};

/// How a pool queues and serves.
#[derive(Debug, Clone, Copy)]
pub struct PoolSettings {
    pub threads: usize,
    /// Requests that may wait; `None` for an unbounded queue.
    pub capacity: Option<usize>,
    /// Whether a request past its deadline is answered `TimedOut` instead of generated.
    pub short_circuit: bool,
}

struct Job {
    scrape: Scrape,
    answer: oneshot::Sender<Answer>,
}

enum Sender {
    Unbounded(std::sync::mpsc::Sender<Job>),
    Bounded(SyncSender<Job>),
}

/// The queue and its threads; dropping it abandons what is still queued and joins the threads.
pub struct GeneratorPool {
    sender: Option<Sender>,
    backlog: Arc<AtomicUsize>,
    closing: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl GeneratorPool {
    pub fn start(generator: Arc<Generator>, settings: PoolSettings) -> Self {
        let (sender, receiver) = match settings.capacity {
            None => {
                let (tx, rx) = std::sync::mpsc::channel();
                (Sender::Unbounded(tx), rx)
            }
            Some(capacity) => {
                let (tx, rx) = std::sync::mpsc::sync_channel(capacity);
                (Sender::Bounded(tx), rx)
            }
        };
        let receiver = Arc::new(Mutex::new(receiver));
        let backlog = Arc::new(AtomicUsize::new(0));
        let closing = Arc::new(AtomicBool::new(false));
        let threads = (0..settings.threads)
            .map(|i| {
                let (generator, receiver) = (Arc::clone(&generator), Arc::clone(&receiver));
                let (backlog, closing) = (Arc::clone(&backlog), Arc::clone(&closing));
                std::thread::Builder::new()
                    .name(format!("generator-{i}"))
                    .spawn(move || {
                        serve(
                            &generator,
                            &receiver,
                            &backlog,
                            &closing,
                            settings.short_circuit,
                        )
                    })
                    .expect("spawning a generator thread")
            })
            .collect();
        Self {
            sender: Some(sender),
            backlog,
            closing,
            threads,
        }
    }

    /// Queues `scrape`; the answer arrives when a thread has served it (or at once, `Overloaded`,
    /// when a bounded queue is full).
    pub fn submit(
        &self,
        scrape: Scrape,
    ) -> impl std::future::Future<Output = Answer> + Send + 'static {
        let (answer, receiver) = oneshot::channel();
        let job = Job { scrape, answer };
        self.backlog.fetch_add(1, Relaxed);
        let refused = match self.sender.as_ref().expect("open until dropped") {
            Sender::Unbounded(tx) => tx.send(job).is_err(),
            Sender::Bounded(tx) => match tx.try_send(job) {
                Ok(()) => false,
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => true,
            },
        };
        if refused {
            self.backlog.fetch_sub(1, Relaxed);
        }
        async move {
            if refused {
                return Answer::Overloaded;
            }
            // A dropped sender means the pool stopped with the job queued.
            receiver.await.unwrap_or(Answer::Overloaded)
        }
    }

    pub fn backlog(&self) -> usize {
        self.backlog.load(Relaxed)
    }
}

fn serve(
    generator: &Generator,
    receiver: &Mutex<Receiver<Job>>,
    backlog: &AtomicUsize,
    closing: &AtomicBool,
    short_circuit: bool,
) {
    loop {
        let job = {
            let receiver = receiver.lock().unwrap_or_else(PoisonError::into_inner);
            match receiver.recv() {
                Ok(job) => job,
                Err(_) => return,
            }
        };
        let answer =
            if closing.load(Relaxed) || (short_circuit && job.scrape.expired(Instant::now())) {
                Answer::TimedOut
            } else {
                Answer::Exposition(generator.generate())
            };
        // The client may have gone; the work is done either way (the wasted-work count sees it).
        let _ = job.answer.send(answer);
        backlog.fetch_sub(1, Relaxed);
    }
}

impl Drop for GeneratorPool {
    fn drop(&mut self) {
        self.closing.store(true, Relaxed);
        self.sender = None;
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}
