//! The closed loop: virtual users each asking again as soon as their last request ended. Two
//! ways to bound a run:
//!
//! - by count ([`counted`], a plan without a cap): `warm_up` requests, all answered, then
//!   exactly `requests` sent and all answered inside the window; the tests' and the overload's
//!   and gzip scenarios' runs, whose clients give up and ask again in rounds;
//! - in whole rounds ([`in_rounds`], a plan with a cap): one continuous run through a warm-up
//!   round (every user answered once) and a measured window that ends when every user has been
//!   answered its share of the requests (at least [`crate::workload::ROUNDS`] each), or at the
//!   cap, whichever comes first.
//!
//! A window of whole rounds holds every design's steady state: a serial queue answers its users
//! one after the other, so a window shorter than a round would see only the users it reached
//! first, and a coalescing design answers a whole round at once, so a short window would end
//! before any of them. Requests that straddle an edge count as the share of their body the window
//! saw (a whole one when it started inside). The cap only guards against a stuck design: a
//! request still running when it ends counts as the share that arrived before, and its latency
//! enters as its age, a lower bound (a censored value, as a timeout's).

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
use crate::exchange::{Books, Plan, Tally, request};
use crate::http_client::{BodyProgress, Connection};

/// How far a user's request in flight has come, for the share of its body a window saw.
#[derive(Default)]
pub(crate) struct Progress {
    /// When the request in flight was sent; `None` between requests.
    sent: Cell<Option<Instant>>,
    /// How much of its body has arrived.
    pub(crate) body: BodyProgress,
    /// Body bytes it had received when the window opened (0 when it started after).
    at_open: Cell<u64>,
    /// Requests of this user answered in the current stage.
    answered: Cell<u64>,
}

impl Progress {
    fn start(&self, sent: Instant) {
        self.sent.set(Some(sent));
        self.body.received.set(0);
        self.body.length.set(0);
        self.at_open.set(0);
    }

    /// The share of the body that arrived since the window opened (of a request with no body
    /// yet, nothing).
    fn share_since_open(&self) -> f64 {
        match self.body.length.get() {
            0 => 0.0,
            length => {
                self.body.received.get().saturating_sub(self.at_open.get()) as f64 / length as f64
            }
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
    /// Requests each user is to be answered in the current stage, and the users short of it.
    quota: Cell<u64>,
    short: Cell<usize>,
    /// Operations the window saw: requests ended, counted by the share of their body it saw.
    credit: Cell<f64>,
    reached: Notify,
}

impl Phase {
    /// Starts `stage`, in which each of `users` is to be answered `quota` times.
    fn begin(&self, stage: Stage, quota: u64, users: &[Progress]) {
        for user in users {
            user.answered.set(0);
        }
        self.quota.set(quota);
        self.short.set(users.len());
        self.stage.set(stage);
    }

    /// One of a user's requests was answered in the current stage: the user that completes the
    /// round ends a measuring stage at once, so no request ends in it uncounted.
    fn answered(&self, user: &Progress) {
        let answered = user.answered.get() + 1;
        user.answered.set(answered);
        if answered == self.quota.get() {
            self.short.set(self.short.get() - 1);
            if self.short.get() == 0 {
                if self.stage.get() == Stage::Measuring {
                    self.stage.set(Stage::Stopped);
                }
                self.reached.notify_one();
            }
        }
    }

    /// Waits until every user has had its quota in this stage, or until `cap` has passed;
    /// whether they did.
    async fn wait(&self, cap: Option<Duration>) -> bool {
        let reached = async {
            loop {
                let rung = self.reached.notified();
                if self.short.get() == 0 {
                    return;
                }
                rung.await;
            }
        };
        match cap {
            Some(cap) => tokio::time::timeout(cap, reached).await.is_ok(),
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
    /// Requests still running when the cap ran out (their latencies are their ages).
    pub(crate) unfinished: u64,
    /// Whether requests were dropped unanswered (still running when the window closed, or at
    /// the cap): the server may still be working for them.
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

/// Runs `users`' plan, [`in_rounds`] when it has a cap, else [`counted`].
pub(crate) async fn run(users: Users<'_>, warm_up: u64, window: &mut dyn Window) -> Measured {
    match users.plan.cap {
        None => counted(users, warm_up, window).await,
        Some(_) => in_rounds(users, warm_up, window).await,
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

/// Runs `users`' plan in whole rounds: when `warm_up` asks for any, a round in which every user
/// is answered once, unmeasured; then a window in which every user is answered `plan.requests /
/// users` times (rounded up), or the cap. Requests still running when the window closes are
/// dropped with their connections, as a scraper giving up would (the runner then gives the next
/// run a server with nothing left to do): letting them finish would cost a serial queue up to
/// one more round per sample, unmeasured.
async fn in_rounds(users: Users<'_>, warm_up: u64, window: &mut dyn Window) -> Measured {
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
                        let outcome = request(addr, slot, &plan, sent, Some(&progress.body)).await;
                        let share = progress.end(outcome.1.is_some());
                        let stage = phase.stage.get();
                        if stage == Stage::Stopped {
                            break;
                        }
                        if stage == Stage::Measuring {
                            phase.credit.set(phase.credit.get() + share);
                            books.enter(recorder.as_mut(), sent, outcome);
                        }
                        // Any answer completes a user's round, a refusal too, as a k6 iteration
                        // (counting only bodies, users refused again and again by a bounded
                        // design starved until the cap): goodput counts the bodies.
                        phase.answered(progress);
                    }
                }
            });
        let mut users = std::pin::pin!(join_all(users));
        if warm_up > 0 {
            phase.begin(Stage::WarmingUp, 1, &progress);
            tokio::select! {
                _ = &mut users => {}
                _ = phase.wait(plan.cap) => {}
            }
        }
        for p in &progress {
            p.at_open.set(p.body.received.get());
        }
        let rounds = plan.requests.div_ceil(progress.len().max(1) as u64).max(1);
        phase.begin(Stage::Measuring, rounds, &progress);
        window.open();
        let (started, cost) = (Instant::now(), ClientCost::of_this_thread());
        let whole = tokio::select! {
            _ = &mut users => true,
            reached = phase.wait(plan.cap) => reached,
        };
        phase.stage.set(Stage::Stopped);
        let (elapsed, client) = (started.elapsed(), ClientCost::since(cost));
        window.close();
        // Requests still running count as the share of their body the window saw; at the cap
        // they are censored: each latency enters as its age, a lower bound.
        let mut unfinished = 0;
        let mut recorder = latencies.as_ref().filter(|_| !whole).map(|s| s.recorder());
        for p in progress.iter().filter(|p| p.sent.get().is_some()) {
            phase.credit.set(phase.credit.get() + p.share_since_open());
            if !whole {
                if let (Some(recorder), Some(sent)) = (recorder.as_mut(), p.sent.get()) {
                    recorder.record_censored(started + elapsed - sent);
                }
                unfinished += 1;
            }
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
        p.body.length.set(1000);
        p.body.received.set(250);
        // The window opens with a quarter received; it ends with all of it.
        p.at_open.set(p.body.received.get());
        p.body.received.set(1000);
        assert_eq!(p.end(true), 0.75);
        // A request started inside the window counts whole; one that ended without a body, as
        // one request ended.
        p.start(Instant::now());
        p.body.length.set(1000);
        p.body.received.set(1000);
        assert_eq!(p.end(true), 1.0);
        p.start(Instant::now());
        assert_eq!(p.end(false), 1.0);
        assert!(p.sent.get().is_none());
    }

    #[test]
    fn a_window_ends_when_its_last_user_completes_its_rounds() {
        let users: Vec<Progress> = (0..3).map(|_| Progress::default()).collect();
        let phase = Phase::default();
        phase.begin(Stage::Measuring, 2, &users);
        // A fast user answered many times does not end the window for the others.
        for _ in 0..5 {
            phase.answered(&users[0]);
        }
        phase.answered(&users[1]);
        phase.answered(&users[1]);
        assert_eq!(
            (phase.short.get(), phase.stage.get()),
            (1, Stage::Measuring)
        );
        phase.answered(&users[2]);
        assert_eq!(phase.stage.get(), Stage::Measuring);
        phase.answered(&users[2]);
        assert_eq!((phase.short.get(), phase.stage.get()), (0, Stage::Stopped));
        // A warm-up round ends without stopping the users; the next stage counts afresh.
        phase.begin(Stage::WarmingUp, 1, &users);
        for user in &users {
            phase.answered(user);
        }
        assert_eq!(
            (phase.short.get(), phase.stage.get()),
            (0, Stage::WarmingUp)
        );
        phase.begin(Stage::Measuring, 1, &users);
        assert_eq!(phase.short.get(), 3);
        assert!(users.iter().all(|u| u.answered.get() == 0));
    }
}
