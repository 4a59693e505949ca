//! A planned run on its way: the progress bar, Ctrl-C and SIGTERM, the
//! summary at the end and the exit code it means.

use super::interrupt::BatchWait;
use crate::cli::EXIT_FAILURES;
use crate::cli::strings::drive as say;
use crate::domain::RunStatus;
use crate::engine::{EngineConfig, EngineEvent, Progress, RunRequest};
use std::io::IsTerminal;
use std::process::ExitCode;

/// Runs `plan` to its end and says how it went.
pub(super) async fn drive(
    cfg: EngineConfig,
    req: RunRequest,
    plan: crate::engine::Plan,
    as_json: bool,
) -> anyhow::Result<ExitCode> {
    Ok(drive_run(cfg, req, plan, as_json).await?.0)
}

/// As [`drive`], with the id of the run it made (a cascade's stage
/// records it).
pub(super) async fn drive_run(
    cfg: EngineConfig,
    req: RunRequest,
    plan: crate::engine::Plan,
    as_json: bool,
) -> anyhow::Result<(ExitCode, i64)> {
    let endpoint = if cfg.provider.servers.len() > 1 {
        cfg.provider
            .servers
            .iter()
            .map(|s| crate::provider::url::shown(&s.base_url))
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        crate::provider::url::shown(&cfg.provider.base_url)
    };
    let db_path = cfg.db_path.clone();
    let handle = crate::engine::spawn_planned(cfg, req, plan);
    follow_run(handle, &endpoint, &db_path, as_json, None).await
}

/// A started run followed to its end (a streamed run, a batch run, or a
/// batch run taken up again): the progress bar, signals, the summary and
/// the exit code. `batch`: the run waits for a batch, and Ctrl-C says what
/// becomes of it (asking on a terminal when no flag did).
pub(in crate::cli) async fn follow(
    handle: crate::engine::RunHandle,
    endpoint: &str,
    db_path: &std::path::Path,
    as_json: bool,
    batch: Option<BatchWait>,
) -> anyhow::Result<ExitCode> {
    Ok(follow_run(handle, endpoint, db_path, as_json, batch)
        .await?
        .0)
}

/// As [`follow`], with the run's id.
async fn follow_run(
    mut handle: crate::engine::RunHandle,
    endpoint: &str,
    db_path: &std::path::Path,
    as_json: bool,
    batch: Option<BatchWait>,
) -> anyhow::Result<(ExitCode, i64)> {
    let bar = (!as_json && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(0);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} combinations · {rate} · ETA {eta} · {msg}",
            )
            // indicatif's {per_sec} prints "1,008.737/s": whole answers.
            .map(|style| {
                style.with_key(
                    "rate",
                    |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{:.0}/s", state.per_sec());
                    },
                )
            })
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let cancel = handle.cancel.clone();
    let mut interrupted = false;
    // SIGTERM (a service manager, `kill`, a closed session) ends the run as
    // Ctrl-C does: cancelled, with what arrived kept, never left "running".
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut last: Option<Progress> = None;
    let mut finished: Option<(RunStatus, Option<String>)> = None;
    // The question Ctrl-C asked about the batch, while it waits for an answer.
    let mut asking: Option<tokio::sync::oneshot::Receiver<crate::engine::OnInterrupt>> = None;
    loop {
        tokio::select! {
            ev = handle.events.recv() => {
                let Some(ev) = ev else { break };
                on_event(ev, bar.as_ref(), &mut last, &mut finished);
            }
            ctrl_c = signal_to_stop(&mut terminate) => {
                if interrupted {
                    // A second signal: stop now. Everything committed is
                    // kept; the run shows as interrupted, since this
                    // process is gone, and --resume continues it.
                    eprintln!("{}", say::STOPPED_AT_ONCE);
                    std::process::exit(1);
                }
                interrupted = true;
                if ctrl_c && batch.as_ref().is_some_and(|b| b.asks()) {
                    // Someone is there: ask before cancelling.
                    if let Some(b) = &bar {
                        b.set_draw_target(indicatif::ProgressDrawTarget::hidden());
                    }
                    asking = Some(super::interrupt::ask_in_background());
                } else {
                    cancel.cancel();
                    if let Some(b) = &bar {
                        b.println(say::CANCELLING);
                    }
                }
            }
            choice = async { asking.as_mut().expect("asking").await }, if asking.is_some() => {
                asking = None;
                if let (Some(b), Ok(choice)) = (&batch, choice) {
                    b.interrupt.set(choice);
                }
                if let Some(b) = &bar {
                    b.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                    b.println(say::CANCELLING);
                }
                cancel.cancel();
            }
        }
    }
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let outcome = handle.join.await??;
    let p = last.unwrap_or(outcome.progress);
    if outcome.status == RunStatus::Queued {
        // A batch file written: its answers come later, by `jury batch import`.
        print_summary(
            outcome.run_id,
            outcome.status,
            &p,
            0,
            outcome.note.as_deref(),
            as_json,
        );
        return Ok((ExitCode::SUCCESS, outcome.run_id));
    }
    let (status, note) = finished.unwrap_or((outcome.status, outcome.note.clone()));
    let missing = p.total.saturating_sub(p.verdicts);
    // Failure records, salvaged ones included: a run whose every combination
    // got its verdict exits 0 and still says what went wrong on the way.
    let records = crate::store::Store::open(db_path)
        .ok()
        .and_then(|s| s.run(outcome.run_id).ok().flatten())
        .map_or(0, |r| r.failures);
    print_summary(
        outcome.run_id,
        status,
        &p,
        records,
        note.as_deref(),
        as_json,
    );
    // A run whose every combination failed ended with its failures recorded,
    // not with a fault that stopped it.
    let only_failures =
        status == RunStatus::Failed && note.as_deref() == Some(crate::engine::NO_VERDICT_NOTE);
    if status == RunStatus::Failed && !only_failures {
        // A fault fatal for the whole run (refused key, quota, budget, a
        // server that cannot do what is asked): say where, and how to go on.
        eprintln!("{}", say::stopped_at(outcome.run_id, endpoint));
    }
    let code = match status {
        RunStatus::Done if missing == 0 => ExitCode::SUCCESS,
        RunStatus::Failed if only_failures => ExitCode::from(EXIT_FAILURES),
        RunStatus::Failed => ExitCode::from(1),
        RunStatus::Done | RunStatus::Cancelled if p.verdicts > 0 || missing > 0 => {
            ExitCode::from(EXIT_FAILURES)
        }
        _ => ExitCode::from(1),
    };
    Ok((code, outcome.run_id))
}

/// The run's figures: one JSON object, or a line and where to look next.
fn print_summary(
    run_id: i64,
    status: RunStatus,
    p: &Progress,
    records: u64,
    note: Option<&str>,
    as_json: bool,
) {
    // A batch file waiting for its answers has nothing missing yet.
    let missing = match status {
        RunStatus::Queued => 0,
        _ => p.total.saturating_sub(p.verdicts),
    };
    if as_json {
        println!(
            "{}",
            serde_json::json!({
                "run_id": run_id,
                "status": status.as_str(),
                "total": p.total,
                "verdicts": p.verdicts,
                "failed": missing,
                "requests": p.requests,
                "prompt_tokens": p.usage.prompt_tokens,
                "completion_tokens": p.usage.completion_tokens,
                "usage_unknown_requests": p.usage_unknown,
                "failure_records": records,
                "cost_usd": p.cost_usd,
                "elapsed_s": p.elapsed.as_secs_f64(),
                "note": note,
            })
        );
    } else {
        let note = note.map(|n| crate::sanitize::one_line(n, 300));
        println!(
            "{}",
            say::summary(
                run_id,
                status.as_str(),
                p,
                missing,
                records,
                note.as_deref()
            )
        );
        if status == RunStatus::Queued {
            // Nothing is missing yet: the answers have not come.
        } else if missing > 0 {
            point_at_failures(records, run_id, missing);
        } else if records > 0 {
            eprintln!("{}", say::failures_on_the_way(records, run_id));
        }
    }
}

/// One engine event on the progress bar, and the figures the summary needs.
fn on_event(
    ev: EngineEvent,
    bar: Option<&indicatif::ProgressBar>,
    last: &mut Option<Progress>,
    finished: &mut Option<(RunStatus, Option<String>)>,
) {
    match ev {
        EngineEvent::RunStarted { total, skipped, .. } => {
            if let Some(b) = bar {
                b.set_length(total);
                if skipped > 0 {
                    b.println(say::resuming(skipped));
                }
            }
        }
        EngineEvent::Progress(p) => {
            if let Some(b) = bar {
                b.set_position(p.done());
                b.set_message(say::bar_message(&p));
            }
            *last = Some(p);
        }
        EngineEvent::Retrying { reason, .. } => {
            if let Some(b) = bar {
                b.set_message(say::retrying(&crate::sanitize::one_line(&reason, 80)));
            }
        }
        // Said whether or not there is a bar: both change what this run does.
        EngineEvent::StoreWaiting { waited, .. } => match bar {
            Some(b) => b.println(say::store_waiting(waited)),
            None => eprintln!("{}", say::store_waiting(waited)),
        },
        EngineEvent::BatchStatus { batch, .. } => match bar {
            Some(b) => b.println(crate::sanitize::one_line(&batch.to_string(), 300)),
            None => eprintln!("{}", crate::sanitize::one_line(&batch.to_string(), 300)),
        },
        EngineEvent::Notice { text, .. } => match bar {
            Some(b) => b.println(crate::sanitize::one_line(&text, 300)),
            None => eprintln!("{}", crate::sanitize::one_line(&text, 300)),
        },
        EngineEvent::ClaimedElsewhere { skipped, runs, .. } => match bar {
            Some(b) => b.println(say::claimed_elsewhere(skipped, &runs)),
            None => eprintln!("{}", say::claimed_elsewhere(skipped, &runs)),
        },
        EngineEvent::RunFinished {
            status,
            progress,
            note,
            ..
        } => {
            *last = Some(progress);
            *finished = Some((status, note));
        }
        _ => {}
    }
}

/// Ctrl-C or SIGTERM, whichever comes first: true for Ctrl-C.
async fn signal_to_stop(terminate: &mut tokio::signal::unix::Signal) -> bool {
    tokio::select! {
        _ = tokio::signal::ctrl_c() => true,
        _ = terminate.recv() => false,
    }
}

/// Where to look for what is missing: `jury failures` only when the run
/// recorded failures (a budget or a fatal fault leaves combinations that
/// were never sent, which are not failures), `--resume` for the rest.
fn point_at_failures(recorded: u64, run_id: i64, missing: u64) {
    if recorded > 0 {
        eprintln!("{}", say::see_failures(run_id));
    } else {
        eprintln!("{}", say::never_sent(missing, run_id));
    }
}
