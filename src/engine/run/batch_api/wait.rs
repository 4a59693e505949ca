//! Waiting on open batches: their status polled, their answers read when over.

use super::*;

/// Polls every open batch of `jobs` until each is over, reading each one's
/// answers as soon as it is. An interruption leaves the batches open (the
/// same command with `--resume` waits for them again) or cancels them, as
/// `waiting.interrupt` says. Returns the requests left without an answer
/// to ask again directly (with [`Retry::Direct`]; else none: they are
/// recorded as failed), each with why.
pub(super) async fn wait_all(
    ctx: &Ctx,
    ledger: &RunLedger,
    client: &BatchClient,
    store: &mut Store,
    mut jobs: Vec<BatchJob>,
    mut requests: HashMap<u32, Vec<Request>>,
    waiting: &Waiting,
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
                        return left;
                    }
                }
            }
            let why = format!(
                "no answer: the batch {id} ended '{}' before this request was answered; --resume asks for it again",
                state.status
            );
            let part = requests.remove(&job.part).unwrap_or_default();
            let direct = waiting.retry == Retry::Direct;
            left.extend(import(ctx, ledger, part, answers, &why, direct).await);
            job.imported = true;
            let _ = store.save_batch_job(job);
        }
        if jobs.iter().all(|j| j.imported) {
            return left;
        }
        tokio::select! {
            _ = ctx.cancel.cancelled() => {
                let choice = waiting.interrupt.get();
                super::interrupt::interrupted(ctx, client, store, &mut jobs, choice).await;
                return left;
            }
            _ = tokio::time::sleep(waiting.poll) => {}
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
