//! The few-shot loop's I/O (the steps are in `update::fewshot_loop`):
//! writing the set beside the store and planning its run on the held-out
//! items, on a blocking task; the answer comes back as `Msg::LoopReady`.

use super::super::app::{LoopReady, LoopStage, RunPlan};
use super::super::msg::Msg;
use super::{EngineLink, run_request};
use crate::engine::{EngineConfig, RunRequest, make_plan};
use crate::fewshot::workbench::{LoopPersona, LoopSet, test_items, write_loop_set};
use crate::prompt::PromptSet;
use crate::store::Store;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedSender;

/// Examples per mode, as `jury fewshot --from-labels` gives by default.
pub const LOOP_K: usize = 8;

/// The engine configuration and request of a loop run: the prompt set in
/// `prompts` (`None`: the workbench's), with `--resume` semantics so a run
/// started again after a cancel asks only for what is missing.
pub fn loop_request(
    engine: &EngineLink,
    plan: RunPlan,
    prompts: Option<PathBuf>,
) -> Result<(EngineConfig, RunRequest), String> {
    let mut cfg = engine
        .config
        .clone()
        .ok_or_else(|| crate::config::NO_ENDPOINT.to_string())?;
    if let Some(dir) = &prompts {
        cfg.prompts = Arc::new(PromptSet::load(Some(dir)).map_err(|e| e.to_string())?);
    }
    let mut req = run_request(plan);
    req.resume = true;
    Ok((cfg, req))
}

/// Writes the set (or, for a baseline, reads the one in `baseline_for`) and
/// plans the run, off the UI thread.
pub fn prepare(
    db_path: PathBuf,
    engine: EngineLink,
    plan: RunPlan,
    baseline_for: Option<PathBuf>,
    by_owner: bool,
    tx: UnboundedSender<Msg>,
) {
    tokio::task::spawn_blocking(move || {
        let r = prepare_now(&db_path, &engine, plan, baseline_for, by_owner);
        let _ = tx.send(Msg::LoopReady(r.map(Box::new)));
    });
}

/// The data directory: the store's folder.
fn data_dir(db_path: &Path) -> PathBuf {
    match crate::store::location::local_path(db_path).parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn prepare_now(
    db_path: &Path,
    engine: &EngineLink,
    mut plan: RunPlan,
    baseline_for: Option<PathBuf>,
    by_owner: bool,
) -> Result<LoopReady, String> {
    let s = |e: &dyn std::fmt::Display| e.to_string();
    let cfg = engine
        .config
        .as_ref()
        .ok_or_else(|| crate::config::NO_ENDPOINT.to_string())?;
    let store = Store::open(db_path).map_err(|e| s(&e))?;
    let (set, stage) = match baseline_for {
        None => (
            write_loop_set(&store, &cfg.prompts, LOOP_K, &data_dir(db_path)).map_err(|e| s(&e))?,
            LoopStage::FewShot,
        ),
        Some(dir) => {
            let fs = PromptSet::load(Some(&dir)).map_err(|e| s(&e))?;
            let set = LoopSet {
                hash: fs.hash().to_string(),
                examples: fs.example_pairs().len(),
                dir,
                reused: true,
            };
            (set, LoopStage::Baseline)
        }
    };
    let shown = PromptSet::load(Some(&set.dir)).map_err(|e| s(&e))?;
    let who = if by_owner {
        LoopPersona::EachOwner {
            fallback: plan.persona_id(),
        }
    } else {
        LoopPersona::One(plan.persona_id())
    };
    let perspectives = plan.spec.perspective_ids();
    let (groups, left_out) =
        test_items(&store, who, &perspectives, shown.example_pairs()).map_err(|e| s(&e))?;
    // One run per persona the held-out items are judged as.
    let mut plans: Vec<RunPlan> = Vec::with_capacity(groups.len());
    for (persona_id, item_ids) in groups {
        plans.push(RunPlan {
            spec: plan.spec.as_persona(&persona_id).map_err(|e| s(&e))?,
            item_ids,
            ..plan.clone()
        });
    }
    let (mut requests, mut skipped) = (0, 0);
    for p in &plans {
        let prompts = (stage == LoopStage::FewShot).then(|| set.dir.clone());
        let (cfg, req) = loop_request(engine, p.clone(), prompts)?;
        let planned = make_plan(&cfg, &req, &store).map_err(|e| s(&e))?;
        requests += planned.batches.len();
        skipped += planned.skipped;
    }
    if !plans.is_empty() {
        plan = plans.remove(0);
    }
    Ok(LoopReady {
        stage,
        plan,
        more: plans,
        by_owner,
        dir: set.dir,
        hash: set.hash,
        base_hash: cfg.prompts.hash().to_string(),
        examples: set.examples,
        left_out,
        requests,
        skipped,
        reused: set.reused,
    })
}
