//! One run from plan to finish.

use super::spend::RunLedger;
use super::writer::{self, WriteCmd};
use super::{EngineConfig, EngineError, EngineEvent, Progress, RunOutcome, RunRequest};
use crate::domain::{
    ComboKey, Failure, FailureKind, RequestPosition, RunSpec, RunStatus, Usage, Verdict,
};
use crate::protocol::{JudgeProtocol, ParsedVerdict, Unit, new_boundary};
use crate::provider::{AnswerPath, Client, Completion, FinishReason, ProviderError, StreamFrame};
use crate::store::{Store, VerdictFilter, now};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// What the planning step decided, before any request is sent.
pub struct Plan {
    pub protocol: Arc<dyn JudgeProtocol>,
    pub spec: RunSpec,
    pub batches: Vec<Vec<Unit>>,
    pub skipped: u64,
    /// Verdicts decided without a request (a proposition whose precondition
    /// does not hold); written when the run starts and counted in its total.
    pub settled: Vec<ParsedVerdict>,
}

impl Plan {
    pub fn units(&self) -> u64 {
        self.batches.iter().map(|b| b.len() as u64).sum::<u64>() + self.settled.len() as u64
    }
}

/// Everything shared by the workers of one run.
struct Ctx {
    run_id: i64,
    protocol: Arc<dyn JudgeProtocol>,
    client: Client,
    spec: RunSpec,
    boundary: String,
    max_attempts: u32,
    events: UnboundedSender<EngineEvent>,
    writes: Sender<WriteCmd>,
    cancel: CancellationToken,
    /// Set when the run must stop early (quota, auth, budget): no new request
    /// goes out, but answers already streaming in are finished and kept (they
    /// are paid for). `cancel` alone aborts requests in flight.
    stop: CancellationToken,
    /// Why the run stopped early, when it did.
    stop_note: std::sync::Mutex<Option<String>>,
    stream_texts: bool,
    /// `max_tokens` per request, by the number of entries in it.
    request: RunRequest,
    /// How answers came back, counted per path (recorded on the run).
    paths: std::sync::Mutex<HashMap<AnswerPath, u64>>,
}

pub async fn execute(
    cfg: EngineConfig,
    req: RunRequest,
    plan: Plan,
    events: UnboundedSender<EngineEvent>,
    cancel: CancellationToken,
) -> Result<RunOutcome, EngineError> {
    let mut store = Store::open(&cfg.db_path)?;
    let mut provider = cfg.provider.clone();
    let probe_note = super::structured::choose(&mut provider, req.structured, &store);
    let auto = req.structured.is_none();
    let provider_for_memory = provider.clone();
    let total = plan.units();
    let run_id = store.create_run(&plan.spec, total)?;
    // What a few-shot set showed as examples, so a report on held-out
    // items can refuse a version that saw them.
    store.record_prompt_examples(&plan.spec.prompt_hash, cfg.prompts.example_pairs())?;
    let _ = events.send(EngineEvent::RunStarted {
        run_id,
        total,
        skipped: plan.skipped,
    });
    let progress = Progress {
        run_id,
        total,
        ..Progress::default()
    };
    let writer = writer::start(store, progress, events.clone(), cancel.clone())
        .map_err(|e| EngineError::Setup(format!("cannot start the store writer: {e}")))?;
    let ledger = Arc::new(RunLedger::new(
        super::price::price_for(&plan.spec.model),
        req.budget_usd,
        writer.tx.clone(),
    ));
    let stop = CancellationToken::new();
    let client = Client::new(provider)
        .map_err(EngineError::Provider)?
        .with_gate(ledger.clone())
        .with_stop(stop.clone());

    if !plan.settled.is_empty() {
        let settled: Vec<Verdict> = plan
            .settled
            .iter()
            .map(|p| to_verdict(run_id, &plan.spec, p, Duration::ZERO, 0, None))
            .collect();
        let _ = writer.tx.send(WriteCmd::Verdicts(settled));
    }
    let ctx = Arc::new(Ctx {
        run_id,
        protocol: plan.protocol.clone(),
        client,
        spec: plan.spec,
        boundary: new_boundary(),
        max_attempts: req.max_attempts.max(1),
        events: events.clone(),
        writes: writer.tx.clone(),
        cancel: cancel.clone(),
        stop,
        stop_note: std::sync::Mutex::new(None),
        stream_texts: req.stream_texts,
        request: req.clone(),
        paths: std::sync::Mutex::new(HashMap::new()),
    });
    // `concurrency` workers, each taking the next batch as soon as its last
    // one is done: a freed slot sends its next request from the same task,
    // with no hand-off through a coordinator, and answers that arrive
    // together are parsed on every worker thread.
    let workers = req.concurrency.max(1).min(plan.batches.len().max(1));
    let queue = Arc::new(std::sync::Mutex::new(std::collections::VecDeque::from(
        plan.batches,
    )));
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let (ctx, queue) = (ctx.clone(), queue.clone());
            tokio::spawn(async move {
                loop {
                    let next = match queue.lock() {
                        Ok(mut q) => q.pop_front(),
                        Err(poisoned) => poisoned.into_inner().pop_front(),
                    };
                    let Some(batch) = next else { break };
                    judge_batch(&ctx, batch).await;
                }
            })
        })
        .collect();
    for joined in futures_util::future::join_all(handles).await {
        if let Err(e) = joined
            && let Ok(mut n) = ctx.stop_note.lock()
        {
            // A panic in one worker stops the run instead of taking the
            // process down; what arrived is kept.
            n.get_or_insert_with(|| format!("internal error while judging a batch: {e}"));
            ctx.stop.cancel();
        }
    }
    let _ = writer
        .tx
        .send(WriteCmd::Structured(structured_summary(&ctx, &probe_note)));
    if auto
        && let Ok(paths) = ctx.paths.lock()
        && let Some((mode, detail)) = super::structured::learnt(ctx.client.tool_mode(), &paths)
    {
        let _ = writer.tx.send(WriteCmd::RememberPath {
            provider: Box::new(provider_for_memory),
            mode,
            detail,
        });
    }
    let note = ledger
        .final_note()
        .or_else(|| ctx.stop_note.lock().ok().and_then(|n| n.clone()));
    let status = if cancel.is_cancelled() && note.is_none() {
        RunStatus::Cancelled
    } else if note.is_some() {
        RunStatus::Failed
    } else {
        RunStatus::Done
    };
    let note = note.or_else(|| (status == RunStatus::Cancelled).then(|| "cancelled".to_string()));
    let _ = writer.tx.send(WriteCmd::Finish {
        status,
        note: note.clone(),
    });
    drop(ctx);
    drop(writer.tx);
    let finished = tokio::task::spawn_blocking(move || writer.join.join())
        .await
        .map_err(|e| EngineError::Setup(format!("the store writer stopped: {e}")))?
        .map_err(|_| EngineError::Setup("the store writer panicked".into()))?
        .map_err(EngineError::Setup)?;
    // The writer has the last word: it knows what was committed (a run
    // that produced only failures is failed, not done).
    let progress = finished.progress;
    let (status, note) = finished.ended.unwrap_or((status, note));
    Ok(RunOutcome {
        run_id,
        status,
        progress,
        note,
    })
}

/// Sends one batch, validates, keeps what is valid and retries only what is
/// missing, up to `max_attempts` requests in all. An answer cut off (closed
/// early, `length`, over the size cap) keeps every entry complete within it;
/// only the rest is asked for again.
async fn judge_batch(ctx: &Ctx, batch: Vec<Unit>) {
    let mut pending = batch;
    let mut attempt = 0u32;
    while !pending.is_empty() {
        if ctx.cancel.is_cancelled() || ctx.stop.is_cancelled() {
            break;
        }
        attempt += 1;
        let keys: Vec<ComboKey> = pending.iter().map(|u| u.key.clone()).collect();
        let positions = item_positions(&pending);
        let mut call = match ctx.protocol.build_call(&pending, &ctx.boundary) {
            Ok(c) => c,
            Err(reason) => {
                record_failure(
                    ctx,
                    FailureKind::Invalid,
                    &keys,
                    &reason,
                    "",
                    None,
                    None,
                    "",
                    attempt,
                );
                break;
            }
        };
        call.max_tokens = Some(ctx.request.max_tokens_for(pending.len()));
        // The request as JSON, for failure records only: serialised when a
        // failure needs it, not for every request.
        let request_json = std::cell::LazyCell::new(|| {
            crate::provider::request_body(ctx.client.config(), &call, ctx.client.tool_mode())
                .to_string()
        });
        let _ = ctx.events.send(EngineEvent::RequestStarted {
            run_id: ctx.run_id,
            keys: keys.clone(),
        });
        let started = Instant::now();
        let mut streamer = TextStreamer::new(ctx, &pending);
        let result = ctx
            .client
            .complete(&call, &ctx.cancel, &mut |frame| streamer.on_frame(frame))
            .await;
        streamer.finish();
        let mut latency = started.elapsed();
        match result {
            Ok(c) => {
                ctx.note_path(c.path);
                let usage = c.usage;
                if let Some(kind) = unscorable(&c) {
                    let mut reason = match &c.refusal {
                        Some(r) => format!("the judge refused: {r}"),
                        None => format!(
                            "the answer ended with finish_reason '{}'",
                            c.finish_reason.as_ref().map(|f| f.as_str()).unwrap_or("?")
                        ),
                    };
                    let cut = kind == FailureKind::Length;
                    let before = pending.len();
                    if cut {
                        // Entries complete before the cut are kept.
                        let kept = keep_complete(
                            ctx,
                            &mut pending,
                            c.answer_text(),
                            &call.tool.name,
                            latency,
                        );
                        reason = salvage_reason(&reason, kept, before, call.max_tokens);
                    }
                    record_failure(
                        ctx,
                        kind,
                        &pending.iter().map(|u| u.key.clone()).collect::<Vec<_>>(),
                        &reason,
                        c.answer_text(),
                        Some(c.http_status),
                        c.finish_reason.as_ref().map(|f| f.as_str().to_string()),
                        &request_json,
                        attempt,
                    );
                    if !cut || attempt >= ctx.max_attempts {
                        break;
                    }
                    // A length cut-off is cured by asking for less at once.
                    if pending.len() > 1 {
                        let half = pending.split_off(pending.len() / 2);
                        Box::pin(judge_batch(ctx, half)).await;
                    }
                    continue;
                }
                let mut outcome = ctx.protocol.parse(&pending, c.answer_text());
                let mut tokens = usage.map(|u| u.prompt_tokens + u.completion_tokens);
                // The answer (and request) a failure for missing units refers to.
                let mut last = (
                    c.answer_text().to_string(),
                    c.http_status,
                    c.finish_reason.as_ref().map(|f| f.as_str().to_string()),
                    None::<String>,
                );
                if let Some(mut next) =
                    ctx.protocol
                        .follow_up(&pending, &call, c.answer_text(), &outcome)
                {
                    next.max_tokens = call.max_tokens;
                    match follow_up(ctx, &next, &pending).await {
                        Ok((c2, request2)) => {
                            outcome =
                                ctx.protocol
                                    .parse_follow_up(&pending, &outcome, c2.answer_text());
                            tokens = match (tokens, c2.usage) {
                                (Some(a), Some(u)) => {
                                    Some(a + u.prompt_tokens + u.completion_tokens)
                                }
                                _ => None,
                            };
                            last = (
                                c2.answer_text().to_string(),
                                c2.http_status,
                                c2.finish_reason.as_ref().map(|f| f.as_str().to_string()),
                                Some(request2),
                            );
                        }
                        Err(f) if f.cancelled => break,
                        Err(f) => {
                            record_failure(
                                ctx,
                                f.kind,
                                &keys,
                                &format!("the follow-up turn: {}", f.reason),
                                &f.raw,
                                f.status,
                                f.finish,
                                &f.request,
                                attempt,
                            );
                            if f.stop || attempt >= ctx.max_attempts {
                                break;
                            }
                            continue;
                        }
                    }
                    latency = started.elapsed();
                }
                let share = tokens.unwrap_or(0) / keys.len().max(1) as u64;
                let verdicts: Vec<Verdict> = outcome
                    .verdicts
                    .iter()
                    .map(|p| {
                        let at = positions.get(p.key.item_id.as_str()).copied();
                        to_verdict(ctx.run_id, &ctx.spec, p, latency, share, at)
                    })
                    .collect();
                if !verdicts.is_empty() {
                    let _ = ctx.writes.send(WriteCmd::Verdicts(verdicts));
                }
                if outcome.missing.is_empty() {
                    pending.clear();
                    break;
                }
                let missing_keys: Vec<ComboKey> =
                    outcome.missing.iter().map(|(k, _)| k.clone()).collect();
                let mut reason = summarise(&outcome.missing);
                if !outcome.notes.is_empty() {
                    reason.push_str("; ");
                    reason.push_str(&outcome.notes.join("; "));
                }
                let kind = if outcome.malformed {
                    FailureKind::Malformed
                } else {
                    FailureKind::Invalid
                };
                record_failure(
                    ctx,
                    kind,
                    &missing_keys,
                    &reason,
                    &last.0,
                    Some(last.1),
                    last.2,
                    last.3.as_deref().unwrap_or(&request_json),
                    attempt,
                );
                let missing: std::collections::HashSet<ComboKey> =
                    missing_keys.into_iter().collect();
                pending.retain(|u| missing.contains(&u.key));
                if attempt >= ctx.max_attempts {
                    break;
                }
            }
            Err(ProviderError::Cancelled) => break,
            // Nothing was sent: the run stops, the combinations were not
            // judged (no failure to record), `--resume` picks them up.
            Err(e @ ProviderError::Budget(_)) => {
                if let Ok(mut n) = ctx.stop_note.lock() {
                    n.get_or_insert_with(|| e.to_string());
                }
                ctx.stop.cancel();
                break;
            }
            Err(ProviderError::ContextExceeded { message }) if pending.len() > 1 => {
                // Deterministic: the same request would fail again. Half the
                // batch at a time until it fits; the split is not an attempt.
                let _ = message; // the failure, if it comes, names it
                attempt -= 1;
                let half = pending.split_off(pending.len() / 2);
                Box::pin(judge_batch(ctx, half)).await;
            }
            Err(e) => {
                let (kind, raw) = match &e {
                    ProviderError::Truncated { partial, .. } => {
                        (FailureKind::Truncated, partial.as_str())
                    }
                    ProviderError::TooLarge { partial, .. } => {
                        (FailureKind::Truncated, partial.as_str())
                    }
                    _ => (FailureKind::Provider, ""),
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
                if salvaged {
                    let before = pending.len();
                    let kept = keep_complete(ctx, &mut pending, raw, &call.tool.name, latency);
                    reason = salvage_reason(&reason, kept, before, None);
                }
                record_failure(
                    ctx,
                    kind,
                    &pending.iter().map(|u| u.key.clone()).collect::<Vec<_>>(),
                    &reason,
                    raw,
                    e.http_status(),
                    None,
                    &request_json,
                    attempt,
                );
                if e.is_fatal_for_run() {
                    if let Ok(mut n) = ctx.stop_note.lock() {
                        n.get_or_insert_with(|| e.to_string());
                    }
                    ctx.stop.cancel();
                    break;
                }
                // A request the server refused (400 and the like) or an answer
                // past the size cap would fail the same way again.
                let again = !matches!(
                    e,
                    ProviderError::Rejected { .. }
                        | ProviderError::TooLarge { .. }
                        | ProviderError::ContextExceeded { .. }
                );
                // The client already retried transient faults; try again only
                // while attempts remain (a truncated stream may well succeed).
                if !again || attempt >= ctx.max_attempts {
                    break;
                }
            }
        }
    }
    // Units left when the run was cancelled, or never sent because it had
    // stopped, were not judged, not failed.
    if !pending.is_empty() && !ctx.cancel.is_cancelled() && attempt > 0 {
        let _ = ctx.writes.send(WriteCmd::Failed(pending.len() as u64));
    }
}

/// Keeps the verdicts complete within a cut-off answer `partial` and leaves
/// in `pending` only the units still without one. Returns how many were kept.
fn keep_complete(
    ctx: &Ctx,
    pending: &mut Vec<Unit>,
    partial: &str,
    tool: &str,
    latency: Duration,
) -> usize {
    let Some(answer) = complete_part(partial, tool) else {
        return 0;
    };
    let outcome = ctx.protocol.parse(pending, &answer);
    if outcome.verdicts.is_empty() {
        return 0;
    }
    let kept: std::collections::HashSet<ComboKey> =
        outcome.verdicts.iter().map(|p| p.key.clone()).collect();
    // Places in the request that was sent (before `pending` shrinks).
    let positions = item_positions(pending);
    let verdicts: Vec<Verdict> = outcome
        .verdicts
        .iter()
        .map(|p| {
            let at = positions.get(p.key.item_id.as_str()).copied();
            to_verdict(ctx.run_id, &ctx.spec, p, latency, 0, at)
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
    let v = crate::provider::structured::unwrap_call(&v, tool).unwrap_or(v);
    Some(v.to_string())
}

fn salvage_reason(reason: &str, kept: usize, before: usize, max_tokens: Option<u32>) -> String {
    let limit = max_tokens
        .map(|m| format!(" (max_tokens {m})"))
        .unwrap_or_default();
    format!(
        "{reason}{limit}: {kept} of {before} entries arrived complete and were kept; the other {} are asked for again",
        before - kept
    )
}

/// How the run's answers were asked for and how they came back.
fn structured_summary(ctx: &Ctx, probe: &str) -> String {
    let mode = ctx.client.tool_mode();
    let mut parts: Vec<String> = ctx
        .paths
        .lock()
        .map(|p| {
            let mut v: Vec<(AnswerPath, u64)> = p.iter().map(|(k, n)| (*k, *n)).collect();
            v.sort_by_key(|(k, _)| k.as_str());
            v.into_iter()
                .map(|(k, n)| format!("{n} {}", k.as_str()))
                .collect()
        })
        .unwrap_or_default();
    if parts.is_empty() {
        parts.push("no answers".into());
    }
    let mut s = format!("{}: {}", mode.as_str(), parts.join(", "));
    if !probe.is_empty() {
        s.push_str(" (");
        s.push_str(probe);
        s.push(')');
    }
    s
}

impl Ctx {
    fn note_path(&self, path: AnswerPath) {
        if let Ok(mut p) = self.paths.lock() {
            *p.entry(path).or_insert(0) += 1;
        }
    }
}

fn to_verdict(
    run_id: i64,
    spec: &RunSpec,
    p: &ParsedVerdict,
    latency: Duration,
    tokens: u64,
    position: Option<RequestPosition>,
) -> Verdict {
    Verdict {
        run_id,
        key: p.key.clone(),
        persona_id: spec.persona_id.clone(),
        protocol: spec.protocol,
        mode: spec.mode,
        model: spec.model.clone(),
        value: p.value,
        text: p.text.clone(),
        evaluated_selection: p.evaluated_selection.clone(),
        selection_mismatch: p.selection_mismatch,
        latency_ms: latency.as_millis() as u64,
        tokens,
        raw: p.raw.clone(),
        created_at: now(),
        position,
    }
}

/// Each item's place among the items of a request.
fn item_positions(units: &[Unit]) -> HashMap<&str, RequestPosition> {
    let order = crate::protocol::item_order(units);
    let items = order.len() as u32;
    order
        .into_iter()
        .map(|(id, index)| {
            let index = index as u32;
            (id, RequestPosition { index, items })
        })
        .collect()
}

/// Why a follow-up turn gave nothing to parse.
struct FollowUpFailure {
    kind: FailureKind,
    reason: String,
    raw: String,
    status: Option<u16>,
    finish: Option<String>,
    request: String,
    /// The run must stop (cancelled, or a fault fatal for the run).
    stop: bool,
    /// Cancelled by the user: nothing to record.
    cancelled: bool,
}

/// Sends a protocol's follow-up turn (counted as a request, its usage kept).
async fn follow_up(
    ctx: &Ctx,
    call: &crate::provider::ChatCall,
    pending: &[Unit],
) -> Result<(Completion, String), FollowUpFailure> {
    let request = crate::provider::request_body(ctx.client.config(), call, ctx.client.tool_mode())
        .to_string();
    let mut streamer = TextStreamer::new(ctx, pending);
    let result = ctx
        .client
        .complete(call, &ctx.cancel, &mut |frame| streamer.on_frame(frame))
        .await;
    match result {
        Ok(c) => {
            ctx.note_path(c.path);
            match unscorable(&c) {
                None => Ok((c, request)),
                Some(kind) => Err(FollowUpFailure {
                    kind,
                    reason: match &c.refusal {
                        Some(r) => format!("the judge refused: {r}"),
                        None => format!(
                            "the answer ended with finish_reason '{}'",
                            c.finish_reason.as_ref().map(|f| f.as_str()).unwrap_or("?")
                        ),
                    },
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
                if let Ok(mut n) = ctx.stop_note.lock() {
                    n.get_or_insert_with(|| e.to_string());
                }
                ctx.stop.cancel();
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

/// Answers that must not be scored (RELIABILITY row 5).
fn unscorable(c: &Completion) -> Option<FailureKind> {
    if c.refusal.as_deref().is_some_and(|r| !r.trim().is_empty()) {
        return Some(FailureKind::Refusal);
    }
    match c.finish_reason {
        Some(FinishReason::Length) => Some(FailureKind::Length),
        Some(FinishReason::ContentFilter) => Some(FailureKind::ContentFilter),
        _ => None,
    }
}

fn summarise(missing: &[(ComboKey, String)]) -> String {
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

#[allow(clippy::too_many_arguments)]
fn record_failure(
    ctx: &Ctx,
    kind: FailureKind,
    keys: &[ComboKey],
    reason: &str,
    raw: &str,
    status: Option<u16>,
    finish: Option<String>,
    request: &str,
    attempt: u32,
) {
    let _ = ctx.writes.send(WriteCmd::Failure(Failure {
        run_id: ctx.run_id,
        kind,
        keys: keys.to_vec(),
        reason: reason.to_string(),
        raw_response: raw.to_string(),
        http_status: status,
        finish_reason: finish,
        request: request.to_string(),
        attempt,
        created_at: now(),
    }));
}

/// Turns streamed fragments into `TextDelta` events: re-reads the partial
/// answer when a fragment may have changed a text, and sends only texts that changed.
struct TextStreamer<'a> {
    ctx: &'a Ctx,
    units: Vec<Unit>,
    wanted: std::collections::HashSet<ComboKey>,
    args: String,
    shown: HashMap<ComboKey, usize>,
    last_parse: Instant,
    /// Fragments arrived since the last parse.
    dirty: bool,
}

impl<'a> TextStreamer<'a> {
    fn new(ctx: &'a Ctx, units: &[Unit]) -> Self {
        TextStreamer {
            ctx,
            // Only the workbench needs the texts: a headless run keeps no copy.
            units: if ctx.stream_texts {
                units.to_vec()
            } else {
                Vec::new()
            },
            wanted: units.iter().map(|u| u.key.clone()).collect(),
            args: String::new(),
            shown: HashMap::new(),
            last_parse: Instant::now() - Duration::from_secs(1),
            dirty: false,
        }
    }

    fn on_frame(&mut self, frame: StreamFrame) {
        match frame {
            StreamFrame::ToolArgs {
                index: 0, fragment, ..
            }
            | StreamFrame::Content(fragment) => {
                if !self.ctx.stream_texts {
                    return;
                }
                self.args.push_str(&fragment);
                self.dirty = true;
                // Re-parsing is O(answer); doing it at most every 30 ms keeps a long
                // answer linear in practice while the text still flows smoothly.
                if self.last_parse.elapsed() >= Duration::from_millis(30) {
                    self.flush();
                }
            }
            StreamFrame::ToolArgs { .. } => {}
            StreamFrame::Retrying { delay, reason, .. } => {
                self.args.clear();
                self.shown.clear();
                let _ = self.ctx.events.send(EngineEvent::Retrying {
                    run_id: self.ctx.run_id,
                    keys: self.wanted.iter().cloned().collect(),
                    delay,
                    reason,
                });
            }
        }
    }

    /// At the end of an answer: the texts as they finally stand, so every
    /// verdict's text has been streamed before the verdict itself arrives,
    /// however fast the answer came (fragments inside one 30 ms window would
    /// otherwise never be shown as streaming).
    fn finish(&mut self) {
        if self.dirty {
            self.flush();
        }
    }

    fn flush(&mut self) {
        self.last_parse = Instant::now();
        self.dirty = false;
        let Some(partial) = crate::provider::partial_json::parse_prefix(&self.args) else {
            return;
        };
        for (key, text) in self.ctx.protocol.partial_texts(&self.units, &partial) {
            if !self.wanted.contains(&key) {
                continue;
            }
            // A key the server echoes never reaches the screen either.
            let text =
                crate::provider::errtext::redact(&text, self.ctx.client.config().api_key.as_ref());
            let len = text.len();
            if self.shown.get(&key) != Some(&len) {
                self.shown.insert(key.clone(), len);
                let _ = self.ctx.events.send(EngineEvent::TextDelta {
                    run_id: self.ctx.run_id,
                    key,
                    text,
                });
            }
        }
    }
}

/// Usage as the engine records it (unknown is not zero).
pub fn usage_or_unknown(u: Option<Usage>) -> String {
    match u {
        Some(u) => format!("{} in / {} out", u.prompt_tokens, u.completion_tokens),
        None => "unknown".into(),
    }
}

/// Builds the plan: which units, in which batches, skipping what `--resume` finds done.
pub fn plan(cfg: &EngineConfig, req: &RunRequest, store: &Store) -> Result<Plan, EngineError> {
    req.validate(&cfg.provider)?;
    let items = store.items()?;
    let all_ids: Vec<String> = items.iter().map(|i| i.id.clone()).collect();
    // What the judge sees of each item: never 50 MB of it.
    let items: Arc<HashMap<String, crate::domain::Item>> = Arc::new(
        items
            .into_iter()
            .map(|i| (i.id.clone(), crate::protocol::caps::for_judge(i)))
            .collect(),
    );
    let (protocol, persona_id, prompt_hash): (Arc<dyn JudgeProtocol>, String, String) =
        match req.protocol {
            crate::domain::Protocol::Awag => {
                let persona = store.persona(&req.persona_id)?.ok_or_else(|| {
                    EngineError::Setup(format!(
                        "no persona '{}' in the store (see `jury list personas`)",
                        req.persona_id
                    ))
                })?;
                let all_persp = store.perspectives()?;
                let mut perspectives = Vec::new();
                for id in &req.perspective_ids {
                    let p = all_persp.iter().find(|p| &p.id == id).ok_or_else(|| {
                        EngineError::Setup(format!(
                            "no perspective '{id}' in the store (see `jury list perspectives`)"
                        ))
                    })?;
                    perspectives.push(p.clone());
                }
                if perspectives.is_empty() {
                    return Err(EngineError::Setup("name at least one perspective".into()));
                }
                let id = persona.id.clone();
                let awag = crate::protocol::awag::Awag {
                    mode: req.mode,
                    prompts: cfg.prompts.clone(),
                    persona,
                    perspectives,
                    items: items.clone(),
                };
                (Arc::new(awag), id, cfg.prompts.hash().to_string())
            }
            crate::domain::Protocol::Rubric => {
                use crate::protocol::rubric::{Dimension, Rubric, RubricPrompts};
                let dims: Vec<Dimension> = match req
                    .options
                    .get("dimensions")
                    .and_then(serde_json::Value::as_array)
                {
                    Some(list) if !list.is_empty() => list
                        .iter()
                        .map(|d| Dimension {
                            name: d["name"].as_str().unwrap_or("").to_string(),
                            rubric: d["rubric"].as_str().unwrap_or("").to_string(),
                        })
                        .collect(),
                    _ => Dimension::defaults(),
                };
                let dir = req
                    .options
                    .get("prompts_dir")
                    .and_then(serde_json::Value::as_str)
                    .map(std::path::PathBuf::from);
                let prompts = RubricPrompts::load(dir.as_deref()).map_err(EngineError::Setup)?;
                let hash = prompts.hash(&dims);
                let persona = if req.persona_id.is_empty() {
                    "-".to_string()
                } else {
                    req.persona_id.clone()
                };
                (
                    Arc::new(Rubric {
                        prompts,
                        dimensions: dims,
                        items: items.clone(),
                    }),
                    persona,
                    hash,
                )
            }
            crate::domain::Protocol::Proposition => {
                use crate::protocol::proposition::{Proposition, PropositionPrompts, Settings};
                let settings = Settings::from_options(&req.options).map_err(EngineError::Setup)?;
                let prompts = PropositionPrompts::load(prompts_dir(req).as_deref())
                    .map_err(EngineError::Setup)?;
                let persona = if req.persona_id.is_empty() || req.persona_id == "-" {
                    None
                } else {
                    Some(store.persona(&req.persona_id)?.ok_or_else(|| {
                        EngineError::Setup(format!(
                            "no persona '{}' in the store (see `jury list personas`)",
                            req.persona_id
                        ))
                    })?)
                };
                let hash = prompts.hash(&settings);
                let persona_id = persona.as_ref().map(|p| p.id.clone()).unwrap_or("-".into());
                let p = Proposition::new(prompts, settings, persona, items.clone())
                    .map_err(EngineError::Setup)?;
                (Arc::new(p), persona_id, hash)
            }
            crate::domain::Protocol::Guideline => {
                use crate::protocol::guideline::{GuidelineCheck, GuidelinePrompts};
                let prompts = GuidelinePrompts::load(prompts_dir(req).as_deref())
                    .map_err(EngineError::Setup)?;
                let hash = prompts.hash();
                let persona = if req.persona_id.is_empty() {
                    "-".to_string()
                } else {
                    req.persona_id.clone()
                };
                (
                    Arc::new(GuidelineCheck {
                        prompts,
                        items: items.clone(),
                    }),
                    persona,
                    hash,
                )
            }
        };
    // Without explicit ids, choose among the items this protocol can judge
    // (a --limit or subset of inbox items is not spent on conversations).
    let eligible: Vec<String> = match req.item_ids {
        Some(_) => all_ids,
        // One pass over every item's units: the ids that have any, in store order.
        None => {
            let judged: std::collections::HashSet<String> = protocol
                .units(&all_ids)
                .into_iter()
                .map(|u| u.key.item_id)
                .collect();
            all_ids
                .into_iter()
                .filter(|id| judged.contains(id))
                .collect()
        }
    };
    let mut ids =
        super::plan::select_items(&eligible, req.item_ids.as_deref(), req.subset, req.limit)
            .map_err(EngineError::Setup)?;
    drop(eligible);
    if let Some(seed) = req.shuffle_seed {
        super::plan::shuffle(&mut ids, seed);
    }
    let spec = RunSpec {
        protocol: req.protocol,
        mode: protocol.mode(),
        persona_id,
        perspective_ids: match req.protocol {
            crate::domain::Protocol::Awag => req.perspective_ids.clone(),
            other => vec![other.as_str().to_string()],
        },
        model: cfg.provider.model.clone(),
        prompt_hash,
        params: serde_json::json!({
            "batch_size": req.batch_size,
            "concurrency": req.concurrency,
            "max_attempts": req.max_attempts,
            "temperature": cfg.provider.temperature,
            "prompts": cfg.prompts.origin,
            "items": ids.len(),
            "options": req.options,
            "shuffle_seed": req.shuffle_seed,
        }),
    };
    let mut units = protocol.units(&ids);
    let mut skipped = 0;
    if req.resume {
        let done = store.judged_keys(&VerdictFilter {
            persona_id: &spec.persona_id,
            protocol: spec.protocol,
            mode: spec.mode,
            model: &spec.model,
            prompt_hash: &spec.prompt_hash,
        })?;
        let before = units.len();
        units.retain(|u| !done.contains(&u.key));
        skipped = (before - units.len()) as u64;
    }
    // Units a protocol settles without asking (a precondition that does not hold).
    let settled = protocol.settle(&units);
    if !settled.is_empty() {
        let done: std::collections::HashSet<&ComboKey> = settled.iter().map(|v| &v.key).collect();
        units.retain(|u| !done.contains(&u.key));
    }
    let batches = protocol.batches(&units, req.batch_size);
    Ok(Plan {
        protocol,
        spec,
        batches,
        skipped,
        settled,
    })
}

/// A prompt directory given in a protocol's options.
fn prompts_dir(req: &RunRequest) -> Option<std::path::PathBuf> {
    req.options
        .get("prompts_dir")
        .and_then(serde_json::Value::as_str)
        .map(std::path::PathBuf::from)
}
