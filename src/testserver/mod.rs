//! A fake OpenAI-compatible server for tests, benchmarks and the demo judge:
//! real HTTP/1.1 over TCP on 127.0.0.1, keep-alive, chunked SSE streams,
//! scripted per request by a responder closure.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use jury::testserver::{Reply, TestServer};
//! let server = TestServer::start(|req| {
//!     if req.seq == 0 { Reply::status(429, "{}") } else { Reply::tool("get_evaluations", "{}") }
//! }).await?;
//! let base = server.base_url(); // http://127.0.0.1:PORT/v1
//! # Ok(()) }
//! ```
//!
//! Streams alternate LF (even `seq`) and CRLF (odd `seq`) line ends, start with
//! a `: keep-alive` comment, spread the first event over two `data:` lines and
//! split every event across two HTTP chunks.

pub mod demo_judge;
mod reply;

pub use reply::{Reply, models_reply, split_chars};

use reply::{Step, render};
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// Largest request head and body accepted.
const MAX_HEAD: usize = 64 * 1024;
const MAX_BODY: usize = 64 * 1024 * 1024;

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// Arrival order, from 0.
    pub seq: usize,
    pub method: String,
    /// The request target including any query string.
    pub path: String,
    /// Header names lower-cased, in order.
    pub headers: Vec<(String, String)>,
    /// The body as JSON; `Null` when empty, a JSON string when not JSON.
    pub body: Value,
}

impl RecordedRequest {
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

type Responder = dyn Fn(&RecordedRequest) -> Reply + Send + Sync;

struct Shared {
    responder: Box<Responder>,
    requests: Mutex<Vec<RecordedRequest>>,
    seq: AtomicUsize,
    /// When each answer's last byte was handed to the socket, by `seq`.
    answered: Mutex<Vec<(usize, std::time::Instant)>>,
}

/// A running fake server; stops on [`TestServer::shutdown`] or drop.
pub struct TestServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: CancellationToken,
}

impl std::fmt::Debug for TestServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestServer")
            .field("addr", &self.addr)
            .finish()
    }
}

impl TestServer {
    /// Bind 127.0.0.1 on a free port and serve until shut down. Must be called
    /// inside a tokio runtime.
    pub async fn start<F>(responder: F) -> std::io::Result<TestServer>
    where
        F: Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    {
        Self::start_on(0, responder).await
    }

    /// As [`TestServer::start`] on a chosen port of 127.0.0.1 (0: any free one).
    pub async fn start_on<F>(port: u16, responder: F) -> std::io::Result<TestServer>
    where
        F: Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            responder: Box::new(responder),
            requests: Mutex::new(Vec::new()),
            seq: AtomicUsize::new(0),
            answered: Mutex::new(Vec::new()),
        });
        let stop = CancellationToken::new();
        let (s, st) = (shared.clone(), stop.clone());
        tokio::spawn(async move {
            loop {
                let accepted = tokio::select! {
                    _ = st.cancelled() => break,
                    a = listener.accept() => a,
                };
                match accepted {
                    Ok((sock, _)) => {
                        let _ = sock.set_nodelay(true);
                        let (s, st) = (s.clone(), st.clone());
                        tokio::spawn(async move {
                            tokio::select! {
                                _ = st.cancelled() => {}
                                _ = serve_connection(sock, &s) => {}
                            }
                        });
                    }
                    // Out of file descriptors and the like: back off a little.
                    Err(_) => tokio::time::sleep(std::time::Duration::from_millis(5)).await,
                }
            }
        });
        Ok(TestServer { addr, shared, stop })
    }

    /// `http://127.0.0.1:PORT/v1`
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        match self.shared.requests.lock() {
            Ok(r) => r.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Drops the requests recorded so far (the count goes on): a long soak
    /// would otherwise measure the log's growth, not the client's.
    pub fn forget_requests(&self) {
        match self.shared.requests.lock() {
            Ok(mut r) => r.clear(),
            Err(poisoned) => poisoned.into_inner().clear(),
        }
        match self.shared.answered.lock() {
            Ok(mut a) => a.clear(),
            Err(poisoned) => poisoned.into_inner().clear(),
        }
    }

    /// `(seq, when)` for every answer whose last byte was written, in the
    /// order they finished: benchmarks split time between server and client.
    pub fn answer_times(&self) -> Vec<(usize, std::time::Instant)> {
        match self.shared.answered.lock() {
            Ok(a) => a.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Number of requests received so far.
    pub fn request_count(&self) -> usize {
        self.shared.seq.load(Ordering::SeqCst)
    }

    /// Stop accepting and drop open connections.
    pub fn shutdown(self) {
        self.stop.cancel();
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
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

/// Decode a chunked request body.
async fn take_chunked(sock: &mut TcpStream, buf: &mut Vec<u8>) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = loop {
            if let Some(i) = find(buf, b"\r\n") {
                break i;
            }
            if buf.len() > MAX_HEAD || !fill(sock, buf).await {
                return None;
            }
        };
        let line = String::from_utf8_lossy(&buf[..line_end]).to_string();
        buf.drain(..line_end + 2);
        let size_text = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16).ok()?;
        if size == 0 {
            // Trailers until an empty line.
            loop {
                let end = loop {
                    if let Some(i) = find(buf, b"\r\n") {
                        break i;
                    }
                    if !fill(sock, buf).await {
                        return None;
                    }
                };
                buf.drain(..end + 2);
                if end == 0 {
                    return Some(body);
                }
            }
        }
        if body.len() + size > MAX_BODY {
            return None;
        }
        body.extend(take(sock, buf, size + 2).await?.into_iter().take(size));
    }
}

async fn serve_connection(mut sock: TcpStream, shared: &Shared) {
    let mut buf: Vec<u8> = Vec::with_capacity(8192);
    loop {
        // The request head.
        let head_end = loop {
            if let Some(i) = find(&buf, b"\r\n\r\n") {
                break i;
            }
            if buf.len() > MAX_HEAD || !fill(&mut sock, &mut buf).await {
                return;
            }
        };
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
        let body_bytes = if chunked {
            match take_chunked(&mut sock, &mut buf).await {
                Some(b) => b,
                None => return,
            }
        } else {
            let len = get("content-length")
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(0);
            if len > MAX_BODY {
                return;
            }
            match take(&mut sock, &mut buf, len).await {
                Some(b) => b,
                None => return,
            }
        };
        let wants_close = get("connection").is_some_and(|v| v.eq_ignore_ascii_case("close"))
            || version == "HTTP/1.0";
        let body = if body_bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&body_bytes).unwrap_or_else(|_| {
                Value::String(String::from_utf8_lossy(&body_bytes).into_owned())
            })
        };
        let req = RecordedRequest {
            seq: shared.seq.fetch_add(1, Ordering::SeqCst),
            method,
            path,
            headers,
            body,
        };
        match shared.requests.lock() {
            Ok(mut r) => r.push(req.clone()),
            Err(poisoned) => poisoned.into_inner().push(req.clone()),
        }
        // A delay counts from the request's arrival (then from the previous
        // write), not from after the reply was rendered: a server that answers
        // "after 200 ms" should not add its own rendering time on top.
        let mut since = tokio::time::Instant::now();
        let reply = (shared.responder)(&req);
        let seq = req.seq;
        let mut close = wants_close;
        for step in render(&reply, &req) {
            match step {
                Step::Write(bytes) => {
                    if sock.write_all(&bytes).await.is_err() || sock.flush().await.is_err() {
                        return;
                    }
                    since = tokio::time::Instant::now();
                }
                Step::Repeat(bytes, times) => {
                    for _ in 0..times {
                        if sock.write_all(&bytes).await.is_err() {
                            return;
                        }
                    }
                    if sock.flush().await.is_err() {
                        return;
                    }
                    since = tokio::time::Instant::now();
                }
                Step::Sleep(d) => {
                    tokio::time::sleep_until(since + d).await;
                    since = tokio::time::Instant::now();
                }
                Step::Close => close = true,
            }
        }
        match shared.answered.lock() {
            Ok(mut a) => a.push((seq, std::time::Instant::now())),
            Err(poisoned) => poisoned.into_inner().push((seq, std::time::Instant::now())),
        }
        if close {
            let _ = sock.shutdown().await;
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coalesced_replies_send_the_same_bytes_in_one_write() {
        let req = RecordedRequest {
            seq: 1,
            method: "POST".into(),
            path: "/v1/chat/completions".into(),
            headers: vec![],
            body: serde_json::json!({"model": "m", "stream": true}),
        };
        let inner = Reply::tool("get_evaluations", r#"{"resultItems": []}"#);
        let bytes = |steps: Vec<Step>| -> (usize, Vec<u8>) {
            let writes = steps.iter().filter(|s| matches!(s, Step::Write(_))).count();
            let all = steps
                .into_iter()
                .flat_map(|s| match s {
                    Step::Write(b) => b,
                    _ => Vec::new(),
                })
                .collect();
            (writes, all)
        };
        let (split, plain) = bytes(render(&inner, &req));
        let (joined, coalesced) = bytes(render(&Reply::Coalesced(Box::new(inner)), &req));
        assert!(split > 3, "{split}");
        assert_eq!(joined, 1);
        assert_eq!(plain, coalesced);
    }

    #[test]
    fn char_splits() {
        assert_eq!(split_chars("héllo", 2), vec!["hé", "ll", "o"]);
        assert_eq!(split_chars("abc", 0), vec!["abc"]);
        assert_eq!(split_chars("", 3), vec![""]);
    }

    #[tokio::test]
    async fn raw_http_roundtrip_keep_alive() {
        let server = TestServer::start(|r| {
            if r.method == "GET" {
                models_reply(&["demo"])
            } else {
                Reply::content("hi")
            }
        })
        .await
        .expect("start");
        let mut sock = TcpStream::connect(server.addr()).await.expect("connect");
        let body = r#"{"model":"m","messages":[{"role":"user","content":"q"}]}"#;
        let req = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n",
            body.len()
        );
        sock.write_all(req.as_bytes()).await.expect("write");
        let mut got = Vec::new();
        let mut tmp = [0u8; 4096];
        while !String::from_utf8_lossy(&got).contains("\"list\"") {
            let n = sock.read(&mut tmp).await.expect("read");
            assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&got));
            got.extend_from_slice(&tmp[..n]);
        }
        let text = String::from_utf8_lossy(&got);
        assert!(text.starts_with("HTTP/1.1 200 OK"));
        assert!(text.contains("\"content\":\"hi\""));
        let reqs = server.requests();
        assert_eq!(reqs.len(), 2);
        assert_eq!(reqs[0].last_user_message().as_deref(), Some("q"));
        assert_eq!(reqs[1].path, "/v1/models");
        assert_eq!(reqs[1].header("HOST"), Some("x"));
        assert!(!reqs[0].wants_stream());
        server.shutdown();
    }
}
