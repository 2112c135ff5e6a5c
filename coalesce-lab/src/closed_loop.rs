//! The closed loop: virtual users each asking again as soon as their last request ended. Two
//! ways to bound a run:
//!
//! - by count ([`counted`], a plan without a budget): `warm_up` requests, all answered, then
//!   exactly `requests` sent and all answered inside the window; the tests' and the overload's
//!   and gzip scenarios' runs, whose clients give up and ask again in rounds;
//! - by time ([`timed`], a plan with a budget): one continuous run through a warm-up and a
//!   measured window that ends after a number of requests or at the budget, whichever comes
//!   first.
//!
//! A budget bounds the run by time, not by its slowest design: at 100 users on a 16 MiB body
//! whose generation takes a third of a second, a serial queue needs half a minute before every
//! user has had one answer, and under 1,000 users every body is still on its way when the first
//! second is up. What the window saw is then counted by what it delivered: a request that ended
//! in it counts as the share of its body that arrived after the window opened (a whole one when
//! it started inside), and a request still running when the budget ran out as the share that
//! arrived before; its latency enters as its age, a lower bound (a censored value, as a timeout's).

use std::cell::Cell;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

use futures_util::future::join_all;
use labkit::lab::Window;
use labkit::latency::LatencySink;
use tokio::sync::Notify;

use crate::client_threads::ClientCost;
use crate::load::{Books, Connection, Plan, Tally, request};

/// How far a user's request in flight has come, for the share of its body a window saw.
#[derive(Default)]
pub(crate) struct Progress {
    /// When the request in flight was sent; `None` between requests.
    sent: Cell<Option<Instant>>,
    /// Body bytes received so far, and the body's length once its head arrived (0 before).
    pub(crate) received: Cell<u64>,
    pub(crate) length: Cell<u64>,
    /// Body bytes it had received when the window opened (0 when it started after).
    at_open: Cell<u64>,
}

impl Progress {
    fn start(&self, sent: Instant) {
        self.sent.set(Some(sent));
        self.received.set(0);
        self.length.set(0);
        self.at_open.set(0);
    }

    /// The share of the body that arrived since the window opened (of a request with no body
    /// yet, nothing).
    fn share_since_open(&self) -> f64 {
        match self.length.get() {
            0 => 0.0,
            length => self.received.get().saturating_sub(self.at_open.get()) as f64 / length as f64,
        }
    }

    /// The request ended: what it counts for in a window, `served` or not (a request that ended
    /// without a body is one request ended).
    fn end(&self, served: bool) -> f64 {
        self.sent.set(None);
        let share = if served { self.share_since_open() } else { 1.0 };
        self.at_open.set(0);
        share
    }
}

/// Where the loop is: what a request that ends now counts for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Stage {
    #[default]
    WarmingUp,
    Measuring,
    /// The window has closed: users stop asking again.
    Stopped,
}

/// The loop's state its users and its controller share (one thread: plain cells).
#[derive(Default)]
struct Phase {
    stage: Cell<Stage>,
    /// Requests ended in the current stage, and how many end it.
    ended: Cell<u64>,
    wanted: Cell<u64>,
    /// Operations the window saw: requests ended, counted by the share of their body it saw.
    credit: Cell<f64>,
    reached: Notify,
}

impl Phase {
    /// Waits until `wanted` requests have ended in this phase, or until `budget` has passed;
    /// whether they did.
    async fn wait(&self, budget: Option<Duration>) -> bool {
        let reached = async {
            loop {
                let rung = self.reached.notified();
                if self.ended.get() >= self.wanted.get() {
                    return;
                }
                rung.await;
            }
        };
        match budget {
            Some(budget) => tokio::time::timeout(budget, reached).await.is_ok(),
            None => {
                reached.await;
                true
            }
        }
    }
}

/// What a closed loop measured.
pub(crate) struct Measured {
    pub(crate) elapsed: Duration,
    pub(crate) client: ClientCost,
    /// Operations done in the window (see the module's doc).
    pub(crate) completed: f64,
    /// Requests still running when the budget ran out (their latencies are their ages).
    pub(crate) unfinished: u64,
    /// Whether requests were dropped unanswered (at the budget, or when the stragglers after a
    /// window outlasted another budget): the server may still be working for them.
    pub(crate) cut: bool,
}

/// What a closed loop runs on: the server, one connection per user (`None` until it connects),
/// the plan, and where its requests are entered.
pub(crate) struct Users<'a> {
    pub(crate) addr: SocketAddr,
    pub(crate) connections: &'a mut [Option<Connection>],
    pub(crate) plan: Plan,
    pub(crate) latencies: Option<Arc<LatencySink>>,
    pub(crate) books: &'a Books,
}

/// Runs `users`' plan, [`timed`] when it has a budget, else [`counted`].
pub(crate) async fn run(users: Users<'_>, warm_up: u64, window: &mut dyn Window) -> Measured {
    match users.plan.budget {
        None => counted(users, warm_up, window).await,
        Some(_) => timed(users, warm_up, window).await,
    }
}

/// Runs `users`' plan: `warm_up` requests before it, all answered, and exactly `plan.requests`
/// inside `window`, all answered.
async fn counted(users: Users<'_>, warm_up: u64, window: &mut dyn Window) -> Measured {
    let (addr, plan, connections) = (users.addr, users.plan, users.connections);
    let warm_books = Books {
        tally: std::sync::Mutex::new(Tally::default()),
        history: None,
    };
    let warm_plan = Plan {
        requests: warm_up,
        ..plan
    };
    send_all(addr, connections, warm_plan, None, &warm_books).await;
    window.open();
    let (started, cost) = (Instant::now(), ClientCost::of_this_thread());
    send_all(addr, connections, plan, users.latencies, users.books).await;
    let (elapsed, client) = (started.elapsed(), ClientCost::since(cost));
    window.close();
    Measured {
        elapsed,
        client,
        completed: plan.requests as f64,
        unfinished: 0,
        cut: false,
    }
}

/// Each user sends requests while any of `plan.requests` are left to send; returns when every
/// one was answered.
async fn send_all(
    addr: SocketAddr,
    connections: &mut [Option<Connection>],
    plan: Plan,
    latencies: Option<Arc<LatencySink>>,
    books: &Books,
) {
    let tickets = AtomicU64::new(0);
    let users = connections.iter_mut().map(|slot| {
        let (tickets, latencies) = (&tickets, latencies.clone());
        async move {
            let mut recorder = latencies.as_ref().map(|s| s.recorder());
            while tickets.fetch_add(1, Relaxed) < plan.requests {
                let sent = Instant::now();
                let outcome = request(addr, slot, &plan, sent, None).await;
                books.enter(recorder.as_mut(), sent, outcome);
            }
        }
    });
    join_all(users).await;
}

/// Runs `users`' plan: `warm_up` requests ended, or an eighth of the budget, unmeasured; then
/// `plan.requests` ended, or the budget, inside `window`. Requests still running after a window
/// closed on its count are let finish unmeasured (within one more budget); at a budget they are
/// dropped, with their connections, as a scraper giving up would.
async fn timed(users: Users<'_>, warm_up: u64, window: &mut dyn Window) -> Measured {
    let Users {
        addr,
        connections,
        plan,
        latencies,
        books,
    } = users;
    let progress: Vec<Progress> = connections.iter().map(|_| Progress::default()).collect();
    let phase = Phase::default();
    let (measured, dropped) = {
        let users = connections
            .iter_mut()
            .zip(&progress)
            .map(|(slot, progress)| {
                let (phase, latencies) = (&phase, latencies.clone());
                async move {
                    let mut recorder = latencies.as_ref().map(|s| s.recorder());
                    while phase.stage.get() != Stage::Stopped {
                        let sent = Instant::now();
                        progress.start(sent);
                        let outcome = request(addr, slot, &plan, sent, Some(progress)).await;
                        let share = progress.end(outcome.1.is_some());
                        let stage = phase.stage.get();
                        if stage == Stage::Stopped {
                            break;
                        }
                        if stage == Stage::Measuring {
                            phase.credit.set(phase.credit.get() + share);
                            books.enter(recorder.as_mut(), sent, outcome);
                        }
                        phase.ended.set(phase.ended.get() + 1);
                        if phase.ended.get() >= phase.wanted.get() {
                            // The window holds exactly the requests asked for: the one that ends
                            // it stops the others from counting before the controller runs.
                            if stage == Stage::Measuring {
                                phase.stage.set(Stage::Stopped);
                            }
                            phase.reached.notify_one();
                        }
                    }
                }
            });
        let mut users = std::pin::pin!(join_all(users));
        if warm_up > 0 {
            phase.wanted.set(warm_up);
            tokio::select! {
                _ = &mut users => {}
                _ = phase.wait(plan.budget.map(|b| b / 8)) => {}
            }
        }
        for p in &progress {
            p.at_open.set(p.received.get());
        }
        phase.ended.set(0);
        phase.wanted.set(plan.requests);
        phase.stage.set(Stage::Measuring);
        window.open();
        let (started, cost) = (Instant::now(), ClientCost::of_this_thread());
        let by_count = tokio::select! {
            _ = &mut users => true,
            reached = phase.wait(plan.budget) => reached,
        };
        phase.stage.set(Stage::Stopped);
        let (elapsed, client) = (started.elapsed(), ClientCost::since(cost));
        window.close();
        let mut unfinished = 0;
        if !by_count {
            let mut recorder = latencies.as_ref().map(|s| s.recorder());
            for p in progress.iter().filter(|p| p.sent.get().is_some()) {
                phase.credit.set(phase.credit.get() + p.share_since_open());
                if let (Some(recorder), Some(sent)) = (recorder.as_mut(), p.sent.get()) {
                    recorder.record(started + elapsed - sent);
                }
                unfinished += 1;
            }
        } else if let Some(budget) = plan.budget {
            // Stragglers finish unmeasured, so the server is left with nothing to do.
            let _ = tokio::time::timeout(budget, &mut users).await;
        } else {
            users.await;
        }
        let measured = Measured {
            elapsed,
            client,
            completed: phase.credit.get(),
            unfinished,
            cut: false,
        };
        let dropped: Vec<usize> = (0..progress.len())
            .filter(|&i| progress[i].sent.get().is_some())
            .collect();
        (measured, dropped)
    };
    // The users' futures are gone: a request still running is dropped with its connection.
    for &i in &dropped {
        if let Some(connection) = connections[i].take() {
            connection.close().await;
        }
    }
    Measured {
        cut: !dropped.is_empty(),
        ..measured
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_counts_for_the_share_of_its_body_the_window_saw() {
        let p = Progress::default();
        p.start(Instant::now());
        assert_eq!(p.share_since_open(), 0.0, "no head yet: nothing");
        p.length.set(1000);
        p.received.set(250);
        // The window opens with a quarter received; it ends with all of it.
        p.at_open.set(p.received.get());
        p.received.set(1000);
        assert_eq!(p.end(true), 0.75);
        // A request started inside the window counts whole; one that ended without a body, as
        // one request ended.
        p.start(Instant::now());
        p.length.set(1000);
        p.received.set(1000);
        assert_eq!(p.end(true), 1.0);
        p.start(Instant::now());
        assert_eq!(p.end(false), 1.0);
        assert!(p.sent.get().is_none());
    }
}
