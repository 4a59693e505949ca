//! A fake OpenAI-compatible server for tests and benchmarks: real HTTP/1.1
//! over TCP on 127.0.0.1 (the demo judge's serving core,
//! [`crate::demo_judge::http`]), keep-alive, chunked SSE streams, scripted per
//! request by a responder closure, with fault injection ([`Reply`]) and a
//! record of every request. Only in builds with the `testserver` feature,
//! which the tests and benchmarks turn on (Cargo.toml's self dev-dependency).
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

mod batch;
pub mod demo_judge;
mod reply;

pub use crate::demo_judge::http::Request as RecordedRequest;
pub use batch::{BatchApi, BatchScript, Call, Failure, Faults, Tail, answer_file};
pub use reply::{Ending, Reply, models_reply, split_chars};

use crate::demo_judge::http::{MAX_CONNECTIONS, listen_at_most, read_request};
use reply::{Step, render};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

type Responder = dyn Fn(&RecordedRequest) -> Reply + Send + Sync;

struct Shared {
    responder: Box<Responder>,
    requests: Mutex<Vec<RecordedRequest>>,
    seq: AtomicUsize,
    /// When each answer's last byte was handed to the socket, by `seq`.
    answered: Mutex<Vec<(usize, std::time::Instant)>>,
    /// Connections accepted and served so far.
    connections: AtomicUsize,
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
        Self::start_serving(port, MAX_CONNECTIONS, responder).await
    }

    /// As [`TestServer::start`], serving up to `max_connections` at once
    /// (the demo judge's 128 by default; a benchmark of 512 requests in
    /// flight against one server needs more).
    pub async fn start_serving<F>(
        port: u16,
        max_connections: usize,
        responder: F,
    ) -> std::io::Result<TestServer>
    where
        F: Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    {
        let shared = Arc::new(Shared {
            responder: Box::new(responder),
            requests: Mutex::new(Vec::new()),
            seq: AtomicUsize::new(0),
            answered: Mutex::new(Vec::new()),
            connections: AtomicUsize::new(0),
        });
        let stop = CancellationToken::new();
        let s = shared.clone();
        let addr = listen_at_most(port, max_connections, stop.clone(), move |sock| {
            let s = s.clone();
            async move { serve_connection(sock, &s).await }
        })
        .await?;
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

    /// Connections served so far (those refused past the limit are not
    /// counted): a client that keeps its connections alive opens as many as
    /// it has requests in flight.
    pub fn connection_count(&self) -> usize {
        self.shared.connections.load(Ordering::SeqCst)
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

async fn serve_connection(mut sock: TcpStream, shared: &Shared) {
    shared.connections.fetch_add(1, Ordering::SeqCst);
    let mut buf: Vec<u8> = Vec::with_capacity(8192);
    loop {
        let Some((mut req, wants_close)) = read_request(&mut sock, &mut buf).await else {
            return;
        };
        req.seq = shared.seq.fetch_add(1, Ordering::SeqCst);
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
    use tokio::io::AsyncReadExt;

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
