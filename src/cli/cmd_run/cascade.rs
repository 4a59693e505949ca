//! `jury run --cascade A,B[,C]`: the first judge judges every combination
//! of the run (reusing the verdicts it has), each next judge only what the
//! judges before it do not keep, by `jury trust --cascade`'s calibration
//! on the store's labels (`report::cascade_run`). The cascade is recorded
//! as a run of its own (`store::cascade_runs`): per stage what it was
//! asked, what its runs cost and what it kept, rewritten after each stage.
//!
//! Taken up again (`--resume`, or after a kill between stages) nothing is
//! paid twice: a stage's verdicts are reused (every stage plans as
//! `--resume` does), and the same store gives the same thresholds, so a
//! later judge is asked only about what the earlier ones do not keep.

use super::cascade_record::{adopt_killed_runs, book_costs, new_stage, print_record, unfinished};
use super::drive;
use super::{EndpointFlags, request, spec_flags};
use crate::cli::strings::cascade as say;
use crate::cli::{RunArgs, open_store};
use crate::config::Settings;
use crate::domain::{
    CASCADE_MODEL_PREFIX, CASCADE_RECORD_VERSION, CascadeRecord, ComboKey, RunSpec, RunStatus,
    StageSource,
};
use crate::engine::{EngineConfig, Plan};
use crate::prompt::PromptSet;
use crate::protocol::JudgeSpec;
use crate::report::cascade_run::{Levels, judge_in, kept_through, labelled_in_scope};
use std::collections::HashSet;
use std::process::ExitCode;
use std::sync::Arc;

pub(super) fn run_cascade(s: &Settings, a: RunArgs) -> anyhow::Result<ExitCode> {
    if a.cascade.len() < 2 {
        anyhow::bail!(say::TWO_OR_MORE);
    }
    if a.dry_run {
        anyhow::bail!(say::NO_DRY_RUN);
    }
    let mut seen = HashSet::new();
    if let Some(twice) = a.cascade.iter().find(|g| !seen.insert(g.trim())) {
        anyhow::bail!(say::named_twice(twice));
    }
    if super::owner::means_owner(s, &a)? {
        anyhow::bail!(say::NO_OWNER);
    }
    let levels = Levels {
        alpha: a.alpha,
        delta: a.delta,
        min_calibration: a.min_calibration,
    };
    let spec = JudgeSpec::from_flags(&spec_flags(&a))?;
    let mut req = request(s, &a, spec)?;
    let flags = EndpointFlags::from_args(&a)?;
    let prompts = Arc::new(PromptSet::load(s.prompts_dir.as_deref())?);
    let mut store = open_store(s)?;
    let imported: Vec<String> = store
        .imported_runs()?
        .into_iter()
        .map(|(_, o)| o.judge)
        .collect();
    let sources = a
        .cascade
        .iter()
        .map(|g| stage_source(g, &imported))
        .collect::<anyhow::Result<Vec<_>>>()?;

    // The scope: every combination the run covers, judged or not.
    req.resume = false;
    let scope_plan = crate::engine::make_plan(&engine_config(s, &flags, &prompts), &req, &store)?;
    let scope: HashSet<ComboKey> = scope_plan
        .batches
        .iter()
        .flatten()
        .map(|u| u.key.clone())
        .chain(scope_plan.settled.iter().map(|v| v.key.clone()))
        .collect();
    let persona = scope_plan.spec.persona_id.clone();
    let sampling = crate::report::estimate::Sampling::read(&store, false, false)?;
    let readings = crate::report::pairs::Builder::read(&store)?.finish_readings_with_confidence();
    // Before anything is spent: can the first judge be calibrated at all?
    // (Each classification and perspective is calibrated on its own.)
    let labelled = labelled_in_scope(&readings, &sampling, &persona, &scope);
    let needed = levels.labels_needed(sources.len());
    let short: Vec<String> = labelled
        .iter()
        .filter(|(_, n)| **n < needed)
        .map(|((c, p), n)| say::group_short(c, p, *n))
        .collect();
    if short.len() == labelled.len() {
        anyhow::bail!(say::too_few_labels(
            &short,
            needed,
            sources.len(),
            levels.alpha,
            levels.delta
        ));
    }
    if !short.is_empty() && !a.json {
        eprintln!("{}", say::some_too_few(&short, needed));
    }

    let cascade_spec = RunSpec {
        model: format!("{CASCADE_MODEL_PREFIX}{}", a.cascade.join(" → ")),
        record: None,
        ..scope_plan.spec.clone()
    };
    let taken_up = match a.resume {
        true => unfinished(&store, &cascade_spec),
        false => None,
    };
    let (cascade_id, mut record) = match taken_up {
        Some((run, mut record)) => {
            store.take_up_cascade_run(run.id)?;
            adopt_killed_runs(&store, run.id, &cascade_spec, &mut record)?;
            if !a.json {
                eprintln!("{}", say::taken_up(run.id));
            }
            (run.id, record)
        }
        None => {
            let record = CascadeRecord {
                version: CASCADE_RECORD_VERSION,
                alpha: levels.alpha,
                delta: levels.delta,
                min_calibration: levels.min_calibration,
                combinations: scope.len() as u64,
                stages: a
                    .cascade
                    .iter()
                    .zip(&sources)
                    .map(|(g, src)| new_stage(g, src))
                    .collect(),
                people: None,
            };
            (store.create_cascade_run(&cascade_spec, &record)?, record)
        }
    };
    record.combinations = scope.len() as u64;
    (record.alpha, record.delta, record.min_calibration) =
        (levels.alpha, levels.delta, levels.min_calibration);

    // Whatever stops the stages, the cascade's run ends with what they did.
    let outcome = (|| -> anyhow::Result<ExitCode> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .thread_name("jury-run")
            .enable_all()
            .build()?;
        let n = sources.len();
        let mut names: Vec<Option<String>> = vec![None; n];
        let mut kept: HashSet<ComboKey> = HashSet::new();
        let mut worst = ExitCode::SUCCESS;
        for (j, src) in sources.iter().enumerate() {
            let given = &a.cascade[j];
            let stage_ended = match src {
                StageSource::Imported { .. } => {
                    if !a.json {
                        eprintln!("{}", say::imported_stage(j + 1, n, given));
                    }
                    record.stages[j].kept_before = kept.len() as u64;
                    Ok(())
                }
                StageSource::Model { model, server } => {
                    let stage_settings = settings_for(s, model, server.as_deref());
                    let cfg = engine_config(&stage_settings, &flags, &prompts);
                    let mut stage_req = req.clone();
                    stage_req.resume = true;
                    let mut plan = crate::engine::make_plan(&cfg, &stage_req, &store)?;
                    leave_out(&mut plan, &kept, stage_req.batch_size);
                    let asked = plan.units();
                    let open = (scope.len() - kept.len()) as u64;
                    let stage = &mut record.stages[j];
                    stage.kept_before = kept.len() as u64;
                    stage.reused = open.saturating_sub(asked);
                    if !a.json {
                        eprintln!(
                            "{}",
                            say::stage_start(
                                j + 1,
                                n,
                                given,
                                asked,
                                stage.reused,
                                kept.len() as u64
                            )
                        );
                    }
                    if asked == 0 {
                        Ok(())
                    } else {
                        let spent: f64 = record.stages.iter().filter_map(|s| s.cost_usd).sum();
                        if let Some(b) = a.budget {
                            if spent >= b {
                                eprintln!("{}", say::budget_spent(spent, b));
                                store.end_cascade_run(cascade_id, RunStatus::Failed, &record)?;
                                return Ok(ExitCode::from(1));
                            }
                            stage_req.budget_usd = Some(b - spent);
                        }
                        let endpoint = stage_settings
                            .provider()
                            .map(|p| flags.apply(p))
                            .map_err(|e| anyhow::anyhow!(e))?;
                        let cfg = EngineConfig {
                            provider: endpoint,
                            ..cfg
                        };
                        let (code, run_id) =
                            rt.block_on(drive::drive_run(cfg, stage_req, plan, a.json))?;
                        record.stages[j].runs.push(run_id);
                        let status = store.run(run_id)?.map(|r| r.status);
                        if code == ExitCode::from(1) || status == Some(RunStatus::Cancelled) {
                            Err(code)
                        } else {
                            if code != ExitCode::SUCCESS {
                                worst = code;
                            }
                            Ok(())
                        }
                    }
                }
            };
            book_costs(&store, &mut record.stages[j])?;
            if let Err(code) = stage_ended {
                eprintln!("{}", say::stopped(j + 1, given));
                let status = if code == ExitCode::from(1) {
                    RunStatus::Failed
                } else {
                    RunStatus::Cancelled
                };
                store.end_cascade_run(cascade_id, status, &record)?;
                return Ok(code);
            }
            // Calibrate the stages so far on the store as it now is.
            let readings =
                crate::report::pairs::Builder::read(&store)?.finish_readings_with_confidence();
            names[j] = match src {
                StageSource::Model { model, .. } => judge_in(
                    &readings,
                    scope_plan.spec.protocol,
                    scope_plan.spec.mode,
                    model,
                    &scope_plan.spec.prompt_hash,
                ),
                StageSource::Imported { judge } => {
                    crate::report::cascade::resolve_judge(&readings, judge).ok()
                }
            };
            let k = kept_through(&readings, &names, j, levels, &sampling, &persona, &scope);
            for (i, (thresholds, n_kept)) in k.stages.into_iter().enumerate() {
                record.stages[i].judge = names[i].clone();
                record.stages[i].thresholds = thresholds;
                record.stages[i].kept = Some(n_kept);
            }
            kept = k.keys;
            store.write_cascade_record(cascade_id, &record)?;
        }
        record.people = Some((scope.len() - kept.len()) as u64);
        store.end_cascade_run(cascade_id, RunStatus::Done, &record)?;
        print_record(cascade_id, &record, a.json)?;
        Ok(worst)
    })();
    if outcome.is_err() {
        // The error is what the user needs; a failure to record it too is
        // not (the next command marks the run interrupted).
        let _ = store.end_cascade_run(cascade_id, RunStatus::Failed, &record);
    }
    outcome
}

/// A stage as given: an imported source's judge name, else `MODEL[@URL]`.
fn stage_source(given: &str, imported: &[String]) -> anyhow::Result<StageSource> {
    let g = given.trim();
    if g.is_empty() {
        anyhow::bail!(say::bad_stage(given));
    }
    if imported.iter().any(|j| j == g) {
        return Ok(StageSource::Imported {
            judge: g.to_string(),
        });
    }
    Ok(match g.split_once('@') {
        Some((model, url)) if !model.trim().is_empty() && url.contains("://") => {
            StageSource::Model {
                model: model.trim().to_string(),
                server: Some(url.trim().to_string()),
            }
        }
        Some(_) => anyhow::bail!(say::bad_stage(given)),
        None => StageSource::Model {
            model: g.to_string(),
            server: None,
        },
    })
}

/// The command's settings with a stage's model (and server, if it names one).
fn settings_for(s: &Settings, model: &str, server: Option<&str>) -> Settings {
    let mut out = s.clone();
    out.model = model.to_string();
    if let Some(url) = server {
        out.base_url = Some(url.split('#').next().unwrap_or(url).to_string());
        out.base_urls = vec![url.to_string()];
    }
    out
}

/// An engine configuration for planning (no endpoint needed to plan).
fn engine_config(s: &Settings, flags: &EndpointFlags, prompts: &Arc<PromptSet>) -> EngineConfig {
    let provider = s.provider().map(|p| flags.apply(p)).unwrap_or_else(|_| {
        let mut p = crate::provider::ProviderConfig::new("http://127.0.0.1/v1", s.model.clone());
        p.temperature = s.temperature;
        flags.apply(p)
    });
    EngineConfig {
        db_path: s.db_path.clone(),
        provider,
        prompts: prompts.clone(),
    }
}

/// Leaves out of `plan` the combinations earlier stages keep.
fn leave_out(plan: &mut Plan, kept: &HashSet<ComboKey>, batch_size: usize) {
    if kept.is_empty() {
        return;
    }
    let units: Vec<crate::protocol::Unit> = std::mem::take(&mut plan.batches)
        .into_iter()
        .flatten()
        .filter(|u| !kept.contains(&u.key))
        .collect();
    plan.settled.retain(|v| !kept.contains(&v.key));
    plan.batches = plan.protocol.batches(units, batch_size);
}
