//! A protocol's follow-up turn in the same conversation (proposition `--double-check`).

use super::Ctx;
use super::failure::{unscorable, unscorable_reason};
use super::stream::TextStreamer;
use crate::domain::FailureKind;
use crate::protocol::Unit;
use crate::provider::{Completion, ProviderError};

/// Why a follow-up turn gave nothing to parse.
pub(super) struct FollowUpFailure {
    pub kind: FailureKind,
    pub reason: String,
    pub raw: String,
    pub status: Option<u16>,
    pub finish: Option<String>,
    pub request: String,
    /// The run must stop (cancelled, or a fault fatal for the run).
    pub stop: bool,
    /// Cancelled by the user: nothing to record.
    pub cancelled: bool,
}

/// Sends a protocol's follow-up turn (counted as a request, its usage kept).
pub(super) async fn follow_up(
    ctx: &Ctx,
    client: &crate::provider::Client,
    call: &crate::provider::ChatCall,
    pending: &[Unit],
    limit: &crate::provider::TimeLimit,
) -> Result<(Completion, String), FollowUpFailure> {
    let request =
        crate::provider::request_body(client.config(), call, client.tool_mode()).to_string();
    let mut streamer = TextStreamer::new(ctx, pending);
    let result = client
        .complete_within(call, Some(limit), &ctx.cancel, &mut |frame| {
            streamer.on_frame(frame)
        })
        .await;
    match result {
        Ok(c) => {
            ctx.note_path(c.path);
            match unscorable(&c) {
                None => Ok((c, request)),
                Some(kind) => Err(FollowUpFailure {
                    kind,
                    reason: unscorable_reason(&c),
                    raw: c.answer_text().to_string(),
                    status: Some(c.http_status),
                    finish: c.finish_reason.as_ref().map(|f| f.as_str().to_string()),
                    request,
                    stop: false,
                    cancelled: false,
                }),
            }
        }
        Err(e) => {
            let fatal = e.is_fatal_for_run();
            if fatal {
                // Stop, not cancel: answers streaming in on other workers
                // are paid for and kept.
                ctx.stop_with(e.to_string());
            }
            let (kind, raw) = match &e {
                ProviderError::Truncated { partial, .. } => {
                    (FailureKind::Truncated, partial.clone())
                }
                _ => (FailureKind::Provider, String::new()),
            };
            Err(FollowUpFailure {
                kind,
                reason: e.to_string(),
                raw,
                status: e.http_status(),
                finish: None,
                request,
                stop: fatal || matches!(e, ProviderError::Cancelled),
                cancelled: matches!(e, ProviderError::Cancelled),
            })
        }
    }
}
