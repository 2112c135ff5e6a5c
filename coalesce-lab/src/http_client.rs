//! The load generator's HTTP side: a keep-alive connection on hyper's HTTP/1.1 client, and one
//! `GET /metrics` on it with its body checked against the server's checksum.

use std::cell::Cell;
use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::client::conn::http1::{Builder, SendRequest};
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::server::{CHECKSUM_HEADER, GENERATION_HEADER};

/// The client's read buffer per connection (hyper's default grows to ~400 KiB; 100 users would
/// then hold 40 MiB, which the peak-heap figure would charge to the design).
const CLIENT_BUFFER: usize = 64 * 1024;

/// How much of a response's body has arrived: its length once its head arrived (0 before), and
/// the bytes received so far. A closed loop reads it to count the share of a body a window saw.
#[derive(Default)]
pub(crate) struct BodyProgress {
    pub(crate) received: Cell<u64>,
    pub(crate) length: Cell<u64>,
}

pub(crate) enum Reply {
    Served { generation: u64, bytes: u64 },
    Refused,
    Failed,
    Corrupt,
}

/// A keep-alive connection: hyper's sender, and the task that drives its socket. Dropping it
/// cancels the task; [`Connection::close`] also waits until the socket is gone, so the server
/// sees a dropped request's client leave now, not when this runtime next runs.
pub(crate) struct Connection {
    sender: SendRequest<Empty<Bytes>>,
    driver: tokio::task::JoinHandle<()>,
}

impl Connection {
    pub(crate) async fn close(mut self) {
        self.driver.abort();
        let _ = (&mut self.driver).await;
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

pub(crate) async fn connect(addr: SocketAddr) -> Result<Connection, String> {
    let stream = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    let _ = stream.set_nodelay(true);
    let (sender, connection) = Builder::new()
        .max_buf_size(CLIENT_BUFFER)
        .handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP handshake with {addr}: {e}"))?;
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(Connection { sender, driver })
}

/// `GET /metrics` on `connection`, the body read to its end and checked against its checksum;
/// how far it has come kept in `progress` when given.
pub(crate) async fn scrape(
    connection: &mut Connection,
    gzip: bool,
    progress: Option<&BodyProgress>,
) -> Result<Reply, hyper::Error> {
    connection.sender.ready().await?;
    let mut request = Request::get("/metrics").header(hyper::header::HOST, "127.0.0.1");
    if gzip {
        request = request.header(hyper::header::ACCEPT_ENCODING, "gzip");
    }
    let request = request
        .body(Empty::new())
        .expect("a static request is valid");
    let response = connection.sender.send_request(request).await?;
    let status = response.status();
    let header = |name: &str, radix: u32| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| u64::from_str_radix(v, radix).ok())
    };
    let (generation, expected) = (header(GENERATION_HEADER, 10), header(CHECKSUM_HEADER, 16));
    let mut body = response.into_body();
    if let Some(progress) = progress {
        progress
            .length
            .set(hyper::body::Body::size_hint(&body).exact().unwrap_or(0));
    }
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut bytes = 0u64;
    while let Some(frame) = body.frame().await {
        if let Some(data) = frame?.data_ref() {
            hasher.update(data);
            bytes += data.len() as u64;
            if let Some(progress) = progress {
                progress.received.set(bytes);
            }
        }
    }
    Ok(match (status, generation, expected) {
        (StatusCode::OK, Some(generation), Some(expected)) if hasher.digest() == expected => {
            Reply::Served { generation, bytes }
        }
        (StatusCode::OK, _, _) => Reply::Corrupt,
        (StatusCode::SERVICE_UNAVAILABLE, _, _) => Reply::Refused,
        _ => Reply::Failed,
    })
}
