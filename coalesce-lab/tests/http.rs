//! Every design behind the real server: complete, checksummed, parseable, fresh expositions to
//! many concurrent clients, each request answered exactly once; clear statuses for bad requests;
//! slow readers that neither hold a generator nor see another generation's bytes.

mod common;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use coalesce_lab::Freshness;
use coalesce_lab::exposition::checksum;
use coalesce_lab::load::{Load, LoadGenerator, Plan};
use coalesce_lab::server::{CHECKSUM_HEADER, GENERATION_HEADER};
use common::{GET_METRICS, designs, for_each_design, raw_exchange, small_broker, start_design};

/// 32 users × 40 requests each through the load generator, every served body checked against
/// its checksum header by the client, and the recorded history against the server's log.
#[test]
fn every_design_answers_each_request_once_with_a_complete_fresh_exposition() {
    let broker = small_broker();
    for_each_design(&broker, None, |design, server| {
        let (name, freshness) = (design.name, design.freshness);
        let load = LoadGenerator::new(server.addr()).unwrap();
        let plan = Plan {
            load: Load::Closed { users: 32 },
            requests: 1_280,
            gzip: false,
            timeout: Some(Duration::from_secs(30)),
            cap: None,
        };
        let outcome = load.run(plan, 32, &mut (), true);
        let tally = outcome.tally;
        assert_eq!(
            (
                tally.served + tally.refused,
                tally.corrupt,
                tally.errors,
                tally.timeouts
            ),
            (1_280, 0, 0, 0),
            "{name}: every request answered once, every body matching its checksum"
        );
        match design.admits {
            None => assert_eq!(tally.refused, 0, "{name} never refuses"),
            Some(admits) => assert!(tally.served >= admits as u64, "{name}: {tally:?}"),
        }
        assert_eq!(outcome.history.len() as u64, tally.served, "{name}");
        let spans = server.generator().spans();
        for exchange in &outcome.history {
            let span = spans.get(exchange.generation as usize).unwrap_or_else(|| {
                panic!(
                    "{name}: generation {} was never logged",
                    exchange.generation
                )
            });
            let finished = span
                .finished
                .unwrap_or_else(|| panic!("{name}: served an unfinished generation"));
            assert!(
                finished <= exchange.received,
                "{name}: answered before generated"
            );
            // Sent before the server saw it: a request fresh at its arrival is fresh at `sent`.
            let fresh = freshness.holds(span, exchange.generation, exchange.sent);
            assert!(
                fresh,
                "{name}: generation {} is staler than {freshness:?}",
                exchange.generation
            );
        }
        let generations: HashSet<u64> = outcome.history.iter().map(|e| e.generation).collect();
        if freshness == Freshness::StartedAfterArrival {
            assert_eq!(
                generations.len() as u64,
                tally.served,
                "{name}: one generation per request"
            );
        }

        // One body in full: the generation it names, byte for byte, and valid exposition text.
        let response = raw_exchange(server.addr(), GET_METRICS, 1 << 16, Duration::ZERO);
        assert_eq!(response.status, 200, "{name}");
        let generation: u64 = response.header(GENERATION_HEADER).unwrap().parse().unwrap();
        assert_eq!(
            response.body,
            broker.generate(generation),
            "{name}: not generation {generation}"
        );
        assert_eq!(
            response.header(CHECKSUM_HEADER).unwrap(),
            format!("{:016x}", checksum(&response.body))
        );
        let text = String::from_utf8(response.body).unwrap();
        assert!(text.ends_with("# EOF\n"), "{name}: truncated");
        let lines = text.lines().map(|l| Ok(l.to_owned()));
        let scrape = prometheus_parse::Scrape::parse(lines).expect("parses as Prometheus text");
        assert_eq!(
            scrape.samples.len(),
            1 + broker.topics() * coalesce_lab::exposition::FAMILIES
        );
    });
}

#[test]
fn bad_requests_get_a_clear_status_and_the_server_keeps_serving() {
    let broker = small_broker();
    for_each_design(&broker, None, |design, server| {
        let name = design.name;
        let addr = server.addr();
        let exchange = |request: &[u8]| raw_exchange(addr, request, 4096, Duration::ZERO);
        let unknown = exchange(b"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assert_eq!(unknown.status, 404, "{name}");
        let post = exchange(
            b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
        assert_eq!(
            (post.status, post.header("allow")),
            (405, Some("GET")),
            "{name}"
        );
        let malformed = exchange(b"GARBAGE \x01\x02 nonsense\r\n\r\n");
        assert_eq!(malformed.status, 400, "{name}");
        assert_eq!(exchange(GET_METRICS).status, 200, "{name}: still serving");
    });
}

/// A reader that takes its body 8 KiB at a time with pauses keeps its response (and, in
/// `coalescing-pooled`, its lease on a recycled buffer) for a long while; meanwhile other clients
/// are served by new generations, and the slow body still matches its checksum.
#[test]
fn a_slow_reader_holds_no_generator_and_sees_only_its_own_generation() {
    let broker = Arc::new(coalesce_lab::exposition::Broker::with_body_size(2 << 20));
    for_each_design(&broker, None, |design, server| {
        let name = design.name;
        let addr = server.addr();
        let slow = std::thread::spawn(move || {
            raw_exchange(addr, GET_METRICS, 8 << 10, Duration::from_millis(2))
        });
        std::thread::sleep(Duration::from_millis(20));
        let load = LoadGenerator::new(addr).unwrap();
        let plan = Plan {
            load: Load::Closed { users: 4 },
            requests: 40,
            gzip: false,
            timeout: Some(Duration::from_secs(30)),
            cap: None,
        };
        let outcome = load.run(plan, 0, &mut (), false);
        let tally = outcome.tally;
        assert_eq!(
            (tally.served + tally.refused, tally.corrupt),
            (40, 0),
            "{name}"
        );
        let slow = slow.join().unwrap();
        assert_eq!(slow.status, 200, "{name}");
        let expected = slow.header(CHECKSUM_HEADER).unwrap().to_owned();
        assert_eq!(
            expected,
            format!("{:016x}", checksum(&slow.body)),
            "{name}: the slow body changed"
        );
    });
}

/// Under a client deadline every request still ends exactly once (served, refused or given up on)
/// and no body is corrupt; the serial baseline, which generates every queued request, spends
/// generations on clients that have already gone.
#[test]
fn expired_requests_are_short_circuited_only_by_the_designs_that_say_so() {
    let broker = Arc::new(coalesce_lab::exposition::Broker::with_body_size(1 << 20));
    for_each_design(
        &broker,
        Some(Duration::from_millis(20)),
        |design, server| {
            let name = design.name;
            let load = LoadGenerator::new(server.addr()).unwrap();
            let plan = Plan {
                load: Load::Closed { users: 50 },
                requests: 500,
                gzip: false,
                timeout: Some(Duration::from_millis(20)),
                cap: None,
            };
            let outcome = load.run(plan, 0, &mut (), false);
            let tally = outcome.tally;
            assert_eq!(
                tally.served + tally.refused + tally.timeouts + tally.errors,
                500,
                "{name}: every request ended once: {tally:?}"
            );
            assert_eq!(tally.corrupt, 0, "{name}");
            let wasted = server.generator().wasted_between(0, Instant::now());
            if name == "serial-queue" {
                assert!(
                    tally.timeouts > 0 && wasted > 0,
                    "{name}: {tally:?}, {wasted} wasted"
                );
            }
        },
    );
}

/// A gzip request, to every design: the body is gzip, its checksum header covers the bytes sent,
/// and it decompresses to exactly the generation the response names (a full generation, not a
/// truncated or another generation's body); a request that refuses gzip gets the identity body.
/// Then a gzip load through the generator: every body matches its checksum.
#[test]
fn gzip_responses_decompress_to_the_full_generation_they_name() {
    use std::io::Read;
    let broker = small_broker();
    for_each_design(&broker, None, |design, server| {
        let name = design.name;
        let gzip_request =
            b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br;q=0.9, GZIP\r\nConnection: close\r\n\r\n";
        for _ in 0..3 {
            let response = raw_exchange(server.addr(), gzip_request, 4096, Duration::ZERO);
            assert_eq!(response.status, 200, "{name}");
            assert_eq!(response.header("content-encoding"), Some("gzip"), "{name}");
            let sent = u64::from_str_radix(response.header(CHECKSUM_HEADER).unwrap(), 16).unwrap();
            assert_eq!(
                checksum(&response.body),
                sent,
                "{name}: checksum of the bytes sent"
            );
            let generation: u64 = response.header(GENERATION_HEADER).unwrap().parse().unwrap();
            let mut body = Vec::new();
            flate2::read::GzDecoder::new(&response.body[..])
                .read_to_end(&mut body)
                .unwrap_or_else(|e| panic!("{name}: not gzip: {e}"));
            assert_eq!(
                body,
                broker.generate(generation),
                "{name}: generation {generation}"
            );
        }
        let refused = raw_exchange(
            server.addr(),
            b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip;q=0\r\nConnection: close\r\n\r\n",
            4096,
            Duration::ZERO,
        );
        assert_eq!(refused.header("content-encoding"), None, "{name}");
        let generation: u64 = refused.header(GENERATION_HEADER).unwrap().parse().unwrap();
        assert_eq!(refused.body, broker.generate(generation), "{name}");
        let load = LoadGenerator::new(server.addr()).unwrap();
        let plan = Plan {
            load: Load::Closed { users: 8 },
            requests: 64,
            gzip: true,
            timeout: Some(Duration::from_secs(30)),
            cap: None,
        };
        let tally = load.run(plan, 8, &mut (), false).tally;
        assert_eq!(
            (tally.corrupt, tally.errors, tally.timeouts),
            (0, 0, 0),
            "{name}"
        );
        assert_eq!(tally.served + tally.refused, 64, "{name}");
    });
}

/// An open loop to every design: each scheduled request is answered or given up once, and each
/// send is in exactly one bucket of the generator's lag histogram, the buckets summing to the
/// requests and the summed lag no more than the histogram's buckets allow.
#[test]
fn an_open_loop_tallies_every_scheduled_send_once_in_its_lag_histogram() {
    use coalesce_lab::load::LAG_EDGES;
    let broker = small_broker();
    for_each_design(&broker, None, |design, server| {
        let name = design.name;
        let load = LoadGenerator::new(server.addr()).unwrap();
        let plan = Plan {
            load: Load::Open { per_second: 400 },
            requests: 120,
            gzip: false,
            timeout: Some(Duration::from_secs(30)),
            cap: None,
        };
        let tally = load.run(plan, 0, &mut (), false).tally;
        assert_eq!(
            tally.served + tally.refused + tally.timeouts + tally.errors,
            120,
            "{name}: {tally:?}"
        );
        assert_eq!(tally.corrupt, 0, "{name}");
        assert_eq!(
            tally.lag_histogram.iter().sum::<u64>(),
            120,
            "{name}: one bucket per send: {tally:?}"
        );
        // Every send up to an edge lagged at most that edge; the sum cannot exceed their bounds
        // unless the last, open bucket holds sends.
        let below_last: u64 = LAG_EDGES
            .iter()
            .zip(tally.lag_histogram)
            .map(|(edge, n)| edge.as_micros() as u64 * n)
            .sum();
        if tally.lag_histogram[LAG_EDGES.len()] == 0 {
            assert!(tally.lag_us <= below_last, "{name}: {tally:?}");
        }
    });
}

/// A closed loop that cannot finish its rounds within its cap ends there: the window holds the
/// cap's time, the requests still waiting are counted as unfinished and dropped, the
/// operations it reports are those it saw (fewer than asked), and the outcome says the server
/// was left with work, so a runner starts a new one before its next run.
#[test]
fn a_closed_loop_ends_at_its_cap_with_what_it_saw() {
    // Generations of a few milliseconds: 16 users queue behind the serial design's one thread.
    let broker = Arc::new(coalesce_lab::exposition::Broker::with_topics(40).collecting(20_000));
    let generator = Arc::new(coalesce_lab::Generator::new(broker));
    let server = start_design("serial-queue", generator, None);
    let load = LoadGenerator::new(server.addr()).unwrap();
    let cap = Duration::from_millis(100);
    let plan = Plan {
        load: Load::Closed { users: 16 },
        requests: 100_000,
        gzip: false,
        timeout: Some(Duration::from_secs(30)),
        cap: Some(cap),
    };
    let outcome = load.run(plan, 16, &mut (), false);
    let tally = outcome.tally;
    assert!(outcome.elapsed >= cap, "{:?}", outcome.elapsed);
    assert!(outcome.elapsed < 20 * cap, "{:?}", outcome.elapsed);
    assert!(outcome.cut, "requests were left waiting");
    assert!(
        (1..=16).contains(&tally.unfinished),
        "every user but those between requests: {tally:?}"
    );
    assert_eq!((tally.corrupt, tally.errors, tally.timeouts), (0, 0, 0));
    let completed = outcome.completed.unwrap();
    assert!(
        completed <= (tally.served + tally.unfinished) as f64 && completed < 100_000.0,
        "{completed} of {tally:?}"
    );
    assert!(
        completed >= tally.served as f64 - 16.0,
        "{completed} of {tally:?}"
    );
}

/// A server stopped while it generates gives the generation up at its next topic instead of
/// finishing it for nobody, and answers no client with what it had: the client that asked gets a
/// 503 or a closed connection, never a truncated body. (`static-body` generates once, before it
/// serves.)
#[test]
fn a_server_stopped_mid_generation_gives_it_up_and_serves_none_of_it() {
    use std::io::{Read, Write};
    // 2,000 topics × 1.5 million rounds: seconds of stats collection, a few ms per topic.
    let broker =
        Arc::new(coalesce_lab::exposition::Broker::with_topics(2_000).collecting(1_500_000));
    for design in designs()
        .into_iter()
        .filter(|d| d.freshness != Freshness::Fixed)
    {
        let name = design.name;
        let generator = Arc::new(coalesce_lab::Generator::new(Arc::clone(&broker)));
        let server = start_design(name, Arc::clone(&generator), None);
        let addr = server.addr();
        let client = std::thread::spawn(move || {
            let mut stream = std::net::TcpStream::connect(addr).expect("connect");
            stream
                .set_read_timeout(Some(Duration::from_secs(30)))
                .expect("a read timeout guards against a hang");
            stream.write_all(GET_METRICS).expect("send");
            let mut bytes = Vec::new();
            // A reset is a connection cut off, like an end of stream.
            let _ = stream.read_to_end(&mut bytes);
            bytes
        });
        let asked = Instant::now();
        while generator.started() == 0 {
            assert!(
                asked.elapsed() < Duration::from_secs(10),
                "{name}: never generated"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        drop(server);
        let spans = generator.spans();
        assert!(
            spans[0].abandoned && spans[0].finished.is_none(),
            "{name}: {spans:?}"
        );
        let answer = client.join().expect("client");
        let head = String::from_utf8_lossy(&answer[..answer.len().min(12)]).into_owned();
        assert!(
            answer.is_empty() || head == "HTTP/1.1 503",
            "{name}: answered {head:?}, {} bytes",
            answer.len()
        );
    }
}
