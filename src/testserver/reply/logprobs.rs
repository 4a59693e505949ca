//! Answers that carry token log-probabilities, whole or cut.

use super::*;

/// Content token by token with the first `with_probs` tokens' probabilities,
/// ended as `end` says.
pub(super) fn logprobs_steps(
    ctx: &Ctx,
    stream: bool,
    tokens: &[crate::provider::logprobs::TokenLogprob],
    with_probs: Option<usize>,
    end: &Ending,
) -> Vec<Step> {
    use crate::demo_judge::logprobs::to_json;
    let with_probs = with_probs.unwrap_or(tokens.len()).min(tokens.len());
    let finish = match end {
        Ending::Finish(f) => Some(f.as_str()),
        Ending::Closed | Ending::Stalled(_) => None,
    };
    if !stream {
        let text: String = tokens.iter().map(|t| t.token.as_str()).collect();
        let msg = json!({"role": "assistant", "content": text});
        let mut body = ctx.message(msg, finish.unwrap_or("stop"), None);
        body["choices"][0]["logprobs"] = to_json(&tokens[..with_probs]);
        let mut steps = json_steps(200, &body);
        if finish.is_none()
            && let Some(Step::Write(bytes)) = steps.first_mut()
        {
            // The head announces the whole body; half of it comes.
            let body_len = body.to_string().len();
            bytes.truncate(bytes.len() - body_len / 2 - body_len % 2);
            if let Ending::Stalled(pause) = end {
                steps.push(Step::Sleep(*pause));
            }
            steps.push(Step::Close);
        }
        return steps;
    }
    let mut evs = vec![ctx.role()];
    for (i, t) in tokens.iter().enumerate() {
        let c = ctx.chunk(json!({"content": t.token}), None);
        if i >= with_probs {
            evs.push(c);
            continue;
        }
        // The chunk is written as text: put the token's probabilities
        // where the empty `logprobs` stands.
        let lp = format!("\"logprobs\":{}", to_json(std::slice::from_ref(t)));
        evs.push(c.replacen("\"logprobs\":null", &lp, 1));
    }
    if let Some(f) = finish {
        evs.push(ctx.chunk(json!({}), Some(f)));
    }
    let mut steps = sse_steps(ctx, evs, finish.is_some(), finish.is_none());
    if let Ending::Stalled(pause) = end {
        // No end of body: the stream stays open and silent, then closes.
        steps.retain(|s| !matches!(s, Step::Write(b) if b.as_slice() == b"0\r\n\r\n"));
        let close = steps.pop();
        steps.push(Step::Sleep(*pause));
        steps.extend(close);
    }
    steps
}
