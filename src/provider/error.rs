use std::time::Duration;

/// Everything that can go wrong talking to a chat-completions endpoint.
/// Messages are meant for a person: what happened and what to do. No variant
/// ever holds the API key (error bodies are redacted before they get here).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    /// 400/401/403/404/422 and other statuses that waiting will not fix.
    #[error("the server refused the request (HTTP {status}): {message}")]
    Rejected { status: u16, message: String },
    /// 429 with code `insufficient_quota`: stop the run, it can be resumed later.
    #[error(
        "the account has no quota left (HTTP 429 insufficient_quota): {message}; add credit, then resume the run"
    )]
    InsufficientQuota { message: String },
    /// Retryable faults that were still failing after the last retry.
    #[error("gave up after {attempts} attempts: {last}")]
    RetriesExhausted { attempts: u32, last: String },
    /// The server asked us to wait longer than we are willing to.
    #[error(
        "the server asked to retry after {wait:?}, longer than the {cap:?} limit; the run is paused: resume it later with --resume"
    )]
    RetryAfterTooLong { wait: Duration, cap: Duration },
    /// The answer ended before `[DONE]` or a finish reason. `partial` is what
    /// arrived, `logprobs` the content's tokens that came with it (the
    /// confidence of the entries kept from it); `cause` says who cut it: the
    /// server (closed early, broke off) or one of jury's own timeouts.
    #[error("{cause}")]
    Truncated {
        partial: String,
        logprobs: Option<Vec<super::logprobs::TokenLogprob>>,
        http_status: u16,
        cause: String,
    },
    /// The server cannot do tool calls, JSON schema or JSON content.
    #[error("the server cannot return structured answers: {0}")]
    Capability(String),
    /// The base URL is unusable.
    #[error("bad endpoint configuration: {0}")]
    Config(String),
    /// The request was cancelled by the user.
    #[error("cancelled")]
    Cancelled,
    /// No connection could be made at all (refused, DNS, TLS) before the
    /// server had ever answered: a down or wrong endpoint, not a blip.
    #[error("could not connect to {url}: {cause}")]
    Unreachable { url: String, cause: String },
    /// The prompt does not fit the model's context (a deterministic 400).
    #[error("the request does not fit the model's context: {message}")]
    ContextExceeded { message: String },
    /// The answer grew past the size cap; reading stopped there.
    #[error("the answer was larger than the {limit}-byte cap; reading stopped there")]
    TooLarge { limit: usize, partial: String },
    /// Sending would risk crossing the run's budget; nothing was sent.
    #[error("{0}")]
    Budget(String),
    /// An answer arrived (the server was paid for it) but could not be read.
    #[error("the answer could not be read: {0}")]
    Unreadable(String),
    /// A redirect to another origin (a POST is not re-sent there).
    #[error(
        "the server at {from} redirected to {to}; jury does not follow a request to another origin: set the base URL to it if you trust it"
    )]
    Redirected { from: String, to: String },
}

impl ProviderError {
    pub fn http_status(&self) -> Option<u16> {
        match self {
            ProviderError::Rejected { status, .. } => Some(*status),
            ProviderError::InsufficientQuota { .. } => Some(429),
            ProviderError::Truncated { http_status, .. } => Some(*http_status),
            _ => None,
        }
    }

    /// True when the whole run should stop (no point sending more requests).
    pub fn is_fatal_for_run(&self) -> bool {
        matches!(
            self,
            ProviderError::InsufficientQuota { .. }
                | ProviderError::Config(_)
                | ProviderError::Capability(_)
                | ProviderError::Unreachable { .. }
                | ProviderError::Budget(_)
                | ProviderError::Redirected { .. }
                // Waiting that long is a pause: stop, and `--resume` later.
                | ProviderError::RetryAfterTooLong { .. }
                | ProviderError::Rejected {
                    status: 401 | 403 | 404,
                    ..
                }
        )
    }
}
