//! `jury run` (headless batch) and `jury demo-judge`.

use super::{DemoJudgeArgs, EXIT_FAILURES, RunArgs, open_store};
use crate::config::Settings;
use crate::domain::{Mode, Protocol, RunStatus};
use crate::engine::{EngineConfig, EngineEvent, Progress, RunRequest};
use crate::prompt::PromptSet;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

pub fn run(s: &Settings, a: RunArgs) -> anyhow::Result<ExitCode> {
    let protocol: Protocol = a.protocol.parse().map_err(|e: String| anyhow::anyhow!(e))?;
    if a.double_check && protocol != Protocol::Proposition {
        anyhow::bail!("--double-check applies to the proposition protocol");
    }
    let mode = match (protocol, a.mode) {
        (Protocol::Awag, Some(m)) => Mode::from_number(m)
            .ok_or_else(|| anyhow::anyhow!("--mode must be 1, 2 or 3, got {m}"))?,
        (Protocol::Awag, None) => {
            anyhow::bail!("--mode is required for the awag protocol (1, 2 or 3)")
        }
        (_, Some(_)) => anyhow::bail!("--mode applies to the awag protocol only"),
        // Other protocols have no AwAg mode; the field is ignored for them.
        (_, None) => Mode::Two,
    };
    if protocol == Protocol::Awag && (a.persona.is_empty() || a.perspective.is_empty()) {
        anyhow::bail!(
            "the awag protocol needs --persona and --perspective (see `jury list personas` and `jury list perspectives`)"
        );
    }
    if a.concurrency == 0 {
        anyhow::bail!("--concurrency must be at least 1");
    }
    let mut req = RunRequest::new(mode, &a.persona, a.perspective.clone());
    req.protocol = protocol;
    req.concurrency = a.concurrency;
    if let Some(k) = a.batch_size {
        if k == 0 {
            anyhow::bail!("--batch-size must be at least 1");
        }
        req.batch_size = k;
    }
    req.item_ids = a.items.clone();
    req.limit = a.limit;
    req.subset = a.subset_percent.map(|p| (p, a.seed.unwrap_or(0)));
    req.resume = a.resume;
    req.shuffle_seed = a.shuffle_seed;
    // The progress bar and summary show counts, not the judge's text.
    req.stream_texts = false;
    req.max_attempts = a.max_attempts;
    req.budget_usd = a.budget;
    req.max_tokens = a.max_tokens;
    if let Some(n) = s.max_tokens_per_entry {
        req.tokens_per_entry = n;
    }
    req.structured = match a.structured.as_deref().or(s.structured.as_deref()) {
        None | Some("auto") => None,
        Some(other) => Some(crate::provider::ToolMode::parse(other).ok_or_else(|| {
            anyhow::anyhow!("structured must be auto, tools, json_schema or json, not {other:?}")
        })?),
    };
    let secs = |flag: &str, v: Option<f64>| -> anyhow::Result<Option<std::time::Duration>> {
        v.map(|x| {
            crate::config::seconds(x).ok_or_else(|| {
                anyhow::anyhow!("{flag} must be a positive number of seconds, not {x}")
            })
        })
        .transpose()
    };
    let idle = secs("--idle-timeout", a.idle_timeout)?;
    let whole = secs("--request-timeout", a.request_timeout)?;
    let answer_cap = a
        .max_answer_mb
        .map(|mb| {
            (mb.is_finite() && mb > 0.0 && mb < 1e6)
                .then_some((mb * 1024.0 * 1024.0) as usize)
                .ok_or_else(|| {
                    anyhow::anyhow!("--max-answer-mb must be a positive number, not {mb}")
                })
        })
        .transpose()?;
    if protocol == Protocol::Rubric {
        use crate::protocol::rubric::Dimension;
        let mut dims = if a.no_default_dimensions {
            Vec::new()
        } else {
            Dimension::defaults()
        };
        for d in &a.dimension {
            dims.push(Dimension::from_arg(d).map_err(|e| anyhow::anyhow!(e))?);
        }
        if dims.is_empty() {
            anyhow::bail!(
                "no dimensions: give --dimension NAME=FILE or drop --no-default-dimensions"
            );
        }
        req.options = serde_json::json!({
            "dimensions": dims.iter().map(|d| serde_json::json!({"name": d.name, "rubric": d.rubric})).collect::<Vec<_>>(),
            "prompts_dir": s.prompts_dir,
        });
    }
    let proposition_flags = a.claim.is_some()
        || a.claim_id.is_some()
        || a.precondition.is_some()
        || a.first_n.is_some()
        || a.last_n.is_some()
        || a.scoring != "check";
    if proposition_flags && protocol != Protocol::Proposition {
        anyhow::bail!(
            "--claim, --claim-id, --scoring, --precondition, --first-n and --last-n apply to the proposition protocol"
        );
    }
    if protocol == Protocol::Proposition {
        use crate::protocol::proposition::{Scoring, Settings};
        let claim = a
            .claim
            .clone()
            .filter(|c| !c.trim().is_empty())
            .ok_or_else(|| anyhow::anyhow!("the proposition protocol needs --claim \"...\""))?;
        let settings = Settings {
            claim_id: a
                .claim_id
                .clone()
                .unwrap_or_else(|| Settings::default_claim_id(&claim)),
            claim,
            scoring: Scoring::parse(&a.scoring).map_err(|e| anyhow::anyhow!(e))?,
            double_check: a.double_check,
            precondition: a.precondition.clone(),
            first_n: a.first_n,
            last_n: a.last_n,
        };
        let mut o = settings.to_options();
        o["prompts_dir"] = serde_json::json!(s.prompts_dir);
        // Validates the claim and the precondition before anything runs.
        Settings::from_options(&o).map_err(|e| anyhow::anyhow!(e))?;
        req.options = o;
    }
    if protocol == Protocol::Guideline {
        req.options = serde_json::json!({ "prompts_dir": s.prompts_dir });
    }
    let prompts = Arc::new(PromptSet::load(s.prompts_dir.as_deref())?);

    // Planning needs no endpoint: a dry run works without one.
    let store = open_store(s)?;
    // The endpoint with this command's flags; the plan records the
    // temperature among the run's settings, so it plans with the same.
    let with_flags = |mut p: crate::provider::ProviderConfig| {
        if let Some(t) = a.temperature {
            p.temperature = Some(t);
        }
        if let Some(t) = idle {
            p.idle_timeout = t;
        }
        if let Some(t) = whole {
            p.request_timeout = t;
        }
        if let Some(b) = answer_cap {
            p.max_answer_bytes = b;
        }
        p.stream = !a.no_stream;
        p
    };
    let endpoint = s.provider().map(with_flags);
    let provider_for_plan = endpoint.clone().unwrap_or_else(|_| {
        let mut p = crate::provider::ProviderConfig::new("http://127.0.0.1/v1", s.model.clone());
        p.temperature = s.temperature;
        with_flags(p)
    });
    let plan_cfg = EngineConfig {
        db_path: s.db_path.clone(),
        provider: provider_for_plan,
        prompts: prompts.clone(),
    };
    let plan = crate::engine::make_plan(&plan_cfg, &req, &store)?;
    drop(store);
    if a.dry_run && a.show_request {
        let Some(batch) = plan.batches.first() else {
            println!(
                "dry run: nothing would be sent ({} combination(s) settled without a request, {} already judged)",
                plan.settled.len(),
                plan.skipped
            );
            return Ok(ExitCode::SUCCESS);
        };
        let boundary = crate::protocol::new_boundary();
        let call = plan
            .protocol
            .build_call(batch, &boundary)
            .map_err(|e| anyhow::anyhow!(e))?;
        if !a.json {
            println!(
                "# request 1 of {} ({} combination(s) in it)",
                plan.batches.len(),
                batch.len()
            );
        }
        let set = format!(
            "{} {} (hash {})",
            protocol.as_str(),
            s.prompts_dir
                .as_deref()
                .map(|d| d.display().to_string())
                .unwrap_or_else(|| "embedded".into()),
            plan.spec.prompt_hash
        );
        super::cmd_prompt::print_call(s, &plan_cfg.provider, &set, &call, &boundary, a.json)?;
        return Ok(ExitCode::SUCCESS);
    }
    if a.dry_run {
        let summary = serde_json::json!({
            "dry_run": true,
            "protocol": protocol.as_str(),
            "mode": plan.spec.mode.map(|m| m.number()),
            "persona": plan.spec.persona_id,
            "perspectives": a.perspective,
            "model": s.model,
            "prompt_hash": plan.spec.prompt_hash,
            "requests": plan.batches.len(),
            "combinations": plan.units(),
            "settled_without_request": plan.settled.len(),
            "skipped_already_judged": plan.skipped,
        });
        if a.json {
            println!("{summary}");
        } else {
            println!(
                "dry run: {} request(s) for {} combination(s) ({} settled without a request, {} already judged, skipped); model {}, prompt set {}",
                plan.batches.len(),
                plan.units(),
                plan.settled.len(),
                plan.skipped,
                s.model,
                plan.spec.prompt_hash
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    if plan.batches.is_empty() && plan.settled.is_empty() {
        let msg = if plan.skipped > 0 {
            format!(
                "nothing to judge: all {} combination(s) already have verdicts for this persona, mode, perspective, model and prompt set",
                plan.skipped
            )
        } else {
            "nothing to judge: the selection holds no items".to_string()
        };
        if a.json {
            println!(
                "{}",
                serde_json::json!({"status": "nothing_to_do", "total": 0, "completed": 0, "failed": 0, "skipped_already_judged": plan.skipped, "note": msg})
            );
        } else {
            println!("{msg}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let provider = endpoint.map_err(|e| anyhow::anyhow!(e))?;
    let cfg = EngineConfig {
        db_path: s.db_path.clone(),
        provider,
        prompts,
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .thread_name("jury-run")
        .enable_all()
        .build()?;
    // The plan made above is the one run: planning again would read every
    // item a second time before the first request.
    rt.block_on(drive(cfg, req, plan, a.json))
}

async fn drive(
    cfg: EngineConfig,
    req: RunRequest,
    plan: crate::engine::Plan,
    as_json: bool,
) -> anyhow::Result<ExitCode> {
    let endpoint = crate::sanitize::one_line(&cfg.provider.base_url, 200);
    let db_path = cfg.db_path.clone();
    let mut handle = crate::engine::spawn_planned(cfg, req, plan);
    let bar = (!as_json && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(0);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} combinations · {per_sec} · ETA {eta} · {msg}",
            )
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
    loop {
        tokio::select! {
            ev = handle.events.recv() => {
                let Some(ev) = ev else { break };
                match ev {
                    EngineEvent::RunStarted { total, skipped, .. } => {
                        if let Some(b) = &bar {
                            b.set_length(total);
                            if skipped > 0 {
                                b.println(format!("resuming: {skipped} combination(s) already judged are skipped"));
                            }
                        }
                    }
                    EngineEvent::Progress(p) => {
                        if let Some(b) = &bar {
                            b.set_position(p.done());
                            b.set_message(format!(
                                "{} tokens{}{}",
                                p.usage.prompt_tokens + p.usage.completion_tokens,
                                p.cost_usd.map(|c| format!(" · ${c:.4}")).unwrap_or_default(),
                                if p.failed > 0 { format!(" · {} failed", p.failed) } else { String::new() }
                            ));
                        }
                        last = Some(p);
                    }
                    EngineEvent::Retrying { reason, .. } => {
                        if let Some(b) = &bar {
                            b.set_message(format!("retrying: {}", crate::sanitize::one_line(&reason, 80)));
                        }
                    }
                    EngineEvent::RunFinished { status, progress, note, .. } => {
                        last = Some(progress);
                        finished = Some((status, note));
                    }
                    _ => {}
                }
            }
            _ = signal_to_stop(&mut terminate) => {
                if interrupted {
                    // A second signal: stop now. Everything committed is
                    // kept; the run shows as interrupted, since this
                    // process is gone, and --resume continues it.
                    eprintln!("stopped before the run could finish cleanly");
                    std::process::exit(1);
                }
                interrupted = true;
                cancel.cancel();
                if let Some(b) = &bar {
                    b.println("cancelling: what has arrived is kept… (again to stop at once)");
                }
            }
        }
    }
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let outcome = handle.join.await??;
    let p = last.unwrap_or(outcome.progress);
    let (status, note) = finished.unwrap_or((outcome.status, outcome.note.clone()));
    let missing = p.total.saturating_sub(p.verdicts);
    // Failure records, salvaged ones included: a run whose every combination
    // got its verdict exits 0 and still says what went wrong on the way.
    let records = crate::store::Store::open(&db_path)
        .ok()
        .and_then(|s| s.run(outcome.run_id).ok().flatten())
        .map_or(0, |r| r.failures);
    if as_json {
        println!(
            "{}",
            serde_json::json!({
                "run_id": outcome.run_id,
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
        println!(
            "run {} {}: {}/{} verdicts, {} without a verdict, {} failure record(s), {} requests, {} tokens{}, {:.1}s{}",
            outcome.run_id,
            status.as_str(),
            p.verdicts,
            p.total,
            missing,
            records,
            p.requests,
            p.usage.prompt_tokens + p.usage.completion_tokens,
            p.cost_usd.map(|c| format!(", ${c:.4}")).unwrap_or_default(),
            p.elapsed.as_secs_f64(),
            note.as_deref()
                .map(|n| format!(" — {}", crate::sanitize::one_line(n, 300)))
                .unwrap_or_default()
        );
        if missing > 0 {
            point_at_failures(records, outcome.run_id, missing);
        } else if records > 0 {
            eprintln!(
                "every combination has its verdict; {records} failure record(s) on the way (retried or salvaged): jury failures {}",
                outcome.run_id
            );
        }
    }
    // A run whose every combination failed ended with its failures recorded,
    // not with a fault that stopped it.
    let only_failures =
        status == RunStatus::Failed && note.as_deref() == Some(crate::engine::NO_VERDICT_NOTE);
    if status == RunStatus::Failed && !only_failures {
        // A fault fatal for the whole run (refused key, quota, budget, a
        // server that cannot do what is asked): say where, and how to go on.
        eprintln!(
            "error: run {} stopped at {endpoint}; what arrived is stored, fix the cause and continue with the same command plus --resume",
            outcome.run_id
        );
    }
    Ok(match status {
        RunStatus::Done if missing == 0 => ExitCode::SUCCESS,
        RunStatus::Failed if only_failures => ExitCode::from(EXIT_FAILURES),
        RunStatus::Failed => ExitCode::from(1),
        RunStatus::Done | RunStatus::Cancelled if p.verdicts > 0 || missing > 0 => {
            ExitCode::from(EXIT_FAILURES)
        }
        _ => ExitCode::from(1),
    })
}

/// Ctrl-C or SIGTERM, whichever comes first.
async fn signal_to_stop(terminate: &mut tokio::signal::unix::Signal) {
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminate.recv() => {}
    }
}

/// Where to look for what is missing: `jury failures` only when the run
/// recorded failures (a budget or a fatal fault leaves combinations that
/// were never sent, which are not failures), `--resume` for the rest.
fn point_at_failures(recorded: u64, run_id: i64, missing: u64) {
    if recorded > 0 {
        eprintln!("see the failures with: jury failures {run_id}");
    } else {
        eprintln!(
            "{missing} combination(s) of run {run_id} have no verdict and no recorded failure (never sent, or cut off by the stop); the same command plus --resume asks for them"
        );
    }
}

pub fn demo_judge(a: DemoJudgeArgs) -> anyhow::Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let latency = std::time::Duration::from_millis(a.latency_ms);
        let server = crate::demo_judge::DemoJudge::start(a.port, latency).await?;
        println!(
            "demo judge listening: export OPENAI_BASE_URL={}",
            server.base_url()
        );
        println!("(a deterministic offline judge for trying jury out; Ctrl-C stops it)");
        tokio::signal::ctrl_c().await?;
        Ok::<_, anyhow::Error>(ExitCode::SUCCESS)
    })
}
