//! Waiting on open batches: their status polled, their answers read when
//! over. The wait holds through a server's bad moments (a 5xx, a 429, a
//! dropped connection is tried again, with pauses that double); what ends
//! it without the answers (a failure that lasts, an answer past its cap, a
//! batch still running long after its 24-hour window) leaves the batch
//! running on the server, and says how to take it up again.

use super::answers::Importer;
use super::*;
use crate::provider::batch::ApiFault;

/// Longest this process waits on a batch that does not end: its 24-hour
/// window and an hour more.
pub(crate) const LONGEST_WAIT: Duration = Duration::from_secs(25 * 60 * 60);

/// Looks at a batch that says `completed` but does not add up before it
/// is reported (a server may fill its files in a moment later).
const LOOKS_AT_A_STRANGE_BATCH: u32 = 3;

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
    let started = tokio::time::Instant::now();
    let mut strange: HashMap<u32, u32> = HashMap::new();
    loop {
        for i in 0..jobs.len() {
            if jobs[i].imported {
                continue;
            }
            let job = &mut jobs[i];
            if job.batch_id.is_none() && !create(ctx, client, store, job).await {
                return left;
            }
            let Some(id) = job.batch_id.clone() else {
                return left;
            };
            let state = match client
                .patiently(|| client.get(&id), |why, pause| retrying(ctx, why, pause))
                .await
            {
                Ok(s) => s,
                Err(ApiFault::Cancelled) => return interrupted(ctx, client, store, jobs).await,
                Err(e) => return leave(ctx, &jobs, &e.to_string(), left),
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
                if started.elapsed() >= LONGEST_WAIT {
                    let why = format!(
                        "batch {id} is still '{}' after {} of waiting, past its 24-hour window",
                        state.status,
                        crate::provider::batch::words(started.elapsed())
                    );
                    return leave(ctx, &jobs, &why, left);
                }
                continue;
            }
            if let Some(odd) = state.inconsistency() {
                // Its answers may still be coming: looked at again, then
                // reported. Never sent again: it may hold every answer.
                let looks = strange.entry(job.part).or_default();
                *looks += 1;
                if *looks < LOOKS_AT_A_STRANGE_BATCH {
                    continue;
                }
                let note = format!(
                    "batch {id} says it is completed, but {odd}: its answers were not read and nothing was sent again; `jury run --batch --resume` with the same flags looks at it again"
                );
                ctx.notice(note.clone());
                ctx.stop_with(note);
                return left;
            }
            let part = requests.remove(&job.part).unwrap_or_default();
            let mut importer = Importer::new(ctx, ledger, part);
            for fid in [&state.output_file_id, &state.error_file_id]
                .into_iter()
                .flatten()
            {
                match read_file(ctx, client, fid, &mut importer).await {
                    Ok(()) => {}
                    Err(ApiFault::Cancelled) => {
                        return interrupted(ctx, client, store, jobs).await;
                    }
                    Err(e) => return leave(ctx, &jobs, &e.to_string(), left),
                }
            }
            let why = format!(
                "no answer: the batch {id} ended '{}' before this request was answered; --resume asks for it again",
                state.status
            );
            // What it left unanswered is the caller's to ask again or record.
            left.extend(importer.finish(&why, true));
            let job = &mut jobs[i];
            job.imported = true;
            let _ = ctx.writes.send(WriteCmd::BatchJob(Box::new(job.clone())));
        }
        if jobs.iter().all(|j| j.imported) {
            return left;
        }
        tokio::select! {
            _ = ctx.cancel.cancelled() => return interrupted(ctx, client, store, jobs).await,
            _ = tokio::time::sleep(poll) => {}
        }
    }
}

/// The run was interrupted: its open batches left or cancelled as chosen.
async fn interrupted(
    ctx: &Ctx,
    client: &BatchClient,
    store: &mut Store,
    mut jobs: Vec<BatchJob>,
) -> Vec<(Request, String)> {
    let choice = ctx.request.batch_interrupt.get();
    super::interrupt::interrupted(ctx, client, store, &mut jobs, choice).await;
    Vec::new()
}

/// Ends the wait without the answers: the open batches of `jobs` keep
/// running on the server, and the run says why and how to go on.
fn leave(
    ctx: &Ctx,
    jobs: &[BatchJob],
    why: &str,
    left: Vec<(Request, String)>,
) -> Vec<(Request, String)> {
    let ids: Vec<&str> = jobs
        .iter()
        .filter(|j| !j.imported)
        .filter_map(|j| j.batch_id.as_deref())
        .collect();
    let which = match ids.len() {
        0 => "the batch".to_string(),
        1 => format!("batch {}", ids[0]),
        _ => format!("batches {}", ids.join(", ")),
    };
    let note = format!(
        "{}; {which} left running on the server: `jury run --batch --resume` with the same flags (or R then b in the workbench) waits for it and reads its answers",
        ctx.redact(why)
    );
    ctx.notice(note.clone());
    ctx.stop_with(note);
    left
}

/// Says that a call failed in passing and is tried again.
fn retrying(ctx: &Ctx, why: &str, pause: Duration) {
    ctx.notice(format!(
        "{}; trying again in {}",
        ctx.redact(why),
        crate::provider::batch::words(pause)
    ));
}

/// Downloads file `fid` to a file of its own (removed after) and hands its
/// lines, one at a time, to `importer`.
async fn read_file(
    ctx: &Ctx,
    client: &BatchClient,
    fid: &str,
    importer: &mut Importer<'_>,
) -> Result<(), ApiFault> {
    let path = Downloaded::path(ctx.run_id);
    let _removed = Downloaded(path.clone());
    client
        .patiently(
            || client.download_to(fid, &path),
            |why, pause| retrying(ctx, why, pause),
        )
        .await?;
    let unreadable =
        |e: std::io::Error| ApiFault::Lasting(format!("cannot read the batch's answers: {e}"));
    let file = std::fs::File::open(&path).map_err(unreadable)?;
    let mut lines = file::AnswerLines::new(std::io::BufReader::new(file));
    while let Some(a) = lines.next_answer().map_err(unreadable)? {
        importer.line(a).await;
    }
    Ok(())
}

/// A downloaded answer file, removed when dropped.
struct Downloaded(PathBuf);

impl Downloaded {
    fn path(run_id: i64) -> PathBuf {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::env::temp_dir().join(format!(
            "jury-batch-{}-{run_id}-{n}.jsonl",
            std::process::id()
        ))
    }
}

impl Drop for Downloaded {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
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
