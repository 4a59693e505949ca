//! The small HTTP/1.1 serving core the demo judge stands on, shared with the
//! test server (which adds fault injection on top, only in test builds):
//! an accept loop on 127.0.0.1, request reading (Content-Length or chunked
//! bodies, keep-alive) and response heads and chunks.

use serde_json::Value;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// Largest request head accepted, and largest trailer section after a
/// chunked body's last chunk (a chunk-size line is held to it too).
const MAX_HEAD: usize = 64 * 1024;
/// Largest request body accepted.
const MAX_BODY: usize = 64 * 1024 * 1024;
/// Connections served at once; one more gets a 503 and is closed.
pub const MAX_CONNECTIONS: usize = 128;
/// A kept-alive connection that sends no next request for this long is closed.
const KEEP_ALIVE_IDLE: Duration = Duration::from_secs(60);
/// A request's head must arrive within this of its first byte...
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// ...and its body within this of the head's end.
const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// One request as the server read it.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Arrival order, from 0 (set by the server that counts them).
    pub seq: usize,
    pub method: String,
    /// The request target including any query string.
    pub path: String,
    /// Header names lower-cased, in order.
    pub headers: Vec<(String, String)>,
    /// The body as JSON; `Null` when empty, a JSON string when not JSON.
    pub body: Value,
}

impl Request {
    /// `"stream": true` in the body.
    pub fn wants_stream(&self) -> bool {
        self.body.get("stream").and_then(Value::as_bool) == Some(true)
    }

    /// A header value by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The request offers tools.
    pub fn uses_tools(&self) -> bool {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .is_some_and(|t| !t.is_empty())
    }

    /// The `response_format.type`, if any (`json_schema`, `json_object`).
    pub fn response_format(&self) -> Option<&str> {
        self.body
            .get("response_format")
            .and_then(|r| r.get("type"))
            .and_then(Value::as_str)
    }

    /// The text of the last user message (content parts joined).
    pub fn last_user_message(&self) -> Option<String> {
        let msgs = self.body.get("messages")?.as_array()?;
        let m = msgs
            .iter()
            .rev()
            .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))?;
        match m.get("content")? {
            Value::String(s) => Some(s.clone()),
            Value::Array(parts) => Some(
                parts
                    .iter()
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => None,
        }
    }
}

/// Bind 127.0.0.1:`port` (0: any free one) and hand every accepted
/// connection to `serve` on its own task until `stop` is cancelled (open
/// connections are dropped then too). At most [`MAX_CONNECTIONS`] are served
/// at once: past that a connection is answered 503 and closed, so a client
/// that opens connections and never closes them cannot use up the process.
/// Must be called inside a tokio runtime.
pub async fn listen<F, Fut>(
    port: u16,
    stop: CancellationToken,
    serve: F,
) -> std::io::Result<SocketAddr>
where
    F: Fn(TcpStream) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    listen_at_most(port, MAX_CONNECTIONS, stop, serve).await
}

/// As [`listen`], serving at most `max_connections` at once (the test
/// server of a benchmark with hundreds of requests in flight, as a vLLM
/// server takes them).
pub async fn listen_at_most<F, Fut>(
    port: u16,
    max_connections: usize,
    stop: CancellationToken,
    serve: F,
) -> std::io::Result<SocketAddr>
where
    F: Fn(TcpStream) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = listener.local_addr()?;
    let open = Arc::new(Semaphore::new(max_connections.max(1)));
    tokio::spawn(async move {
        loop {
            let accepted = tokio::select! {
                _ = stop.cancelled() => break,
                a = listener.accept() => a,
            };
            match accepted {
                Ok((sock, _)) => {
                    let _ = sock.set_nodelay(true);
                    let Ok(permit) = open.clone().try_acquire_owned() else {
                        tokio::spawn(refuse(sock));
                        continue;
                    };
                    let (st, conn) = (stop.clone(), serve(sock));
                    tokio::spawn(async move {
                        tokio::select! {
                            _ = st.cancelled() => {}
                            _ = conn => {}
                        }
                        drop(permit);
                    });
                }
                // Out of file descriptors and the like: back off a little.
                Err(_) => tokio::time::sleep(std::time::Duration::from_millis(5)).await,
            }
        }
    });
    Ok(addr)
}

/// A connection past the limit: told so, and closed.
async fn refuse(mut sock: TcpStream) {
    let body = r#"{"error":{"message":"too many open connections; try again shortly","type":"server_busy"}}"#;
    let mut out = head(
        503,
        &[("Connection".into(), "close".into())],
        "application/json",
        Some(body.len()),
    );
    out.extend_from_slice(body.as_bytes());
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        let _ = sock.write_all(&out).await;
        let _ = sock.shutdown().await;
    })
    .await;
}

/// Where `needle` starts in `hay`, looking from `from` on: callers that read
/// more bytes resume where the last look ended, so a line that never ends
/// costs linear time, not a rescan per read.
fn find_from(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let from = from.min(hay.len());
    hay[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

/// Where `needle` first occurs in `buf`, reading as needed; `None` at EOF
/// or once `buf` holds more than `max` bytes without it. A line ends at
/// `\r\n`, a head at its blank line (`\r\n\r\n`).
async fn find_reading(
    sock: &mut TcpStream,
    buf: &mut Vec<u8>,
    needle: &[u8],
    max: usize,
) -> Option<usize> {
    let mut from = 0;
    loop {
        if let Some(i) = find_from(buf, needle, from) {
            return Some(i);
        }
        if buf.len() > max {
            return None;
        }
        // The needle may straddle what was read and what comes next.
        from = buf.len().saturating_sub(needle.len() - 1);
        if !fill(sock, buf).await {
            return None;
        }
    }
}

/// Read more bytes into `buf`; false on EOF or error.
async fn fill(sock: &mut TcpStream, buf: &mut Vec<u8>) -> bool {
    let mut tmp = [0u8; 16 * 1024];
    match sock.read(&mut tmp).await {
        Ok(0) | Err(_) => false,
        Ok(n) => {
            buf.extend_from_slice(&tmp[..n]);
            true
        }
    }
}

/// Take exactly `n` bytes from the front of `buf`, reading as needed.
async fn take(sock: &mut TcpStream, buf: &mut Vec<u8>, n: usize) -> Option<Vec<u8>> {
    while buf.len() < n {
        if !fill(sock, buf).await {
            return None;
        }
    }
    Some(buf.drain(..n).collect())
}

/// Decode a chunked request body. Chunk-size lines and the trailers after
/// the last chunk are held to [`MAX_HEAD`] bytes, the body to [`MAX_BODY`].
async fn take_chunked(sock: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let end = find_reading(sock, buf, b"\r\n", MAX_HEAD).await?;
        let line = String::from_utf8_lossy(&buf[..end]).to_string();
        buf.drain(..end + 2);
        let size_text = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16).ok()?;
        if size == 0 {
            // Trailers until an empty line, all of them within MAX_HEAD.
            let mut trailers = 0usize;
            loop {
                let end = find_reading(sock, buf, b"\r\n", MAX_HEAD - trailers).await?;
                buf.drain(..end + 2);
                if end == 0 {
                    return Some(body);
                }
                trailers += end + 2;
                if trailers > MAX_HEAD {
                    return None;
                }
            }
        }
        if body.len().checked_add(size)? > MAX_BODY {
            return None;
        }
        body.extend(take(sock, buf, size + 2).await?.into_iter().take(size));
    }
}

/// The next request on a kept-alive connection (`buf` carries bytes read
/// past the previous one) with `seq` 0, and whether the client asked to
/// close after it; `None` when the connection ended, sent something too
/// large or unreadable, or was too slow: idle for [`KEEP_ALIVE_IDLE`]
/// before a request, a head not complete within [`HEAD_TIMEOUT`] of its
/// first byte, a body not within [`BODY_TIMEOUT`] of the head.
pub async fn read_request(sock: &mut TcpStream, buf: &mut Vec<u8>) -> Option<(Request, bool)> {
    if buf.is_empty() {
        let more = tokio::time::timeout(KEEP_ALIVE_IDLE, fill(sock, buf))
            .await
            .ok()?;
        if !more {
            return None;
        }
    }
    let head_end =
        tokio::time::timeout(HEAD_TIMEOUT, find_reading(sock, buf, b"\r\n\r\n", MAX_HEAD))
            .await
            .ok()??;
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    buf.drain(..head_end + 4);
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let version = parts.next().unwrap_or("HTTP/1.1").to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            Some((k.trim().to_ascii_lowercase(), v.trim().to_string()))
        })
        .collect();
    let get = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let chunked =
        get("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    let body_bytes = tokio::time::timeout(BODY_TIMEOUT, async {
        if chunked {
            take_chunked(sock, buf).await
        } else {
            let len = get("content-length")
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(0);
            if len > MAX_BODY {
                return None;
            }
            take(sock, buf, len).await
        }
    })
    .await
    .ok()??;
    let wants_close =
        get("connection").is_some_and(|v| v.eq_ignore_ascii_case("close")) || version == "HTTP/1.0";
    let body = if body_bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&body_bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body_bytes).into_owned()))
    };
    let req = Request {
        seq: 0,
        method,
        path,
        headers,
        body,
    };
    Some((req, wants_close))
}

pub fn reason(code: u16) -> &'static str {
    match code {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

/// A response head: `Content-Type` unless `headers` has one, then
/// `Content-Length: len`, or chunked transfer when `len` is `None`.
pub fn head(
    code: u16,
    headers: &[(String, String)],
    content_type: &str,
    len: Option<usize>,
) -> Vec<u8> {
    let mut h = format!("HTTP/1.1 {code} {}\r\n", reason(code));
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
    {
        h.push_str(&format!("Content-Type: {content_type}\r\n"));
    }
    for (k, v) in headers {
        h.push_str(&format!("{k}: {v}\r\n"));
    }
    match len {
        Some(n) => h.push_str(&format!("Content-Length: {n}\r\n")),
        None => h.push_str("Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n"),
    }
    h.push_str("\r\n");
    h.into_bytes()
}

/// One HTTP chunk of a chunked body.
pub fn http_chunk(data: &[u8]) -> Vec<u8> {
    let mut out = format!("{:x}\r\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;
    use tokio::net::TcpListener;

    /// `read_request` on the server side of a loopback connection whose
    /// client sends `bytes` (and keeps the connection open: a cap must not
    /// wait for the client to give up), with how many bytes it had read.
    async fn served(bytes: Vec<u8>) -> (Option<(Request, bool)>, usize) {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let client = tokio::spawn(async move {
            let mut c = tokio::net::TcpStream::connect(addr).await.expect("connect");
            // Refused writes are the point: the server stops reading.
            let _ = c.write_all(&bytes).await;
            c
        });
        let (mut sock, _) = listener.accept().await.expect("accept");
        let mut buf = Vec::new();
        let got = read_request(&mut sock, &mut buf).await;
        drop(sock);
        let _ = client.await;
        (got, buf.len())
    }

    #[tokio::test]
    async fn a_head_past_its_cap_is_refused_without_reading_on() {
        let mut bytes = b"POST /v1/chat/completions HTTP/1.1\r\nX-Long: ".to_vec();
        bytes.extend(std::iter::repeat_n(b'a', 4 * MAX_HEAD));
        let (got, read) = served(bytes).await;
        assert!(got.is_none());
        // At most one read past the cap.
        assert!(read <= MAX_HEAD + 16 * 1024 + 1, "{read} bytes read");
    }

    #[tokio::test]
    async fn a_body_announced_past_its_cap_is_refused_before_it_is_read() {
        let head = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: {}\r\n\r\n{{",
            MAX_BODY + 1
        );
        let (got, _) = served(head.into_bytes()).await;
        assert!(got.is_none());
    }

    #[tokio::test]
    async fn a_chunk_past_the_body_cap_is_refused_before_it_is_read() {
        let head = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{{",
            MAX_BODY + 1
        );
        let (got, _) = served(head.into_bytes()).await;
        assert!(got.is_none());
    }

    /// Under the caps a request is read whole (the tests above fail for
    /// the cap, not for the framing).
    #[tokio::test]
    async fn a_request_under_the_caps_is_read() {
        let body = br#"{"model":"m","stream":true}"#;
        let mut bytes = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .into_bytes();
        bytes.extend_from_slice(body);
        let (got, _) = served(bytes).await;
        let (req, close) = got.expect("read");
        assert_eq!(req.path, "/v1/chat/completions");
        assert!(close && req.wants_stream());
    }
}
