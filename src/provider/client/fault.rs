//! Why one attempt did not produce an answer, what it spent, and the key
//! kept out of whatever goes back to the caller.

use super::super::accumulate::{ChunkError, Partial};
use super::super::errtext;
use super::super::structured_answer;
use super::super::{Completion, FinishReason, ProviderError, Secrets};
use super::Client;
use crate::domain::Usage;
use std::time::Duration;

/// Why one attempt did not produce an answer.
#[derive(Debug)]
pub(super) enum Fault {
    /// Worth retrying after a pause. `partial` is set when an answer was cut off.
    Retry {
        reason: String,
        retry_after: Option<Duration>,
        partial: Option<Partial>,
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

/// A plain retryable fault.
pub(super) fn retry(reason: impl Into<String>) -> Fault {
    Fault::Retry {
        reason: reason.into(),
        retry_after: None,
        partial: None,
        silent: false,
    }
}

/// What an attempt spent, for the spend gate.
#[derive(Default)]
pub(super) struct Spent {
    /// The request reached a server.
    pub sent: bool,
    /// The server answered with an error status.
    pub refused: bool,
    /// Usage that arrived before the answer broke off.
    pub usage: Option<Usage>,
}

impl Client {
    /// A chunk that reported an error or could not be read, as a fault.
    pub(super) fn chunk_fault(&self, e: ChunkError, partial: Option<Partial>) -> Fault {
        match &e {
            ChunkError::Server { message, code }
                if code.as_deref() == Some("insufficient_quota") =>
            {
                Fault::Fatal(ProviderError::InsufficientQuota {
                    message: errtext::clean(message, self.secrets()),
                })
            }
            ChunkError::Server { message, code }
                if structured_answer::is_context_overflow(message)
                    || code
                        .as_deref()
                        .is_some_and(structured_answer::is_context_overflow) =>
            {
                Fault::Fatal(ProviderError::ContextExceeded {
                    message: errtext::clean(message, self.secrets()),
                })
            }
            // An answer came (and is paid for) but cannot be read: not
            // retried here, where each try would be another paid request
            // beyond `--max-attempts`; the run decides, attempt by attempt.
            ChunkError::Malformed(_) if partial.is_none() => Fault::Fatal(
                ProviderError::Unreadable(errtext::clean(&e.to_string(), self.secrets())),
            ),
            _ => Fault::Retry {
                reason: errtext::clean(&e.to_string(), self.secrets()),
                retry_after: None,
                partial,
                silent: false,
            },
        }
    }
}

/// The key, wherever a server echoed it into an answer, replaced before the
/// answer reaches the store, an export or the screen.
pub(super) fn redact_completion(c: &mut Completion, key: &Secrets) {
    if key.is_empty() {
        return;
    }
    c.content = errtext::redact(&c.content, key);
    for t in &mut c.tool_calls {
        t.arguments = errtext::redact(&t.arguments, key);
    }
    if let Some(r) = &mut c.refusal {
        *r = errtext::redact(r, key);
    }
    // A finish reason jury does not know is kept verbatim (and stored with
    // a failure): it is the server's text like any other.
    if let Some(FinishReason::Other(f)) = &mut c.finish_reason {
        *f = errtext::redact(f, key);
    }
}

/// The partial text of a failure, redacted.
pub(super) fn redact_error(e: ProviderError, key: &Secrets) -> ProviderError {
    match e {
        ProviderError::Truncated {
            partial,
            logprobs,
            http_status,
            cause,
        } => ProviderError::Truncated {
            partial: errtext::redact(&partial, key),
            // Read for confidences only, never stored or shown.
            logprobs,
            http_status,
            cause: errtext::redact(&cause, key),
        },
        ProviderError::TooLarge { limit, partial } => ProviderError::TooLarge {
            limit,
            partial: errtext::redact(&partial, key),
        },
        other => other,
    }
}
