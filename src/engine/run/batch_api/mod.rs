//! Runs sent as batches: the run's requests become a batch file (the OpenAI
//! Batch API's format, [`file`]), written for another engine (`jury batch
//! export`) or sent through the Batch API (`jury run --batch`); the answers
//! (`jury batch import`, or the batch's output and error files) go through
//! the same validation, salvage and failure records as streamed ones
//! ([`super::batch::judge_answer`]). A line that failed or is missing stays
//! missing, for `--resume` (a new batch), unless the run asked for it to be
//! asked again directly ([`Retry::Direct`], [`direct`]).

mod answers;
mod direct;
pub mod file;
mod follow_up;
mod interrupt;
mod reopen;
mod wait;

use answers::invalid_request;
pub use interrupt::{Interrupt, OnInterrupt};
pub use reopen::reopen;
use wait::wait_all;

use super::batch::judge_answer;
use super::failure::FailureRecord;
use super::{Ctx, Plan};
use crate::domain::BatchWay;
use crate::domain::{ComboKey, FailureKind};
use crate::engine::budget::RunLedger;
use crate::engine::writer::{self, WriteCmd};
use crate::engine::{EngineConfig, EngineError, EngineEvent, Progress, RunOutcome, RunRequest};
use crate::protocol::Unit;
use crate::provider::batch::{BatchClient, BatchState};
use crate::provider::spend_gate::{Admission, Outcome, Reservation, SpendGate};
use crate::provider::{ChatCall, Client};
use crate::store::{BatchJob, BatchRequestRow, BatchStatus, Store};
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
    #[error("run {run_id} cannot be taken up again: {why}")]
    NoRecord { run_id: i64, why: String },
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
    /// Sent through the Batch API, its status read every `poll`. What an
    /// interruption does to it and what becomes of the lines it leaves
    /// unanswered are the run's settings ([`RunRequest::batch_interrupt`],
    /// [`RunRequest::batch_retry`]).
    Api { poll: Duration },
}

/// What becomes of a batch's requests that failed or never got an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Retry {
    /// Sent again in follow-up batches, at most `--max-attempts` batches
    /// in all; what is still unanswered is recorded as failed, and
    /// `--resume` asks for it in a new batch.
    #[default]
    Batch,
    /// Asked again at once as streamed requests, each with the run's
    /// `--max-attempts` and no more, paid at the model's price.
    Direct,
}

/// A batch run as asked for: how its requests leave. What it asks is the
/// run's record (`runs.record`), which an import or a resume reads.
#[derive(Debug, Clone)]
pub struct BatchOrder {
    pub mode: BatchMode,
}

impl BatchOrder {
    /// The batch settings the run's record keeps, with `req`'s choices.
    pub fn settings(&self, req: &RunRequest) -> crate::domain::BatchSettings {
        let (way, poll) = match &self.mode {
            BatchMode::Export { .. } => (crate::domain::BatchWay::File, Duration::ZERO),
            BatchMode::Api { poll } => (crate::domain::BatchWay::Api, *poll),
        };
        crate::domain::BatchSettings {
            way,
            poll_secs: poll.as_secs(),
            on_interrupt: req.batch_interrupt.get(),
            retry: req.batch_retry,
        }
    }
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
#[derive(Clone)]
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
    ledger: &Arc<RunLedger>,
    batches: Vec<Vec<Unit>>,
    order: &BatchOrder,
    db: &std::path::Path,
) -> Option<String> {
    // Nothing of the batch itself is sent directly (not even a follow-up
    // turn); what it leaves unanswered may be, by clients of their own
    // (`--batch-retry direct`, [`direct`]).
    ctx.stop.cancel();
    let (mut requests, lines) = build(ctx, ledger, batches)?;
    if requests.is_empty() {
        // Nothing left to ask (every request invalid): no empty file.
        return None;
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
    let recorded = Store::open(db).and_then(|mut s| {
        s.record_batch_requests(ctx.run_id, &rows)?;
        Ok(s)
    });
    let mut store = match recorded {
        Ok(s) => s,
        Err(e) => {
            ctx.stop_with(format!("cannot record the batch's requests: {e}"));
            return None;
        }
    };
    match &order.mode {
        BatchMode::Export { out } => export(ctx, &mut store, files, out),
        BatchMode::Api { poll } => {
            let client = match BatchClient::new(ctx.client().config()) {
                Ok(c) => c.with_stop(ctx.cancel.clone()),
                Err(e) => {
                    ctx.stop_with(e.to_string());
                    return None;
                }
            };
            let jobs = upload(ctx, &client, &mut store, files, 1).await.ok()?;
            let requests = by_part(requests);
            let left = wait_all(ctx, ledger, &client, &mut store, jobs, requests, *poll).await;
            follow_up::settle_left(ctx, ledger, &client, &mut store, left, *poll).await;
            None
        }
    }
}

/// Each batch's request and its line; `None` when the budget does not hold
/// the worst case of them all (the run is stopped then).
fn build(
    ctx: &Ctx,
    ledger: &RunLedger,
    batches: Vec<Vec<Unit>>,
) -> Option<(Vec<Request>, Vec<String>)> {
    let mode = ctx.client().tool_mode();
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
        let line = file::request_line(ctx.client().config(), mode, &call, ctx.run_id, idx);
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
    Some((requests, lines))
}

/// A part of this run's batch, before it is written or sent.
fn job(ctx: &Ctx, part: u32, kind: BatchWay, status: BatchStatus) -> BatchJob {
    BatchJob {
        run_id: ctx.run_id,
        part,
        kind,
        boundary: ctx.boundary.clone(),
        tool_mode: ctx.client().tool_mode(),
        batch_id: None,
        input_file_id: None,
        output_file_id: None,
        error_file_id: None,
        status,
        counts: None,
        imported: false,
    }
}

/// Writes the request files; returns the note the run is parked with.
fn export(
    ctx: &Ctx,
    store: &mut Store,
    files: Vec<String>,
    out: &std::path::Path,
) -> Option<String> {
    let mut written = Vec::new();
    for (i, text) in files.iter().enumerate() {
        let part = i as u32 + 1;
        let path = file::part_path(out, part);
        // Through a temporary file: a killed export leaves an earlier file whole.
        let written_whole = crate::store::write_atomically(&path, |w| w.write_all(text.as_bytes()));
        if let Err(e) = written_whole {
            ctx.stop_with(format!("cannot write {}: {e}", path.display()));
            return None;
        }
        if let Err(e) = store.save_batch_job(&job(ctx, part, BatchWay::File, BatchStatus::Exported))
        {
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

/// Uploads each file and creates its batch, every id stored as soon as it
/// is known. When the run stops (an error, or a cancel before a batch is
/// created) the batches created so far come back as the error: they run on
/// the server, and `--resume` waits for them.
async fn upload(
    ctx: &Ctx,
    client: &BatchClient,
    store: &mut Store,
    files: Vec<String>,
    first_part: u32,
) -> Result<Vec<BatchJob>, Vec<BatchJob>> {
    let mut jobs = Vec::new();
    for (i, text) in files.into_iter().enumerate() {
        if ctx.cancel.is_cancelled() {
            return Err(jobs);
        }
        let part = first_part + i as u32;
        let mut j = job(ctx, part, BatchWay::Api, BatchStatus::Uploading);
        let name = format!("jury-run-{}-{part}.jsonl", ctx.run_id);
        // An upload that fails in passing (a 503, a 429, a dropped
        // connection) is tried again: at worst the server keeps an unused
        // file, and nothing is paid for a file no batch was made of.
        let uploaded = client
            .patiently(
                || client.upload(&name, text.as_bytes()),
                |why, pause| {
                    ctx.notice(format!(
                        "{}; trying the upload again in {}",
                        ctx.redact(why),
                        crate::provider::batch::words(pause)
                    ))
                },
            )
            .await;
        match uploaded {
            Ok(id) => j.input_file_id = Some(id),
            Err(crate::provider::batch::ApiFault::Cancelled) => return Err(jobs),
            Err(e) => {
                ctx.stop_with(ctx.redact(&e.to_string()));
                return Err(jobs);
            }
        }
        // Stored before the batch is created: a process killed now
        // creates it from the same file when resumed.
        if let Err(e) = store.save_batch_job(&j) {
            ctx.stop_with(format!("cannot record the batch: {e}"));
            return Err(jobs);
        }
        // A cancel during a long upload creates no batch to pay for.
        if ctx.cancel.is_cancelled() || !create_new(ctx, client, store, &mut j).await {
            return Err(jobs);
        }
        jobs.push(j);
    }
    Ok(jobs)
}

/// Creates the batch of `job`'s file, just uploaded by this process.
async fn create_new(
    ctx: &Ctx,
    client: &BatchClient,
    store: &mut Store,
    job: &mut BatchJob,
) -> bool {
    make(ctx, client, store, job, false).await
}

/// Creates the batch of `job`'s uploaded file, stored before by a process
/// that may have created it already (killed, or its create's answer never
/// came): looked up by its request file first, and made only when the
/// server has none. False when the run stopped.
async fn create(ctx: &Ctx, client: &BatchClient, store: &mut Store, job: &mut BatchJob) -> bool {
    make(ctx, client, store, job, true).await
}

async fn make(
    ctx: &Ctx,
    client: &BatchClient,
    store: &mut Store,
    job: &mut BatchJob,
    maybe_made: bool,
) -> bool {
    use crate::provider::batch::ApiFault;
    let Some(input) = job.input_file_id.clone() else {
        ctx.stop_with("the batch's request file was never uploaded".into());
        return false;
    };
    let found = if maybe_made {
        match find(ctx, client, &input).await {
            Ok(found) => found,
            Err(e) => {
                ctx.stop_with(ctx.redact(&e.to_string()));
                return false;
            }
        }
    } else {
        None
    };
    let state = match found {
        Some(state) => {
            ctx.notice(format!(
                "found batch {} on the server, made from this run's request file {input}: waiting for it, not creating another",
                state.id
            ));
            state
        }
        None => {
            if maybe_made {
                ctx.notice(format!(
                    "the server has no batch of this run's request file {input}: creating it"
                ));
            }
            let tag = format!("jury run {} part {}", ctx.run_id, job.part);
            match client.create(&input, &tag).await {
                Ok(state) => state,
                Err(ApiFault::Cancelled) => return false,
                // No answer, or a server error: the batch may have been
                // made all the same. Looked up, and made again only if not.
                Err(ApiFault::Passing(why)) => match find(ctx, client, &input).await {
                    Ok(Some(state)) => state,
                    Ok(None) => match client.create(&input, &tag).await {
                        Ok(state) => state,
                        Err(e) => {
                            let note = format!(
                                "{}; `jury run --batch --resume` with the same flags looks for the batch on the server before it creates one",
                                ctx.redact(&e.to_string())
                            );
                            ctx.stop_with(note);
                            return false;
                        }
                    },
                    Err(e) => {
                        let note = format!(
                            "{}; the batch may have been made ({}): `jury run --batch --resume` with the same flags looks for it before it creates one",
                            ctx.redact(&why),
                            ctx.redact(&e.to_string())
                        );
                        ctx.stop_with(note);
                        return false;
                    }
                },
                Err(e) => {
                    ctx.stop_with(ctx.redact(&e.to_string()));
                    return false;
                }
            }
        }
    };
    job.batch_id = Some(state.id.clone());
    job.status = BatchStatus::parse(&state.status);
    job.counts = Some(state.counts_json());
    if let Err(e) = store.save_batch_job(job) {
        ctx.stop_with(format!("cannot record the batch: {e}"));
        return false;
    }
    true
}

/// The batch the server made of request file `input`, held through
/// passing failures of the listing.
async fn find(
    ctx: &Ctx,
    client: &BatchClient,
    input: &str,
) -> Result<Option<BatchState>, crate::provider::batch::ApiFault> {
    client
        .patiently(
            || client.find(input, 10),
            |why, pause| {
                ctx.notice(format!(
                    "{}; trying again in {}",
                    ctx.redact(why),
                    crate::provider::batch::words(pause)
                ))
            },
        )
        .await
}

fn by_part(requests: Vec<Request>) -> HashMap<u32, Vec<Request>> {
    let mut m: HashMap<u32, Vec<Request>> = HashMap::new();
    for r in requests {
        m.entry(r.part).or_default().push(r);
    }
    m
}
