//! The connections: accepted up to a fixed number, each served by hyper's
//! HTTP/1.1 (keep-alive) as one small task, within limits of size and
//! time, and stopped gracefully.
//!
//! Nothing here trusts the client: a request head must arrive whole within
//! [`Limits::read_time`] (an idle keep-alive connection is closed after it
//! too) and within [`Limits::head_bytes`]; an answer it does not read is
//! given up after [`Limits::write_time`] without progress; a target or a
//! body past its limit is refused; and past [`crate::Config::connections`]
//! open connections a new one is answered 503 and closed.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use serde_json::{json, Value};
use tokio::io::AsyncWrite;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};
use tower::Service;

/// What a request may be, at most.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Bytes of the request line and headers together.
    pub head_bytes: usize,
    /// Bytes of the request target (path and query).
    pub target_bytes: usize,
    /// Bytes of a body (the API reads none, but a client may send one).
    pub body_bytes: usize,
    /// Time to receive a request head, from when the server starts waiting
    /// for it: on a new connection, or after the previous answer on a kept
    /// one.
    pub read_time: Duration,
    /// Time a write to a client may make no progress (a client that reads
    /// no answer): past it the connection is closed, so that it holds its
    /// slot no longer.
    pub write_time: Duration,
}

/// A JSON response; a 503 says when to try again.
pub(crate) fn json(status: u16, value: &Value) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut r = (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response();
    if status == StatusCode::SERVICE_UNAVAILABLE {
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    r
}

/// A JSON error: `{"error": message}`.
pub(crate) fn error(status: u16, message: &str) -> Response {
    json(status, &json!({ "error": message }))
}

/// Checks a request before anything else sees it, and words every error
/// the layers inside answer without a JSON body (the body limit's 413, the
/// router's 405) as the API's errors are worded.
pub(crate) async fn guard(limits: Limits, request: Request, next: Next) -> Response {
    let uri = request.uri();
    // Origin form only: `GET http://host/` and `GET *` are for proxies.
    if uri.scheme().is_some() || uri.authority().is_some() || !uri.path().starts_with('/') {
        return error(400, "the request target must start with '/'");
    }
    let target = uri.path_and_query().map_or(0, |t| t.as_str().len());
    if target > limits.target_bytes {
        return error(
            414,
            &format!(
                "the request target is longer than {} bytes",
                limits.target_bytes
            ),
        );
    }
    if request.headers().contains_key(header::TRANSFER_ENCODING) {
        // Nothing here reads a body: one of unknown length is refused
        // rather than left unread.
        return error(411, "bodies must be sent with a Content-Length");
    }
    let method = request.method().clone();
    let response = next.run(request).await;
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t == "application/json");
    if response.status().as_u16() < 400 || is_json {
        return response;
    }
    let status = response.status().as_u16();
    let message = match status {
        405 => format!(
            "{} is not allowed here: only GET",
            score4::input::Quoted::new(method.as_str())
        ),
        413 => format!(
            "the request body is larger than {} bytes",
            limits.body_bytes
        ),
        _ => response
            .status()
            .canonical_reason()
            .unwrap_or("error")
            .to_lowercase(),
    };
    let mut out = error(status, &message);
    for name in [header::ALLOW, header::RETRY_AFTER] {
        if let Some(v) = response.headers().get(&name) {
            out.headers_mut().insert(name, v.clone());
        }
    }
    out
}

/// The bytes of the 503 a connection past the limit gets before it is
/// closed.
fn refusal() -> Vec<u8> {
    let body = json!({ "error": "the server has too many connections; try again in a second" })
        .to_string();
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nRetry-After: 1\r\nCache-Control: no-store\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// How long a refused connection is read from after its 503, at most.
const REFUSAL_LINGER: Duration = Duration::from_millis(100);

/// Answers a connection past the limit with `answer` and closes it. A
/// socket closed with the client's request unread is reset, and a reset
/// may discard the answer before the client reads it: so the sending side
/// is shut first, and what the client sent (up to a head) is read and
/// dropped for a moment before the close.
async fn refuse(mut stream: TcpStream, answer: Arc<[u8]>, head_bytes: usize) {
    let lingering = async {
        let mut sent = 0;
        while sent < answer.len() {
            stream.writable().await?;
            match stream.try_write(&answer[sent..]) {
                Ok(n) => sent += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        std::future::poll_fn(|cx| Pin::new(&mut stream).poll_shutdown(cx)).await?;
        let mut left = head_bytes;
        let mut buf = [0u8; 1024];
        while left > 0 {
            stream.readable().await?;
            match stream.try_read(&mut buf) {
                Ok(0) => break,
                Ok(n) => left = left.saturating_sub(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    };
    let _ = tokio::time::timeout(REFUSAL_LINGER, lingering).await;
}

/// Serves connections from `listener` with `app` until `stop` turns true;
/// then takes no new connection, lets each finish the request it has (an
/// idle one closes at once), and returns once all are closed or `drain`
/// has passed.
pub(crate) async fn serve<S>(
    listener: TcpListener,
    app: S,
    limits: Limits,
    connections: usize,
    mut stop: watch::Receiver<bool>,
    drain: Duration,
) where
    S: Service<Request<hyper::body::Incoming>, Response = Response, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
{
    let connections = connections.clamp(1, Semaphore::MAX_PERMITS);
    let open = Arc::new(Semaphore::new(connections));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.read_time)
        .max_header_size(limits.head_bytes)
        // The read buffer holds at most a head; the write buffer queues
        // what a slow reader has not taken, up to the same bound.
        .max_buf_size(limits.head_bytes.max(8192));
    let refusal: Arc<[u8]> = refusal().into();
    loop {
        let stopped = async {
            let _ = stop.wait_for(|s| *s).await;
        };
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = stopped => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(_) => {
                // Out of file descriptors and the like: let it pass.
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let Ok(permit) = Arc::clone(&open).try_acquire_owned() else {
            tokio::spawn(refuse(stream, Arc::clone(&refusal), limits.head_bytes));
            continue;
        };
        let io = WriteBound::new(TokioIo::new(stream), limits.write_time);
        let conn = http.serve_connection(io, TowerToHyperService::new(app.clone()));
        let mut stop = stop.clone();
        tokio::spawn(async move {
            let _permit = permit;
            tokio::pin!(conn);
            let stopped = async {
                let _ = stop.wait_for(|s| *s).await;
            };
            tokio::select! {
                _ = conn.as_mut() => {}
                () = stopped => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
        });
    }
    drop(listener);
    let all = u32::try_from(connections).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(drain, open.acquire_many(all)).await;
}

/// A connection's IO whose writes fail once none has made progress for a
/// bound: hyper has no write timeout of its own, and a client that sends
/// requests but reads no answer (pipelined requests, a stream it never
/// reads) would otherwise hold its task and its connection slot until the
/// server stops. The error ends the connection.
struct WriteBound<T> {
    io: T,
    bound: Duration,
    /// Set when a write first waits; cleared by any progress.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<T> WriteBound<T> {
    fn new(io: T, bound: Duration) -> WriteBound<T> {
        WriteBound {
            io,
            bound,
            stalled: None,
        }
    }

    /// Passes a write's outcome on, or fails it once it has waited past
    /// the bound.
    fn bounded<R>(
        &mut self,
        cx: &mut Context<'_>,
        outcome: Poll<io::Result<R>>,
    ) -> Poll<io::Result<R>> {
        if outcome.is_ready() {
            self.stalled = None;
            return outcome;
        }
        let bound = self.bound;
        let stalled = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(bound)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client read nothing of its answer for too long",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: hyper::rt::Read + Unpin> hyper::rt::Read for WriteBound<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<T: hyper::rt::Write + Unpin> hyper::rt::Write for WriteBound<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.io).poll_write(cx, buf);
        this.bounded(cx, outcome)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.bounded(cx, outcome)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.io).poll_flush(cx);
        this.bounded(cx, outcome)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let outcome = Pin::new(&mut this.io).poll_shutdown(cx);
        this.bounded(cx, outcome)
    }
}

/// Converts the body of a response built elsewhere (the page).
pub(crate) fn html(body: &'static str) -> Response {
    let mut r = Response::new(Body::from(body));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'",
        ),
    );
    r
}
