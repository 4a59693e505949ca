//! Waiting on open batches: their status polled, their answers read when over.

use super::*;

/// Polls every open batch of `jobs` until each is over, reading each one's
/// answers as soon as it is; cancelling leaves the batches open (the same
/// command with `--resume` waits for them again).
pub(super) async fn wait_all(
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
                let _ = ctx.events.send(EngineEvent::BatchStatus {
                    run_id: ctx.run_id,
                    batch: progress_of(&state),
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

/// What the look at a batch found, for the run's consumers.
fn progress_of(s: &BatchState) -> crate::engine::BatchProgress {
    let (answered, failed, total) = s.counts;
    crate::engine::BatchProgress {
        id: s.id.clone(),
        status: s.status.clone(),
        answered,
        failed,
        total,
    }
}
