//! Each verdict's confidence from the answer's token probabilities, when
//! the run asked for them; a server that sends none is said once per run,
//! and the run goes on without confidences.

use super::Ctx;
use crate::domain::{ComboKey, Confidence};
use crate::engine::EngineEvent;
use crate::protocol::ParseOutcome;
use crate::provider::Completion;
use std::collections::HashMap;
use std::sync::atomic::Ordering;

/// Confidence by combination.
pub(super) type Sure = HashMap<ComboKey, Confidence>;

/// What have `answer`'s token probabilities to say of `outcome`'s verdicts.
pub(super) fn read(ctx: &Ctx, answer: &Completion, outcome: &ParseOutcome) -> Sure {
    if !ctx.client().config().logprobs || outcome.verdicts.is_empty() {
        return Sure::new();
    }
    let Some(tokens) = answer.logprobs.as_deref().filter(|t| !t.is_empty()) else {
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
    crate::provider::logprobs::confidences(&answer.content, tokens, ctx.protocol.scale(), &verdicts)
}

/// Said once per run when the server ignores `logprobs`.
pub const NO_LOGPROBS: &str = "the server sent no token probabilities (logprobs) although they were asked for: this run's verdicts have no confidence";
