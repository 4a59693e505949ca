//! The demo judge ([`crate::demo_judge`]) as a [`Reply`] of this server, so
//! tests and benchmarks can combine its verdicts with fault injection
//! (`reshaped`, `delayed`, answers matched on their variant).

use super::{RecordedRequest, Reply, models_reply};
use crate::demo_judge::{Answer, MODEL, answer};
use serde_json::json;
use std::time::Duration;

/// The demo judge's reply to one request, after `latency` (the model list at
/// once); tool arguments in fragments of 24 characters.
pub fn reply(req: &RecordedRequest, latency: Duration) -> Reply {
    let body = match answer(req) {
        Answer::Models => return models_reply(&[MODEL]),
        Answer::Invalid(msg) => Reply::status(
            400,
            json!({"error": {"message": msg, "type": "invalid_request_error"}}).to_string(),
        ),
        Answer::Tool {
            name,
            arguments,
            usage,
        } => Reply::ToolCall {
            name,
            arguments,
            chunk: 24,
            finish: None,
            usage: Some(usage),
        },
        Answer::Content { text, .. } if crate::demo_judge::logprobs::wanted(&req.body) => {
            Reply::logprobs(crate::demo_judge::logprobs::tokens(&text))
        }
        Answer::Content { text, .. } => Reply::content(text),
    };
    if latency.is_zero() {
        body
    } else {
        Reply::Delay(latency, Box::new(body))
    }
}
