//! Run tasks for the executor: counting what runs would send (the `R`
//! confirmation) and starting one. Both plan with the engine's own planning
//! (`make_plan`, the rule `jury run --resume` uses), on a blocking thread:
//! the UI never waits on the store.

use super::super::app::{PlannedRun, RunCount, RunPlan};
use super::super::msg::Msg;
use super::run_request;
use crate::engine::price::Price;
use crate::engine::{EngineConfig, EngineError, Plan, RunRequest, make_plan, spawn_planned_with};
use crate::store::Store;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// Counts each run twice: what is missing (resume) and everything (re-judge).
pub fn summarize(cfg: &EngineConfig, plans: Vec<RunPlan>) -> Result<Vec<PlannedRun>, String> {
    let store = Store::open(&cfg.db_path).map_err(|e| e.to_string())?;
    plans
        .into_iter()
        .map(|plan| {
            let mut req = run_request(plan.clone());
            req.resume = true;
            let missing = make_plan(cfg, &req, &store).map_err(|e| e.to_string())?;
            counted(cfg, &store, plan, &req, &missing)
        })
        .collect()
}

/// The counts of `plan` whose missing combinations are already planned
/// (`missing`, from `req`, which resumes): only the re-judge is planned here.
fn counted(
    cfg: &EngineConfig,
    store: &Store,
    plan: RunPlan,
    req: &RunRequest,
    missing: &Plan,
) -> Result<PlannedRun, String> {
    let model = &cfg.provider.model;
    let price = Prices {
        direct: crate::engine::price::price_for(model),
        batch: crate::engine::price::batch_price_for(model),
    };
    let again = RunRequest {
        resume: false,
        ..req.clone()
    };
    let all = make_plan(cfg, &again, store).map_err(|e| e.to_string())?;
    Ok(PlannedRun {
        missing: count(missing, req, price),
        all: count(&all, &again, price),
        plan,
    })
}

/// The model's price per request sent directly and in a batch.
#[derive(Clone, Copy)]
struct Prices {
    direct: Option<Price>,
    batch: Option<Price>,
}

/// What a plan would send. The cost is the price table's worst case, as a
/// `--budget` reserves it: every byte of a request a prompt token, every
/// allowed answer token used (so "at most", never a guess below the bill).
fn count(p: &Plan, req: &RunRequest, price: Prices) -> RunCount {
    let items: std::collections::HashSet<&str> = p
        .batches
        .iter()
        .flatten()
        .map(|u| u.key.item_id.as_str())
        .chain(p.settled.iter().map(|v| v.key.item_id.as_str()))
        .collect();
    let boundary = crate::protocol::new_boundary();
    // Each request's size and answer allowance, built once for both prices.
    let sizes: Option<Vec<(usize, u32)>> = (price.direct.is_some() || price.batch.is_some())
        .then(|| {
            p.batches
                .iter()
                .map(|batch| {
                    let call = p.protocol.build_call(batch, &boundary).ok()?;
                    let bytes = call.messages.iter().map(|m| m.content.len()).sum::<usize>()
                        + call.tool.parameters.to_string().len()
                        + call.tool.description.len();
                    Some((bytes, req.max_tokens_for(batch.len())))
                })
                .collect()
        })
        .flatten();
    let worst = |price: Option<Price>| {
        let price = price?;
        let sizes = sizes.as_ref()?;
        Some(sizes.iter().map(|&(b, t)| price.worst_case(b, t)).sum())
    };
    RunCount {
        items: items.len(),
        combos: p.units(),
        requests: p.batches.len(),
        skipped: p.skipped,
        cost_usd: worst(price.direct),
        batch_cost_usd: worst(price.batch),
    }
}

/// The engine's plan for `req`, made on a blocking thread (it reads the
/// store to skip what is judged).
async fn plan_off_thread(cfg: &EngineConfig, req: &RunRequest) -> Result<Plan, String> {
    let (cfg, req) = (cfg.clone(), req.clone());
    tokio::task::spawn_blocking(move || {
        let store = Store::open(&cfg.db_path)?;
        make_plan(&cfg, &req, &store)
    })
    .await
    .map_err(EngineError::PlanningStopped)
    .and_then(|r| r)
    .map_err(|e| e.to_string())
}

/// Plans `req` off the UI thread and runs it as `tag`: the few-shot loop's
/// run, whose request and config carry their own prompt set (the loop has
/// already said what it will send, so nothing is counted again here).
pub fn start_request(
    cfg: EngineConfig,
    tag: u64,
    req: RunRequest,
    cancel: CancellationToken,
    tx: UnboundedSender<Msg>,
) {
    tokio::spawn(async move {
        let ended = |error: Option<String>| {
            let _ = tx.send(Msg::RunEnded { tag, error });
        };
        let p = match plan_off_thread(&cfg, &req).await {
            Ok(p) => p,
            Err(e) => return ended(Some(e)),
        };
        if cancel.is_cancelled() {
            return ended(None);
        }
        forward(cfg, req, p, tag, cancel, tx).await;
    });
}

/// Plans and starts run `tag`. A run that resumes and finds nothing missing
/// is not started: its counts go back so the user can choose to re-judge.
/// `cancel` stops it whether it is still planning or already sending.
pub fn start(
    cfg: EngineConfig,
    tag: u64,
    plan: RunPlan,
    cancel: CancellationToken,
    tx: UnboundedSender<Msg>,
) {
    tokio::spawn(async move {
        let ended = |error: Option<String>| {
            let _ = tx.send(Msg::RunEnded { tag, error });
        };
        let req = run_request(plan.clone());
        let p = match plan_off_thread(&cfg, &req).await {
            Ok(p) => p,
            Err(e) => return ended(Some(e)),
        };
        if cancel.is_cancelled() {
            return ended(None);
        }
        if let Some(poll) = plan.batch {
            match super::batch_start::start(cfg, req, p, poll, cancel).await {
                Ok(handle) => follow(handle, tag, tx).await,
                Err(e) => super::batch_start::refused(&tx, tag, e),
            }
            return;
        }
        let p = match req.resume {
            true => match wait_for_open_batch(&cfg, &req, p, &cancel).await {
                Ok(handle) => return follow(handle, tag, tx).await,
                Err(p) => p,
            },
            false => p,
        };
        if req.resume && p.batches.is_empty() && p.settled.is_empty() {
            // The plan just made is what is missing; only the re-judge is counted.
            let cfg2 = cfg.clone();
            let result = tokio::task::spawn_blocking(move || {
                let store = Store::open(&cfg2.db_path).map_err(|e| e.to_string())?;
                counted(&cfg2, &store, plan, &req, &p).map(|r| vec![r])
            })
            .await
            .unwrap_or_else(|e| Err(format!("counting stopped: {e}")));
            let _ = tx.send(Msg::RunsPlanned {
                started: Some(tag),
                result,
            });
            return;
        }
        forward(cfg, req, p, tag, cancel, tx).await;
    });
}

/// How often a batch found open is looked at (`jury run`'s `--batch-poll`).
const OPEN_BATCH_POLL: std::time::Duration = std::time::Duration::from_secs(30);

/// A resume (`R` then Enter) whose combinations a batch still open on the
/// server holds waits for that batch and reads its answers, as `jury run
/// --resume` does: they are not judged directly at full price meanwhile.
async fn wait_for_open_batch(
    cfg: &EngineConfig,
    req: &RunRequest,
    p: Plan,
    cancel: &CancellationToken,
) -> Result<crate::engine::RunHandle, Plan> {
    let db = cfg.db_path.clone();
    let spec = p.spec.clone();
    let keys: Vec<crate::domain::ComboKey> =
        p.batches.iter().flatten().map(|u| u.key.clone()).collect();
    let open = tokio::task::spawn_blocking(move || {
        let keys = keys.iter().collect();
        Store::open(&db).and_then(|s| s.open_batch_run_for(&spec, &keys))
    })
    .await;
    let Ok(Ok(Some(open))) = open else {
        return Err(p);
    };
    let wait = crate::engine::Reopen::Wait {
        poll: OPEN_BATCH_POLL,
    };
    Ok(crate::engine::spawn_reopen_with(
        cfg.clone(),
        req.clone(),
        open,
        wait,
        cancel.clone(),
    ))
}

/// Sends the run's events to the loop until it ends.
async fn forward(
    cfg: EngineConfig,
    req: RunRequest,
    plan: Plan,
    tag: u64,
    cancel: CancellationToken,
    tx: UnboundedSender<Msg>,
) {
    follow(spawn_planned_with(cfg, req, plan, cancel), tag, tx).await;
}

/// Sends a started run's events to the loop until it ends.
async fn follow(handle: crate::engine::RunHandle, tag: u64, tx: UnboundedSender<Msg>) {
    let mut events = handle.events;
    while let Some(event) = events.recv().await {
        if tx.send(Msg::Engine { tag, event }).is_err() {
            return;
        }
    }
    let error = match handle.join.await {
        Ok(Ok(_)) => None,
        Ok(Err(e)) => Some(e.to_string()),
        Err(e) => Some(format!("the run stopped: {e}")),
    };
    let _ = tx.send(Msg::RunEnded { tag, error });
}
