//! Runs sent as batches: the run's requests become a batch file (the OpenAI
//! Batch API's format, [`file`]), written for another engine (`jury batch
//! export`) or sent through the Batch API (`jury run --batch`); the answers
//! (`jury batch import`, or the batch's output and error files) go through
//! the same validation, salvage and failure records as streamed ones
//! ([`super::batch::judge_answer`]). Nothing is ever sent directly: a line
//! that failed or is missing stays missing, for `--resume`.

pub mod file;

use super::batch::judge_answer;
use super::failure::FailureRecord;
use super::{Ctx, Plan};
use crate::domain::{ComboKey, FailureKind, RunStatus};
use crate::engine::spend::RunLedger;
use crate::engine::writer::{self, WriteCmd};
use crate::engine::{EngineConfig, EngineError, EngineEvent, Progress, RunOutcome, RunRequest};
use crate::protocol::Unit;
use crate::provider::batch::{BatchClient, BatchState};
use crate::provider::spend::{Admission, Outcome, Reservation, SpendGate};
use crate::provider::{ChatCall, Client, ToolMode};
use crate::store::{BatchJob, BatchRequestRow, Store};
use file::AnswerLine;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// Why a run made as a batch cannot be taken up again.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BatchError {
    #[error("there is no run {0}")]
    NoRun(i64),
    #[error("run {0} was not sent as a batch")]
    NotABatch(i64),
    #[error(
        "run {run_id} was asked with other prompts than the ones jury has now (prompt set {then} then, {now} now): its answers cannot be matched"
    )]
    PromptsChanged {
        run_id: i64,
        then: String,
        now: String,
    },
}

/// How a batch run's requests leave.
#[derive(Debug, Clone)]
pub enum BatchMode {
    /// Written to this file (and `-2`, `-3`… when more than one file's worth).
    Export { out: PathBuf },
    /// Sent through the Batch API, its status read every `poll`.
    Api { poll: Duration },
}

/// A batch run as asked for: how, and the command line that asked (an
/// import rebuilds the run's judge from it).
#[derive(Debug, Clone)]
pub struct BatchOrder {
    pub mode: BatchMode,
    pub argv: Vec<String>,
}

/// What a run made earlier does next.
#[derive(Debug, Clone)]
pub enum Reopen {
    /// Read these answer lines (an output file of the batch format).
    Answers(String),
    /// Wait for its open batches, then read their answers.
    Wait { poll: Duration },
}

/// One request of the batch file, as the run judges its answer.
struct Request {
    idx: u32,
    part: u32,
    units: Vec<Unit>,
    call: ChatCall,
}

/// Sends a new run's requests as `order` says. Returns the note the run is
/// parked with when its answers are to come from elsewhere (an export).
pub(super) async fn send(
    ctx: &Ctx,
    ledger: &RunLedger,
    batches: Vec<Vec<Unit>>,
    order: &BatchOrder,
    db: &std::path::Path,
) -> Option<String> {
    // Nothing of a batch run is sent directly (not even a follow-up turn).
    ctx.stop.cancel();
    let mode = ctx.client.tool_mode();
    let mut requests = Vec::with_capacity(batches.len());
    let mut lines = Vec::with_capacity(batches.len());
    for units in batches {
        let mut call = match ctx.protocol.build_call(&units, &ctx.boundary) {
            Ok(c) => c,
            Err(reason) => {
                invalid_request(ctx, &units, reason);
                continue;
            }
        };
        call.max_tokens = Some(ctx.request.max_tokens_for(units.len()));
        let idx = requests.len() as u32;
        let line = file::request_line(ctx.client.config(), mode, &call, ctx.run_id, idx);
        // The worst case of every line is held against the budget before
        // anything leaves: a batch cannot be stopped half-way once sent.
        match ledger.reserve(line.len(), call.max_tokens) {
            Admission::Granted(_) => {}
            Admission::Refused(why) => {
                ctx.stop_with(format!("{why}; the batch was not sent"));
                return None;
            }
            Admission::Wait => {
                ctx.stop_with(
                    "the budget does not cover the worst case of every request of the batch; the batch was not sent"
                        .to_string(),
                );
                return None;
            }
        }
        lines.push(line);
        requests.push(Request {
            idx,
            part: 1,
            units,
            call,
        });
    }
    let (parts, files) = file::split(&lines, file::MAX_BYTES);
    drop(lines);
    for (r, p) in requests.iter_mut().zip(&parts) {
        r.part = *p;
    }
    let rows: Vec<BatchRequestRow> = requests
        .iter()
        .map(|r| BatchRequestRow {
            idx: r.idx,
            part: r.part,
            keys: r.units.iter().map(|u| u.key.clone()).collect(),
            max_tokens: r.call.max_tokens.unwrap_or(0),
        })
        .collect();
    let mut store = match Store::open(db) {
        Ok(s) => s,
        Err(e) => {
            ctx.stop_with(format!("cannot record the batch: {e}"));
            return None;
        }
    };
    if let Err(e) = store.record_batch_requests(ctx.run_id, &rows) {
        ctx.stop_with(format!("cannot record the batch's requests: {e}"));
        return None;
    }
    let job = |part: u32, kind: &str, status: &str| BatchJob {
        run_id: ctx.run_id,
        part,
        kind: kind.into(),
        argv: Vec::new(),
        boundary: ctx.boundary.clone(),
        tool_mode: mode.as_str().into(),
        batch_id: None,
        input_file_id: None,
        output_file_id: None,
        error_file_id: None,
        status: status.into(),
        counts: None,
        imported: false,
    };
    match &order.mode {
        BatchMode::Export { out } => {
            let mut written = Vec::new();
            for (i, text) in files.iter().enumerate() {
                let part = i as u32 + 1;
                let path = file::part_path(out, part);
                if let Err(e) = std::fs::write(&path, text) {
                    ctx.stop_with(format!("cannot write {}: {e}", path.display()));
                    return None;
                }
                let mut j = job(part, "file", "exported");
                j.argv = order.argv.clone();
                if let Err(e) = store.save_batch_job(&j) {
                    ctx.stop_with(format!("cannot record the batch file: {e}"));
                    return None;
                }
                written.push(path.display().to_string());
            }
            Some(format!(
                "batch file written ({}): waiting for `jury batch import` of its answers",
                written.join(", ")
            ))
        }
        BatchMode::Api { poll } => {
            let client = match BatchClient::new(ctx.client.config()) {
                Ok(c) => c,
                Err(e) => {
                    ctx.stop_with(e.to_string());
                    return None;
                }
            };
            let mut jobs = Vec::new();
            for (i, text) in files.into_iter().enumerate() {
                let part = i as u32 + 1;
                let mut j = job(part, "api", "uploading");
                j.argv = order.argv.clone();
                let name = format!("jury-run-{}-{part}.jsonl", ctx.run_id);
                let uploaded = client.upload(&name, text.into_bytes()).await;
                match uploaded {
                    Ok(id) => j.input_file_id = Some(id),
                    Err(e) => {
                        ctx.stop_with(ctx.redact(&e.to_string()));
                        return None;
                    }
                }
                // Stored before the batch is created: a process killed
                // now creates it from the same file when resumed.
                if let Err(e) = store.save_batch_job(&j) {
                    ctx.stop_with(format!("cannot record the batch: {e}"));
                    return None;
                }
                if !create(ctx, &client, &mut store, &mut j).await {
                    return None;
                }
                jobs.push(j);
            }
            let requests = by_part(requests);
            wait_all(ctx, ledger, &client, &mut store, jobs, requests, *poll).await;
            None
        }
    }
}

/// Creates the batch of `job`'s uploaded file and stores its id before
/// anything waits on it. False when the run stopped.
async fn create(ctx: &Ctx, client: &BatchClient, store: &mut Store, job: &mut BatchJob) -> bool {
    let Some(input) = job.input_file_id.clone() else {
        ctx.stop_with("the batch's request file was never uploaded".into());
        return false;
    };
    match client.create(&input).await {
        Ok(state) => {
            job.batch_id = Some(state.id.clone());
            job.status = state.status.clone();
            job.counts = Some(state.counts_json());
            if let Err(e) = store.save_batch_job(job) {
                ctx.stop_with(format!("cannot record the batch: {e}"));
                return false;
            }
            true
        }
        Err(e) => {
            ctx.stop_with(ctx.redact(&e.to_string()));
            false
        }
    }
}

fn by_part(requests: Vec<Request>) -> HashMap<u32, Vec<Request>> {
    let mut m: HashMap<u32, Vec<Request>> = HashMap::new();
    for r in requests {
        m.entry(r.part).or_default().push(r);
    }
    m
}

/// Polls every open batch of `jobs` until each is over, reading each one's
/// answers as soon as it is; cancelling leaves the batches open (the same
/// command with `--resume` waits for them again).
async fn wait_all(
    ctx: &Ctx,
    ledger: &RunLedger,
    client: &BatchClient,
    store: &mut Store,
    mut jobs: Vec<BatchJob>,
    mut requests: HashMap<u32, Vec<Request>>,
    poll: Duration,
) {
    loop {
        for job in jobs.iter_mut().filter(|j| !j.imported) {
            if job.batch_id.is_none() && !create(ctx, client, store, job).await {
                return;
            }
            let Some(id) = job.batch_id.clone() else {
                return;
            };
            let state = match client.get(&id).await {
                Ok(s) => s,
                Err(e) => {
                    ctx.stop_with(ctx.redact(&e.to_string()));
                    return;
                }
            };
            let changed = state.status != job.status
                || Some(state.counts_json()) != job.counts
                || job.output_file_id != state.output_file_id;
            job.status = state.status.clone();
            job.counts = Some(state.counts_json());
            job.output_file_id = state.output_file_id.clone();
            job.error_file_id = state.error_file_id.clone();
            if changed {
                let _ = store.save_batch_job(job);
                let _ = ctx.events.send(EngineEvent::Notice {
                    run_id: ctx.run_id,
                    text: progress_text(&state),
                });
            }
            if !state.is_over() {
                continue;
            }
            let mut answers = Vec::new();
            for fid in [&state.output_file_id, &state.error_file_id]
                .into_iter()
                .flatten()
            {
                match client.download(fid).await {
                    Ok(bytes) => {
                        answers.extend(file::read_answers(&String::from_utf8_lossy(&bytes)).0)
                    }
                    Err(e) => {
                        ctx.stop_with(ctx.redact(&e.to_string()));
                        return;
                    }
                }
            }
            let why = format!(
                "no answer: the batch {id} ended '{}' before this request was answered; --resume asks for it again",
                state.status
            );
            let part = requests.remove(&job.part).unwrap_or_default();
            import(ctx, ledger, part, answers, &why).await;
            job.imported = true;
            let _ = store.save_batch_job(job);
        }
        if jobs.iter().all(|j| j.imported) {
            return;
        }
        tokio::select! {
            _ = ctx.cancel.cancelled() => {
                let _ = ctx.events.send(EngineEvent::Notice {
                    run_id: ctx.run_id,
                    text: "the batch keeps running on the server: the same command with --resume waits for it and reads its answers".into(),
                });
                return;
            }
            _ = tokio::time::sleep(poll) => {}
        }
    }
}

/// `batch_… in_progress: 3/10 answered, 1 failed`
fn progress_text(s: &BatchState) -> String {
    let (completed, failed, total) = s.counts;
    format!(
        "batch {} {}: {completed}/{total} answered, {failed} failed",
        s.id, s.status
    )
}

/// Judges each request of `requests` by its line among `answers`; a request
/// without one is recorded as failed with `why_missing`.
async fn import(
    ctx: &Ctx,
    ledger: &RunLedger,
    requests: Vec<Request>,
    answers: Vec<AnswerLine>,
    why_missing: &str,
) {
    let mode = ctx.client.tool_mode();
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
                    if crate::provider::structured::check_answer(mode, &mut c, &r.call).is_err() {
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
}

fn fail(
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
        ctx.client.config(),
        ctx.client.tool_mode(),
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

fn invalid_request(ctx: &Ctx, units: &[Unit], reason: impl std::fmt::Display) {
    let keys: Vec<ComboKey> = units.iter().map(|u| u.key.clone()).collect();
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

/// The run `run_id`, made earlier as a batch run, taken up again by this
/// process: its answers read from `what`. `plan` is the run's judge rebuilt
/// from its command line (its units are looked up by key).
pub async fn reopen(
    cfg: EngineConfig,
    req: RunRequest,
    plan: Plan,
    run_id: i64,
    what: Reopen,
    events: UnboundedSender<EngineEvent>,
    cancel: CancellationToken,
) -> Result<RunOutcome, EngineError> {
    let mut store = Store::open(&cfg.db_path)?;
    let Some(run) = store.run(run_id)? else {
        return Err(BatchError::NoRun(run_id).into());
    };
    if run.spec.prompt_hash != plan.spec.prompt_hash {
        return Err(BatchError::PromptsChanged {
            run_id,
            then: run.spec.prompt_hash,
            now: plan.spec.prompt_hash,
        }
        .into());
    }
    let jobs = store.batch_jobs(run_id)?;
    let Some(first) = jobs.first().cloned() else {
        return Err(BatchError::NotABatch(run_id).into());
    };
    let rows = store.batch_requests(run_id)?;
    let mut provider = cfg.provider.clone();
    provider.tool_mode = ToolMode::parse(&first.tool_mode).unwrap_or(ToolMode::Tools);
    provider.fallback = false;
    let units: HashMap<ComboKey, Unit> = plan
        .batches
        .iter()
        .flatten()
        .map(|u| (u.key.clone(), u.clone()))
        .collect();
    let total: u64 = rows.iter().map(|r| r.keys.len() as u64).sum();
    store.adopt_run(run_id)?;
    let _ = events.send(EngineEvent::RunStarted {
        run_id,
        total,
        skipped: 0,
    });
    let progress = Progress {
        run_id,
        total,
        ..Progress::default()
    };
    let writer = writer::start(store, progress, events.clone(), cancel.clone())
        .map_err(EngineError::WriterStart)?;
    let ledger = Arc::new(RunLedger::new(
        crate::engine::price::batch_price_for(&plan.spec.model),
        None,
        writer.tx.clone(),
    ));
    // Nothing is sent directly: the client is stopped before it starts.
    let stop = CancellationToken::new();
    stop.cancel();
    let client = Client::new(provider)
        .map_err(EngineError::Provider)?
        .with_stop(stop.clone());
    let ctx = Ctx {
        run_id,
        protocol: plan.protocol.clone(),
        client,
        spec: plan.spec,
        boundary: first.boundary.clone(),
        max_attempts: 1,
        events: events.clone(),
        writes: writer.tx.clone(),
        cancel: cancel.clone(),
        stop,
        stop_note: std::sync::Mutex::new(None),
        stream_texts: false,
        request: req,
        paths: std::sync::Mutex::new(HashMap::new()),
        no_logprobs_said: std::sync::atomic::AtomicBool::new(false),
    };
    let mut requests = Vec::with_capacity(rows.len());
    let mut unknown = Vec::new();
    for row in rows {
        let mut us = Vec::with_capacity(row.keys.len());
        for k in row.keys {
            match units.get(&k) {
                Some(u) => us.push(u.clone()),
                None => unknown.push(k),
            }
        }
        if us.is_empty() {
            continue;
        }
        match ctx.protocol.build_call(&us, &ctx.boundary) {
            Ok(mut call) => {
                call.max_tokens = Some(row.max_tokens);
                requests.push(Request {
                    idx: row.idx,
                    part: row.part,
                    units: us,
                    call,
                });
            }
            Err(reason) => invalid_request(&ctx, &us, reason),
        }
    }
    if !unknown.is_empty() {
        let n = unknown.len() as u64;
        ctx.record_failure(FailureRecord {
            kind: FailureKind::Invalid,
            keys: unknown,
            reason:
                "these combinations are no longer among the run's items (removed from the store?)"
                    .into(),
            raw: "",
            status: None,
            finish: None,
            request: "",
            attempt: 0,
        });
        let _ = ctx.writes.send(WriteCmd::Failed(n));
    }
    let mut reopened = Store::open(&cfg.db_path)?;
    match what {
        Reopen::Answers(text) => {
            let (answers, _) = file::read_answers(&text);
            import(
                &ctx,
                &ledger,
                requests,
                answers,
                "no answer: the answer file has no line for this request; --resume asks for it again",
            )
            .await;
            for mut j in jobs {
                j.imported = true;
                j.status = "imported".into();
                let _ = reopened.save_batch_job(&j);
            }
        }
        Reopen::Wait { poll } => {
            let client = BatchClient::new(ctx.client.config()).map_err(EngineError::Provider)?;
            let open: Vec<BatchJob> = jobs.into_iter().filter(|j| !j.imported).collect();
            wait_all(
                &ctx,
                &ledger,
                &client,
                &mut reopened,
                open,
                by_part(requests),
                poll,
            )
            .await;
        }
    }
    finish(ctx, writer, &cancel).await
}

/// Ends a run taken up again as [`super::execute`] ends one.
async fn finish(
    ctx: Ctx,
    writer: writer::Writer,
    cancel: &CancellationToken,
) -> Result<RunOutcome, EngineError> {
    let note = ctx.stop_note.lock().ok().and_then(|n| n.clone());
    let status = if cancel.is_cancelled() && note.is_none() {
        RunStatus::Cancelled
    } else if note.is_some() {
        RunStatus::Failed
    } else {
        RunStatus::Done
    };
    let note = note.or_else(|| (status == RunStatus::Cancelled).then(|| "cancelled".to_string()));
    let run_id = ctx.run_id;
    // How this run's answers came back, now that they have.
    let summary = super::structured_summary(&ctx, "answers of a batch");
    let _ = writer.tx.send(WriteCmd::Structured(summary));
    let _ = writer.tx.send(WriteCmd::Finish {
        status,
        note: note.clone(),
    });
    drop(ctx);
    drop(writer.tx);
    let finished = tokio::task::spawn_blocking(move || writer.join.join())
        .await
        .map_err(EngineError::WriterStopped)?
        .map_err(|_| EngineError::WriterPanicked)?
        .map_err(EngineError::WriteRefused)?;
    let (status, note) = finished.ended.unwrap_or((status, note));
    Ok(RunOutcome {
        run_id,
        status,
        progress: finished.progress,
        note,
    })
}
