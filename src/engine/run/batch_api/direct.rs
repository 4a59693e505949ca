//! `--batch-retry direct`: the requests a batch left without an answer (an
//! error line, or none at all) asked again at once as streamed requests,
//! each with the run's `--max-attempts` and no more, on the run's servers.
//! The rest of a batch run sends nothing directly, so these go through a
//! second set of clients that the batch's stop does not hold back.

use super::*;

/// Asks `left` again directly; when the run was interrupted or stopped
/// first, records each as failed with why its batch left it.
pub(super) async fn ask_again(ctx: &Ctx, ledger: &Arc<RunLedger>, left: Vec<(Request, String)>) {
    if left.is_empty() {
        return;
    }
    let stopped = ctx.stop_note.lock().ok().is_some_and(|n| n.is_some());
    if ctx.cancel.is_cancelled() || stopped {
        return record(ctx, left);
    }
    let direct = match direct_ctx(ctx, ledger) {
        Ok(d) => d,
        Err(e) => {
            ctx.notice(format!(
                "cannot ask again directly what the batch left unanswered: {e}"
            ));
            return record(ctx, left);
        }
    };
    ctx.notice(format!(
        "asking the {} request{} the batch left without an answer again, directly (--batch-retry direct)",
        left.len(),
        if left.len() == 1 { "" } else { "s" }
    ));
    // The batch is over: its lines hold nothing of the budget any more.
    // What is asked now is paid at the model's price, not the batch's.
    ledger.release_held();
    ledger.reprice(crate::engine::price::price_for(&ctx.spec.model));
    let batches: Vec<Vec<Unit>> = left.into_iter().map(|(r, _)| r.units).collect();
    let concurrency = direct.servers.capacity();
    let direct = Arc::new(direct);
    super::super::work(&direct, batches, concurrency).await;
    // What the direct requests found is the run's: a fault that stopped
    // them stops it, and their answer paths count with the batch's.
    if let Ok(note) = direct.stop_note.lock()
        && let Some(note) = note.clone()
        && let Ok(mut n) = ctx.stop_note.lock()
    {
        n.get_or_insert(note);
    }
    if let (Ok(from), Ok(mut to)) = (direct.paths.lock(), ctx.paths.lock()) {
        for (path, n) in from.iter() {
            *to.entry(*path).or_insert(0) += n;
        }
    }
}

pub(super) fn record(ctx: &Ctx, left: Vec<(Request, String)>) {
    for (r, why) in left {
        let keys = r.units.iter().map(|u| u.key.clone()).collect();
        super::answers::fail(ctx, keys, FailureKind::Provider, why, "", None, &r.call);
    }
}

/// The run's context with clients of its own: the same servers, key and
/// structured path the batch asked with, a stop of its own.
fn direct_ctx(ctx: &Ctx, ledger: &Arc<RunLedger>) -> Result<Ctx, EngineError> {
    let mut provider = ctx.client().config().clone();
    provider.tool_mode = ctx.client().tool_mode();
    let stop = CancellationToken::new();
    let servers = super::super::connect(&provider, &ctx.request, ledger, &stop, &[])?;
    Ok(Ctx::new(ctx.shared(), servers, stop))
}
