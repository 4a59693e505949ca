//! A batch's answer lines, each judged as a streamed answer is, and what
//! has no usable line recorded as failed.

use super::*;
use serde_json::Value;

/// A batch's answer lines, read one at a time (a file of any size is never
/// held whole), each request judged by its first valid answer as soon as
/// it comes. A line for a request already answered (a duplicate, a later
/// error or malformed line, a second answer) is noted and left: it never
/// replaces the answer, nor is it paid for again. An error or unusable
/// line is held until the end, in case a valid answer follows.
pub(super) struct Importer<'c> {
    ctx: &'c Ctx,
    ledger: &'c RunLedger,
    pending: HashMap<u32, Request>,
    /// The first unusable line of a request still without an answer.
    held: HashMap<u32, Result<Value, (u16, String)>>,
    answered: std::collections::HashSet<u32>,
    /// Requests an earlier read recorded as failed: only a valid answer is
    /// taken for them (a file read again records nothing twice).
    failed_before: std::collections::HashSet<u32>,
    /// Lines left because their request had its answer already.
    pub(super) repeated: usize,
}

/// A 2xx answer that reads as a chat completion.
fn usable(line: &Result<Value, (u16, String)>) -> Option<crate::provider::Completion> {
    match line {
        Ok(body) => crate::provider::accumulate::parse_response(body).ok(),
        Err(_) => None,
    }
}

impl<'c> Importer<'c> {
    pub(super) fn new(ctx: &'c Ctx, ledger: &'c RunLedger, requests: Vec<Request>) -> Self {
        Importer {
            ctx,
            ledger,
            pending: requests.into_iter().map(|r| (r.idx, r)).collect(),
            held: HashMap::new(),
            answered: Default::default(),
            failed_before: Default::default(),
            repeated: 0,
        }
    }

    /// Requests (by index) an earlier read recorded as failed.
    pub(super) fn failed_before(mut self, idx: std::collections::HashSet<u32>) -> Self {
        self.failed_before = idx;
        self
    }

    /// One answer line.
    pub(super) async fn line(&mut self, a: AnswerLine) {
        if a.run_id != self.ctx.run_id {
            return;
        }
        if self.answered.contains(&a.idx) {
            self.repeated += 1;
            return;
        }
        let Some(c) = usable(&a.answer) else {
            if self.pending.contains_key(&a.idx) {
                match self.held.entry(a.idx) {
                    std::collections::hash_map::Entry::Occupied(_) => self.repeated += 1,
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(a.answer);
                    }
                }
            }
            return;
        };
        let Some(r) = self.pending.remove(&a.idx) else {
            return;
        };
        self.held.remove(&a.idx);
        self.answered.insert(a.idx);
        self.judge(r, c).await;
    }

    async fn judge(&self, r: Request, mut c: crate::provider::Completion) {
        let mode = self.ctx.client().tool_mode();
        self.ledger
            .settle(Reservation::default(), Outcome::Answered(c.usage));
        // As the client does for a streamed answer: an answer of the wrong
        // shape goes to the parser as text.
        if crate::provider::structured_answer::check_answer(mode, &mut c, &r.call).is_err() {
            c.path = crate::provider::AnswerPath::Text;
        }
        c.tool_mode = mode;
        judge_answer(self.ctx, r.units, r.call, Ok(c)).await;
    }

    /// The end of the lines: each request still without an answer is
    /// recorded as failed (with its first unusable line, or `why_missing`),
    /// or, with `ask_again`, returned with why, to be asked again.
    pub(super) fn finish(mut self, why_missing: &str, ask_again: bool) -> Vec<(Request, String)> {
        if self.repeated > 0 {
            self.ctx.notice(format!(
                "{} answer line{} named a request that had its answer already (a duplicate, a later error or malformed line, a second answer): the first valid answer of each was kept",
                self.repeated,
                if self.repeated == 1 { "" } else { "s" }
            ));
        }
        let mut again = Vec::new();
        let mut left: Vec<Request> = self.pending.drain().map(|(_, r)| r).collect();
        left.sort_by_key(|r| r.idx);
        for r in left {
            if self.failed_before.contains(&r.idx) {
                continue;
            }
            let keys: Vec<ComboKey> = r.units.iter().map(|u| u.key.clone()).collect();
            match self.held.remove(&r.idx) {
                Some(Ok(body)) => {
                    self.ledger.settle(Reservation::default(), Outcome::Refused);
                    let e = crate::provider::accumulate::parse_response(&body).err();
                    fail(
                        self.ctx,
                        keys,
                        FailureKind::Malformed,
                        format!("the batch's answer could not be read: {e:?}"),
                        &body.to_string(),
                        Some(200),
                        &r.call,
                    );
                }
                Some(Err((status, message))) if ask_again => {
                    self.ledger.settle(Reservation::default(), Outcome::Refused);
                    let why =
                        format!("the batch answered this request with HTTP {status}: {message}");
                    again.push((r, why));
                }
                Some(Err((status, message))) => {
                    self.ledger.settle(Reservation::default(), Outcome::Refused);
                    fail(
                        self.ctx,
                        keys,
                        FailureKind::Provider,
                        format!("the batch answered this request with HTTP {status}: {message}"),
                        "",
                        Some(status),
                        &r.call,
                    );
                }
                None if ask_again => again.push((r, why_missing.to_string())),
                None => fail(
                    self.ctx,
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
