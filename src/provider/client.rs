//! The chat-completions client: one [`Client::complete`] call sends a
//! [`ChatCall`], streams the answer (or reads it whole), retries what waiting
//! can fix and falls back to JSON modes when the server cannot do tool calls.

use super::accumulate::{Accumulator, ChunkError, parse_response};
use super::body::{ChunkReader, ReadStop};
use super::errtext;
use super::spend::{Admission, Outcome, Reservation, SpendGate};
use super::sse::{SseEvent, SseParser};
use super::structured::{self, mode_name, next_mode};
use super::transport::{self, SendFailure};
use super::wire::WireBody;
use super::{ChatCall, Completion, ProviderConfig, ProviderError, StreamFrame, ToolMode};
use crate::domain::Usage;
use bytes::Bytes;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, LOCATION};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio_util::sync::CancellationToken;

pub use super::structured::extract_json;

/// Largest error body read (the message keeps far less).
const MAX_ERROR_BODY: usize = 64 * 1024;
/// Pause before the one quick second try of an endpoint that has never
/// answered: enough for a server that is just coming up, short enough that a
/// down endpoint stops the run within seconds.
const UNREACHABLE_RETRY: Duration = Duration::from_millis(250);

/// How soon after sending a broken connection counts as one that was dead
/// before the request went out (resent at once, not counted).
const DEAD_CONNECTION_WINDOW: Duration = Duration::from_secs(1);

/// A client for one endpoint and model. Cheap to share behind an `Arc`;
/// `complete` may run concurrently.
pub struct Client {
    cfg: ProviderConfig,
    http: reqwest::Client,
    endpoint: reqwest::Url,
    /// The structured path requests start with: the configured one, moved
    /// forward (never back) when the server shows it cannot do it. One value
    /// per client, so a run's requests agree on it.
    mode: AtomicU8,
    /// Whether the server has ever answered this client (any HTTP status).
    reached: AtomicBool,
    /// The server refused `max_tokens` and asked for `max_completion_tokens`.
    completion_tokens_named: AtomicBool,
    rng: AtomicU64,
    gate: Option<Arc<dyn SpendGate>>,
    /// The run stopped sending (quota, budget, a pause): no new attempt
    /// starts, waits end; an answer already streaming in is finished.
    stop: CancellationToken,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("endpoint", &self.endpoint.as_str())
            .field("model", &self.cfg.model)
            .field("tool_mode", &self.tool_mode())
            .finish_non_exhaustive()
    }
}

/// Why one attempt did not produce an answer.
#[derive(Debug)]
enum Fault {
    /// Worth retrying after a pause. `partial` is set when an answer was cut off.
    Retry {
        reason: String,
        retry_after: Option<Duration>,
        partial: Option<String>,
        /// The server went silent (only comments, or nothing) mid-answer.
        silent: bool,
    },
    /// No connection at all (refused, DNS, TLS).
    Unreachable(String),
    /// The request went into a connection the server had closed.
    DeadConnection(String),
    /// The server refuses `max_tokens` and wants `max_completion_tokens`.
    RenameMaxTokens,
    /// The server cannot do the requested mode.
    Capability(String),
    /// Give up now.
    Fatal(ProviderError),
}

fn retry(reason: impl Into<String>) -> Fault {
    Fault::Retry {
        reason: reason.into(),
        retry_after: None,
        partial: None,
        silent: false,
    }
}

fn mode_to_u8(m: ToolMode) -> u8 {
    match m {
        ToolMode::Tools => 0,
        ToolMode::JsonSchema => 1,
        ToolMode::JsonContent => 2,
    }
}

fn mode_from_u8(v: u8) -> ToolMode {
    match v {
        1 => ToolMode::JsonSchema,
        2 => ToolMode::JsonContent,
        _ => ToolMode::Tools,
    }
}

/// The chat-completions URL for a base URL: `/chat/completions` appended unless
/// already there; a query string (Azure's `?api-version=`) is kept.
pub fn endpoint_url(base_url: &str) -> Result<reqwest::Url, ProviderError> {
    let base = base_url.trim();
    if base.is_empty() {
        return Err(ProviderError::Config(
            "the base URL is empty; set OPENAI_BASE_URL, e.g. https://api.openai.com/v1".into(),
        ));
    }
    let mut url = reqwest::Url::parse(base).map_err(|e| {
        ProviderError::Config(format!(
            "the base URL \"{}\" is not a URL ({e}); expected e.g. https://api.openai.com/v1",
            errtext::truncate_chars(&errtext::sanitize_line(base), 100)
        ))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ProviderError::Config(format!(
            "the base URL must start with http:// or https://, not {}://",
            errtext::sanitize_line(url.scheme())
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(ProviderError::Config("the base URL has no host".into()));
    }
    url.set_fragment(None);
    let path = url.path().trim_end_matches('/').to_string();
    if !path.ends_with("/chat/completions") {
        url.set_path(&format!("{path}/chat/completions"));
    }
    Ok(url)
}

fn is_loopback(url: &reqwest::Url) -> bool {
    let Some(h) = url.host_str() else {
        return false;
    };
    let h = h.trim_start_matches('[').trim_end_matches(']');
    h.eq_ignore_ascii_case("localhost")
        || h.parse::<std::net::IpAddr>().is_ok_and(|a| a.is_loopback())
}

/// The exact JSON body sent for `call` in `mode` (used by `jury prompt`).
pub fn request_body(cfg: &ProviderConfig, call: &ChatCall, mode: ToolMode) -> Value {
    WireBody::new(cfg, call, mode).to_value()
}

/// Parse Retry-After style headers: `retry-after-ms` (milliseconds), then
/// `retry-after` as seconds or an HTTP date. Garbage and negatives → None.
pub fn parse_retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    if let Some(ms) = headers
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
    {
        return Some(Duration::from_secs_f64((ms / 1000.0).min(1e9)));
    }
    let raw = headers.get("retry-after")?.to_str().ok()?.trim();
    if let Ok(secs) = raw.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(1e9)));
    }
    let when = parse_http_date(raw)?;
    let now_ms = now.duration_since(UNIX_EPOCH).ok()?.as_millis() as i64;
    Some(Duration::from_millis(
        when.saturating_sub(now_ms).max(0) as u64
    ))
}

/// An HTTP date (IMF-fixdate, RFC 850 or asctime) as epoch milliseconds.
fn parse_http_date(s: &str) -> Option<i64> {
    if let Ok(dt) = chrono::DateTime::parse_from_rfc2822(s) {
        return Some(dt.timestamp_millis());
    }
    for fmt in ["%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"] {
        if let Ok(dt) = chrono::NaiveDateTime::parse_from_str(s, fmt) {
            return Some(dt.and_utc().timestamp_millis());
        }
    }
    None
}

/// The key, wherever a server echoed it into an answer, replaced before the
/// answer reaches the store, an export or the screen.
fn redact_completion(c: &mut Completion, key: Option<&super::Secret>) {
    if key.is_none() {
        return;
    }
    c.content = errtext::redact(&c.content, key);
    for t in &mut c.tool_calls {
        t.arguments = errtext::redact(&t.arguments, key);
    }
    if let Some(r) = &mut c.refusal {
        *r = errtext::redact(r, key);
    }
}

/// The partial text of a failure, redacted.
fn redact_error(e: ProviderError, key: Option<&super::Secret>) -> ProviderError {
    match e {
        ProviderError::Truncated {
            partial,
            http_status,
        } => ProviderError::Truncated {
            partial: errtext::redact(&partial, key),
            http_status,
        },
        ProviderError::TooLarge { limit, partial } => ProviderError::TooLarge {
            limit,
            partial: errtext::redact(&partial, key),
        },
        other => other,
    }
}

/// What an attempt spent, for the spend gate.
struct Spent {
    /// The request reached a server.
    sent: bool,
    /// The server answered with an error status.
    refused: bool,
    /// Usage that arrived before the answer broke off.
    usage: Option<Usage>,
}

impl Client {
    pub fn new(cfg: ProviderConfig) -> Result<Client, ProviderError> {
        let endpoint = endpoint_url(&cfg.base_url)?;
        let mut b = reqwest::Client::builder()
            .connect_timeout(
                cfg.idle_timeout
                    .clamp(Duration::from_millis(100), Duration::from_secs(30)),
            )
            .tcp_nodelay(true)
            .pool_idle_timeout(Duration::from_secs(60))
            .redirect(transport::redirect_policy())
            .user_agent(concat!("jury/", env!("CARGO_PKG_VERSION")));
        if is_loopback(&endpoint) {
            b = b.no_proxy();
        }
        let http = b.build().map_err(|e| {
            ProviderError::Config(format!(
                "cannot set up HTTP: {}",
                transport::transport_text(&e)
            ))
        })?;
        let seed = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x2545_F491_4F6C_DD1D)
            ^ (&cfg as *const ProviderConfig as u64);
        let mode = AtomicU8::new(mode_to_u8(cfg.tool_mode));
        Ok(Client {
            cfg,
            http,
            endpoint,
            mode,
            reached: AtomicBool::new(false),
            completion_tokens_named: AtomicBool::new(false),
            rng: AtomicU64::new(seed),
            gate: None,
            stop: CancellationToken::new(),
        })
    }

    /// Count (and, with a budget, pay in advance for) every attempt through `gate`.
    pub fn with_gate(mut self, gate: Arc<dyn SpendGate>) -> Client {
        self.gate = Some(gate);
        self
    }

    /// No new attempt once `stop` is cancelled (retries, fallbacks and
    /// budget waits end there); answers in flight are read to the end.
    pub fn with_stop(mut self, stop: CancellationToken) -> Client {
        self.stop = stop;
        self
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.cfg
    }

    /// The full chat-completions URL requests go to.
    pub fn endpoint(&self) -> &str {
        self.endpoint.as_str()
    }

    /// The base URL as the user gave it (what messages name).
    fn base_url(&self) -> &str {
        self.cfg.base_url.trim()
    }

    /// The mode the next call starts with.
    pub fn tool_mode(&self) -> ToolMode {
        mode_from_u8(self.mode.load(Ordering::Relaxed))
    }

    /// Move the run's path forward to `mode`, never back: concurrent requests
    /// that each found a path agree on the furthest one.
    fn advance_mode(&self, mode: ToolMode) {
        self.mode.fetch_max(mode_to_u8(mode), Ordering::Relaxed);
    }

    /// A uniform number in [0, 1) (splitmix64; no need for a crate).
    fn random(&self) -> f64 {
        let s = self
            .rng
            .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
            .wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }

    /// min(base·2ⁿ, cap) minus up to 25 % jitter.
    fn backoff(&self, n: u32) -> Duration {
        let factor = 1u32 << n.min(20);
        let d = self
            .cfg
            .backoff_base
            .saturating_mul(factor)
            .min(self.cfg.backoff_cap);
        d.mul_f64(1.0 - 0.25 * self.random())
    }

    fn key(&self) -> Option<&super::Secret> {
        self.cfg.api_key.as_ref().filter(|k| !k.is_empty())
    }

    /// Send `call` and return the answer. Frames are delivered as they arrive;
    /// a [`StreamFrame::Retrying`] tells the consumer to drop partial text
    /// (its `attempt` is the number of the attempt about to start).
    ///
    /// An answer cut off after text arrived comes back at once as
    /// [`ProviderError::Truncated`] (not retried here): the caller keeps the
    /// complete entries it holds and asks again only for the rest.
    pub async fn complete(
        &self,
        call: &ChatCall,
        cancel: &CancellationToken,
        on_frame: &mut (dyn FnMut(StreamFrame) + Send),
    ) -> Result<Completion, ProviderError> {
        self.complete_inner(call, cancel, on_frame)
            .await
            .map_err(|e| redact_error(e, self.key()))
    }

    async fn complete_inner(
        &self,
        call: &ChatCall,
        cancel: &CancellationToken,
        on_frame: &mut (dyn FnMut(StreamFrame) + Send),
    ) -> Result<Completion, ProviderError> {
        let start = Instant::now();
        let mut mode = self.tool_mode();
        let mut attempts: u32 = 0;
        let mut retries: u32 = 0;
        let mut silences: u32 = 0;
        let mut resent_dead = false;
        let mut unreachable_tries: u32 = 0;
        loop {
            if cancel.is_cancelled() || self.stop.is_cancelled() {
                return Err(ProviderError::Cancelled);
            }
            attempts += 1;
            // Another request of the run may have moved the path on.
            mode = mode.max(self.tool_mode());
            let fault = match self.attempt(call, mode, cancel, on_frame).await {
                Ok(mut c) => match structured::check_answer(mode, &mut c, call) {
                    Ok(()) => {
                        self.advance_mode(mode);
                        if self.cfg.fallback && c.path == super::AnswerPath::IgnoredToolChoice {
                            // The server ignored the forced tool call: this
                            // answer is kept, the rest of the run asks for a
                            // grammar-constrained response format instead.
                            self.advance_mode(ToolMode::JsonSchema);
                        }
                        c.tool_mode = mode;
                        c.attempts = attempts;
                        c.latency = start.elapsed();
                        redact_completion(&mut c, self.key());
                        return Ok(c);
                    }
                    // The server answered, but not in a usable shape. With
                    // a next path to try, that is a capability answer; with
                    // none (or a path the user chose), the answer goes to the
                    // caller, which records it and asks again: one bad answer
                    // never stops a run.
                    Err(reason) if next_mode(mode).is_some() && self.cfg.fallback => {
                        Fault::Capability(reason)
                    }
                    Err(_) => {
                        c.path = super::AnswerPath::Text;
                        c.tool_mode = mode;
                        c.attempts = attempts;
                        c.latency = start.elapsed();
                        redact_completion(&mut c, self.key());
                        return Ok(c);
                    }
                },
                Err(f) => f,
            };
            match fault {
                Fault::Fatal(e) => return Err(e),
                Fault::RenameMaxTokens
                    if !self.completion_tokens_named.swap(true, Ordering::Relaxed) =>
                {
                    // Said once per client; the same request again at once.
                    attempts -= 1;
                }
                Fault::RenameMaxTokens => {
                    return Err(ProviderError::Rejected {
                        status: 400,
                        message: "the server refuses both max_tokens and max_completion_tokens"
                            .into(),
                    });
                }
                Fault::DeadConnection(_) if !resent_dead => {
                    // Not the server's answer, not a retry: the same request
                    // again at once, on a fresh connection.
                    resent_dead = true;
                    attempts -= 1;
                }
                Fault::Unreachable(cause) if !self.reached.load(Ordering::Relaxed) => {
                    unreachable_tries += 1;
                    if unreachable_tries >= 2 {
                        return Err(ProviderError::Unreachable {
                            url: errtext::sanitize_line(self.base_url()),
                            cause,
                        });
                    }
                    tokio::select! {
                        biased;
                        _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
                        _ = self.stop.cancelled() => return Err(ProviderError::Cancelled),
                        _ = tokio::time::sleep(UNREACHABLE_RETRY) => {}
                    }
                }
                Fault::Capability(reason) => {
                    let next = next_mode(mode).filter(|_| self.cfg.fallback);
                    let Some(next) = next else {
                        return Err(ProviderError::Capability(if self.cfg.fallback {
                            format!(
                                "tried tool calls, JSON schema and JSON content; the last said: {reason}"
                            )
                        } else {
                            format!(
                                "{} did not work: {reason} (try --structured auto)",
                                mode_name(mode)
                            )
                        }));
                    };
                    on_frame(StreamFrame::Retrying {
                        attempt: attempts + 1,
                        delay: Duration::ZERO,
                        reason: format!(
                            "{} did not work ({reason}); trying {}",
                            mode_name(mode),
                            mode_name(next)
                        ),
                    });
                    self.advance_mode(next);
                    mode = next;
                }
                Fault::Retry {
                    reason,
                    retry_after,
                    partial,
                    silent,
                } => {
                    if let Some(partial) = partial.filter(|p| !p.trim().is_empty()) {
                        // Text arrived before the cut: the caller salvages it.
                        return Err(ProviderError::Truncated {
                            partial,
                            http_status: 200,
                        });
                    }
                    if silent {
                        silences += 1;
                    }
                    let delay = match retry_after {
                        Some(wait) if wait > self.cfg.retry_after_cap => {
                            return Err(ProviderError::RetryAfterTooLong {
                                wait,
                                cap: self.cfg.retry_after_cap,
                            });
                        }
                        Some(wait) => wait,
                        None => self.backoff(retries),
                    };
                    // A server that went silent twice will do it again: each
                    // wait costs a whole idle timeout.
                    if retries >= self.cfg.max_retries || silences >= 2 {
                        return Err(ProviderError::RetriesExhausted {
                            attempts,
                            last: reason,
                        });
                    }
                    retries += 1;
                    on_frame(StreamFrame::Retrying {
                        attempt: attempts + 1,
                        delay,
                        reason,
                    });
                    tokio::select! {
                        biased;
                        _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
                        _ = self.stop.cancelled() => return Err(ProviderError::Cancelled),
                        _ = tokio::time::sleep(delay) => {}
                    }
                }
                // A dead connection twice in a row, or an endpoint that did
                // answer before: an ordinary retryable fault.
                Fault::DeadConnection(reason) | Fault::Unreachable(reason) => {
                    if retries >= self.cfg.max_retries {
                        return Err(ProviderError::RetriesExhausted {
                            attempts,
                            last: format!("could not reach the server: {reason}"),
                        });
                    }
                    let delay = self.backoff(retries);
                    retries += 1;
                    on_frame(StreamFrame::Retrying {
                        attempt: attempts + 1,
                        delay,
                        reason: format!("could not reach the server: {reason}"),
                    });
                    tokio::select! {
                        biased;
                        _ = cancel.cancelled() => return Err(ProviderError::Cancelled),
                        _ = self.stop.cancelled() => return Err(ProviderError::Cancelled),
                        _ = tokio::time::sleep(delay) => {}
                    }
                }
            }
        }
    }

    /// One HTTP request, paid for in advance through the spend gate and
    /// settled with what it really used.
    async fn attempt(
        &self,
        call: &ChatCall,
        mode: ToolMode,
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
        let mut spent = Spent {
            sent: false,
            refused: false,
            usage: None,
        };
        let result = self
            .send_and_read(body, mode, cancel, on_frame, &mut spent)
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

    async fn send_and_read(
        &self,
        body: Vec<u8>,
        mode: ToolMode,
        cancel: &CancellationToken,
        on_frame: &mut (dyn FnMut(StreamFrame) + Send),
        spent: &mut Spent,
    ) -> Result<Completion, Fault> {
        let deadline = tokio::time::Instant::now() + self.cfg.request_timeout;
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
        let sent_at = Instant::now();
        let mut resp = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Err(Fault::Fatal(ProviderError::Cancelled)),
            r = tokio::time::timeout(wait, req.send()) => match r {
                Err(_) => {
                    spent.sent = true;
                    return Err(Fault::Retry {
                        reason: format!("the server did not answer within {wait:?} (the answer went silent)"),
                        retry_after: None,
                        partial: None,
                        silent: true,
                    });
                }
                Ok(Err(e)) => {
                    return Err(match transport::classify_send_error(&e, self.key()) {
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
                    });
                }
                Ok(Ok(r)) => r,
            }
        };
        spent.sent = true;
        self.reached.store(true, Ordering::Relaxed);
        let status = resp.status().as_u16();
        if !resp.status().is_success() {
            spent.refused = true;
            return Err(self.status_fault(resp, mode, cancel, deadline).await);
        }
        let content_type = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let mut c = if self.cfg.stream && !content_type.starts_with("application/json") {
            self.read_stream(&mut resp, cancel, deadline, on_frame, spent)
                .await?
        } else {
            // Not streaming, or a server that ignored `stream: true`.
            let limit = self.cfg.max_answer_bytes;
            let (body, complete) = self.read_body(&mut resp, cancel, deadline, limit).await?;
            if !complete {
                return Err(Fault::Fatal(ProviderError::TooLarge {
                    limit,
                    partial: String::from_utf8_lossy(&body).into_owned(),
                }));
            }
            let v: Value = serde_json::from_slice(&body).map_err(|_| {
                retry(format!(
                    "the answer was not JSON: {}",
                    errtext::body_message(&body, Some(&content_type), self.key())
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
            c
        };
        c.http_status = status;
        Ok(c)
    }

    fn chunk_fault(&self, e: ChunkError, partial: Option<String>) -> Fault {
        match &e {
            ChunkError::Server { message, code }
                if code.as_deref() == Some("insufficient_quota") =>
            {
                Fault::Fatal(ProviderError::InsufficientQuota {
                    message: errtext::clean(message, self.key()),
                })
            }
            ChunkError::Server { message, code }
                if structured::is_context_overflow(message)
                    || code.as_deref().is_some_and(structured::is_context_overflow) =>
            {
                Fault::Fatal(ProviderError::ContextExceeded {
                    message: errtext::clean(message, self.key()),
                })
            }
            _ => Fault::Retry {
                reason: errtext::clean(&e.to_string(), self.key()),
                retry_after: None,
                partial,
                silent: false,
            },
        }
    }

    /// A reader of `resp`'s chunks under cancel, the deadline and the idle
    /// timeout.
    fn chunks<'a>(
        &self,
        resp: &'a mut reqwest::Response,
        cancel: &'a CancellationToken,
        deadline: tokio::time::Instant,
        chunks_are_progress: bool,
    ) -> ChunkReader<'a> {
        ChunkReader::new(
            resp,
            cancel,
            deadline,
            self.cfg.idle_timeout,
            chunks_are_progress,
        )
    }

    /// The next chunk from `reader`, its stops as faults.
    async fn next_chunk(&self, reader: &mut ChunkReader<'_>) -> Result<Option<Bytes>, Fault> {
        reader.next().await.map_err(|stop| match stop {
            ReadStop::Cancelled => Fault::Fatal(ProviderError::Cancelled),
            ReadStop::Deadline => retry(format!(
                "the answer took longer than the {:?} request timeout",
                self.cfg.request_timeout
            )),
            ReadStop::Idle => Fault::Retry {
                reason: format!(
                    "the answer went silent: nothing but keep-alive comments (or nothing) for {:?} (the idle timeout; a local server still reading a long prompt, or queueing requests, sends only comments: raise --idle-timeout or lower --concurrency)",
                    self.cfg.idle_timeout
                ),
                retry_after: None,
                partial: None,
                silent: true,
            },
            ReadStop::Broken(e) => retry(format!(
                "the connection broke mid-answer: {}",
                errtext::clean(&transport::transport_text(&e), self.key())
            )),
        })
    }

    /// The body up to `limit` bytes, and whether it ended within it.
    async fn read_body(
        &self,
        resp: &mut reqwest::Response,
        cancel: &CancellationToken,
        deadline: tokio::time::Instant,
        limit: usize,
    ) -> Result<(Vec<u8>, bool), Fault> {
        let mut body = Vec::new();
        let mut reader = self.chunks(resp, cancel, deadline, true);
        while let Some(chunk) = self.next_chunk(&mut reader).await? {
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
        deadline: tokio::time::Instant,
        on_frame: &mut (dyn FnMut(StreamFrame) + Send),
        spent: &mut Spent,
    ) -> Result<Completion, Fault> {
        let mut parser = SseParser::new();
        let mut acc = Accumulator::new();
        let mut saw_done = false;
        let mut read: usize = 0;
        let limit = self.cfg.max_answer_bytes;
        let mut reader = self.chunks(resp, cancel, deadline, false);
        'read: loop {
            let chunk = match self.next_chunk(&mut reader).await {
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
                        partial: acc.saw_chunks().then(|| acc.partial_text()),
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
            let mut answered = false;
            for ev in parser.feed(&chunk) {
                answered = true;
                if self.handle_event(ev, &mut acc, on_frame)? {
                    saw_done = true;
                    break 'read;
                }
            }
            if answered {
                reader.progress();
            }
        }
        if !saw_done && let Some(ev) = parser.finish() {
            saw_done = self.handle_event(ev, &mut acc, on_frame)?;
        }
        spent.usage = acc.usage();
        acc.finish(saw_done).map_err(|e| match e {
            ProviderError::Truncated { partial, .. } => Fault::Retry {
                reason: "the answer was cut off before it finished (no [DONE], no finish reason)"
                    .into(),
                retry_after: None,
                partial: Some(partial),
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

    async fn status_fault(
        &self,
        mut resp: reqwest::Response,
        mode: ToolMode,
        cancel: &CancellationToken,
        deadline: tokio::time::Instant,
    ) -> Fault {
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        if resp.status().is_redirection() {
            let to = headers
                .get(LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(|l| {
                    resp.url()
                        .join(l)
                        .map_or_else(|_| l.to_string(), |u| u.to_string())
                })
                .unwrap_or_else(|| "(no Location)".into());
            return Fault::Fatal(ProviderError::Redirected {
                from: errtext::sanitize_line(self.endpoint.as_str()),
                to: errtext::clean(&to, self.key()),
            });
        }
        let body = match self
            .read_body(&mut resp, cancel, deadline, MAX_ERROR_BODY)
            .await
        {
            Ok((b, _)) => b,
            Err(Fault::Fatal(ProviderError::Cancelled)) => {
                return Fault::Fatal(ProviderError::Cancelled);
            }
            Err(_) => Vec::new(),
        };
        let content_type = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok());
        let message = errtext::body_message(&body, content_type, self.key());
        let text = String::from_utf8_lossy(&body);
        if status == 429 && errtext::is_insufficient_quota(&text) {
            return Fault::Fatal(ProviderError::InsufficientQuota { message });
        }
        if matches!(status, 400 | 413 | 422) && structured::is_context_overflow(&text) {
            return Fault::Fatal(ProviderError::ContextExceeded { message });
        }
        if matches!(status, 400 | 422) && structured::wants_max_completion_tokens(&text) {
            return Fault::RenameMaxTokens;
        }
        if matches!(status, 400 | 422) && structured::rejects_mode(mode, &text) {
            return Fault::Capability(format!("HTTP {status}: {message}"));
        }
        if status >= 500 && structured::server_cannot_take(mode, &text) {
            return Fault::Capability(format!("HTTP {status}: {message}"));
        }
        // A 400 is the same request's fault every time: never resent, whatever
        // the server's x-should-retry says.
        let should_retry = status != 400
            && match headers
                .get("x-should-retry")
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
            {
                Some("true") => true,
                Some("false") => false,
                _ => matches!(status, 408 | 409 | 429) || status >= 500,
            };
        if should_retry {
            return Fault::Retry {
                reason: format!("HTTP {status}: {message}"),
                retry_after: parse_retry_after(&headers, SystemTime::now()),
                partial: None,
                silent: false,
            };
        }
        Fault::Fatal(ProviderError::Rejected { status, message })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{Message, ToolSpec};
    use reqwest::header::HeaderValue;
    use serde_json::json;

    fn call() -> ChatCall {
        ChatCall {
            messages: vec![Message::system("sys"), Message::user("judge this")],
            tool: ToolSpec {
                name: "get_evaluations".into(),
                description: "Return the evaluations".into(),
                parameters: json!({"type":"object","properties":{"a":{"type":"integer"}}}),
            },
            max_tokens: None,
        }
    }

    #[test]
    fn endpoint_building() {
        let e = |s: &str| endpoint_url(s).map(|u| u.to_string());
        assert_eq!(
            e("https://api.openai.com/v1").unwrap(),
            "https://api.openai.com/v1/chat/completions"
        );
        assert_eq!(
            e("http://127.0.0.1:11434/v1/").unwrap(),
            "http://127.0.0.1:11434/v1/chat/completions"
        );
        assert_eq!(
            e("https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-06-01").unwrap(),
            "https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-06-01"
        );
        assert_eq!(
            e("https://x.azure.com/openai/deployments/d?api-version=1").unwrap(),
            "https://x.azure.com/openai/deployments/d/chat/completions?api-version=1"
        );
        assert!(matches!(endpoint_url(""), Err(ProviderError::Config(_))));
        assert!(matches!(
            endpoint_url("localhost:8080"),
            Err(ProviderError::Config(_))
        ));
        assert!(matches!(
            endpoint_url("ftp://h/v1"),
            Err(ProviderError::Config(_))
        ));
        assert!(matches!(
            endpoint_url("not a url"),
            Err(ProviderError::Config(_))
        ));
    }

    /// What goes on the wire is the document `request_body` shows and stores,
    /// byte for byte, with its keys in this order, for every mode and setting.
    #[test]
    fn wire_bytes_are_the_shown_body() {
        let expect = [
            (
                ToolMode::Tools,
                vec!["model", "messages", "tools", "tool_choice"],
            ),
            (
                ToolMode::JsonSchema,
                vec!["model", "messages", "response_format"],
            ),
            (
                ToolMode::JsonContent,
                vec!["model", "messages", "response_format"],
            ),
        ];
        for stream in [true, false] {
            for temperature in [None, Some(0.25), Some(f64::NAN)] {
                for (mode, keys) in &expect {
                    let mut cfg = ProviderConfig::new("http://h/v1", "m \"q\"");
                    cfg.stream = stream;
                    cfg.temperature = temperature;
                    let mut c = call();
                    c.messages[1].content = "ünïcode \u{1b}[2J \"quote\" \\ \n line".into();
                    let wire = WireBody::new(&cfg, &c, *mode).to_bytes();
                    let shown = request_body(&cfg, &c, *mode);
                    assert_eq!(String::from_utf8(wire).unwrap(), shown.to_string());
                    let mut want = keys.clone();
                    if temperature.is_some() {
                        want.push("temperature");
                    }
                    if stream {
                        want.extend(["stream", "stream_options"]);
                    }
                    let got: Vec<&str> = shown
                        .as_object()
                        .map(|o| o.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    assert_eq!(got, want, "{mode:?} stream {stream} {temperature:?}");
                }
            }
        }
    }

    #[test]
    fn bodies_per_mode() {
        let mut cfg = ProviderConfig::new("http://h/v1", "m");
        cfg.temperature = Some(0.0);
        let b = request_body(&cfg, &call(), ToolMode::Tools);
        assert_eq!(b["model"], "m");
        assert_eq!(b["stream"], true);
        assert_eq!(b["stream_options"]["include_usage"], true);
        assert_eq!(b["temperature"], 0.0);
        assert_eq!(b["tools"][0]["function"]["name"], "get_evaluations");
        assert_eq!(b["tool_choice"]["function"]["name"], "get_evaluations");
        assert_eq!(b["messages"].as_array().map(Vec::len), Some(2));
        cfg.stream = false;
        cfg.temperature = None;
        let b = request_body(&cfg, &call(), ToolMode::JsonSchema);
        assert!(
            b.get("stream").is_none() && b.get("temperature").is_none() && b.get("tools").is_none()
        );
        assert_eq!(b["response_format"]["type"], "json_schema");
        assert_eq!(b["response_format"]["json_schema"]["strict"], false);
        assert_eq!(
            b["response_format"]["json_schema"]["schema"]["type"],
            "object"
        );
        let b = request_body(&cfg, &call(), ToolMode::JsonContent);
        assert_eq!(b["response_format"]["type"], "json_object");
        let msgs = b["messages"].as_array().cloned().unwrap_or_default();
        assert_eq!(msgs.len(), 3);
        let last = msgs[2]["content"].as_str().unwrap_or("");
        assert!(last.contains("JSON") && last.contains("\"properties\""));
    }

    #[test]
    fn retry_after_forms() {
        let now = UNIX_EPOCH + Duration::from_secs(1_445_412_480); // Wed, 21 Oct 2015 07:28:00 GMT
        let h = |pairs: &[(&'static str, &'static str)]| {
            let mut m = HeaderMap::new();
            for (k, v) in pairs {
                m.insert(*k, HeaderValue::from_static(v));
            }
            parse_retry_after(&m, now)
        };
        assert_eq!(h(&[("retry-after", "0")]), Some(Duration::ZERO));
        assert_eq!(h(&[("retry-after", "2")]), Some(Duration::from_secs(2)));
        assert_eq!(
            h(&[("retry-after", "1.5")]),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            h(&[("retry-after", "86400")]),
            Some(Duration::from_secs(86400))
        );
        assert_eq!(
            h(&[("retry-after-ms", "250"), ("retry-after", "9")]),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            h(&[("retry-after", "Wed, 21 Oct 2015 07:28:03 GMT")]),
            Some(Duration::from_secs(3))
        );
        assert_eq!(
            h(&[("retry-after", "Wednesday, 21-Oct-15 07:28:05 GMT")]),
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            h(&[("retry-after", "Wed Oct 21 07:28:07 2015")]),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            h(&[("retry-after", "Tue, 20 Oct 2015 07:28:00 GMT")]),
            Some(Duration::ZERO)
        );
        assert_eq!(h(&[("retry-after", "soon")]), None);
        assert_eq!(h(&[("retry-after", "-3")]), None);
        assert_eq!(h(&[]), None);
    }

    #[test]
    fn backoff_is_capped_with_jitter() {
        let mut cfg = ProviderConfig::new("http://h/v1", "m");
        cfg.backoff_base = Duration::from_millis(500);
        cfg.backoff_cap = Duration::from_secs(8);
        let c = Client::new(cfg).expect("client");
        for n in 0..40 {
            let full = Duration::from_millis(500)
                .saturating_mul(1 << n.min(20))
                .min(Duration::from_secs(8));
            let d = c.backoff(n);
            assert!(d <= full && d >= full.mul_f64(0.75), "n={n} d={d:?}");
        }
    }

    #[test]
    fn jitter_draws_are_pinned() {
        let c = Client::new(ProviderConfig::new("http://h/v1", "m")).expect("client");
        c.rng.store(42, Ordering::Relaxed);
        let draws = [c.random(), c.random(), c.random()];
        assert_eq!(draws, [0.7415648787718233, 0.1599103928769201, 0.27860113025513866]);
    }

    #[test]
    fn client_debug_has_no_key() {
        let mut cfg = ProviderConfig::new("http://h/v1", "m");
        cfg.api_key = Some(crate::provider::Secret::new("sk-CANARY-123"));
        let c = Client::new(cfg).expect("client");
        assert!(!format!("{c:?}").contains("CANARY"));
        assert!(!format!("{:?}", c.config()).contains("CANARY"));
    }
}
