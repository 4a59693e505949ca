//! A run the workbench sends as one Batch API batch (`R`, then the batch
//! key): planned as any run, then sent as `jury run --batch` sends it, or,
//! when a batch of the same judge is still open on the server (the
//! workbench or `jury run --batch` was stopped while it waited), waited for
//! again instead: nothing is uploaded or paid for twice.

use super::super::app::RunPlan;
use super::super::msg::Msg;
use crate::engine::{
    BatchMode, BatchOrder, EngineConfig, Plan, Reopen, RunHandle, RunRequest, spawn_batch_with,
    spawn_reopen_with,
};
use crate::protocol::JudgeSpec;
use crate::store::Store;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// Sends `planned` (the engine's plan of `plan`) as a batch polled every
/// `poll`, or waits again for its judge's open batch.
pub async fn start(
    cfg: EngineConfig,
    req: RunRequest,
    planned: Plan,
    plan: &RunPlan,
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
        Some(run_id) => spawn_reopen_with(cfg, req, planned, run_id, Reopen::Wait { poll }, cancel),
        None => {
            let order = BatchOrder {
                mode: BatchMode::Api { poll },
                argv: command_line(plan),
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

/// The `jury run` command line that asks for what `plan` asks, recorded
/// with the batch: `jury batch import` rebuilds the run's judge from it
/// (the workbench's rubric runs use the default dimensions, so none are
/// named).
pub fn command_line(plan: &RunPlan) -> Vec<String> {
    let mut argv: Vec<String> = vec!["run".into(), "--protocol".into()];
    argv.push(plan.protocol().as_str().into());
    let mut flag = |name: &str, value: String| {
        argv.push(format!("--{name}"));
        argv.push(value);
    };
    match &plan.spec {
        JudgeSpec::Awag {
            mode,
            persona,
            perspectives,
        } => {
            flag("mode", mode.number().to_string());
            flag("persona", persona.clone());
            flag("perspective", perspectives.join(","));
        }
        JudgeSpec::Rubric { persona, .. } | JudgeSpec::Guideline { persona } => {
            if let Some(p) = persona {
                flag("persona", p.clone());
            }
        }
        JudgeSpec::Proposition { settings, persona } => {
            flag("claim", settings.claim.clone());
            flag("claim-id", settings.claim_id.clone());
            flag("scoring", settings.scoring.as_str().into());
            if let Some(p) = &settings.precondition {
                flag("precondition", p.clone());
            }
            if let Some(n) = settings.first_n {
                flag("first-n", n.to_string());
            }
            if let Some(n) = settings.last_n {
                flag("last-n", n.to_string());
            }
            if let Some(p) = persona {
                flag("persona", p.clone());
            }
            if settings.double_check {
                argv.push("--double-check".into());
            }
        }
    }
    if !plan.item_ids.is_empty() {
        argv.push("--items".into());
        argv.push(plan.item_ids.join(","));
    }
    if let Some(m) = plan.structured {
        argv.push("--structured".into());
        argv.push(m.as_str().into());
    }
    argv.push("--batch".into());
    argv
}
