//! No leak: after a run with clients that vanish mid-body and clients that read slowly, stopping
//! the server returns the live heap to its level before the server started (counting allocator;
//! one test in this binary, so no other test's allocations interleave).

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

use coalesce_lab::exposition::Broker;
use coalesce_lab::load::{Load, LoadGenerator, Plan};
use common::{GET_METRICS, for_each_design, raw_exchange, start_design};
use labkit::alloc::{AllocSnapshot, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Bytes the process may keep after a server stops: lazily created per-process state of tokio
/// and the standard library, which the first round creates and the measured round reuses.
const SLACK: i64 = 16 << 10;

fn vanish_mid_body(addr: std::net::SocketAddr) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(GET_METRICS).unwrap();
    let mut first = [0; 4096];
    let _ = stream.read(&mut first).unwrap();
}

fn exercise(server: &coalesce_lab::server::Server) {
    let addr = server.addr();
    let slow = std::thread::spawn(move || {
        raw_exchange(addr, GET_METRICS, 16 << 10, Duration::from_millis(1))
    });
    for _ in 0..8 {
        vanish_mid_body(addr);
    }
    let load = LoadGenerator::new(addr).unwrap();
    let plan = Plan {
        load: Load::Closed { users: 8 },
        requests: 64,
        timeout: Some(Duration::from_secs(30)),
        gzip: false,
        cap: None,
    };
    let outcome = load.run(plan, 8, &mut (), false);
    assert_eq!(outcome.tally.corrupt, 0);
    assert_eq!(slow.join().unwrap().status, 200);
}

#[test]
fn stopping_a_server_returns_the_heap_to_its_level_before_it_started() {
    let broker = Arc::new(Broker::with_body_size(1 << 20));
    // A first round creates what the process keeps for good (runtime internals, thread-local
    // caches); the measured round must then return to where it started.
    for_each_design(&broker, None, |_, server| exercise(&server));
    for_each_design(&broker, None, |design, server| {
        drop(server);
        let before = AllocSnapshot::now();
        let generator = Arc::new(coalesce_lab::Generator::new(Arc::clone(&broker)));
        let again = start_design(design.name, generator, None);
        exercise(&again);
        drop(again);
        let after = AllocSnapshot::now();
        let kept = before.delta_to(&after).live_bytes;
        assert!(
            kept <= SLACK,
            "{}: {kept} bytes still live after the server stopped",
            design.name
        );
    });
}
