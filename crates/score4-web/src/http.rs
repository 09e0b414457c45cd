//! The little of HTTP/1.1 the server speaks: one request per connection,
//! read within limits of size and time, and one response, then close.
//!
//! Nothing here trusts the client: the head is read up to a fixed size
//! and a fixed time, the body is refused past a fixed size, and every
//! malformation becomes an [`HttpError`] with its status.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

/// What a request may be, at most.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Bytes of the request line and headers together.
    pub head_bytes: usize,
    /// Bytes of the request target (path and query).
    pub target_bytes: usize,
    /// Bytes of a body (the API reads none, but a client may send one).
    pub body_bytes: usize,
    /// Time to receive the head and body, from the first byte asked for.
    pub read_time: Duration,
}

/// A request the server can answer.
#[derive(Debug)]
pub struct Request {
    /// `GET`, `POST`, ... as sent.
    pub method: String,
    /// The path, before any `?`.
    pub path: String,
    /// The query, after the `?` (empty without one), still encoded.
    pub query: String,
}

/// Why a request was refused before it was routed: a status and one line.
#[derive(Debug)]
pub struct HttpError {
    /// The response status.
    pub status: u16,
    /// What was wrong.
    pub message: String,
}

impl HttpError {
    fn new(status: u16, message: impl Into<String>) -> HttpError {
        HttpError {
            status,
            message: message.into(),
        }
    }
}

/// Reads one request from `stream` within `limits`. `Ok(None)` when the
/// client closed or went quiet before sending anything (nobody to answer).
pub fn read_request(stream: &mut TcpStream, limits: &Limits) -> Result<Option<Request>, HttpError> {
    let start = Instant::now();
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    let head_end = loop {
        if let Some(end) = find_head_end(&buf) {
            break end;
        }
        if buf.len() > limits.head_bytes {
            return Err(HttpError::new(431, "the request head is too large"));
        }
        match read_some(stream, &mut chunk, start, limits.read_time) {
            Ok(0) if buf.is_empty() => return Ok(None),
            Ok(0) => return Err(HttpError::new(400, "the request ended before its head did")),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if is_timeout(&e) && buf.is_empty() => return Ok(None),
            Err(e) if is_timeout(&e) => {
                return Err(HttpError::new(408, "the request head took too long"))
            }
            Err(_) => return Ok(None),
        }
    };
    if head_end > limits.head_bytes {
        return Err(HttpError::new(431, "the request head is too large"));
    }
    let head = std::str::from_utf8(&buf[..head_end])
        .map_err(|_| HttpError::new(400, "the request head is not UTF-8"))?;
    // A bare LF ends a line too, as RFC 9112 allows a server to accept.
    let mut lines = head.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split(' ');
    let (method, target, version) = match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(m), Some(t), Some(v), None) if !m.is_empty() && !t.is_empty() => (m, t, v),
        _ => return Err(HttpError::new(400, "malformed request line")),
    };
    if !matches!(version, "HTTP/1.1" | "HTTP/1.0") {
        return Err(HttpError::new(505, "only HTTP/1.0 and HTTP/1.1 are spoken"));
    }
    if !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(HttpError::new(400, "malformed request method"));
    }
    if target.len() > limits.target_bytes {
        return Err(HttpError::new(
            414,
            format!(
                "the request target is longer than {} bytes",
                limits.target_bytes
            ),
        ));
    }
    if !target.starts_with('/') {
        return Err(HttpError::new(
            400,
            "the request target must start with '/'",
        ));
    }
    let mut content_length: Option<usize> = None;
    for line in lines.filter(|l| !l.is_empty()) {
        let (name, value) = line
            .split_once(':')
            .filter(|(name, _)| !name.is_empty() && name.bytes().all(is_token_byte))
            .ok_or_else(|| HttpError::new(400, "malformed header line"))?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            // Digits only: `+3` or `3, 4` would frame the body as the
            // client did not mean.
            let length = Some(value)
                .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| HttpError::new(400, "malformed Content-Length"))?;
            if content_length.is_some_and(|l| l != length) {
                return Err(HttpError::new(400, "conflicting Content-Length headers"));
            }
            content_length = Some(length);
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return Err(HttpError::new(
                411,
                "bodies must be sent with a Content-Length",
            ));
        }
    }
    let content_length = content_length.unwrap_or(0);
    if content_length > limits.body_bytes {
        return Err(HttpError::new(
            413,
            format!(
                "the request body is larger than {} bytes",
                limits.body_bytes
            ),
        ));
    }
    // Read (and drop) the body, so that closing leaves nothing unread.
    let mut body_left = content_length.saturating_sub(buf.len() - head_end);
    while body_left > 0 {
        match read_some(stream, &mut chunk, start, limits.read_time) {
            Ok(0) => return Err(HttpError::new(400, "the request ended before its body did")),
            Ok(n) => body_left = body_left.saturating_sub(n),
            Err(_) => return Err(HttpError::new(408, "the request body took too long")),
        }
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    Ok(Some(Request {
        method: method.to_string(),
        path: path.to_string(),
        query: query.to_string(),
    }))
}

/// The end of the head (after its blank line, CRLF or bare LF), if it
/// has arrived.
fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.iter()
        .enumerate()
        .find_map(|(i, &b)| match (b, &buf[i + 1..]) {
            (b'\n', [b'\n', ..]) => Some(i + 2),
            (b'\n', [b'\r', b'\n', ..]) => Some(i + 3),
            _ => None,
        })
}

/// A byte a header name may hold (RFC 9110's `tchar`).
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// One read, given what is left of the time allowed.
fn read_some(
    stream: &mut TcpStream,
    chunk: &mut [u8],
    start: Instant,
    allowed: Duration,
) -> io::Result<usize> {
    let left = allowed.saturating_sub(start.elapsed());
    if left.is_zero() {
        return Err(io::ErrorKind::TimedOut.into());
    }
    stream.set_read_timeout(Some(left))?;
    stream.read(chunk)
}

fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// A response's status line reason.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Content Too Large",
        414 => "URI Too Long",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        _ => "Error",
    }
}

/// A response to write.
pub struct Response {
    /// The status.
    pub status: u16,
    /// Its Content-Type.
    pub content_type: &'static str,
    /// Extra header lines, each ending in CRLF.
    pub extra: &'static str,
    /// The body.
    pub body: Vec<u8>,
}

impl Response {
    /// A JSON response.
    pub fn json(status: u16, value: &serde_json::Value) -> Response {
        Response {
            status,
            content_type: "application/json",
            // The headers these statuses call for, whoever answers with them.
            extra: match status {
                503 => "Retry-After: 1\r\n",
                405 => "Allow: GET\r\n",
                _ => "",
            },
            body: value.to_string().into_bytes(),
        }
    }

    /// A JSON error: `{"error": message}`.
    pub fn error(status: u16, message: &str) -> Response {
        Response::json(status, &serde_json::json!({ "error": message }))
    }
}

/// Writes `response` and closes the connection, giving the client a
/// moment to read it before the socket goes.
pub fn write_response(stream: &mut TcpStream, response: &Response) {
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n{}\r\n",
        response.status,
        reason(response.status),
        response.content_type,
        response.body.len(),
        response.extra,
    );
    let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
    let _ = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(&response.body))
        .and_then(|()| stream.flush());
    close(stream);
}

/// How long a close waits for the client's last bytes, at most, in all:
/// a client that trickles bytes must not hold a connection thread.
const DRAIN_TIME: Duration = Duration::from_millis(250);

/// Closes after a reply: shut the sending side, then drain what the client
/// may still send for a moment, so that the close does not reset the
/// connection and lose the reply in flight.
pub fn close(stream: &mut TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let start = Instant::now();
    let mut sink = [0u8; 1024];
    let mut drained = 0;
    while drained < 64 * 1024 {
        match read_some(stream, &mut sink, start, DRAIN_TIME) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
}

/// Whether the client has gone: it closed its side (a read would see the
/// end) or the connection failed. Data waiting to be read is a client
/// still there.
pub fn client_gone(stream: &TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return true;
    }
    let mut byte = [0u8; 1];
    let gone = match stream.peek(&mut byte) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() != io::ErrorKind::WouldBlock,
    };
    let _ = stream.set_nonblocking(false);
    gone
}
