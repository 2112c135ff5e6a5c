//! The HTTP/1.1 server every design is measured behind: hyper on a tokio runtime of its own,
//! listening on `127.0.0.1:0`, started per case and stopped (connections closed, generator
//! threads joined) when dropped.
//!
//! `GET /metrics` asks the design; any other path is 404, another method on `/metrics` 405, and a
//! request hyper cannot parse gets hyper's 400 and a closed connection, while other connections
//! carry on. A request whose `Accept-Encoding` lists gzip gets the body gzipped.

use std::convert::Infallible;
use std::io::IoSlice;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{ACCEPT_ENCODING, ALLOW, CONTENT_ENCODING, CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::{Answer, Generator, MetricsEndpoint, Scrape};

/// Connections the kernel queues for `accept`: more than the largest closed loop's users, which
/// all connect at once (at tokio's default of 1,024, a third of the 1,000-user runs lost a SYN
/// and waited out TCP's one-second retransmission before their first request).
pub(crate) const LISTEN_BACKLOG: u32 = 4096;

/// Response header with the generation a body belongs to.
pub const GENERATION_HEADER: &str = "x-generation";
/// Response header with the XXH3 checksum (16 hex digits) of the body as sent: the compressed
/// bytes of a gzip response.
pub const CHECKSUM_HEADER: &str = "x-body-xxh3";
/// OpenMetrics text, as `prometheus-client` encodes it.
pub const CONTENT_TYPE_OPENMETRICS: &str =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// A client that has not sent a whole request head by then is disconnected.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(5);

/// The server's writes to its sockets since it started: how the bytes of its responses were cut
/// into system calls, which depends on how fast the client drains its socket.
#[derive(Debug, Default)]
pub struct Writes {
    /// Writes that took bytes.
    done: AtomicU64,
    /// Writes that found the socket's buffer full (the connection then waits to be writable).
    blocked: AtomicU64,
}

impl Writes {
    /// Writes done and writes blocked so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.done.load(Relaxed), self.blocked.load(Relaxed))
    }
}

/// A running server.
pub struct Server {
    addr: SocketAddr,
    generator: Arc<Generator>,
    writes: Arc<Writes>,
    backlog: crate::waiting::Probe,
    stop: Option<oneshot::Sender<()>>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Server {
    /// Starts design `E` behind a new listener; `timeout` is the request timeout the endpoint
    /// works to (a request past it is short-circuited by designs that do so).
    pub fn start<E: MetricsEndpoint>(
        generator: Arc<Generator>,
        timeout: Option<Duration>,
    ) -> std::io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("server")
            .on_thread_start(crate::placement::pin_to_server)
            .enable_all()
            .build()?;
        let listener = runtime.block_on(async {
            let socket = tokio::net::TcpSocket::new_v4()?;
            socket.bind(std::net::SocketAddr::from(([127, 0, 0, 1], 0)))?;
            socket.listen(LISTEN_BACKLOG)
        })?;
        let addr = listener.local_addr()?;
        // Made on a server thread, so that the design's generator threads inherit its CPUs.
        let endpoint = {
            let generator = Arc::clone(&generator);
            let made = std::thread::spawn(move || {
                crate::placement::pin_to_server();
                Arc::new(E::new(generator))
            });
            made.join()
                .map_err(|_| std::io::Error::other("the design panicked while starting"))?
        };
        let (stop, stopped) = oneshot::channel();
        let writes = Arc::new(Writes::default());
        let context = Arc::new(Context {
            endpoint: Arc::clone(&endpoint),
            generator: Arc::clone(&generator),
            timeout,
            writes: Arc::clone(&writes),
        });
        runtime.spawn(accept(listener, context, stopped));
        Ok(Self {
            addr,
            generator,
            writes,
            backlog: Arc::new(move || endpoint.backlog()),
            stop: Some(stop),
            runtime: Some(runtime),
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn generator(&self) -> &Arc<Generator> {
        &self.generator
    }

    pub fn writes(&self) -> &Writes {
        &self.writes
    }

    /// Requests the design holds queued or generating right now.
    pub fn backlog(&self) -> usize {
        (self.backlog)()
    }

    /// [`Server::backlog`] for another thread to read.
    pub fn backlog_probe(&self) -> crate::waiting::Probe {
        Arc::clone(&self.backlog)
    }

    /// Waits, polling every millisecond, until the design holds no request or `limit` has
    /// passed; whether it emptied.
    pub fn drained_within(&self, limit: Duration) -> bool {
        let started = Instant::now();
        while self.backlog() > 0 {
            if started.elapsed() >= limit {
                return false;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        true
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // First, so that a generation in flight gives up rather than hold the runtime's shutdown
        // (a blocking task) or the design's threads (joined when it drops) until it finishes.
        self.generator.stop();
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(runtime) = self.runtime.take() {
            // Cancels every connection; the design (and its threads) goes with the last task.
            runtime.shutdown_timeout(Duration::from_secs(2));
        }
    }
}

struct Context<E> {
    endpoint: Arc<E>,
    generator: Arc<Generator>,
    timeout: Option<Duration>,
    writes: Arc<Writes>,
}

/// A connection's socket with its writes counted into the server's [`Writes`].
struct CountedStream {
    stream: TcpStream,
    writes: Arc<Writes>,
}

impl CountedStream {
    fn count(&self, poll: Poll<std::io::Result<usize>>) -> Poll<std::io::Result<usize>> {
        match &poll {
            Poll::Ready(Ok(_)) => self.writes.done.fetch_add(1, Relaxed),
            Poll::Pending => self.writes.blocked.fetch_add(1, Relaxed),
            Poll::Ready(Err(_)) => 0,
        };
        poll
    }
}

impl AsyncRead for CountedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for CountedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.count(poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.count(poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

async fn accept<E: MetricsEndpoint>(
    listener: TcpListener,
    context: Arc<Context<E>>,
    mut stopped: oneshot::Receiver<()>,
) {
    loop {
        let stream = tokio::select! {
            _ = &mut stopped => return,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => continue,
            },
        };
        let _ = stream.set_nodelay(true);
        let context = Arc::clone(&context);
        let stream = CountedStream {
            stream,
            writes: Arc::clone(&context.writes),
        };
        tokio::spawn(async move {
            let service = service_fn(move |request| respond(request, Arc::clone(&context)));
            // A connection error (a client gone mid-body, a malformed request) ends this
            // connection only.
            let _ = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Whether the request's `Accept-Encoding` lists gzip (any quality but zero).
fn accepts_gzip<B>(request: &Request<B>) -> bool {
    request
        .headers()
        .get_all(ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            let name = parts.next().unwrap_or_default();
            let refused = parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    == Some(0.0)
            });
            name.eq_ignore_ascii_case("gzip") && !refused
        })
}

fn plain(status: StatusCode, text: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response
}

async fn respond<E: MetricsEndpoint>(
    request: Request<Incoming>,
    context: Arc<Context<E>>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let arrived = Instant::now();
    if request.uri().path() != "/metrics" {
        return Ok(plain(
            StatusCode::NOT_FOUND,
            "not found; try GET /metrics\n",
        ));
    }
    if request.method() != Method::GET {
        let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "only GET\n");
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET"));
        return Ok(response);
    }
    let scrape = Scrape {
        arrived,
        deadline: context.timeout.map(|t| arrived + t),
    };
    let gzip = accepts_gzip(&request);
    Ok(match context.endpoint.scrape(scrape).await {
        // The body may be a generation given up part-way; the client is being cut off anyway.
        Answer::Exposition(_) if context.generator.stopped() => {
            plain(StatusCode::SERVICE_UNAVAILABLE, "server stopping\n")
        }
        Answer::Exposition(exposition) => {
            // Compressed here, on the server's thread, as a servlet filter would: per response,
            // or once per generation where the design shares the compressed body.
            let (body, checksum) = if gzip {
                let gzipped = exposition.gzip();
                (gzipped.body, gzipped.checksum)
            } else {
                (exposition.body, exposition.checksum)
            };
            if !scrape.expired(Instant::now()) {
                context.generator.served_in_time(exposition.generation);
            }
            let mut response = Response::new(Full::new(body));
            let headers = response.headers_mut();
            headers.insert(
                CONTENT_TYPE,
                HeaderValue::from_static(CONTENT_TYPE_OPENMETRICS),
            );
            if gzip {
                headers.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            }
            headers.insert(GENERATION_HEADER, HeaderValue::from(exposition.generation));
            headers.insert(
                CHECKSUM_HEADER,
                HeaderValue::from_str(&format!("{checksum:016x}"))
                    .expect("hex digits are a valid header value"),
            );
            response
        }
        Answer::Overloaded => plain(StatusCode::SERVICE_UNAVAILABLE, "overloaded\n"),
        Answer::TimedOut => plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "timed out before generation\n",
        ),
    })
}
