//! A batch run taken up again: after a killed process (`--resume`) or
//! with its answers from another engine (`jury batch import`).

use super::answers::Importer;
use super::*;
use std::collections::HashSet;

/// The run `run_id`, made earlier as a batch run, taken up again by this
/// process: its answers read from `what`. What it asks is its record: its
/// judge is planned again from it (its units are looked up by key), with
/// the prompt set it names (or `cfg`'s, when that one hashes the same: a
/// folder moved since), never from a command line. `cfg` gives the store
/// and the endpoint to wait on; `req` this process's own choices (budget,
/// what an interruption does).
pub async fn reopen(
    cfg: EngineConfig,
    req: RunRequest,
    run_id: i64,
    what: Reopen,
    events: UnboundedSender<EngineEvent>,
    cancel: CancellationToken,
) -> Result<RunOutcome, EngineError> {
    let mut store = Store::open(&cfg.db_path)?;
    let Some(run) = store.run(run_id)? else {
        return Err(BatchError::NoRun(run_id).into());
    };
    let Some(record) = run.spec.record.clone() else {
        return Err(BatchError::NoRecord {
            run_id,
            why: run
                .record_note
                .clone()
                .unwrap_or_else(|| "it has no record".into()),
        }
        .into());
    };
    // Planning reads every item: on a blocking thread.
    let (cfg, req, plan) =
        tokio::task::spawn_blocking(move || plan_of_record(cfg, req, run_id, &record))
            .await
            .map_err(EngineError::PlanningStopped)??;
    // Another process on the same open batch (a second `--resume`) is
    // waited for: the batch is read, and paid for, once.
    if let Some(done) = wait_for_holder(&mut store, &run, &what, &events, &cancel).await? {
        return Ok(done);
    }
    let jobs = store.batch_jobs(run_id)?;
    let Some(first) = jobs.first().cloned() else {
        return Err(BatchError::NotABatch(run_id).into());
    };
    let rows = store.batch_requests(run_id)?;
    // What this run has read before (an answer file read again, a process
    // killed while it read): never judged, paid or recorded twice.
    let judged: HashSet<ComboKey> = store
        .verdicts_for_run(run_id)?
        .into_iter()
        .map(|v| v.key)
        .collect();
    let failed: HashSet<ComboKey> = store
        .failures(Some(run_id))?
        .into_iter()
        .flat_map(|f| f.keys)
        .collect();
    let mut provider = cfg.provider.clone();
    provider.tool_mode = first.tool_mode;
    provider.fallback = false;
    let units: HashMap<ComboKey, Unit> = plan
        .batches
        .iter()
        .flatten()
        .map(|u| (u.key.clone(), u.clone()))
        .collect();
    // What is still to come: the combinations of the batches whose answers
    // were not read (a follow-up batch asks again for some an earlier one
    // held, whose answers this run has already).
    let open: std::collections::HashSet<u32> = jobs
        .iter()
        .filter(|j| !j.imported)
        .map(|j| j.part)
        .collect();
    let total = rows
        .iter()
        .filter(|r| open.contains(&r.part))
        .filter(|r| !r.keys.iter().any(|k| judged.contains(k)))
        .flat_map(|r| r.keys.iter())
        .collect::<std::collections::HashSet<_>>()
        .len() as u64;
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
    // Follow-up batches and direct retries may be sent from here: what the
    // run spent before holds against its budget.
    let budget = req
        .budget_usd
        .map(|b| (b - run.cost_usd.unwrap_or(0.0)).max(0.0));
    let ledger = Arc::new(RunLedger::new(
        crate::engine::price::batch_price_for(&plan.spec.model),
        budget,
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
        servers: super::super::servers::Servers::new(vec![super::super::servers::Servers::server(
            client, 1,
        )]),
        spec: plan.spec,
        boundary: first.boundary.clone(),
        max_attempts: 1,
        events: events.clone(),
        writes: writer.tx.clone(),
        cancel: cancel.clone(),
        stop,
        stop_note: std::sync::Mutex::new(None),
        cancel_note: std::sync::Mutex::new(None),
        stream_texts: false,
        request: req,
        paths: std::sync::Mutex::new(HashMap::new()),
        no_logprobs_said: std::sync::atomic::AtomicBool::new(false),
    };
    let mut rows = rows;
    if matches!(what, Reopen::Wait { .. }) {
        // Only the open batches' requests are waited for: the answered
        // ones' combinations have their verdicts, and a `--resume` plan
        // (the units looked up below) leaves them out.
        rows.retain(|r| open.contains(&r.part));
    }
    // A request any of whose combinations has its verdict was answered
    // before: left out whole (its line is not read again).
    let answered_before = rows.len();
    rows.retain(|r| !r.keys.iter().any(|k| judged.contains(k)));
    let answered_before = answered_before - rows.len();
    let failed_before: HashSet<u32> = rows
        .iter()
        .filter(|r| r.keys.iter().any(|k| failed.contains(k)))
        .map(|r| r.idx)
        .collect();
    let requests = requests_of(&ctx, rows, &units);
    let mut reopened = Store::open(&cfg.db_path)?;
    match what {
        Reopen::Answers(text) => {
            if answered_before > 0 {
                ctx.notice(format!(
                    "{answered_before} request{} of run {run_id} had {} answer read before: {} not read again",
                    if answered_before == 1 { "" } else { "s" },
                    if answered_before == 1 { "its" } else { "their" },
                    if answered_before == 1 { "it is" } else { "they are" },
                ));
            }
            // Only a valid answer is taken for a request recorded as
            // failed by an earlier read: its failure is not recorded twice.
            let mut importer = Importer::new(&ctx, &ledger, requests).failed_before(failed_before);
            for line in text.lines() {
                if let Some(a) = file::answer_line(line) {
                    importer.line(a).await;
                }
            }
            importer.finish(
                "no answer: the answer file has no line for this request; --resume asks for it again",
                false,
            );
            for mut j in jobs {
                j.imported = true;
                j.status = crate::store::BatchStatus::Imported;
                // After the verdicts, through the writer (see WriteCmd::BatchJob).
                let _ = ctx.writes.send(WriteCmd::BatchJob(Box::new(j)));
            }
        }
        Reopen::Wait { poll } => {
            let client = BatchClient::new(ctx.client().config())
                .map_err(EngineError::Provider)?
                .with_stop(ctx.cancel.clone());
            let open: Vec<BatchJob> = jobs.into_iter().filter(|j| !j.imported).collect();
            let left = wait_all(
                &ctx,
                &ledger,
                &client,
                &mut reopened,
                open,
                by_part(requests),
                poll,
            )
            .await;
            super::follow_up::settle_left(&ctx, &ledger, &client, &mut reopened, left, poll).await;
        }
    }
    finish(ctx, writer).await
}

/// Takes `run` over, once no other live process holds it (saying so while
/// it waits). `Some` outcome when there is nothing left for this process:
/// the other read every batch meanwhile (its figures are the run's), or
/// this one was interrupted while it waited.
async fn wait_for_holder(
    store: &mut Store,
    run: &crate::domain::Run,
    what: &Reopen,
    events: &UnboundedSender<EngineEvent>,
    cancel: &CancellationToken,
) -> Result<Option<RunOutcome>, EngineError> {
    use crate::store::Adoption;
    let (pause, need_open) = match what {
        Reopen::Wait { poll } => (*poll, true),
        Reopen::Answers(_) => (Duration::from_secs(1), false),
    };
    let mut said = false;
    let outcome = |status, note: String| RunOutcome {
        run_id: run.id,
        status,
        progress: Progress {
            run_id: run.id,
            ..Progress::default()
        },
        note: Some(note),
    };
    loop {
        match store.adopt_run_unless_held(run.id, need_open)? {
            Adoption::Adopted => return Ok(None),
            Adoption::NothingOpen => {
                let now = store.run(run.id)?.unwrap_or_else(|| run.clone());
                let note = format!(
                    "run {}'s batches were read meanwhile (by another process): {} verdicts; nothing was read or paid for again",
                    run.id, now.verdicts
                );
                let _ = events.send(EngineEvent::Notice {
                    run_id: run.id,
                    text: note.clone(),
                });
                let mut done = outcome(now.status, note);
                done.progress.total = now.verdicts;
                done.progress.verdicts = now.verdicts;
                return Ok(Some(done));
            }
            Adoption::HeldBy(pid) => {
                if !said {
                    said = true;
                    let _ = events.send(EngineEvent::Notice {
                        run_id: run.id,
                        text: format!(
                            "run {} is being taken up by another process (pid {pid}), which waits for its batch: waiting for that process to end, so the batch is read and paid for once",
                            run.id
                        ),
                    });
                }
                tokio::select! {
                    _ = cancel.cancelled() => {
                        let note = format!("stopped waiting for process {pid}, which has run {}", run.id);
                        return Ok(Some(outcome(crate::domain::RunStatus::Cancelled, note)));
                    }
                    _ = tokio::time::sleep(pause) => {}
                }
            }
        }
    }
}

/// The configuration, request and plan of a run's `record`: its judge,
/// model, prompt set and settings over every item (answers are matched by
/// key), on `cfg`'s store and endpoint. The prompt set is the record's
/// folder, else `cfg`'s when it hashes as the record says; neither: the
/// run's answers cannot be matched.
fn plan_of_record(
    cfg: EngineConfig,
    mut req: RunRequest,
    run_id: i64,
    record: &crate::domain::RunRecord,
) -> Result<(EngineConfig, RunRequest, Plan), EngineError> {
    req.spec = record.judge.clone();
    (req.item_ids, req.limit, req.subset, req.resume) = (None, None, None, false);
    req.batch_size = record.batch_size.max(1);
    req.structured = record.structured;
    req.shuffle_seed = None;
    // Nothing of a batch's answers streams.
    req.stream_texts = false;
    let mut cfg = cfg;
    cfg.provider.model = record.model.clone();
    let store = Store::open(&cfg.db_path)?;
    let recorded = match record.prompts_dir() {
        None => Ok(crate::prompt::PromptSet::embedded()),
        Some(dir) => crate::prompt::PromptSet::load(Some(dir)),
    };
    let mut now = None;
    for prompts in [recorded.ok().map(Arc::new), Some(cfg.prompts.clone())]
        .into_iter()
        .flatten()
    {
        let tried = EngineConfig {
            prompts,
            ..cfg.clone()
        };
        let plan = super::super::plan(&tried, &req, &store)?;
        if plan.spec.prompt_hash == record.prompts.hash {
            return Ok((tried, req, plan));
        }
        now.get_or_insert(plan.spec.prompt_hash);
    }
    Err(BatchError::PromptsChanged {
        run_id,
        then: record.prompts.hash.clone(),
        now: now.unwrap_or_default(),
    }
    .into())
}

/// The requests of the stored `rows`, their units looked up by key; keys
/// no longer among the run's units are recorded as failed.
fn requests_of(
    ctx: &Ctx,
    rows: Vec<BatchRequestRow>,
    units: &HashMap<ComboKey, Unit>,
) -> Vec<Request> {
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
            Err(reason) => invalid_request(ctx, &us, reason),
        }
    }
    if !unknown.is_empty() {
        super::answers::invalid_keys(
            ctx,
            unknown,
            "these combinations are no longer among the run's items (removed from the store?)",
        );
    }
    requests
}

/// Ends a run taken up again as [`super::execute`] ends one.
async fn finish(ctx: Ctx, writer: writer::Writer) -> Result<RunOutcome, EngineError> {
    let (status, note) = ctx.ending(None);
    let run_id = ctx.run_id;
    // How this run's answers came back, now that they have.
    let summary = crate::engine::run::structured_summary(&ctx, "answers of a batch");
    let _ = writer.tx.send(WriteCmd::Structured(summary));
    drop(ctx);
    let finished = writer.close(status, note.clone()).await?;
    let (status, note) = finished.ended.unwrap_or((status, note));
    Ok(RunOutcome {
        run_id,
        status,
        progress: finished.progress,
        note,
    })
}
