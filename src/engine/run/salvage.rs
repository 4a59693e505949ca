//! What is kept of an answer cut off before its end (closed early,
//! `length`, over the size cap): every entry complete within it, with its
//! confidence read as for a whole answer.

use super::confidence::Sure;
use super::{Ctx, item_positions};
use crate::domain::{ComboKey, Verdict};
use crate::engine::writer::WriteCmd;
use crate::protocol::{ParseOutcome, Unit};
use std::collections::HashSet;
use std::time::Duration;

/// Keeps the verdicts complete within a cut-off answer `partial`, each with
/// the confidence `sure` reads for it, and leaves in `pending` only the
/// units still without one. Returns how many were kept.
pub(super) fn keep_complete(
    ctx: &Ctx,
    pending: &mut Vec<Unit>,
    partial: &str,
    sure: impl FnOnce(&ParseOutcome) -> Sure,
    tool: &str,
    latency: Duration,
    server: &str,
) -> usize {
    let Some(answer) = complete_part(partial, tool) else {
        return 0;
    };
    let outcome = ctx.protocol.parse(pending, &answer);
    if outcome.verdicts.is_empty() {
        return 0;
    }
    let kept: HashSet<ComboKey> = outcome.verdicts.iter().map(|p| p.key.clone()).collect();
    let sure = sure(&outcome);
    // Places in the request that was sent (before `pending` shrinks).
    let positions = item_positions(pending);
    let verdicts: Vec<Verdict> = outcome
        .verdicts
        .iter()
        .map(|p| {
            let at = positions.get(p.key.item_id.as_str()).copied();
            let mut v = ctx.verdict(p, latency, 0, at, server);
            v.confidence = sure.get(&p.key).copied();
            v
        })
        .collect();
    let n = verdicts.len();
    let _ = ctx.writes.send(WriteCmd::Verdicts(verdicts));
    pending.retain(|u| !kept.contains(&u.key));
    n
}

/// The part of a cut-off answer that is certainly complete, as a JSON
/// document: from the first `{`, incomplete values left out, a Hermes-style
/// wrapper (`{"name": tool, "arguments": {...}}`) unwrapped.
fn complete_part(partial: &str, tool: &str) -> Option<String> {
    let start = partial.find('{')?;
    let v = crate::provider::partial_json::parse_complete_prefix(&partial[start..])?;
    let v = crate::provider::structured_answer::unwrap_call(&v, tool).unwrap_or(v);
    Some(v.to_string())
}

pub(super) fn salvage_reason(
    reason: &str,
    kept: usize,
    before: usize,
    max_tokens: Option<u32>,
) -> String {
    let limit = max_tokens
        .map(|m| format!(" (max_tokens {m})"))
        .unwrap_or_default();
    format!(
        "{reason}{limit}: {kept} of {before} entries arrived complete and were kept; the other {} are asked for again",
        before - kept
    )
}
