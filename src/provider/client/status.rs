//! An HTTP error status read into a [`Fault`]: which refusals are final,
//! which a wait can fix, which say the server cannot do the requested mode.

use super::super::retry::parse_retry_after;
use super::super::structured_answer;
use super::super::{ProviderError, ToolMode, errtext};
use super::Client;
use super::fault::Fault;
use reqwest::header::{CONTENT_TYPE, LOCATION};
use std::time::SystemTime;
use tokio_util::sync::CancellationToken;

/// Largest error body read (the message keeps far less).
const MAX_ERROR_BODY: usize = 64 * 1024;

impl Client {
    pub(super) async fn status_fault(
        &self,
        mut resp: reqwest::Response,
        mode: ToolMode,
        cancel: &CancellationToken,
        deadline: &super::stream::Deadline,
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
                from: crate::provider::url::shown(self.endpoint.as_str()),
                to: errtext::clean(&crate::provider::url::shown(&to), self.secrets()),
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
        let message = errtext::body_message(&body, content_type, self.secrets());
        let text = String::from_utf8_lossy(&body);
        if status == 429 && errtext::is_insufficient_quota(&text) {
            return Fault::Fatal(ProviderError::InsufficientQuota { message });
        }
        if matches!(status, 400 | 413 | 422) && structured_answer::is_context_overflow(&text) {
            return Fault::Fatal(ProviderError::ContextExceeded { message });
        }
        if matches!(status, 400 | 422) && structured_answer::wants_max_completion_tokens(&text) {
            return Fault::RenameMaxTokens;
        }
        if matches!(status, 400 | 422) && structured_answer::rejects_mode(mode, &text) {
            return Fault::Capability(format!("HTTP {status}: {message}"));
        }
        if status >= 500 && structured_answer::server_cannot_take(mode, &text) {
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
