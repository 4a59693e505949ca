//! What a batch leaves without an answer (an error line, or none: a batch
//! that expired or was cancelled) is asked again as the run's
//! `batch_retry` says: in follow-up batches by default, at most
//! `--max-attempts` batches in all, or at once as streamed requests
//! ([`super::direct`]). What is still unanswered after that is recorded as
//! failed, for `--resume`.

use super::*;

/// Settles `left`, the requests the run's batches left unanswered.
#[allow(clippy::too_many_arguments)]
pub(super) async fn settle_left(
    ctx: &Ctx,
    ledger: &Arc<RunLedger>,
    client: &BatchClient,
    store: &mut Store,
    left: Vec<(Request, String)>,
    poll: Duration,
) {
    match ctx.request.batch_retry {
        Retry::Direct => super::direct::ask_again(ctx, ledger, left).await,
        Retry::Batch => {
            let left = rounds(ctx, ledger, client, store, left, poll).await;
            super::direct::record(ctx, left);
        }
    }
}

/// Follow-up batches of `left` until nothing is left, the run stops, or the
/// attempts are spent (the first batch was the first attempt); returns what
/// is still unanswered, each with why.
async fn rounds(
    ctx: &Ctx,
    ledger: &RunLedger,
    client: &BatchClient,
    store: &mut Store,
    mut left: Vec<(Request, String)>,
    poll: Duration,
) -> Vec<(Request, String)> {
    let attempts = ctx.request.max_attempts.max(1);
    // Batches that asked for these before, this process's or a killed
    // one's (a `--resume` goes on counting): each request row is one ask.
    let mut attempt = match store.batch_requests(ctx.run_id) {
        Ok(rows) => {
            let mut asked: HashMap<&ComboKey, u32> = HashMap::new();
            for k in rows.iter().flat_map(|r| r.keys.iter()) {
                *asked.entry(k).or_default() += 1;
            }
            left.iter()
                .flat_map(|(r, _)| r.units.iter())
                .filter_map(|u| asked.get(&u.key).copied())
                .max()
                .unwrap_or(1)
        }
        Err(_) => 1,
    };
    while !left.is_empty() && attempt < attempts && !ctx.cancel.is_cancelled() {
        if ctx.stop_note.lock().ok().is_some_and(|n| n.is_some()) {
            break;
        }
        attempt += 1;
        ctx.notice(format!(
            "sending the {} request{} the batch left without an answer again, in a follow-up batch (attempt {attempt} of {})",
            left.len(),
            if left.len() == 1 { "" } else { "s" },
            attempts
        ));
        // The batch before is over: its lines hold nothing of the budget.
        ledger.release_held();
        let (jobs, requests) = match send_again(ctx, ledger, client, store, left).await {
            Ok(sent) => sent,
            Err(unsent) => return unsent,
        };
        left = wait_all(ctx, ledger, client, store, jobs, requests, poll).await;
    }
    left
}

/// Sends `left` as a new batch of the run (new request numbers and parts,
/// recorded before the upload, so a killed process's `--resume` waits for
/// this batch as for the first). Gives `left` back when it could not be sent.
async fn send_again(
    ctx: &Ctx,
    ledger: &RunLedger,
    client: &BatchClient,
    store: &mut Store,
    left: Vec<(Request, String)>,
) -> Result<(Vec<BatchJob>, HashMap<u32, Vec<Request>>), Vec<(Request, String)>> {
    let (next_idx, next_part) = match (
        store.batch_requests(ctx.run_id),
        store.batch_jobs(ctx.run_id),
    ) {
        // Parts from the rows too: a part whose upload failed has rows and
        // no job, and its number is not given to another.
        (Ok(rows), Ok(jobs)) => (
            rows.iter().map(|r| r.idx + 1).max().unwrap_or(0),
            rows.iter()
                .map(|r| r.part + 1)
                .chain(jobs.iter().map(|j| j.part + 1))
                .max()
                .unwrap_or(1),
        ),
        (Err(e), _) | (_, Err(e)) => {
            ctx.stop_with(format!("cannot read the batch's requests: {e}"));
            return Err(left);
        }
    };
    let mode = ctx.client().tool_mode();
    let mut lines = Vec::with_capacity(left.len());
    for (i, (r, _)) in left.iter().enumerate() {
        let idx = next_idx + i as u32;
        let line = file::request_line(ctx.client().config(), mode, &r.call, ctx.run_id, idx);
        if !matches!(
            ledger.reserve(line.len(), r.call.max_tokens),
            Admission::Granted(_)
        ) {
            ctx.stop_with(
                "the budget does not cover the worst case of the follow-up batch; it was not sent"
                    .to_string(),
            );
            return Err(left);
        }
        lines.push(line);
    }
    let (parts, files) = file::split(&lines, file::MAX_BYTES);
    drop(lines);
    let requests: Vec<Request> = left
        .into_iter()
        .zip(parts)
        .enumerate()
        .map(|(i, ((r, _), part))| Request {
            idx: next_idx + i as u32,
            part: next_part + part - 1,
            ..r
        })
        .collect();
    let rows: Vec<BatchRequestRow> = requests
        .iter()
        .map(|r| BatchRequestRow {
            idx: r.idx,
            part: r.part,
            keys: r.units.iter().map(|u| u.key.clone()).collect(),
            max_tokens: r.call.max_tokens.unwrap_or(0),
        })
        .collect();
    let why = "no answer: the follow-up batch could not be sent; --resume asks for it again";
    let give_back = |requests: Vec<Request>| {
        requests
            .into_iter()
            .map(|r| (r, why.to_string()))
            .collect::<Vec<_>>()
    };
    if let Err(e) = store.record_batch_requests(ctx.run_id, &rows) {
        ctx.stop_with(format!("cannot record the batch's requests: {e}"));
        return Err(give_back(requests));
    }
    match upload(ctx, client, store, files, next_part).await {
        Ok(jobs) => Ok((jobs, by_part(requests))),
        // The parts whose batch was created run on the server (`--resume`
        // waits for them): only the others come back as unanswered.
        Err(created) => {
            let sent: std::collections::HashSet<u32> = created.iter().map(|j| j.part).collect();
            Err(give_back(
                requests
                    .into_iter()
                    .filter(|r| !sent.contains(&r.part))
                    .collect(),
            ))
        }
    }
}
