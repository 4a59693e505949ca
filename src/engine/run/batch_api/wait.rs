//! Waiting on open batches: their status polled, their answers read when over.

use super::*;

/// Polls every open batch of `jobs` until each is over, reading each one's
/// answers as soon as it is. An interruption leaves the batches open (the
/// same command with `--resume` waits for them again) or cancels them, as
/// the run's `batch_interrupt` says. Returns the requests left without an
/// answer, each with why ([`super::follow_up::settle_left`] asks them again
/// or records them as failed).
pub(super) async fn wait_all(
    ctx: &Ctx,
    ledger: &RunLedger,
    client: &BatchClient,
    store: &mut Store,
    mut jobs: Vec<BatchJob>,
    mut requests: HashMap<u32, Vec<Request>>,
    poll: Duration,
) -> Vec<(Request, String)> {
    let mut left = Vec::new();
    loop {
        for job in jobs.iter_mut().filter(|j| !j.imported) {
            if job.batch_id.is_none() && !create(ctx, client, store, job).await {
                return left;
            }
            let Some(id) = job.batch_id.clone() else {
                return left;
            };
            let state = match client.get(&id).await {
                Ok(s) => s,
                Err(e) => {
                    ctx.stop_with(ctx.redact(&e.to_string()));
                    return left;
                }
            };
            let changed = state.status != job.status.as_str()
                || Some(state.counts_json()) != job.counts
                || job.output_file_id != state.output_file_id;
            job.status = crate::store::BatchStatus::parse(&state.status);
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
                        return left;
                    }
                }
            }
            let why = format!(
                "no answer: the batch {id} ended '{}' before this request was answered; --resume asks for it again",
                state.status
            );
            let part = requests.remove(&job.part).unwrap_or_default();
            // What it left unanswered is the caller's to ask again or record.
            left.extend(import(ctx, ledger, part, answers, &why, true).await);
            job.imported = true;
            let _ = store.save_batch_job(job);
        }
        if jobs.iter().all(|j| j.imported) {
            return left;
        }
        tokio::select! {
            _ = ctx.cancel.cancelled() => {
                let choice = ctx.request.batch_interrupt.get();
                super::interrupt::interrupted(ctx, client, store, &mut jobs, choice).await;
                return left;
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
