//! Helpers the coalesce-lab tests share: a design-generic server start, and a raw HTTP/1.1
//! client over `TcpStream` for what the load generator never does on purpose (malformed
//! requests, reading slowly, vanishing mid-body).

#![allow(dead_code)] // each test binary uses its own part

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use coalesce_lab::exposition::Broker;
use coalesce_lab::server::Server;
use coalesce_lab::{
    Freshness, Generator, ImplementationVisitor, MetricsEndpoint, for_each_implementation,
};

/// A small broker, so tests generate in well under a millisecond.
pub fn small_broker() -> Arc<Broker> {
    Arc::new(Broker::with_topics(40))
}

/// What a test needs to know of a design.
#[derive(Debug, Clone, Copy)]
pub struct Design {
    pub name: &'static str,
    pub freshness: Freshness,
    pub admits: Option<usize>,
}

/// Runs `check` once per design with a fresh server of it.
pub fn for_each_design(
    broker: &Arc<Broker>,
    timeout: Option<Duration>,
    mut check: impl FnMut(Design, Server),
) {
    for design in designs() {
        let generator = Arc::new(Generator::new(Arc::clone(broker)));
        let server = start_design(design.name, generator, timeout);
        check(design, server);
    }
}

/// Every design, without starting a server of it.
pub fn designs() -> Vec<Design> {
    struct List(Vec<Design>);
    impl ImplementationVisitor for List {
        fn visit<E: MetricsEndpoint>(&mut self) {
            self.0.push(Design {
                name: E::NAME,
                freshness: E::FRESHNESS,
                admits: E::ADMITS,
            });
        }
    }
    let mut list = List(Vec::new());
    for_each_implementation(&mut list);
    list.0
}

/// A new server of the design called `name`.
pub fn start_design(name: &str, generator: Arc<Generator>, timeout: Option<Duration>) -> Server {
    struct Start {
        generator: Arc<Generator>,
        timeout: Option<Duration>,
        server: Option<Server>,
    }
    impl ImplementationVisitor for Start {
        fn visit<E: MetricsEndpoint>(&mut self) {
            let generator = Arc::clone(&self.generator);
            self.server = Some(Server::start::<E>(generator, self.timeout).expect("server starts"));
        }
    }
    let mut start = Start {
        generator,
        timeout,
        server: None,
    };
    coalesce_lab::visit_implementation(name, &mut start).expect("a design's own name");
    start.server.expect("visited")
}

/// A response read off a raw connection.
#[derive(Debug)]
pub struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Sends `request` as bytes and reads one response (the request asks the server to close), a
/// chunk of `chunk` bytes at a time with `pause` between chunks (a slow reader).
pub fn raw_exchange(
    addr: SocketAddr,
    request: &[u8],
    chunk: usize,
    pause: Duration,
) -> RawResponse {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a read timeout guards against a hang");
    stream.write_all(request).expect("send");
    let mut bytes = Vec::new();
    let mut buffer = vec![0; chunk];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&buffer[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("reading the response: {e}"),
        }
        if !pause.is_zero() {
            std::thread::sleep(pause);
        }
    }
    parse(&bytes)
}

fn parse(bytes: &[u8]) -> RawResponse {
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no response head in {:?}", String::from_utf8_lossy(bytes)));
    let head = std::str::from_utf8(&bytes[..end]).expect("an ASCII head");
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    RawResponse {
        status,
        headers,
        body: bytes[end + 4..].to_vec(),
    }
}

pub const GET_METRICS: &[u8] =
    b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
