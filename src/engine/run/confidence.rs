//! Each verdict's confidence from the answer's token probabilities, when
//! the run asked for them; a server that sends none is said once per run,
//! and the run goes on without confidences. One reading for a whole answer
//! and for the entries kept from one cut off before its end.

use super::Ctx;
use crate::domain::{ComboKey, Confidence};
use crate::engine::EngineEvent;
use crate::protocol::ParseOutcome;
use crate::provider::logprobs::TokenLogprob;
use std::collections::HashMap;
use std::sync::atomic::Ordering;

/// Confidence by combination.
pub(super) type Sure = HashMap<ComboKey, Confidence>;

/// What have the token probabilities of `content` (an answer's content, or
/// what arrived of it) to say of `outcome`'s verdicts.
pub(super) fn read(
    ctx: &Ctx,
    content: &str,
    tokens: Option<&[TokenLogprob]>,
    outcome: &ParseOutcome,
) -> Sure {
    if !ctx.client().config().logprobs || outcome.verdicts.is_empty() {
        return Sure::new();
    }
    let Some(tokens) = tokens.filter(|t| !t.is_empty()) else {
        if !ctx.no_logprobs_said.swap(true, Ordering::Relaxed) {
            let _ = ctx.events.send(EngineEvent::Notice {
                run_id: ctx.run_id,
                text: NO_LOGPROBS.to_string(),
            });
        }
        return Sure::new();
    };
    let verdicts: Vec<(&ComboKey, crate::domain::Value)> =
        outcome.verdicts.iter().map(|v| (&v.key, v.value)).collect();
    crate::provider::logprobs::confidences(content, tokens, ctx.protocol.scale(), &verdicts)
}

/// Said once per run when the server ignores `logprobs`.
pub const NO_LOGPROBS: &str = "the server sent no token probabilities (logprobs) although they were asked for: this run's verdicts have no confidence";
