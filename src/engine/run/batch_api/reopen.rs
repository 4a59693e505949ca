//! A batch run taken up again: after a killed process (`--resume`) or
//! with its answers from another engine (`jury batch import`).

use super::*;

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
    let jobs = store.batch_jobs(run_id)?;
    let Some(first) = jobs.first().cloned() else {
        return Err(BatchError::NotABatch(run_id).into());
    };
    let rows = store.batch_requests(run_id)?;
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
        .flat_map(|r| r.keys.iter())
        .collect::<std::collections::HashSet<_>>()
        .len() as u64;
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
    let requests = requests_of(&ctx, rows, &units);
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
                false,
            )
            .await;
            for mut j in jobs {
                j.imported = true;
                j.status = crate::store::BatchStatus::Imported;
                let _ = reopened.save_batch_job(&j);
            }
        }
        Reopen::Wait { poll } => {
            let client = BatchClient::new(ctx.client().config()).map_err(EngineError::Provider)?;
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
