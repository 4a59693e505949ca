//! A cascade run's record between its stages (`jury run --cascade`): a
//! stage as recorded, what its runs cost, the unfinished cascade `--resume`
//! takes up (with a stage's runs a killed process never wrote in), and the
//! record as printed at the end.

use crate::domain::{CascadeRecord, CascadeStage, Run, RunSpec, RunStatus, StageSource};
use crate::store::Store;
use std::collections::HashSet;

pub(super) fn new_stage(given: &str, source: &StageSource) -> CascadeStage {
    CascadeStage {
        given: given.to_string(),
        source: match source {
            // Never a credential in the record: the server as its label shows it.
            StageSource::Model { model, server } => StageSource::Model {
                model: model.clone(),
                server: server.as_deref().map(crate::provider::server_label),
            },
            other => other.clone(),
        },
        judge: None,
        runs: Vec::new(),
        judged: 0,
        reused: 0,
        kept_before: 0,
        requests: 0,
        usage_unknown: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        cost_usd: None,
        kept: None,
        thresholds: Vec::new(),
    }
}

/// A stage's combinations judged, usage and cost: the sum over its runs,
/// as the ledger counts them.
pub(super) fn book_costs(store: &Store, stage: &mut CascadeStage) -> anyhow::Result<()> {
    let (mut judged, mut requests, mut unknown, mut prompt, mut completion) = (0, 0, 0, 0, 0);
    let mut cost = None::<f64>;
    for id in &stage.runs {
        if let Some(r) = store.run(*id)? {
            judged += r.verdicts;
            requests += r.requests;
            unknown += r.usage_unknown;
            prompt += r.prompt_tokens;
            completion += r.completion_tokens;
            if let Some(c) = r.cost_usd {
                cost = Some(cost.unwrap_or(0.0) + c);
            }
        }
    }
    stage.judged = judged;
    stage.requests = requests;
    stage.usage_unknown = unknown;
    stage.prompt_tokens = prompt;
    stage.completion_tokens = completion;
    stage.cost_usd = cost;
    Ok(())
}

/// The latest cascade run of the same stages and judge that did not end
/// done: `--resume` takes it up.
pub(super) fn unfinished(store: &Store, spec: &RunSpec) -> Option<(Run, CascadeRecord)> {
    store.cascade_runs().ok()?.into_iter().rev().find(|(r, _)| {
        r.status != RunStatus::Done
            && r.spec.model == spec.model
            && r.spec.protocol == spec.protocol
            && r.spec.mode == spec.mode
            && r.spec.persona_id == spec.persona_id
            && r.spec.perspective_ids == spec.perspective_ids
            && r.spec.prompt_hash == spec.prompt_hash
    })
}

/// Runs of a stage's model started after the cascade run (a process killed
/// mid-stage never wrote their ids into the record): theirs.
pub(super) fn adopt_killed_runs(
    store: &Store,
    cascade_id: i64,
    spec: &RunSpec,
    record: &mut CascadeRecord,
) -> anyhow::Result<()> {
    let listed: HashSet<i64> = record
        .stages
        .iter()
        .flat_map(|s| s.runs.iter().copied())
        .collect();
    for r in store.runs()? {
        if r.id <= cascade_id
            || listed.contains(&r.id)
            || r.spec.protocol != spec.protocol
            || r.spec.mode != spec.mode
            || r.spec.persona_id != spec.persona_id
            || r.spec.prompt_hash != spec.prompt_hash
        {
            continue;
        }
        if let Some(stage) = record.stages.iter_mut().find(
            |s| matches!(&s.source, StageSource::Model { model, .. } if *model == r.spec.model),
        ) {
            stage.runs.push(r.id);
        }
    }
    Ok(())
}

/// The cascade's record: a table, or one JSON object.
pub(super) fn print_record(id: i64, record: &CascadeRecord, as_json: bool) -> anyhow::Result<()> {
    if as_json {
        println!(
            "{}",
            serde_json::json!({"cascade_run_id": id, "cascade": record})
        );
    } else {
        println!(
            "{}",
            crate::report::cascade_run::record_table(id, record, None)
        );
    }
    Ok(())
}
