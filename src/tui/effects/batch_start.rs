//! A run the workbench sends as one Batch API batch (`R`, then the batch
//! key): planned as any run, then sent as `jury run --batch` sends it, or,
//! when a batch of the same judge is still open on the server (the
//! workbench or `jury run --batch` was stopped while it waited), waited for
//! again instead: nothing is uploaded or paid for twice. What the run asks
//! is kept as its typed record (the plan's), never as a command line.

use super::super::msg::Msg;
use crate::engine::{
    BatchMode, BatchOrder, EngineConfig, Plan, Reopen, RunHandle, RunRequest, spawn_batch_with,
    spawn_reopen_with,
};
use crate::store::Store;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// Sends `planned` as a batch polled every `poll`, or waits again for its
/// judge's open batch.
pub async fn start(
    cfg: EngineConfig,
    req: RunRequest,
    planned: Plan,
    poll: Duration,
    cancel: CancellationToken,
) -> Result<RunHandle, String> {
    let db = cfg.db_path.clone();
    let (spec, keys): (_, Vec<crate::domain::ComboKey>) = (
        planned.spec.clone(),
        planned
            .batches
            .iter()
            .flatten()
            .map(|u| u.key.clone())
            .collect(),
    );
    let open = tokio::task::spawn_blocking(move || {
        let keys = keys.iter().collect();
        Store::open(&db).and_then(|s| s.open_batch_run_for(&spec, &keys))
    })
    .await
    .map_err(|e| format!("looking for an open batch stopped: {e}"))?
    .map_err(|e| e.to_string())?;
    Ok(match open {
        // The open batch's own record says what it asks.
        Some(run_id) => spawn_reopen_with(cfg, req, run_id, Reopen::Wait { poll }, cancel),
        None => {
            let order = BatchOrder {
                mode: BatchMode::Api { poll },
            };
            spawn_batch_with(cfg, req, planned, order, cancel)
        }
    })
}

/// Tells the loop a batch run could not start.
pub fn refused(tx: &UnboundedSender<Msg>, tag: u64, error: String) {
    let _ = tx.send(Msg::RunEnded {
        tag,
        error: Some(error),
    });
}
