//! Executes [`Effect`]s: label writes on a dedicated thread with its own store
//! connection, judge runs on the engine, store reads on blocking tasks. Results
//! come back to the loop as [`Msg`]s; nothing here touches the state.

use super::app::RunPlan;
use super::msg::{Effect, Escalations, Msg};
use crate::engine::{EngineConfig, RunRequest};
use crate::store::Store;
use label_writer::LabelJob;
use std::collections::HashMap;
use std::path::PathBuf;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

mod batch_start;
pub mod fewshot;
mod label_writer;
pub mod recovery;
pub mod run_task;

/// What runs need besides the plan; `None` provider when no endpoint is
/// configured. Its prompts are the workbench's prompt folder (`--prompts` or
/// config), as `jury run --prompts` reads it.
#[derive(Clone)]
pub struct EngineLink {
    pub config: Option<EngineConfig>,
}

pub struct Executor {
    tx: UnboundedSender<Msg>,
    db_path: PathBuf,
    /// Where labels the store refused are kept for the next start.
    recovery: PathBuf,
    engine: EngineLink,
    labels: Option<std::sync::mpsc::Sender<LabelJob>>,
    writer: Option<std::thread::JoinHandle<()>>,
    cancels: HashMap<u64, CancellationToken>,
}

/// The request a workbench run sends: its spec as the plan built it (the
/// prompts, the workbench's folder, come with the engine's configuration).
pub fn run_request(plan: RunPlan) -> RunRequest {
    let mut req = RunRequest::for_spec(plan.spec);
    req.item_ids = Some(plan.item_ids);
    req.structured = plan.structured;
    req.resume = plan.resume;
    req
}

impl Executor {
    /// Starts the label writer thread. Call inside a tokio runtime.
    pub fn new(db_path: PathBuf, engine: EngineLink, tx: UnboundedSender<Msg>) -> Executor {
        let (ltx, writer) = label_writer::start(db_path.clone(), tx.clone());
        Executor {
            tx,
            recovery: recovery::path_for(&db_path),
            db_path,
            engine,
            labels: Some(ltx),
            writer,
            cancels: HashMap::new(),
        }
    }

    pub fn run(&mut self, fx: Effect) {
        match fx {
            Effect::SaveLabel { req, label } => self.hand_to_writer(LabelJob::Save { req, label }),
            Effect::MarkSampled {
                key,
                persona,
                who,
                seed,
            } => self.hand_to_writer(LabelJob::Sampled {
                key,
                persona,
                who,
                seed,
            }),
            Effect::SaveMark {
                slot,
                mark,
                at,
                kind,
            } => self.hand_to_writer(LabelJob::Mark {
                slot,
                mark,
                at,
                kind,
            }),
            Effect::UndoLabel { req, undo } => self.hand_to_writer(LabelJob::Undo { req, undo }),
            Effect::SaveNote { req, label } => self.hand_to_writer(LabelJob::Note { req, label }),
            Effect::SaveSession { who, state } => {
                self.hand_to_writer(LabelJob::Session { who, state })
            }
            Effect::LoadLabelHistory(key) => {
                let (path, tx) = (self.db_path.clone(), self.tx.clone());
                tokio::task::spawn_blocking(move || {
                    let store = Store::open(&path);
                    let marks = store
                        .as_ref()
                        .ok()
                        .and_then(|s| s.mark_history(&key).ok())
                        .unwrap_or_default();
                    let result = store
                        .and_then(|s| s.label_history(&key))
                        .map_err(|e| e.to_string());
                    let _ = tx.send(Msg::LabelHistory { key, result, marks });
                });
            }
            Effect::StartRun { tag, plan } => self.start_run(tag, plan),
            Effect::PlanRuns(plans) => self.plan_runs(plans),
            Effect::StartLoopRun { tag, plan, prompts } => {
                match fewshot::loop_request(&self.engine, plan, prompts) {
                    Ok((cfg, req)) => {
                        let cancel = CancellationToken::new();
                        self.cancels.insert(tag, cancel.clone());
                        run_task::start_request(cfg, tag, req, cancel, self.tx.clone());
                    }
                    Err(e) => {
                        let _ = self.tx.send(Msg::RunEnded {
                            tag,
                            error: Some(e),
                        });
                    }
                }
            }
            Effect::PrepareLoop {
                plan,
                baseline_for,
                by_owner,
            } => fewshot::prepare(
                self.db_path.clone(),
                self.engine.clone(),
                plan,
                baseline_for,
                by_owner,
                self.tx.clone(),
            ),
            Effect::CancelRun { tag } => {
                if let Some(c) = self.cancels.get(&tag) {
                    c.cancel();
                }
            }
            Effect::LoadSplitForLoop => {
                let (path, tx) = (self.db_path.clone(), self.tx.clone());
                tokio::task::spawn_blocking(move || {
                    let r = Store::open(&path).and_then(|s| s.split());
                    let _ = tx.send(Msg::SplitForLoop(r.map_err(|e| e.to_string())));
                });
            }
            Effect::LoadRuns => {
                let (path, tx) = (self.db_path.clone(), self.tx.clone());
                tokio::task::spawn_blocking(move || {
                    let r = Store::open(&path).and_then(|s| Ok((s.runs()?, s.failures(None)?)));
                    let _ = tx.send(Msg::RunsLoaded(r.map_err(|e| e.to_string())));
                });
            }
            Effect::LoadAgreement(scope) => self.load_agreement(scope),
            Effect::LoadEscalations => {
                let (path, tx) = (self.db_path.clone(), self.tx.clone());
                tokio::task::spawn_blocking(move || {
                    let r = Store::open(&path)
                        .and_then(|s| crate::report::trust::escalation_queue(&s))
                        .map(|(queue, trusted)| {
                            let mut judges: Vec<String> = queue
                                .iter()
                                .filter_map(|e| e.judge.as_deref().map(str::to_string))
                                .collect();
                            judges.sort();
                            judges.dedup();
                            Escalations {
                                queue: queue
                                    .into_iter()
                                    .map(|e| (e.persona.to_string(), (*e.key).clone()))
                                    .collect(),
                                judges,
                                trusted,
                            }
                        });
                    let _ = tx.send(Msg::EscalationsLoaded(r.map_err(|e| e.to_string())));
                });
            }
            // Small and synchronous: the quit prompt waits on it, and the
            // process may end right after.
            Effect::KeepUnsaved(labels) => {
                let r = recovery::keep(&self.recovery, &labels)
                    .map(|_| self.recovery.display().to_string())
                    .map_err(|e| format!("{}: {e}", self.recovery.display()));
                let _ = self.tx.send(Msg::UnsavedKept(r));
            }
            Effect::ClearUnsaved => {
                if let Err(e) = recovery::clear(&self.recovery) {
                    let _ = self.tx.send(Msg::UnsavedKept(Err(format!(
                        "{}: {e}",
                        self.recovery.display()
                    ))));
                }
            }
            Effect::SavePersona(p) => {
                let (path, tx) = (self.db_path.clone(), self.tx.clone());
                tokio::task::spawn_blocking(move || {
                    let r = Store::open(&path)
                        .and_then(|mut s| s.upsert_persona(&p))
                        .map(|_| p);
                    let _ = tx.send(Msg::PersonaSaved(r.map_err(|e| e.to_string())));
                });
            }
        }
    }

    /// Hands a job to the label writer; when it is gone, answers as it would
    /// with the refusal.
    fn hand_to_writer(&mut self, job: LabelJob) {
        let Some(writer) = self.labels.as_ref() else {
            let _ = self.tx.send(label_writer::gone(job));
            return;
        };
        if let Err(std::sync::mpsc::SendError(job)) = writer.send(job) {
            let _ = self.tx.send(label_writer::gone(job));
        }
    }

    /// The agreement figures, notes, ranking and prompt-version changes on
    /// `scope`, computed on a blocking task exactly as `jury report` computes
    /// them (the same seed and resamples: the same numbers).
    fn load_agreement(&self, scope: crate::report::Scope) {
        let (path, tx) = (self.db_path.clone(), self.tx.clone());
        tokio::task::spawn_blocking(move || {
            let r = Store::open(&path).map_err(|e| e.to_string()).and_then(|s| {
                let report = crate::report::Report::build_in(
                    &s,
                    None,
                    None,
                    crate::report::DEFAULT_SEED,
                    &scope,
                    &mut (),
                )
                .map_err(|e| e.to_string())?;
                let notes = report.notes();
                let cells = report.cells();
                Ok((
                    report.groups,
                    notes,
                    report.rankings,
                    report
                        .estimates
                        .into_iter()
                        .chain(report.trust)
                        .collect::<Vec<_>>(),
                    cells,
                    report.changes,
                ))
            });
            match r {
                Ok((groups, notes, ranking, estimates, cells, changes)) => {
                    let _ = tx.send(Msg::AgreementLoaded(Ok(groups)));
                    let _ = tx.send(Msg::AgreementNotes(notes));
                    let _ = tx.send(Msg::AgreementRanking(ranking));
                    let _ = tx.send(Msg::AgreementEstimates(estimates));
                    let _ = tx.send(Msg::AgreementCells(cells));
                    let _ = tx.send(Msg::AgreementChanges(changes));
                }
                Err(e) => {
                    let _ = tx.send(Msg::AgreementLoaded(Err(e)));
                }
            }
        });
    }

    fn start_run(&mut self, tag: u64, plan: RunPlan) {
        let Some(cfg) = self.engine.config.clone() else {
            let _ = self.tx.send(Msg::RunEnded {
                tag,
                error: Some(crate::config::NO_ENDPOINT.into()),
            });
            return;
        };
        let cancel = CancellationToken::new();
        self.cancels.insert(tag, cancel.clone());
        run_task::start(cfg, tag, plan, cancel, self.tx.clone());
    }

    fn plan_runs(&mut self, plans: Vec<RunPlan>) {
        let result = |r| Msg::RunsPlanned {
            started: None,
            result: r,
        };
        let Some(cfg) = self.engine.config.clone() else {
            let _ = self.tx.send(result(Err(crate::config::NO_ENDPOINT.into())));
            return;
        };
        let tx = self.tx.clone();
        tokio::task::spawn_blocking(move || {
            let _ = tx.send(result(run_task::summarize(&cfg, plans)));
        });
    }

    /// Cancels runs and waits for the label writer to finish what it was given.
    pub fn shutdown(&mut self) {
        for c in self.cancels.values() {
            c.cancel();
        }
        self.labels = None;
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Mode, Protocol};
    use crate::protocol::{JudgeSpec, SpecFlags};

    /// The spec the workbench's choices make: AwAg mode 1 as kenton.
    fn spec(protocol: Protocol) -> Result<JudgeSpec, crate::protocol::SpecRefusal> {
        RunPlan::spec_for(protocol, Mode::One, "kenton", vec!["classification".into()])
    }

    fn plan(protocol: Protocol) -> RunPlan {
        RunPlan {
            spec: spec(protocol).unwrap(),
            structured: None,
            item_ids: vec!["i1".into()],
            resume: true,
            batch: None,
        }
    }

    /// The prompt folder comes with the engine's configuration, the same
    /// for every protocol (`prompt::tests` checks each reads its own folder).
    #[test]
    fn the_workbench_runs_every_protocol() {
        for p in [Protocol::Awag, Protocol::Rubric, Protocol::Guideline] {
            let req = run_request(plan(p));
            assert_eq!(req.spec.protocol(), p);
            assert_eq!(req.item_ids, Some(vec!["i1".to_string()]));
        }
    }

    #[test]
    fn the_workbench_builds_the_spec_jury_run_builds() {
        let cli = |flags: SpecFlags| JudgeSpec::from_flags(&flags).unwrap();
        assert_eq!(
            spec(Protocol::Awag).unwrap(),
            cli(SpecFlags {
                protocol: "awag".into(),
                mode: Some(1),
                persona: Some("kenton".into()),
                perspectives: vec!["classification".into()],
                ..SpecFlags::default()
            })
        );
        for (p, name) in [
            (Protocol::Rubric, "rubric"),
            (Protocol::Guideline, "guideline"),
        ] {
            // The workbench's AwAg choices do not leak into another protocol's spec.
            let spec = spec(p).unwrap();
            assert_eq!(
                spec,
                cli(SpecFlags {
                    protocol: name.into(),
                    ..SpecFlags::default()
                })
            );
            assert_eq!(spec.persona(), None);
        }
        // What the constructor refuses, the workbench is refused too, in
        // words that name no flag (the workbench has none).
        let e = spec(Protocol::Proposition).unwrap_err();
        assert!(e.to_string().contains("needs a claim"), "{e}");
        assert!(!e.to_string().contains("--"), "{e}");
    }
}
