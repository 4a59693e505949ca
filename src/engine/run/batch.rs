//! One batch: send, validate, keep what is valid, retry only what is missing.

use super::confidence;
use super::failure::{FailureRecord, summarise, unscorable, unscorable_reason};
use super::follow_up::follow_up;
use super::salvage::{keep_complete, salvage_reason};
use super::servers::{AfterFailure, Lease};
use super::stream::TextStreamer;
use super::{Ctx, item_positions};
use crate::domain::{ComboKey, FailureKind, Verdict};
use crate::engine::EngineEvent;
use crate::engine::writer::WriteCmd;
use crate::protocol::{ParseOutcome, Unit};
use crate::provider::{ChatCall, Completion, ProviderError, TimeLimit};
use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

/// What the batch does after one request.
enum Next {
    /// Ask again for what is still pending. `progressed`: the request kept
    /// new verdicts, so it did not use up the batch's allowance.
    Again { progressed: bool },
    /// Give up on what is pending.
    Stop,
}

/// How many requests a batch may still send.
#[derive(Clone, Copy)]
struct Allowance {
    /// Requests that kept no new verdict so far: at `max_attempts` the batch
    /// gives up.
    fruitless: u32,
    /// Hard cap on all requests: each fruitful one keeps at least one entry,
    /// so a batch of n can have at most n of them on top of the fruitless.
    cap: u32,
}

/// Sends one batch, validates, keeps what is valid and retries only what is
/// missing. A request that kept new verdicts (an answer cut half-way keeps
/// every entry complete within it) does not use up the batch's allowance;
/// `max_attempts` requests that keep nothing end it, and never more than
/// `max_attempts` plus the batch's size requests are sent in all.
///
/// A batch's time is bounded too: `max_attempts` request timeouts from its
/// first request; no request starts after that, and an answer still arriving
/// then is cut (its failure says so).
pub(super) async fn judge_batch(ctx: &Ctx, batch: Vec<Unit>) {
    let mut pending = batch;
    let mut attempt = 0u32;
    let timeout = ctx.client().config().request_timeout;
    let limit = TimeLimit::after(
        timeout.saturating_mul(ctx.max_attempts),
        format!(
            "the batch ({} × the {timeout:?} request timeout)",
            ctx.max_attempts
        ),
    );
    let mut allowance = Allowance {
        fruitless: 0,
        cap: ctx.max_attempts.saturating_add(pending.len() as u32),
    };
    while !pending.is_empty() {
        if ctx.cancel.is_cancelled() || ctx.stop.is_cancelled() {
            break;
        }
        if limit.passed() {
            // Said once, for what is left: the last answer's failure may
            // name only the request timeout that ended at the same moment.
            ctx.record_failure(FailureRecord {
                kind: FailureKind::Provider,
                keys: pending.iter().map(|u| u.key.clone()).collect(),
                reason: format!("{}: no further request was sent for these", limit.ran_out()),
                raw: "",
                status: None,
                finish: None,
                request: "",
                attempt,
            });
            break;
        }
        attempt += 1;
        match ask(ctx, &mut pending, &mut attempt, allowance, &limit).await {
            Next::Stop => break,
            Next::Again { progressed: false } => allowance.fruitless += 1,
            Next::Again { progressed: true } => {}
        }
    }
    // Units left when the run was cancelled, or never sent because it had
    // stopped, were not judged, not failed.
    if !pending.is_empty() && !ctx.cancel.is_cancelled() && attempt > 0 {
        let _ = ctx.writes.send(WriteCmd::Failed(pending.len() as u64));
    }
}

/// One answer that came by another way than a request of this process (a
/// line of a batch's output file): validated, salvaged and recorded as a
/// streamed answer is, and never asked again (`cap` 1); what it leaves
/// without a verdict is counted as failed, for `--resume`.
pub(super) async fn judge_answer(
    ctx: &Ctx,
    mut pending: Vec<Unit>,
    call: ChatCall,
    result: Result<Completion, ProviderError>,
) {
    let limit = TimeLimit::after(Duration::ZERO, "a batch's answer");
    let lease = ctx.servers.first_place();
    let sent = Attempt {
        ctx,
        keys: pending.iter().map(|u| u.key.clone()).collect(),
        call,
        number: 1,
        allowance: Allowance {
            fruitless: 0,
            cap: 1,
        },
        limit: &limit,
        started: Instant::now(),
        latency: Duration::ZERO,
        lease: &lease,
    };
    match result {
        Ok(c) => {
            lease.answered(c.path);
            ctx.note_path(c.path);
            match unscorable(&c) {
                Some(kind) => sent.unscorable(&mut pending, &c, kind).await,
                None => sent.answered(&mut pending, c).await,
            };
        }
        Err(e) => {
            sent.failed(&mut pending, e);
        }
    }
    if !pending.is_empty() {
        let _ = ctx.writes.send(WriteCmd::Failed(pending.len() as u64));
    }
}

/// Judges `half` of a batch on its own. Boxed: a half can split again.
fn judge_half(ctx: &Ctx, half: Vec<Unit>) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(judge_batch(ctx, half))
}

/// One request that was sent, and when.
struct Attempt<'c> {
    ctx: &'c Ctx,
    call: ChatCall,
    number: u32,
    allowance: Allowance,
    limit: &'c TimeLimit,
    keys: Vec<ComboKey>,
    started: Instant,
    /// From sending to the end of the answer.
    latency: Duration,
    /// The server it went to.
    lease: &'c Lease<'c>,
}

/// Sends `pending` once and handles what came back.
async fn ask(
    ctx: &Ctx,
    pending: &mut Vec<Unit>,
    attempt: &mut u32,
    allowance: Allowance,
    limit: &TimeLimit,
) -> Next {
    let keys: Vec<ComboKey> = pending.iter().map(|u| u.key.clone()).collect();
    let mut call = match ctx.protocol.build_call(pending, &ctx.boundary) {
        Ok(c) => c,
        Err(e) => {
            ctx.record_failure(FailureRecord {
                kind: FailureKind::Invalid,
                keys,
                reason: e.to_string(),
                raw: "",
                status: None,
                finish: None,
                request: "",
                attempt: *attempt,
            });
            return Next::Stop;
        }
    };
    call.max_tokens = Some(ctx.request.max_tokens_for(pending.len()));
    let Some(lease) = ctx.servers.acquire().await else {
        // Every server was taken out; the one that went last stopped the
        // run and said why.
        ctx.stop_with("every server is out of the run".into());
        return Next::Stop;
    };
    let _ = ctx.events.send(EngineEvent::RequestStarted {
        run_id: ctx.run_id,
        keys: keys.clone(),
    });
    let started = Instant::now();
    let mut streamer = TextStreamer::new(ctx, pending);
    let result = lease
        .client()
        .complete_within(&call, Some(limit), &ctx.cancel, &mut |frame| {
            streamer.on_frame(frame)
        })
        .await;
    streamer.finish();
    let sent = Attempt {
        ctx,
        call,
        number: *attempt,
        allowance,
        limit,
        keys,
        started,
        latency: started.elapsed(),
        lease: &lease,
    };
    match result {
        Ok(c) => {
            lease.answered(c.path);
            ctx.note_path(c.path);
            match unscorable(&c) {
                Some(kind) => sent.unscorable(pending, &c, kind).await,
                None => sent.answered(pending, c).await,
            }
        }
        Err(ProviderError::Cancelled) => Next::Stop,
        // Nothing was sent: the run stops, the combinations were not
        // judged (no failure to record), `--resume` picks them up.
        Err(e @ ProviderError::Budget(_)) => {
            ctx.stop_with(e.to_string());
            Next::Stop
        }
        Err(ProviderError::ContextExceeded { .. }) if pending.len() > 1 => {
            // Deterministic: the same request would fail again. Half the
            // batch at a time until it fits; the split is not an attempt
            // (the failure, if it comes, names the message).
            *attempt -= 1;
            lease.release();
            let half = pending.split_off(pending.len() / 2);
            judge_half(ctx, half).await;
            Next::Again { progressed: true }
        }
        Err(e) if ctx.servers.several() => {
            let taken_out = match lease.failed(&e) {
                AfterFailure::Kept => false,
                AfterFailure::TakenOut(text) => {
                    ctx.notice(text);
                    true
                }
                AfterFailure::NoneLeft(text) => {
                    ctx.stop_with(text);
                    return sent.failed(pending, e);
                }
            };
            if matches!(
                e,
                ProviderError::Unreachable { .. } | ProviderError::Redirected { .. }
            ) {
                // The server could not be reached, or sent the request off
                // to another origin (not followed), so nothing was asked:
                // the same request goes to another, not as a new attempt.
                *attempt -= 1;
                Next::Again { progressed: true }
            } else if taken_out {
                // The server failed this request once too often and is out
                // of the run: the request goes to another server, and this
                // attempt, the server's fault, is not held against it (a
                // request whose every attempt hit the failing server while
                // the others were busy would otherwise be given up on).
                *attempt -= 1;
                sent.failed_on_a_server_taken_out(pending, e)
            } else {
                sent.failed(pending, e)
            }
        }
        Err(e) => sent.failed(pending, e),
    }
}

impl Attempt<'_> {
    /// The request as JSON, for failure records only: serialised when a
    /// failure needs it, not for every request.
    fn request_json(&self) -> String {
        crate::provider::request_body(
            self.lease.client().config(),
            &self.call,
            self.lease.client().tool_mode(),
        )
        .to_string()
    }

    /// Another try, unless the allowance is used up: this request counts
    /// against it only when it kept no new verdict (`kept` is 0).
    fn again_if_attempts_left(&self, kept: usize) -> Next {
        let fruitless = self.allowance.fruitless + u32::from(kept == 0);
        if fruitless >= self.ctx.max_attempts || self.number >= self.allowance.cap {
            Next::Stop
        } else {
            Next::Again {
                progressed: kept > 0,
            }
        }
    }

    /// A refusal, a content filter or a `length` cut-off: recorded, and for
    /// a cut-off the complete entries kept and the rest asked for in halves.
    async fn unscorable(&self, pending: &mut Vec<Unit>, c: &Completion, kind: FailureKind) -> Next {
        let mut reason = unscorable_reason(c);
        let cut = kind == FailureKind::Length;
        let before = pending.len();
        let mut kept = 0;
        if cut {
            // Entries complete before the cut are kept, with the confidence
            // their tokens give them.
            kept = keep_complete(
                self.ctx,
                pending,
                c.answer_text(),
                |o| confidence::read(self.ctx, &c.content, c.logprobs.as_deref(), o),
                &self.call.tool.name,
                self.latency,
                &self.lease.server().label,
            );
            reason = salvage_reason(&reason, kept, before, self.call.max_tokens);
        }
        self.ctx.record_failure(FailureRecord {
            kind,
            keys: pending.iter().map(|u| u.key.clone()).collect(),
            reason,
            raw: c.answer_text(),
            status: Some(c.http_status),
            finish: c.finish_reason.as_ref().map(|f| f.as_str().to_string()),
            request: &self.request_json(),
            attempt: self.number,
        });
        if !cut {
            return Next::Stop;
        }
        let next = self.again_if_attempts_left(kept);
        if let Next::Stop = next {
            return next;
        }
        // A length cut-off is cured by asking for less at once.
        if pending.len() > 1 {
            self.lease.release();
            let half = pending.split_off(pending.len() / 2);
            judge_half(self.ctx, half).await;
        }
        next
    }

    /// An answer to parse (and a follow-up turn when the protocol has one):
    /// valid verdicts are kept, the missing ones recorded and asked again.
    async fn answered(&self, pending: &mut Vec<Unit>, c: Completion) -> Next {
        let ctx = self.ctx;
        let mut outcome = ctx.protocol.parse(pending, c.answer_text());
        let mut tokens = c.usage.map(|u| u.prompt_tokens + u.completion_tokens);
        let mut latency = self.latency;
        // The answer (and request) a failure for missing units refers to.
        let mut last = (c, None::<String>);
        if let Some(mut next) =
            ctx.protocol
                .follow_up(pending, &self.call, last.0.answer_text(), &outcome)
        {
            next.max_tokens = self.call.max_tokens;
            match follow_up(ctx, self.lease.client(), &next, pending, self.limit).await {
                Ok((c2, request2)) => {
                    outcome = ctx
                        .protocol
                        .parse_follow_up(pending, &outcome, c2.answer_text());
                    tokens = match (tokens, c2.usage) {
                        (Some(a), Some(u)) => Some(a + u.prompt_tokens + u.completion_tokens),
                        _ => None,
                    };
                    last = (c2, Some(request2));
                }
                Err(f) if f.cancelled => return Next::Stop,
                Err(f) => {
                    ctx.record_failure(FailureRecord {
                        kind: f.kind,
                        keys: self.keys.clone(),
                        reason: format!("the follow-up turn: {}", f.reason),
                        raw: &f.raw,
                        status: f.status,
                        finish: f.finish,
                        request: &f.request,
                        attempt: self.number,
                    });
                    return if f.stop {
                        Next::Stop
                    } else {
                        self.again_if_attempts_left(0)
                    };
                }
            }
            latency = self.started.elapsed();
        }
        let share = tokens.unwrap_or(0) / self.keys.len().max(1) as u64;
        let sure = confidence::read(ctx, &last.0.content, last.0.logprobs.as_deref(), &outcome);
        self.keep(pending, &outcome, latency, share, &sure);
        if outcome.missing.is_empty() {
            pending.clear();
            return Next::Stop;
        }
        let missing_keys: Vec<ComboKey> = outcome.missing.iter().map(|(k, _)| k.clone()).collect();
        let mut reason = summarise(&outcome.missing);
        if !outcome.notes.is_empty() {
            reason.push_str("; ");
            reason.push_str(&outcome.notes.join("; "));
        }
        let (answer, request) = &last;
        self.ctx.record_failure(FailureRecord {
            kind: if outcome.malformed {
                FailureKind::Malformed
            } else {
                FailureKind::Invalid
            },
            keys: missing_keys.clone(),
            reason,
            raw: answer.answer_text(),
            status: Some(answer.http_status),
            finish: answer
                .finish_reason
                .as_ref()
                .map(|f| f.as_str().to_string()),
            request: &request.clone().unwrap_or_else(|| self.request_json()),
            attempt: self.number,
        });
        let missing: HashSet<ComboKey> = missing_keys.into_iter().collect();
        pending.retain(|u| missing.contains(&u.key));
        self.again_if_attempts_left(outcome.verdicts.len())
    }

    /// Writes the valid verdicts of `outcome`, each with its place in the request.
    fn keep(
        &self,
        pending: &[Unit],
        outcome: &ParseOutcome,
        latency: Duration,
        share: u64,
        sure: &super::confidence::Sure,
    ) {
        let positions = item_positions(pending);
        let verdicts: Vec<Verdict> = outcome
            .verdicts
            .iter()
            .map(|p| {
                let at = positions.get(p.key.item_id.as_str()).copied();
                let mut v = self
                    .ctx
                    .verdict(p, latency, share, at, &self.lease.server().label);
                v.confidence = sure.get(&p.key).copied();
                v
            })
            .collect();
        if !verdicts.is_empty() {
            let _ = self.ctx.writes.send(WriteCmd::Verdicts(verdicts));
        }
    }

    /// As [`Attempt::failed`], on a server this failure took out of the
    /// run: asked again (on another server) whatever attempts are left,
    /// unless the same request would fail the same way anywhere.
    fn failed_on_a_server_taken_out(&self, pending: &mut Vec<Unit>, e: ProviderError) -> Next {
        let again = self.failed(pending, e.clone());
        if matches!(again, Next::Stop) && !self.ctx.stop.is_cancelled() && retryable_elsewhere(&e) {
            Next::Again { progressed: true }
        } else {
            again
        }
    }

    /// No answer to score: recorded (what arrived of a cut-off stream kept),
    /// and asked again only when another try could do better.
    fn failed(&self, pending: &mut Vec<Unit>, e: ProviderError) -> Next {
        let (kind, raw) = match &e {
            ProviderError::Truncated { partial, .. } | ProviderError::TooLarge { partial, .. } => {
                (FailureKind::Truncated, partial.as_str())
            }
            _ => (FailureKind::Provider, ""),
        };
        // The tokens that arrived with a cut-off answer's content. An answer
        // over the size cap carries none (not streamed, what it keeps is the
        // raw body, not the content): its entries are kept without one.
        let tokens = match &e {
            ProviderError::Truncated { logprobs, .. } => Some(logprobs.as_deref()),
            _ => None,
        };
        let mut reason = match &e {
            ProviderError::ContextExceeded { .. } => format!(
                "{e}; this entry alone does not fit the model's context (a shorter item or a model with a longer context is needed)"
            ),
            other => other.to_string(),
        };
        let salvaged = matches!(
            e,
            ProviderError::Truncated { .. } | ProviderError::TooLarge { .. }
        );
        let mut kept = 0;
        if salvaged {
            let before = pending.len();
            kept = keep_complete(
                self.ctx,
                pending,
                raw,
                |o| match tokens {
                    Some(tokens) => confidence::read(self.ctx, raw, tokens, o),
                    None => confidence::Sure::new(),
                },
                &self.call.tool.name,
                self.latency,
                &self.lease.server().label,
            );
            reason = salvage_reason(&reason, kept, before, None);
        }
        self.ctx.record_failure(FailureRecord {
            kind,
            keys: pending.iter().map(|u| u.key.clone()).collect(),
            reason,
            raw,
            status: e.http_status(),
            finish: None,
            request: &self.request_json(),
            attempt: self.number,
        });
        if e.is_fatal_for_run() {
            self.ctx.stop_with(e.to_string());
            return Next::Stop;
        }
        let again = retryable_elsewhere(&e);
        // The client already retried transient faults; try again only
        // while attempts remain (a truncated stream may well succeed).
        if again {
            self.again_if_attempts_left(kept)
        } else {
            Next::Stop
        }
    }
}

/// A request the server refused (400 and the like) or an answer past the
/// size cap would fail the same way again, on any server.
fn retryable_elsewhere(e: &ProviderError) -> bool {
    !matches!(
        e,
        ProviderError::Rejected { .. }
            | ProviderError::TooLarge { .. }
            | ProviderError::ContextExceeded { .. }
    )
}
