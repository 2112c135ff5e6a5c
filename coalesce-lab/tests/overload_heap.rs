//! Overload never grows memory without bound: with 100 and with 1,000 virtual users that give up
//! after a deadline and ask again, what the server holds stays within a stated number of bodies.
//!
//! Two high-water marks per design and user count, above the heap before the run:
//! - *bodies*: live bytes in blocks of at least [`BODY_BLOCK`] — the expositions a design holds
//!   while generating, caching or writing them. No per-connection buffer comes near that size
//!   (hyper's server read buffer and the client's are ≤ 64 KiB), so this isolates what a design
//!   decides from what any HTTP server spends per connection.
//! - *everything*: the server's whole heap, which also grows with connections (hyper's and
//!   tokio's per-connection state: 19 KiB per user with `static-body`), allowed for per user.
//!
//! The bounds differ by how a design answers:
//! - designs that share one generation's body among requests (coalescing, the window, the shared
//!   future, the static body) hold at most [`SHARED_BOUND`] bodies at either user count
//!   (measured in debug builds: ≤ 18 at 1,000 users with client and server sharing both cores,
//!   35 with the client pinned to a core of its own, from generations still being written to
//!   slow readers — this test's client reads 1,000 connections on one thread; unbounded would be
//!   one per user);
//! - designs that generate per request (`serial-queue`, `bounded-pool`) hold one body per
//!   response still being written: bounding the generators (the fix's 4 threads) bounds the
//!   generating, not the writing, so their bound is under one body per user — what is asserted is
//!   that nothing outlives its request (an abandoned request's body is released), not a constant.
//!   Measured: `bounded-pool` 5–8 bodies at 100 users and 20–102 at 1,000.
//!
//! One test in this binary, so no other test's allocations interleave.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use coalesce_lab::Freshness;
use coalesce_lab::exposition::Broker;
use coalesce_lab::load::{Load, LoadGenerator, Plan};
use labkit::alloc::{AllocSnapshot, CountingAlloc, reset_peak};

mod common;
use common::for_each_design;

/// Blocks at least this large are bodies (or a body's buffer while it grows).
const BODY_BLOCK: usize = 128 << 10;

static BODY_LIVE: AtomicU64 = AtomicU64::new(0);
static BODY_PEAK: AtomicU64 = AtomicU64::new(0);

/// [`CountingAlloc`] that also keeps the live bytes and high-water mark of body-sized blocks.
struct BodyTracking;

fn body_alloc(size: usize) {
    if size >= BODY_BLOCK {
        let live = BODY_LIVE.fetch_add(size as u64, Relaxed) + size as u64;
        BODY_PEAK.fetch_max(live, Relaxed);
    }
}

fn body_dealloc(size: usize) {
    if size >= BODY_BLOCK {
        BODY_LIVE.fetch_sub(size as u64, Relaxed);
    }
}

// SAFETY: every method forwards to `CountingAlloc` (itself `System` with counters) with the
// caller's arguments unchanged, and only updates two counters around a successful call.
unsafe impl GlobalAlloc for BodyTracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded contract of `GlobalAlloc::alloc`.
        let ptr = unsafe { CountingAlloc.alloc(layout) };
        if !ptr.is_null() {
            body_alloc(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        body_dealloc(layout.size());
        // SAFETY: forwarded contract of `GlobalAlloc::dealloc`.
        unsafe { CountingAlloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded contract of `GlobalAlloc::realloc`.
        let new_ptr = unsafe { CountingAlloc.realloc(ptr, layout, new_size) };
        if !new_ptr.is_null() {
            body_dealloc(layout.size());
            body_alloc(new_size);
        }
        new_ptr
    }
}

#[global_allocator]
static ALLOC: BodyTracking = BodyTracking;

const BODY: usize = 256 << 10;
/// The client's deadline and the server's request timeout. Longer than the bench's 100 ms:
/// this is a debug build, whose client must still read bodies at 1,000 users.
const DEADLINE: Duration = Duration::from_secs(1);
/// Requests per user: each asks again after its first request ends or is abandoned.
const ROUNDS: u64 = 2;
/// Bodies a body-sharing design may hold at once, at 100 and at 1,000 users.
const SHARED_BOUND: u64 = 64;
/// The server's heap per connection beside the bodies.
const PER_USER: u64 = 64 << 10;

/// Live bytes in body-sized blocks at the high-water mark, and of the whole heap, above their
/// levels before `run`.
fn peaks(run: impl FnOnce()) -> (u64, u64) {
    reset_peak();
    BODY_PEAK.store(BODY_LIVE.load(Relaxed), Relaxed);
    let (before, bodies_before) = (AllocSnapshot::now(), BODY_LIVE.load(Relaxed));
    run();
    let after = AllocSnapshot::now();
    (
        BODY_PEAK.load(Relaxed) - bodies_before,
        before.delta_to(&after).peak_growth,
    )
}

fn check_overload(users: usize) {
    let broker = Arc::new(Broker::with_body_size(BODY));
    for_each_design(&broker, Some(DEADLINE), |design, server| {
        let load = LoadGenerator::new(server.addr()).unwrap();
        let plan = Plan {
            load: Load::Closed { users },
            requests: ROUNDS * users as u64,
            timeout: Some(DEADLINE),
            gzip: false,
            cap: None,
        };
        let mut tally = None;
        let (bodies, everything) = peaks(|| tally = Some(load.run(plan, 0, &mut (), false).tally));
        let tally = tally.expect("ran");
        let per_request = design.freshness == Freshness::StartedAfterArrival;
        let body_bound = if per_request {
            users as u64
        } else {
            SHARED_BOUND
        };
        let held = bodies as f64 / BODY as f64;
        println!(
            "{users:>5} users, {:<18} {held:6.2} bodies, {:6.2} MiB in all; {tally:?}",
            design.name,
            everything as f64 / f64::from(1 << 20),
        );
        assert_eq!(tally.corrupt, 0, "{}: corrupt bodies", design.name);
        assert!(
            tally.served > 0,
            "{}: served nothing at {users} users, so held no body to bound",
            design.name
        );
        assert!(
            bodies <= body_bound * BODY as u64,
            "{}: {held:.1} bodies live at once with {users} users (bound {body_bound})",
            design.name
        );
        let heap_bound = body_bound * BODY as u64 + users as u64 * PER_USER;
        assert!(
            everything <= heap_bound,
            "{}: {everything} bytes of heap with {users} users (bound {heap_bound})",
            design.name
        );
    });
}

#[test]
fn overload_holds_a_bounded_number_of_bodies_at_100_and_1000_users() {
    // Two descriptors per user (client and server side) and some to spare.
    labkit::process::raise_open_files(4096).expect("1,000 users need 2,000 open files");
    check_overload(100);
    check_overload(1000);
}
