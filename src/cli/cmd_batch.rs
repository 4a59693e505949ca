//! Batch runs and batch files: `jury run --batch` (through the OpenAI Batch
//! API), `jury batch export` (a request file for another engine) and
//! `jury batch import` (its answers, into the run they belong to).

use super::args::{BatchExportArgs, BatchImportArgs, Cli, Command, RunArgs};
use super::cmd_run::drive::follow;
use super::cmd_run::interrupt::BatchWait;
use super::open_store;
use crate::config::Settings;
use crate::engine::{
    BatchMode, BatchOrder, EngineConfig, Interrupt, OnInterrupt, Plan, Reopen, Retry, RunRequest,
};
use clap::Parser;
use std::process::ExitCode;
use std::time::Duration;

/// `jury batch export --out FILE [run flags]`.
pub fn export(s: &Settings, a: BatchExportArgs) -> anyhow::Result<ExitCode> {
    if a.run.batch {
        anyhow::bail!("`jury batch export` writes a file; --batch sends one (`jury run --batch`)");
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
    let order = BatchOrder {
        mode,
        // The command as given: an import rebuilds the run's judge from it.
        argv: recorded(std::env::args().skip(1)),
    };
    let handle = crate::engine::spawn_batch(cfg, req, plan, order);
    follow(handle, &endpoint, &db, a.json, wait).await
}

/// A command line as the store keeps it: a URL's credentials and secret
/// query values (`--base-url https://user:KEY@proxy/v1`) masked, as every
/// URL jury shows or stores is; nothing else changes, and an import needs
/// no URL.
fn recorded(args: impl Iterator<Item = String>) -> Vec<String> {
    // Only the server's URLs: other text (a claim quoting a link) is part of
    // the prompt and kept exactly.
    let mut after_flag = false;
    args.map(|a| {
        let masked = match a.split_once('=') {
            Some(("--base-url", url)) => format!("--base-url={}", crate::provider::url::shown(url)),
            _ if after_flag => crate::provider::url::shown(&a),
            _ => a.clone(),
        };
        after_flag = a == "--base-url";
        masked
    })
    .collect()
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

/// Waits again for the open batch of `run_id` and reads its answers.
pub(super) async fn wait_again(
    cfg: EngineConfig,
    req: RunRequest,
    plan: Plan,
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
    let handle = crate::engine::spawn_reopen(cfg, req, plan, run_id, Reopen::Wait { poll });
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
        let store = open_store(s)?;
        let jobs = store.batch_jobs(run_id)?;
        let Some(job) = jobs.first() else {
            anyhow::bail!("run {run_id} has no batch file: its answers cannot be read");
        };
        let Some(run) = store.run(run_id)? else {
            anyhow::bail!("there is no run {run_id} in this store");
        };
        drop(store);
        let run_args = run_args_of(&job.argv)?;
        let (cfg, req, plan) = super::cmd_run::judge_of(s, &run_args, &run.spec.model)?;
        let endpoint = crate::provider::url::shown(&cfg.provider.base_url);
        let db = cfg.db_path.clone();
        let what = Reopen::Answers(text.clone());
        let c = rt.block_on(async {
            let handle = crate::engine::spawn_reopen(cfg, req, plan, run_id, what);
            follow(handle, &endpoint, &db, a.json, None).await
        })?;
        if code == ExitCode::SUCCESS {
            code = c;
        }
    }
    Ok(code)
}

/// The run flags of a stored command line (`run …` or `batch export …`).
fn run_args_of(argv: &[String]) -> anyhow::Result<RunArgs> {
    let cli = Cli::try_parse_from(std::iter::once("jury".to_string()).chain(argv.iter().cloned()))
        .map_err(|e| anyhow::anyhow!("the run's command line no longer reads: {e}"))?;
    match cli.command {
        Some(Command::Run(a)) => Ok(*a),
        Some(Command::Batch(super::args::BatchCommand::Export(a))) => Ok(a.run),
        _ => anyhow::bail!("the run's command line is not a run: {}", argv.join(" ")),
    }
}

#[cfg(test)]
mod tests {
    /// A `--base-url`'s credentials are masked, however the flag is given;
    /// other text, a claim quoting a link among them, is kept exactly (it is
    /// part of the prompt an import checks).
    #[test]
    fn only_the_servers_urls_are_masked_in_a_recorded_command_line() {
        let claim = "It links to https://example.com/a  b,\nthen more";
        let args = [
            "run",
            "--claim",
            claim,
            "--base-url",
            "http://user:sk-SECRET@h:1/v1#8",
            "--base-url=http://h:2/v1?api-key=sk-OTHER",
        ];
        let got = super::recorded(args.iter().map(|a| a.to_string()));
        assert_eq!(got[2], claim);
        assert!(!got.join(" ").contains("sk-"), "{got:?}");
        assert!(
            got[4].starts_with("http://") && got[4].ends_with("#8"),
            "{got:?}"
        );
        assert!(got[5].starts_with("--base-url=http://h:2/v1"), "{got:?}");
    }
}
