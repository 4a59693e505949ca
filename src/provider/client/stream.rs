//! One attempt on the wire: paid for through the spend gate, the request
//! sent, then the answer read as an SSE stream (frames delivered as they
//! arrive) or as one JSON body, under the cancel token, the request deadline
//! and the idle timeout.

use super::super::accumulate::{Accumulator, ChunkError, Partial, parse_response};
use super::super::body::{ChunkReader, ReadStop};
use super::super::errtext;
use super::super::spend_gate::{Admission, Outcome, Reservation};
use super::super::sse::{SseEvent, SseParser};
use super::super::transport::{self, SendFailure};
use super::super::wire::WireBody;
use super::super::{ChatCall, Completion, ProviderError, StreamFrame, ToolMode};
use super::fault::{Fault, Spent, retry};
use super::{Client, TimeLimit};
use bytes::Bytes;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use serde_json::Value;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// When an attempt must end (its request timeout, or the caller's limit when
/// that comes first), and what the failure says when it does.
pub(super) struct Deadline {
    pub at: tokio::time::Instant,
    pub why: String,
}

impl Deadline {
    fn new(request_timeout: Duration, limit: Option<&TimeLimit>) -> Deadline {
        let at = tokio::time::Instant::now() + request_timeout;
        match limit {
            // On a tie the caller's limit is named: nothing follows it.
            Some(l) if l.at <= at => Deadline {
                at: l.at,
                why: format!("{}: the answer was cut there", l.ran_out()),
            },
            _ => Deadline {
                at,
                why: format!(
                    "jury's request timeout ({request_timeout:?}) cut the answer before it finished"
                ),
            },
        }
    }
}

/// How long, and how many bytes, the end of a body is read for after its
/// `[DONE]` event: a server ends the body right after it (the terminating
/// chunk mostly comes in the same read); one that keeps it open is left.
const DRAIN_WITHIN: Duration = Duration::from_millis(50);
const DRAIN_BYTES: usize = 64 * 1024;
/// After this many bodies in a row kept open past the wait, the next
/// `UNDRAINED_AFTER_HELD` answers are left at their `[DONE]` at once (such
/// a server's connections are not reused anyway); the one after waits
/// again, in case the server changed. In a row: on a loaded machine one
/// terminating chunk now and then comes late from a server that does end
/// its bodies (at 512 in flight, eight in a row late now and then left
/// 36-72 more connections).
const HELD_IN_A_ROW: u32 = 32;
const UNDRAINED_AFTER_HELD: u32 = 63;

/// How soon after sending a broken connection counts as one that was dead
/// before the request went out (resent at once, not counted).
const DEAD_CONNECTION_WINDOW: Duration = Duration::from_secs(1);

impl Client {
    /// One HTTP request, paid for in advance through the spend gate and
    /// settled with what it really used.
    pub(super) async fn attempt(
        &self,
        call: &ChatCall,
        mode: ToolMode,
        limit: Option<&TimeLimit>,
        cancel: &CancellationToken,
        on_frame: &mut (dyn FnMut(StreamFrame) + Send),
    ) -> Result<Completion, Fault> {
        let body = WireBody::new(&self.cfg, call, mode)
            .completion_tokens_named(self.completion_tokens_named.load(Ordering::Relaxed))
            .to_bytes();
        let reservation = match &self.gate {
            Some(g) => loop {
                // Registered before asking, so a settle in between is not missed.
                let settled = g.settled();
                match g.reserve(body.len(), call.max_tokens) {
                    Admission::Granted(r) => break r,
                    Admission::Refused(why) => {
                        return Err(Fault::Fatal(ProviderError::Budget(why)));
                    }
                    Admission::Wait => tokio::select! {
                        biased;
                        _ = cancel.cancelled() => return Err(Fault::Fatal(ProviderError::Cancelled)),
                        _ = self.stop.cancelled() => return Err(Fault::Fatal(ProviderError::Cancelled)),
                        _ = settled => {}
                        // A settle can race the registration; look again soon.
                        _ = tokio::time::sleep(Duration::from_millis(50)) => {}
                    },
                }
            },
            None => Reservation::default(),
        };
        let mut spent = Spent::default();
        let result = self
            .send_and_read(body, mode, limit, cancel, on_frame, &mut spent)
            .await;
        if let Some(g) = &self.gate {
            g.settle(
                reservation,
                match &result {
                    Ok(c) => Outcome::Answered(c.usage),
                    Err(_) if !spent.sent => Outcome::NotSent,
                    Err(_) if spent.refused => Outcome::Refused,
                    Err(_) => Outcome::Cut(spent.usage),
                },
            );
        }
        result
    }

    pub(super) async fn send_and_read(
        &self,
        body: Vec<u8>,
        mode: ToolMode,
        limit: Option<&TimeLimit>,
        cancel: &CancellationToken,
        on_frame: &mut (dyn FnMut(StreamFrame) + Send),
        spent: &mut Spent,
    ) -> Result<Completion, Fault> {
        let deadline = Deadline::new(self.cfg.request_timeout, limit);
        let mut resp = self.send(body, &deadline, cancel, spent).await?;
        spent.sent = true;
        self.reached.store(true, Ordering::Relaxed);
        let status = resp.status().as_u16();
        if !resp.status().is_success() {
            spent.refused = true;
            return Err(self.status_fault(resp, mode, cancel, &deadline).await);
        }
        let content_type = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let mut c = if self.cfg.stream && !content_type.starts_with("application/json") {
            self.read_stream(&mut resp, cancel, &deadline, on_frame, spent)
                .await?
        } else {
            // Not streaming, or a server that ignored `stream: true`.
            self.read_whole(&mut resp, &content_type, cancel, &deadline, on_frame)
                .await?
        };
        c.http_status = status;
        Ok(c)
    }

    /// The request sent, up to the response head.
    async fn send(
        &self,
        body: Vec<u8>,
        deadline: &Deadline,
        cancel: &CancellationToken,
        spent: &mut Spent,
    ) -> Result<reqwest::Response, Fault> {
        let mut req = self
            .http
            .post(self.endpoint.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        if let Some(k) = self.key() {
            req = req.bearer_auth(k.expose());
        }
        if self.cfg.stream {
            req = req.header(ACCEPT, "text/event-stream");
        }
        // A streaming server that sends nothing for the idle timeout is stuck.
        let wait = if self.cfg.stream {
            self.cfg.idle_timeout.min(self.cfg.request_timeout)
        } else {
            self.cfg.request_timeout
        };
        let left = deadline
            .at
            .saturating_duration_since(tokio::time::Instant::now());
        let (wait, why) = if left < wait {
            (left, deadline.why.clone())
        } else {
            (
                wait,
                format!("the server did not answer within {wait:?} (the answer went silent)"),
            )
        };
        let sent_at = Instant::now();
        tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(Fault::Fatal(ProviderError::Cancelled)),
            r = tokio::time::timeout(wait, req.send()) => match r {
                Err(_) => {
                    spent.sent = true;
                    Err(Fault::Retry {
                        reason: why,
                        retry_after: None,
                        partial: None,
                        silent: true,
                    })
                }
                Ok(Err(e)) => Err(match transport::classify_send_error(&e, self.secrets()) {
                    SendFailure::Unreachable(cause) => Fault::Unreachable(cause),
                    // A stale pooled socket fails within a round trip. A
                    // connection that dies later may have carried the
                    // request to a server that worked on it (a crash
                    // mid-prompt, a proxy cutting a long wait): that is a
                    // request, retried as any other fault.
                    SendFailure::DeadConnection(t) if sent_at.elapsed() < DEAD_CONNECTION_WINDOW => {
                        Fault::DeadConnection(t)
                    }
                    SendFailure::DeadConnection(t) | SendFailure::Other(t) => {
                        spent.sent = true;
                        retry(format!("could not reach the server: {t}"))
                    }
                }),
                Ok(Ok(r)) => Ok(r),
            }
        }
    }

    /// A whole JSON answer, its parts delivered as frames afterwards.
    async fn read_whole(
        &self,
        resp: &mut reqwest::Response,
        content_type: &str,
        cancel: &CancellationToken,
        deadline: &Deadline,
        on_frame: &mut (dyn FnMut(StreamFrame) + Send),
    ) -> Result<Completion, Fault> {
        let limit = self.cfg.max_answer_bytes;
        let (body, complete) = self.read_body(resp, cancel, deadline, limit).await?;
        if !complete {
            return Err(Fault::Fatal(ProviderError::TooLarge {
                limit,
                partial: String::from_utf8_lossy(&body).into_owned(),
            }));
        }
        let v: Value = serde_json::from_slice(&body).map_err(|_| {
            retry(format!(
                "the answer was not JSON: {}",
                errtext::body_message(&body, Some(content_type), self.secrets())
            ))
        })?;
        let c = parse_response(&v).map_err(|e| self.chunk_fault(e, None))?;
        if !c.content.is_empty() {
            on_frame(StreamFrame::Content(c.content.clone()));
        }
        for (index, t) in c.tool_calls.iter().enumerate() {
            on_frame(StreamFrame::ToolArgs {
                index,
                id: t.id.clone(),
                name: Some(t.name.clone()),
                fragment: t.arguments.clone(),
            });
        }
        Ok(c)
    }

    /// A reader of `resp`'s chunks under cancel, the deadline and the idle
    /// timeout. Only what the caller marks as progress resets the idle clock.
    fn chunks<'a>(
        &self,
        resp: &'a mut reqwest::Response,
        cancel: &'a CancellationToken,
        deadline: &Deadline,
    ) -> ChunkReader<'a> {
        ChunkReader::new(resp, cancel, deadline.at, self.cfg.idle_timeout)
    }

    /// The next chunk from `reader`, its stops as faults.
    async fn next_chunk(
        &self,
        reader: &mut ChunkReader<'_>,
        deadline: &Deadline,
    ) -> Result<Option<Bytes>, Fault> {
        reader.next().await.map_err(|stop| match stop {
            ReadStop::Cancelled => Fault::Fatal(ProviderError::Cancelled),
            ReadStop::Deadline => retry(deadline.why.clone()),
            ReadStop::Idle => Fault::Retry {
                reason: format!(
                    "jury's idle timeout cut the answer: no progress for {:?} (the answer went silent: nothing arrived but keep-alive comments, whitespace or nothing; a local server still reading a long prompt, or queueing requests, sends only comments: raise --idle-timeout or lower --concurrency)",
                    self.cfg.idle_timeout
                ),
                retry_after: None,
                partial: None,
                silent: true,
            },
            ReadStop::Broken(e) => retry(format!(
                "the connection broke mid-answer: {}",
                errtext::clean(&transport::transport_text(&e), self.secrets())
            )),
        })
    }

    /// The body up to `limit` bytes, and whether it ended within it.
    pub(super) async fn read_body(
        &self,
        resp: &mut reqwest::Response,
        cancel: &CancellationToken,
        deadline: &Deadline,
        limit: usize,
    ) -> Result<(Vec<u8>, bool), Fault> {
        let mut body = Vec::new();
        let mut reader = self.chunks(resp, cancel, deadline);
        while let Some(chunk) = self.next_chunk(&mut reader, deadline).await? {
            // A body that grows by whitespace alone is as idle as a silent one.
            if chunk.iter().any(|b| !b.is_ascii_whitespace()) {
                reader.progress();
            }
            let room = limit.saturating_sub(body.len());
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                return Ok((body, false));
            }
            body.extend_from_slice(&chunk);
        }
        Ok((body, true))
    }

    async fn read_stream(
        &self,
        resp: &mut reqwest::Response,
        cancel: &CancellationToken,
        deadline: &Deadline,
        on_frame: &mut (dyn FnMut(StreamFrame) + Send),
        spent: &mut Spent,
    ) -> Result<Completion, Fault> {
        let mut parser = SseParser::new();
        let mut acc = Accumulator::new();
        let mut saw_done = false;
        let mut read: usize = 0;
        let limit = self.cfg.max_answer_bytes;
        let mut reader = self.chunks(resp, cancel, deadline);
        'read: loop {
            let chunk = match self.next_chunk(&mut reader, deadline).await {
                Ok(Some(c)) => c,
                Ok(None) => break,
                Err(Fault::Retry {
                    reason,
                    retry_after,
                    partial: None,
                    silent,
                }) => {
                    // Broken mid-answer: report what arrived, if anything did.
                    spent.usage = acc.usage();
                    return Err(Fault::Retry {
                        reason,
                        retry_after,
                        partial: acc.saw_chunks().then(|| acc.into_partial()),
                        silent,
                    });
                }
                Err(f) => return Err(f),
            };
            read += chunk.len();
            if read > limit {
                // Memory stays bounded: what arrived so far is kept for the
                // record (and for entries complete within it), no more is read.
                return Err(Fault::Fatal(ProviderError::TooLarge {
                    limit,
                    partial: acc.partial_text(),
                }));
            }
            // Progress is the answer growing by more than whitespace: events
            // that add nothing visible (a server trickling one space at a
            // time) leave the idle clock running.
            let before = acc.substance();
            for ev in parser.feed(&chunk) {
                if self.handle_event(ev, &mut acc, on_frame)? {
                    saw_done = true;
                    break 'read;
                }
            }
            if acc.substance() > before {
                reader.progress();
            }
        }
        if saw_done && self.drain_wanted() {
            // The answer is complete; its body's end is read too, so the
            // connection goes back to the pool rather than closed.
            let ended = reader.drain(DRAIN_WITHIN, DRAIN_BYTES).await;
            self.drained(ended);
        }
        if !saw_done && let Some(ev) = parser.finish() {
            // An event the end of the body cut off is a cut answer (asked
            // again as one), not an unreadable one.
            match self.handle_event(ev, &mut acc, on_frame) {
                Ok(done) => saw_done = done,
                Err(Fault::Fatal(ProviderError::Unreadable(_))) => {}
                Err(f) => return Err(f),
            }
        }
        spent.usage = acc.usage();
        acc.finish(saw_done).map_err(|e| match e {
            ProviderError::Truncated {
                partial,
                logprobs,
                cause,
                ..
            } => Fault::Retry {
                reason: cause,
                retry_after: None,
                partial: Some(Partial {
                    text: partial,
                    logprobs,
                }),
                silent: false,
            },
            other => Fault::Fatal(other),
        })
    }

    /// Handle one SSE event; true on `[DONE]`.
    fn handle_event(
        &self,
        ev: SseEvent,
        acc: &mut Accumulator,
        on_frame: &mut (dyn FnMut(StreamFrame) + Send),
    ) -> Result<bool, Fault> {
        if ev.is_done() {
            return Ok(true);
        }
        if ev.data.trim().is_empty() {
            return Ok(false);
        }
        let result = acc.push_data(&ev.data).map_err(|e| {
            // `event: error` with a non-JSON payload is still a server error.
            match (&e, ev.event.as_deref()) {
                (ChunkError::Malformed(_), Some("error")) => ChunkError::Server {
                    message: ev.data.clone(),
                    code: None,
                },
                _ => e,
            }
        });
        match result {
            Ok(frames) => {
                for f in frames {
                    on_frame(f);
                }
                Ok(false)
            }
            // A server error or a corrupt chunk is not a cut-off answer.
            Err(e) => Err(self.chunk_fault(e, None)),
        }
    }
}

impl Client {
    /// Whether this answer's body is read to its end after `[DONE]`: not
    /// while the server is known to keep bodies open (each answer would
    /// wait the whole drain for nothing).
    fn drain_wanted(&self) -> bool {
        self.undrained
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_err()
    }

    /// Notes how a drain went: a body that ended clears the count of held
    /// ones; enough held in a row stop the waiting for a while.
    fn drained(&self, ended: bool) {
        if ended {
            self.held_in_a_row.store(0, Ordering::Relaxed);
        } else if self.held_in_a_row.fetch_add(1, Ordering::Relaxed) + 1 >= HELD_IN_A_ROW {
            self.undrained
                .store(UNDRAINED_AFTER_HELD, Ordering::Relaxed);
        }
    }
}
