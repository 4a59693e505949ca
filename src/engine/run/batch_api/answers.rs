//! A batch's answer lines, each judged as a streamed answer is, and what
//! has no usable line recorded as failed.

use super::*;

/// Judges each request of `requests` by its line among `answers`; a request
/// without one is recorded as failed with `why_missing`. With `ask_again`,
/// a request whose line is an error or missing is not recorded but
/// returned, with why, to be asked again directly.
pub(super) async fn import(
    ctx: &Ctx,
    ledger: &RunLedger,
    requests: Vec<Request>,
    answers: Vec<AnswerLine>,
    why_missing: &str,
    ask_again: bool,
) -> Vec<(Request, String)> {
    let mut again = Vec::new();
    let mode = ctx.client().tool_mode();
    let mut by_idx: HashMap<u32, AnswerLine> = answers
        .into_iter()
        .filter(|a| a.run_id == ctx.run_id)
        .map(|a| (a.idx, a))
        .collect();
    for r in requests {
        let keys: Vec<ComboKey> = r.units.iter().map(|u| u.key.clone()).collect();
        let line = by_idx.remove(&r.idx).map(|a| a.answer);
        match line {
            Some(Ok(body)) => match crate::provider::accumulate::parse_response(&body) {
                Ok(mut c) => {
                    ledger.settle(Reservation::default(), Outcome::Answered(c.usage));
                    // As the client does for a streamed answer: an answer of
                    // the wrong shape goes to the parser as text.
                    if crate::provider::structured_answer::check_answer(mode, &mut c, &r.call)
                        .is_err()
                    {
                        c.path = crate::provider::AnswerPath::Text;
                    }
                    c.tool_mode = mode;
                    judge_answer(ctx, r.units, r.call, Ok(c)).await;
                }
                Err(e) => {
                    ledger.settle(Reservation::default(), Outcome::Refused);
                    let raw = body.to_string();
                    fail(
                        ctx,
                        keys,
                        FailureKind::Malformed,
                        format!("the batch's answer could not be read: {e:?}"),
                        &raw,
                        Some(200),
                        &r.call,
                    );
                }
            },
            Some(Err((status, message))) if ask_again => {
                ledger.settle(Reservation::default(), Outcome::Refused);
                let why = format!("the batch answered this request with HTTP {status}: {message}");
                again.push((r, why));
            }
            None if ask_again => again.push((r, why_missing.to_string())),
            Some(Err((status, message))) => {
                ledger.settle(Reservation::default(), Outcome::Refused);
                fail(
                    ctx,
                    keys,
                    FailureKind::Provider,
                    format!("the batch answered this request with HTTP {status}: {message}"),
                    "",
                    Some(status),
                    &r.call,
                );
            }
            None => fail(
                ctx,
                keys,
                FailureKind::Provider,
                why_missing.to_string(),
                "",
                None,
                &r.call,
            ),
        }
    }
    again
}

pub(super) fn fail(
    ctx: &Ctx,
    keys: Vec<ComboKey>,
    kind: FailureKind,
    reason: String,
    raw: &str,
    status: Option<u16>,
    call: &ChatCall,
) {
    let n = keys.len() as u64;
    let request = file::request_line(
        ctx.client().config(),
        ctx.client().tool_mode(),
        call,
        ctx.run_id,
        0,
    );
    ctx.record_failure(FailureRecord {
        kind,
        keys,
        reason,
        raw,
        status,
        finish: None,
        request: &request,
        attempt: 1,
    });
    let _ = ctx.writes.send(WriteCmd::Failed(n));
}

pub(super) fn invalid_request(ctx: &Ctx, units: &[Unit], reason: impl std::fmt::Display) {
    invalid_keys(ctx, units.iter().map(|u| u.key.clone()).collect(), reason);
}

/// Combinations that cannot be asked as the batch stands: one failure
/// record, counted as failed (for `--resume`).
pub(super) fn invalid_keys(ctx: &Ctx, keys: Vec<ComboKey>, reason: impl std::fmt::Display) {
    let n = keys.len() as u64;
    ctx.record_failure(FailureRecord {
        kind: FailureKind::Invalid,
        keys,
        reason: reason.to_string(),
        raw: "",
        status: None,
        finish: None,
        request: "",
        attempt: 0,
    });
    let _ = ctx.writes.send(WriteCmd::Failed(n));
}
