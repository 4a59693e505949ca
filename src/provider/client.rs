//! The chat-completions client: one [`Client::complete`] call sends a
//! [`ChatCall`], streams the answer (or reads it whole), retries what waiting
//! can fix and falls back to JSON modes when the server cannot do tool calls.
//!
//! This file is the retry loop; one attempt's request and reading are in
//! `stream`, an error status read into a [`Fault`] in `status`, faults and
//! redaction in `fault`.

mod fault;
mod status;
mod stream;

use super::retry;
use super::spend_gate::SpendGate;
use super::structured_answer::{self, mode_name, next_mode};
use super::transport;
use super::wire::WireBody;
use super::{ChatCall, Completion, ProviderConfig, ProviderError, StreamFrame, ToolMode};
use fault::{Fault, redact_completion, redact_error};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio_util::sync::CancellationToken;

pub use super::retry::parse_retry_after;
pub use super::structured_answer::extract_json;
pub use super::url::endpoint_url;

/// Pause before the one quick second try of an endpoint that has never
/// answered: enough for a server that is just coming up, short enough that a
/// down endpoint stops the run within seconds.
const UNREACHABLE_RETRY: Duration = Duration::from_millis(250);

/// A time limit of the caller's on top of each attempt's request timeout
/// (a batch's time, doctor's test): no attempt or wait starts past it, and
/// an answer still arriving there is cut, the failure naming it.
#[derive(Debug, Clone)]
pub struct TimeLimit {
    pub at: tokio::time::Instant,
    /// What the limit is, for the failure: "the batch (3 × the 600s request timeout)".
    pub what: String,
}

impl TimeLimit {
    /// `after` from now.
    pub fn after(after: Duration, what: impl Into<String>) -> TimeLimit {
        TimeLimit {
            at: tokio::time::Instant::now() + after,
            what: what.into(),
        }
    }

    /// The failure's words when this limit cuts an answer or stops a retry.
    pub fn ran_out(&self) -> String {
        format!("jury's time limit for {} ran out", self.what)
    }

    pub fn passed(&self) -> bool {
        tokio::time::Instant::now() >= self.at
    }
}

/// A client for one endpoint and model. Cheap to share behind an `Arc`;
/// `complete` may run concurrently.
pub struct Client {
    cfg: ProviderConfig,
    /// Every credential of the run, redacted from whatever comes back.
    secrets: super::Secrets,
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
    /// The splitmix64 state of the backoff jitter.
    rng: AtomicU64,
    /// Answers left whose body's end is not waited for after `[DONE]`: set
    /// when this server kept a body open past the wait (`stream.rs`).
    undrained: AtomicU32,
    /// Bodies kept open past the wait since the last that ended.
    held_in_a_row: AtomicU32,
    gate: Option<Arc<dyn SpendGate>>,
    /// The run stopped sending (quota, budget, a pause): no new attempt
    /// starts, waits end; an answer already streaming in is finished.
    stop: CancellationToken,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("endpoint", &super::url::shown(self.endpoint.as_str()))
            .field("model", &self.cfg.model)
            .field("tool_mode", &self.tool_mode())
            .finish_non_exhaustive()
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

/// The exact JSON body sent for `call` in `mode` (used by `jury prompt`).
pub fn request_body(cfg: &ProviderConfig, call: &ChatCall, mode: ToolMode) -> Value {
    WireBody::new(cfg, call, mode).to_value()
}

/// The counts one [`Client::complete`] call keeps across its attempts.
#[derive(Default)]
struct Tries {
    attempts: u32,
    retries: u32,
    /// Attempts on which the server went silent.
    silences: u32,
    /// A dead pooled connection was already resent once.
    resent_dead: bool,
    unreachable: u32,
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
        if super::url::is_loopback(&endpoint) {
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
            secrets: super::Secrets::of(&cfg),
            cfg,
            http,
            endpoint,
            mode,
            reached: AtomicBool::new(false),
            completion_tokens_named: AtomicBool::new(false),
            rng: AtomicU64::new(seed),
            undrained: AtomicU32::new(0),
            held_in_a_row: AtomicU32::new(0),
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

    /// A uniform number in [0, 1): the next splitmix64 draw of the shared
    /// state (one atomic step, so concurrent requests never draw alike).
    fn random(&self) -> f64 {
        let state = self.rng.fetch_add(crate::rng::GAMMA, Ordering::Relaxed);
        crate::rng::unit_f64(crate::rng::splitmix64(state))
    }

    /// min(base·2ⁿ, cap) minus up to 25 % jitter.
    fn backoff(&self, n: u32) -> Duration {
        retry::backoff(
            self.cfg.backoff_base,
            self.cfg.backoff_cap,
            n,
            self.random(),
        )
    }

    /// The key sent as a bearer token ([`ProviderConfig::sent_key`]).
    fn key(&self) -> Option<&super::Secret> {
        self.cfg.sent_key()
    }

    /// Every credential of the run, in every form a server could echo it in.
    pub fn secrets(&self) -> &super::Secrets {
        &self.secrets
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
        self.complete_within(call, None, cancel, on_frame).await
    }

    /// As [`Client::complete`], within the caller's `limit` as well.
    pub async fn complete_within(
        &self,
        call: &ChatCall,
        limit: Option<&TimeLimit>,
        cancel: &CancellationToken,
        on_frame: &mut (dyn FnMut(StreamFrame) + Send),
    ) -> Result<Completion, ProviderError> {
        self.complete_inner(call, limit, cancel, on_frame)
            .await
            .map_err(|e| redact_error(e, self.secrets()))
    }

    async fn complete_inner(
        &self,
        call: &ChatCall,
        limit: Option<&TimeLimit>,
        cancel: &CancellationToken,
        on_frame: &mut (dyn FnMut(StreamFrame) + Send),
    ) -> Result<Completion, ProviderError> {
        let start = Instant::now();
        let mut mode = self.tool_mode();
        let mut tries = Tries::default();
        loop {
            if cancel.is_cancelled() || self.stop.is_cancelled() {
                return Err(ProviderError::Cancelled);
            }
            if let Some(l) = limit.filter(|l| l.passed()) {
                return Err(ProviderError::RetriesExhausted {
                    attempts: tries.attempts,
                    last: l.ran_out(),
                });
            }
            tries.attempts += 1;
            // Another request of the run may have moved the path on.
            mode = mode.max(self.tool_mode());
            let fault = match self.attempt(call, mode, limit, cancel, on_frame).await {
                Ok(c) => match self.accept(c, mode, call, tries.attempts, start) {
                    Ok(c) => return Ok(c),
                    Err(f) => f,
                },
                Err(f) => f,
            };
            self.after_fault(fault, &mut tries, &mut mode, limit, cancel, on_frame)
                .await?;
        }
    }

    /// An answer in hand: returned (with its attempt count, latency and the
    /// key redacted), or, when its shape is unusable and another path is
    /// left to try, a capability fault.
    fn accept(
        &self,
        mut c: Completion,
        mode: ToolMode,
        call: &ChatCall,
        attempts: u32,
        start: Instant,
    ) -> Result<Completion, Fault> {
        match structured_answer::check_answer(mode, &mut c, call) {
            Ok(()) => {
                self.advance_mode(mode);
                if self.cfg.fallback && c.path == super::AnswerPath::IgnoredToolChoice {
                    // The server ignored the forced tool call: this
                    // answer is kept, the rest of the run asks for a
                    // grammar-constrained response format instead.
                    self.advance_mode(ToolMode::JsonSchema);
                }
            }
            // The server answered, but not in a usable shape. With a next
            // path to try, that is a capability answer; with none (or a path
            // the user chose), the answer goes to the caller, which records
            // it and asks again: one bad answer never stops a run.
            Err(reason) if next_mode(mode).is_some() && self.cfg.fallback => {
                return Err(Fault::Capability(reason));
            }
            Err(_) => c.path = super::AnswerPath::Text,
        }
        c.tool_mode = mode;
        c.attempts = attempts;
        c.latency = start.elapsed();
        redact_completion(&mut c, self.secrets());
        Ok(c)
    }

    /// What a fault leads to: an error that ends the call, or (after any
    /// wait) the next attempt, perhaps on the next structured path.
    async fn after_fault(
        &self,
        fault: Fault,
        tries: &mut Tries,
        mode: &mut ToolMode,
        limit: Option<&TimeLimit>,
        cancel: &CancellationToken,
        on_frame: &mut (dyn FnMut(StreamFrame) + Send),
    ) -> Result<(), ProviderError> {
        match fault {
            Fault::Fatal(e) => Err(e),
            Fault::RenameMaxTokens
                if !self.completion_tokens_named.swap(true, Ordering::Relaxed) =>
            {
                // Said once per client; the same request again at once.
                tries.attempts -= 1;
                Ok(())
            }
            Fault::RenameMaxTokens => Err(ProviderError::Rejected {
                status: 400,
                message: "the server refuses both max_tokens and max_completion_tokens".into(),
            }),
            Fault::DeadConnection(_) if !tries.resent_dead => {
                // Not the server's answer, not a retry: the same request
                // again at once, on a fresh connection.
                tries.resent_dead = true;
                tries.attempts -= 1;
                Ok(())
            }
            // One of several servers: the run moves the request to another
            // at once rather than wait for this one.
            Fault::Unreachable(cause) if self.cfg.failover => Err(ProviderError::Unreachable {
                url: super::url::shown(self.base_url()),
                cause,
            }),
            Fault::Unreachable(cause) if !self.reached.load(Ordering::Relaxed) => {
                tries.unreachable += 1;
                if tries.unreachable >= 2 {
                    return Err(ProviderError::Unreachable {
                        url: super::url::shown(self.base_url()),
                        cause,
                    });
                }
                self.pause(cancel, UNREACHABLE_RETRY).await
            }
            Fault::Capability(reason) => {
                let next = self.fall_back(*mode, tries.attempts, reason, on_frame)?;
                *mode = next;
                Ok(())
            }
            Fault::Retry {
                reason,
                retry_after,
                partial,
                silent,
            } => {
                if let Some(partial) = partial.filter(|p| !p.text.trim().is_empty()) {
                    // Text arrived before the cut: the caller salvages it.
                    return Err(ProviderError::Truncated {
                        partial: partial.text,
                        logprobs: partial.logprobs,
                        http_status: 200,
                        cause: reason,
                    });
                }
                if silent {
                    tries.silences += 1;
                }
                let delay = match retry_after {
                    Some(wait) if wait > self.cfg.retry_after_cap => {
                        return Err(ProviderError::RetryAfterTooLong {
                            wait,
                            cap: self.cfg.retry_after_cap,
                        });
                    }
                    Some(wait) => wait,
                    None => self.backoff(tries.retries),
                };
                // A server that went silent twice will do it again: each
                // wait costs a whole idle timeout.
                if tries.retries >= self.cfg.max_retries || tries.silences >= 2 {
                    return Err(ProviderError::RetriesExhausted {
                        attempts: tries.attempts,
                        last: reason,
                    });
                }
                self.retry_after(tries, delay, reason, limit, cancel, on_frame)
                    .await
            }
            // An endpoint that did answer before and now refuses every
            // connection: retried like a blip, but once the retries are spent
            // the server is gone, and the run stops (resumable) instead of
            // every remaining batch spending retries of its own on it.
            Fault::Unreachable(reason) if tries.retries >= self.cfg.max_retries => {
                Err(ProviderError::Unreachable {
                    url: super::url::shown(self.base_url()),
                    cause: format!(
                        "{reason}; it had answered earlier in this run, then failed {} attempts in a row",
                        tries.attempts
                    ),
                })
            }
            // A dead connection twice in a row, or an endpoint that did
            // answer before: an ordinary retryable fault.
            Fault::DeadConnection(reason) | Fault::Unreachable(reason) => {
                let last = format!("could not reach the server: {reason}");
                if tries.retries >= self.cfg.max_retries {
                    return Err(ProviderError::RetriesExhausted {
                        attempts: tries.attempts,
                        last,
                    });
                }
                let delay = self.backoff(tries.retries);
                self.retry_after(tries, delay, last, limit, cancel, on_frame)
                    .await
            }
        }
    }

    /// The next structured path after `mode` failed, announced; an error
    /// when none is left (or the user chose this one).
    fn fall_back(
        &self,
        mode: ToolMode,
        attempts: u32,
        reason: String,
        on_frame: &mut (dyn FnMut(StreamFrame) + Send),
    ) -> Result<ToolMode, ProviderError> {
        let Some(next) = next_mode(mode).filter(|_| self.cfg.fallback) else {
            return Err(ProviderError::Capability(if self.cfg.fallback {
                format!("tried tool calls, JSON schema and JSON content; the last said: {reason}")
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
        Ok(next)
    }

    /// One more retry: counted, announced, then waited for.
    async fn retry_after(
        &self,
        tries: &mut Tries,
        delay: Duration,
        reason: String,
        limit: Option<&TimeLimit>,
        cancel: &CancellationToken,
        on_frame: &mut (dyn FnMut(StreamFrame) + Send),
    ) -> Result<(), ProviderError> {
        // A wait that would end past the caller's limit is not begun.
        if let Some(l) = limit.filter(|l| tokio::time::Instant::now() + delay >= l.at) {
            return Err(ProviderError::RetriesExhausted {
                attempts: tries.attempts,
                last: format!("{reason}; {} before another attempt", l.ran_out()),
            });
        }
        tries.retries += 1;
        on_frame(StreamFrame::Retrying {
            attempt: tries.attempts + 1,
            delay,
            reason,
        });
        self.pause(cancel, delay).await
    }

    /// Wait `delay`, unless the call is cancelled or the run stops first.
    async fn pause(
        &self,
        cancel: &CancellationToken,
        delay: Duration,
    ) -> Result<(), ProviderError> {
        tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(ProviderError::Cancelled),
            _ = self.stop.cancelled() => Err(ProviderError::Cancelled),
            _ = tokio::time::sleep(delay) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// The jitter's draws, pinned: splitmix64 steps of the shared state.
    #[test]
    fn jitter_draws_are_pinned() {
        let c = Client::new(ProviderConfig::new("http://h/v1", "m")).expect("client");
        c.rng.store(42, Ordering::Relaxed);
        let draws = [c.random(), c.random(), c.random()];
        assert_eq!(
            draws,
            [0.7415648787718233, 0.1599103928769201, 0.27860113025513866]
        );
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
