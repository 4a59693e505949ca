//! `jury run` (headless batch) and `jury demo-judge`.

mod cascade;
mod cascade_record;
pub(super) mod drive;
pub(super) mod interrupt;
mod owner;

use super::strings::run as say;
use super::{DemoJudgeArgs, RunArgs, open_store};
use crate::config::Settings;
use crate::engine::{EngineConfig, RunRequest};
use crate::prompt::PromptSet;
use crate::protocol::{JudgeSpec, SpecFlags};
use std::process::ExitCode;
use std::sync::Arc;

pub fn run(s: &Settings, mut a: RunArgs) -> anyhow::Result<ExitCode> {
    drop_repeats(&mut a);
    if !a.cascade.is_empty() {
        return cascade::run_cascade(s, a);
    }
    match a.repeats {
        Some(k) if k > 1 => repeated(s, a, k),
        Some(0) => anyhow::bail!(say::ZERO_REPEATS),
        _ => run_once(s, a),
    }
}

/// `--repeats K`: K runs of the same judge configuration, one after the
/// other; the first that does not end well ends the series.
fn repeated(s: &Settings, a: RunArgs, k: u32) -> anyhow::Result<ExitCode> {
    let temperature = a.temperature.or(s.temperature).unwrap_or(0.0);
    // NaN is no temperature above 0 either.
    if temperature.is_nan() || temperature <= 0.0 {
        anyhow::bail!(say::REPEATS_NEED_TEMPERATURE);
    }
    if a.resume {
        anyhow::bail!(say::REPEATS_WITH_RESUME);
    }
    for i in 1..=k {
        if !a.json {
            println!("{}", say::repeat_of(i, k));
        }
        let code = run_once(s, a.clone())?;
        if code != ExitCode::SUCCESS {
            return Ok(code);
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn run_once(s: &Settings, a: RunArgs) -> anyhow::Result<ExitCode> {
    if owner::means_owner(s, &a)? {
        return owner::run_by_owner(s, a);
    }
    run_one(s, a, None)
}

/// One run of `a`; with `export`, its requests written there as a batch
/// file instead of sent.
pub(super) fn run_one(
    s: &Settings,
    a: RunArgs,
    export: Option<std::path::PathBuf>,
) -> anyhow::Result<ExitCode> {
    let spec = JudgeSpec::from_flags(&spec_flags(&a))?;
    let protocol = spec.protocol();
    let req = request(s, &a, spec)?;
    let flags = EndpointFlags::from_args(&a)?;
    let prompts = Arc::new(PromptSet::load(s.prompts_dir.as_deref())?);

    // Planning needs no endpoint: a dry run works without one.
    let store = open_store(s)?;
    // The endpoint with this command's flags; the plan records the
    // temperature among the run's settings, so it plans with the same.
    let endpoint = s.provider().map(|p| flags.apply(p));
    let provider_for_plan = endpoint.clone().unwrap_or_else(|_| {
        let mut p = crate::provider::ProviderConfig::new("http://127.0.0.1/v1", s.model.clone());
        p.temperature = s.temperature;
        flags.apply(p)
    });
    let plan_cfg = EngineConfig {
        db_path: s.db_path.clone(),
        provider: provider_for_plan,
        prompts: prompts.clone(),
    };
    let plan = crate::engine::make_plan(&plan_cfg, &req, &store)?;
    drop(store);
    if a.dry_run && a.show_request {
        return show_request(s, &a, &plan, &plan_cfg.provider, protocol);
    }
    if a.dry_run {
        return Ok(dry_run(s, &a, &plan, protocol));
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .thread_name("jury-run")
        .enable_all()
        .build()?;
    if a.resume && export.is_none() {
        // A batch of these combinations sent before (and a killed or
        // interrupted process left open) is waited for again: never sent
        // twice, and never judged directly at full price while it runs.
        if let Some(run_id) = super::cmd_batch::open_batch_for(s, &plan)? {
            let provider = endpoint.clone().map_err(|e| anyhow::anyhow!(e))?;
            if !a.batch && !a.json {
                eprintln!("{}", super::strings::drive::open_batch_instead(run_id));
            }
            let cfg = EngineConfig {
                db_path: s.db_path.clone(),
                provider,
                prompts,
            };
            return rt.block_on(super::cmd_batch::wait_again(cfg, req, run_id, &a));
        }
    }
    if plan.batches.is_empty() && plan.settled.is_empty() {
        return Ok(nothing_to_do(&a, &plan));
    }
    // A batch file needs no endpoint: another engine answers it.
    let provider = match (&export, endpoint) {
        (Some(_), e) => e.unwrap_or_else(|_| plan_cfg.provider.clone()),
        (None, e) => e.map_err(|e| anyhow::anyhow!(e))?,
    };
    let cfg = EngineConfig {
        db_path: s.db_path.clone(),
        provider,
        prompts,
    };
    let batch = match export {
        Some(out) => Some(crate::engine::BatchMode::Export { out }),
        None if a.batch => Some(crate::engine::BatchMode::Api {
            poll: std::time::Duration::from_secs(a.batch_poll.max(1)),
        }),
        None => None,
    };
    if let Some(mode) = batch {
        return rt.block_on(super::cmd_batch::send(cfg, req, plan, mode, &a));
    }
    // The plan made above is the one run: planning again would read every
    // item a second time before the first request.
    rt.block_on(drive::drive(cfg, req, plan, a.json))
}

/// Each id list as a plan reads it: an id named twice is one combination
/// (sent twice it was judged twice and then counted as missing). What was
/// dropped is said on stderr, so `--json` stays one document.
fn drop_repeats(a: &mut RunArgs) {
    use crate::engine::item_selection::first_of_each;
    let mut notes = Vec::new();
    if let Some(items) = a.items.take() {
        let (kept, repeated) = first_of_each(items);
        if !repeated.is_empty() {
            notes.push(say::named_twice("--items", &repeated));
        }
        a.items = Some(kept);
    }
    for (flag, list) in [
        ("--perspective", &mut a.perspective),
        ("--dimension", &mut a.dimension),
    ] {
        let trimmed: Vec<String> = list.iter().map(|p| p.trim().to_string()).collect();
        let (kept, repeated) = first_of_each(trimmed);
        if !repeated.is_empty() {
            notes.push(say::named_twice(flag, &repeated));
        }
        *list = kept;
    }
    for n in notes {
        eprintln!("{n}");
    }
}

/// The run's settings from the flags and the configuration.
fn request(s: &Settings, a: &RunArgs, spec: JudgeSpec) -> anyhow::Result<RunRequest> {
    if a.concurrency == 0 {
        anyhow::bail!(say::ZERO_CONCURRENCY);
    }
    let mut req = RunRequest::for_spec(spec);
    req.concurrency = a.concurrency;
    if let Some(k) = a.batch_size {
        if k == 0 {
            anyhow::bail!(say::ZERO_BATCH);
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
    super::cmd_batch::batch_settings(&mut req, a);
    if let Some(t) = a.server_time_out {
        req.server_time_out = crate::config::seconds(t)
            .ok_or_else(|| anyhow::anyhow!(say::bad_seconds("--server-time-out", t)))?;
    }
    req.budget_usd = a.budget;
    req.max_tokens = a.max_tokens;
    if let Some(n) = s.max_tokens_per_entry {
        req.tokens_per_entry = n;
    }
    use crate::config::StructuredChoice;
    let chosen = match a.structured.as_deref() {
        Some(flag) => Some(StructuredChoice::parse(flag)),
        None => s.structured.clone(),
    };
    req.structured = match chosen {
        None | Some(StructuredChoice::Auto) => None,
        Some(StructuredChoice::Path(m)) => Some(m),
        Some(StructuredChoice::Unknown(other)) => anyhow::bail!(say::bad_structured(&other)),
    };
    Ok(req)
}

/// This command's changes to the endpoint's settings.
struct EndpointFlags {
    temperature: Option<f64>,
    idle: Option<std::time::Duration>,
    whole: Option<std::time::Duration>,
    answer_cap: Option<usize>,
    stream: bool,
    /// `--confidence logprobs` (Some(true)) or another choice (Some(false)).
    logprobs: Option<bool>,
}

impl EndpointFlags {
    fn from_args(a: &RunArgs) -> anyhow::Result<EndpointFlags> {
        let secs = |flag: &str, v: Option<f64>| -> anyhow::Result<Option<std::time::Duration>> {
            v.map(|x| {
                crate::config::seconds(x).ok_or_else(|| anyhow::anyhow!(say::bad_seconds(flag, x)))
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
                    .ok_or_else(|| anyhow::anyhow!(say::bad_answer_mb(mb)))
            })
            .transpose()?;
        Ok(EndpointFlags {
            temperature: a.temperature,
            idle,
            whole,
            answer_cap,
            stream: !a.no_stream,
            logprobs: a.confidence.as_deref().map(|c| c == "logprobs"),
        })
    }

    fn apply(&self, mut p: crate::provider::ProviderConfig) -> crate::provider::ProviderConfig {
        if let Some(t) = self.temperature {
            p.temperature = Some(t);
        }
        if let Some(t) = self.idle {
            p.idle_timeout = t;
        }
        if let Some(t) = self.whole {
            p.request_timeout = t;
        }
        if let Some(b) = self.answer_cap {
            p.max_answer_bytes = b;
        }
        p.stream = self.stream;
        if let Some(l) = self.logprobs {
            p.logprobs = l;
        }
        p
    }
}

/// `--dry-run --show-request`: the first request exactly as it would be sent.
fn show_request(
    s: &Settings,
    a: &RunArgs,
    plan: &crate::engine::Plan,
    provider: &crate::provider::ProviderConfig,
    protocol: crate::domain::Protocol,
) -> anyhow::Result<ExitCode> {
    let Some(batch) = plan.batches.first() else {
        println!("{}", say::nothing_sent(plan.settled.len(), plan.skipped));
        return Ok(ExitCode::SUCCESS);
    };
    let boundary = crate::protocol::new_boundary();
    let call = plan
        .protocol
        .build_call(batch, &boundary)
        .map_err(|e| anyhow::anyhow!(e))?;
    if !a.json {
        println!("{}", say::request_heading(plan.batches.len(), batch.len()));
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
    super::cmd_prompt::print_call(s, provider, &set, &call, &boundary, a.json)?;
    Ok(ExitCode::SUCCESS)
}

/// `--dry-run`: what would be sent, and nothing sent.
fn dry_run(
    s: &Settings,
    a: &RunArgs,
    plan: &crate::engine::Plan,
    protocol: crate::domain::Protocol,
) -> ExitCode {
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
            "{}",
            say::dry_run(
                plan.batches.len(),
                plan.units(),
                plan.settled.len(),
                plan.skipped,
                &s.model,
                &plan.spec.prompt_hash
            )
        );
    }
    ExitCode::SUCCESS
}

/// Nothing left to judge: said, and the run is not started.
fn nothing_to_do(a: &RunArgs, plan: &crate::engine::Plan) -> ExitCode {
    let msg = if plan.skipped > 0 {
        say::all_judged(plan.skipped)
    } else {
        say::NO_ITEMS.to_string()
    };
    if a.json {
        println!(
            "{}",
            serde_json::json!({"status": "nothing_to_do", "total": 0, "completed": 0, "failed": 0, "skipped_already_judged": plan.skipped, "note": msg})
        );
    } else {
        println!("{msg}");
    }
    ExitCode::SUCCESS
}

/// The judge spec's part of `jury run`'s flags, as the one constructor takes them.
fn spec_flags(a: &RunArgs) -> SpecFlags {
    SpecFlags {
        protocol: a.protocol.clone(),
        mode: a.mode,
        persona: Some(a.persona.clone()),
        perspectives: a.perspective.clone(),
        dimensions: a.dimension.clone(),
        no_default_dimensions: a.no_default_dimensions,
        claim: a.claim.clone(),
        claim_id: a.claim_id.clone(),
        scoring: Some(a.scoring.clone()),
        double_check: a.double_check,
        precondition: a.precondition.clone(),
        first_n: a.first_n,
        last_n: a.last_n,
    }
}

pub fn demo_judge(a: DemoJudgeArgs) -> anyhow::Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let latency = std::time::Duration::from_millis(a.latency_ms);
        let server = crate::demo_judge::DemoJudge::start(a.port, latency).await?;
        // The model too: jury's default (a hosted model's name) is not the
        // demo judge's, and doctor and the cost estimate would say so.
        println!(
            "{}",
            say::demo_judge_listening(&server.base_url(), crate::demo_judge::MODEL)
        );
        println!("{}", say::DEMO_JUDGE_NOTE);
        tokio::signal::ctrl_c().await?;
        Ok::<_, anyhow::Error>(ExitCode::SUCCESS)
    })
}
