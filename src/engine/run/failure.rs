//! Failure records: what went wrong with a request, for `jury failures`.

use super::Ctx;
use crate::domain::{ComboKey, Failure, FailureKind};
use crate::engine::writer::WriteCmd;
use crate::provider::{Completion, FinishReason};
use crate::store::now;

/// One failure as a batch sees it; the run and the time are added when it is recorded.
pub(super) struct FailureRecord<'a> {
    pub kind: FailureKind,
    /// The combinations left without a verdict by it.
    pub keys: Vec<ComboKey>,
    pub reason: String,
    /// The answer as it came (empty when none did).
    pub raw: &'a str,
    pub status: Option<u16>,
    pub finish: Option<String>,
    /// The request as JSON (empty when none was built).
    pub request: &'a str,
    pub attempt: u32,
}

impl Ctx {
    /// Records `f`, the key removed from its reason and raw answer (a reason
    /// may quote an entry's decoded text).
    pub(super) fn record_failure(&self, f: FailureRecord<'_>) {
        let _ = self.writes.send(WriteCmd::Failure(Failure {
            run_id: self.run_id,
            kind: f.kind,
            keys: f.keys,
            reason: self.redact(&f.reason),
            raw_response: self.redact(f.raw),
            http_status: f.status,
            finish_reason: f.finish.map(|s| self.redact(&s)),
            request: f.request.to_string(),
            attempt: f.attempt,
            created_at: now(),
        }));
    }
}

/// Answers that must not be scored (docs/reliability.md row 5).
pub(super) fn unscorable(c: &Completion) -> Option<FailureKind> {
    if c.refusal.as_deref().is_some_and(|r| !r.trim().is_empty()) {
        return Some(FailureKind::Refusal);
    }
    match c.finish_reason {
        Some(FinishReason::Length) => Some(FailureKind::Length),
        Some(FinishReason::ContentFilter) => Some(FailureKind::ContentFilter),
        _ => None,
    }
}

/// Why an [`unscorable`] answer was not scored.
pub(super) fn unscorable_reason(c: &Completion) -> String {
    match &c.refusal {
        Some(r) => format!("the judge refused: {r}"),
        None => format!(
            "the answer ended with finish_reason '{}'",
            c.finish_reason.as_ref().map(|f| f.as_str()).unwrap_or("?")
        ),
    }
}

/// The combinations without a valid verdict, counted per reason.
pub(super) fn summarise(missing: &[(ComboKey, String)]) -> String {
    let mut by_reason: Vec<(String, usize)> = Vec::new();
    for (_, why) in missing {
        match by_reason.iter_mut().find(|(w, _)| w == why) {
            Some((_, n)) => *n += 1,
            None => by_reason.push((why.clone(), 1)),
        }
    }
    let parts: Vec<String> = by_reason
        .into_iter()
        .map(|(w, n)| format!("{n}× {w}"))
        .collect();
    format!(
        "{} of the combinations asked about had no valid verdict: {}",
        missing.len(),
        parts.join("; ")
    )
}
