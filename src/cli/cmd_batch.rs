//! Batch runs and batch files: `jury run --batch` (through the OpenAI Batch
//! API), `jury batch export` (a request file for another engine) and
//! `jury batch import` (its answers, into the run they belong to).

use super::args::{BatchExportArgs, BatchImportArgs, RunArgs};
use super::cmd_run::drive::follow;
use super::cmd_run::interrupt::BatchWait;
use super::open_store;
use crate::config::Settings;
use crate::engine::{
    BatchMode, BatchOrder, EngineConfig, Interrupt, OnInterrupt, Plan, Reopen, Retry, RunRequest,
};
use std::process::ExitCode;
use std::time::Duration;

/// `jury batch export --out FILE [run flags]`.
pub fn export(s: &Settings, a: BatchExportArgs) -> anyhow::Result<ExitCode> {
    if a.run.batch {
        anyhow::bail!("`jury batch export` writes a file; --batch sends one (`jury run --batch`)");
    }
    if !a.run.cascade.is_empty() {
        anyhow::bail!(
            "`jury batch export` writes one judge's requests; --cascade runs several (`jury run --cascade`)"
        );
    }
    // Refused before a run is made: the request file would replace the
    // store (or its -wal, or the labels kept for replay) it is recorded in.
    if crate::store::is_own_file(&s.db_path, &a.out) {
        anyhow::bail!(super::strings::export::out_is_store(
            &a.out.display().to_string()
        ));
    }
    super::cmd_run::run_one(s, a.run, Some(a.out))
}

/// The batch settings of `jury run --batch` from its flags:
/// `--batch-on-interrupt` (leave unless it says cancel; Ctrl-C on a
/// terminal may still ask) and `--batch-retry`.
pub(super) fn batch_settings(req: &mut RunRequest, a: &RunArgs) {
    let chosen = a.batch_on_interrupt.as_deref().and_then(OnInterrupt::parse);
    req.batch_interrupt = Interrupt::new(chosen.unwrap_or_default());
    req.batch_retry = match a.batch_retry.as_str() {
        "direct" => Retry::Direct,
        _ => Retry::Batch,
    };
}

/// What Ctrl-C does while the run of `req` waits for its batch: asks on a
/// terminal unless `--batch-on-interrupt` said.
fn batch_wait(req: &RunRequest, a: &RunArgs) -> BatchWait {
    BatchWait {
        interrupt: req.batch_interrupt.clone(),
        ask: a.batch_on_interrupt.is_none(),
    }
}

/// A new batch run, sent as `mode` says, followed to its end.
pub(super) async fn send(
    cfg: EngineConfig,
    req: RunRequest,
    plan: Plan,
    mode: BatchMode,
    a: &RunArgs,
) -> anyhow::Result<ExitCode> {
    let endpoint = crate::provider::url::shown(&cfg.provider.base_url);
    let db = cfg.db_path.clone();
    let wait = match &mode {
        BatchMode::Api { .. } => Some(batch_wait(&req, a)),
        BatchMode::Export { .. } => None,
    };
    let order = BatchOrder { mode };
    let handle = crate::engine::spawn_batch(cfg, req, plan, order);
    follow(handle, &endpoint, &db, a.json, wait).await
}

/// The run whose batch is still open (sent, never read) for the judge of
/// `spec`, when there is one.
pub(super) fn open_batch_for(
    s: &Settings,
    plan: &crate::engine::Plan,
) -> anyhow::Result<Option<i64>> {
    let planned = plan.batches.iter().flatten().map(|u| &u.key).collect();
    Ok(open_store(s)?.open_batch_run_for(&plan.spec, &planned)?)
}

/// Waits again for the open batch of `run_id` and reads its answers (the
/// run's judge from its record).
pub(super) async fn wait_again(
    cfg: EngineConfig,
    req: RunRequest,
    run_id: i64,
    a: &RunArgs,
) -> anyhow::Result<ExitCode> {
    if !a.json {
        eprintln!("run {run_id}: its batch was sent before; waiting for it");
    }
    let endpoint = crate::provider::url::shown(&cfg.provider.base_url);
    let db = cfg.db_path.clone();
    let poll = Duration::from_secs(a.batch_poll.max(1));
    let wait = batch_wait(&req, a);
    let handle = crate::engine::spawn_reopen(cfg, req, run_id, Reopen::Wait { poll });
    follow(handle, &endpoint, &db, a.json, Some(wait)).await
}

/// `jury batch import FILE`: each run the file's lines name, in turn.
pub fn import(s: &Settings, a: BatchImportArgs) -> anyhow::Result<ExitCode> {
    let text = crate::readfile::read_to_string(&a.file)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", a.file.display()))?;
    let (lines, skipped) = crate::engine::batch_file::read_answers(&text);
    let mut runs: Vec<i64> = lines.iter().map(|l| l.run_id).collect();
    runs.sort_unstable();
    runs.dedup();
    if runs.is_empty() {
        anyhow::bail!(
            "{} has no answer line of a jury batch (custom ids `jury-RUN-N`); {skipped} lines were not read",
            a.file.display()
        );
    }
    if skipped > 0 {
        eprintln!(
            "{skipped} lines of {} were not jury's answers and were left out",
            a.file.display()
        );
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .thread_name("jury-import")
        .enable_all()
        .build()?;
    let mut code = ExitCode::SUCCESS;
    for run_id in runs {
        let (cfg, req) = import_setup(s, run_id)?;
        let endpoint = crate::provider::url::shown(&cfg.provider.base_url);
        let db = cfg.db_path.clone();
        let what = Reopen::Answers(text.clone());
        let c = rt.block_on(async {
            let handle = crate::engine::spawn_reopen(cfg, req, run_id, what);
            follow(handle, &endpoint, &db, a.json, None).await
        })?;
        if code == ExitCode::SUCCESS {
            code = c;
        }
    }
    Ok(code)
}

/// What an import of `run_id`'s answers runs with: the store and prompts
/// of `s` (the run's record names its own prompt set, which the engine
/// loads) and no endpoint (nothing is sent), the run's settings read from
/// its record by the engine.
fn import_setup(s: &Settings, run_id: i64) -> anyhow::Result<(EngineConfig, RunRequest)> {
    let store = open_store(s)?;
    let Some(run) = store.run(run_id)? else {
        anyhow::bail!("there is no run {run_id} in this store");
    };
    if store.batch_jobs(run_id)?.is_empty() {
        anyhow::bail!("run {run_id} has no batch file: its answers cannot be read");
    }
    let Some(record) = run.spec.record else {
        anyhow::bail!(
            "run {run_id} cannot be imported into: {}",
            run.record_note.as_deref().unwrap_or("it has no record")
        );
    };
    drop(store);
    let mut provider = s.provider().unwrap_or_else(|_| {
        crate::provider::ProviderConfig::new("http://127.0.0.1/v1", record.model.clone())
    });
    provider.model = record.model.clone();
    provider.temperature = record.temperature;
    let req = RunRequest::of_record(&record);
    // Only a fallback: the engine loads the record's own set first.
    let prompts = crate::prompt::PromptSet::load(s.prompts_dir.as_deref())
        .unwrap_or_else(|_| crate::prompt::PromptSet::embedded());
    let prompts = std::sync::Arc::new(prompts);
    let cfg = EngineConfig {
        db_path: s.db_path.clone(),
        provider,
        prompts,
    };
    Ok((cfg, req))
}
