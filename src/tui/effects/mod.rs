//! Executes [`Effect`]s: label writes on a dedicated thread with its own store
//! connection, judge runs on the engine, store reads on blocking tasks. Results
//! come back to the loop as [`Msg`]s; nothing here touches the state.

use super::app::RunPlan;
use super::msg::{AgreementPart, Effect, Escalations, Msg};
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
mod store_watch;

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
    /// The store watcher's inbox (see [`store_watch`]).
    watch: Option<std::sync::mpsc::Sender<crate::store::ChangeMarker>>,
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
        let watch = store_watch::start(db_path.clone(), tx.clone());
        Executor {
            watch,
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
                how,
            } => self.hand_to_writer(LabelJob::Sampled {
                key,
                persona,
                who,
                how,
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
            Effect::SaveAdjudication(a) => self.hand_to_writer(LabelJob::Adjudicate(a)),
            Effect::UndoAdjudication {
                undoes,
                restore,
                at,
            } => self.hand_to_writer(LabelJob::UndoAdjudication {
                undoes,
                restore,
                at,
            }),
            Effect::SaveNote { req, label } => self.hand_to_writer(LabelJob::Note { req, label }),
            Effect::SaveSession { who, state } => {
                self.hand_to_writer(LabelJob::Session { who, state })
            }
            Effect::LoadLabelHistory(key) => {
                let asked = key.clone();
                self.on_store(
                    move |s| -> crate::store::Result<_> {
                        // The marks only add to the labels' history: none
                        // when they cannot be read.
                        let marks = s.mark_history(&asked).unwrap_or_default();
                        Ok((s.label_history(&asked)?, marks))
                    },
                    |r| {
                        let (result, marks) = match r {
                            Ok((events, marks)) => (Ok(events), marks),
                            Err(e) => (Err(e), Vec::new()),
                        };
                        [Msg::LabelHistory { key, result, marks }]
                    },
                );
            }
            Effect::WatchStore { since } => {
                let handed = self.watch.as_ref().is_some_and(|w| w.send(since).is_ok());
                if !handed {
                    let _ = self.tx.send(Msg::StoreWatched {
                        since,
                        result: Err("the store watcher is not running".into()),
                    });
                }
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
                self.on_store(|s| s.split(), |r| [Msg::SplitForLoop(r)]);
            }
            Effect::LoadRuns => self.on_store(
                |s| -> crate::store::Result<_> { Ok((s.runs()?, s.failures(None)?)) },
                |r| [Msg::RunsLoaded(r)],
            ),
            Effect::LoadAgreement { req, scope } => self.on_store(
                move |s| {
                    crate::report::Report::build_in(
                        s,
                        None,
                        None,
                        crate::report::DEFAULT_SEED,
                        &scope,
                        &mut (),
                    )
                },
                move |r| agreement_parts(r).map(move |part| Msg::Agreement { req, part }),
            ),
            Effect::LoadActiveOrder { who } => self.on_store(
                move |s| {
                    let readings =
                        crate::report::pairs::Builder::read(s)?.readings_with_confidence();
                    let walk = crate::report::active_walk::ActiveWalk::new(
                        &readings,
                        &s.active_labels()?,
                        &who,
                        crate::report::active_walk::WORKBENCH_SEED,
                    );
                    Ok::<_, crate::store::StoreError>(Box::new(walk))
                },
                |r| [Msg::ActiveOrderLoaded(r)],
            ),
            Effect::LoadLabelWorth => self.on_store(
                |s| crate::report::label_worth::label_worth(s),
                |r| [Msg::LabelWorth(r)],
            ),
            Effect::LoadEscalations => self.on_store(
                |s| crate::report::trust::escalation_queue(s).map(escalations),
                |r| [Msg::EscalationsLoaded(r)],
            ),
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
            Effect::ForgetUnsaved(labels) => {
                if let Err(e) = recovery::forget(&self.recovery, &labels) {
                    let _ = self.tx.send(Msg::UnsavedKept(Err(format!(
                        "{}: {e}",
                        self.recovery.display()
                    ))));
                }
            }
            Effect::MoveLease {
                who,
                release,
                take,
                now,
                until,
            } => {
                let item = take.clone();
                self.on_store(
                    move |s| -> crate::store::Result<_> {
                        if let Some(r) = &release {
                            s.release_lease(r, &who)?;
                        }
                        let held = match &take {
                            Some(t) => s.take_lease(t, &who, &now, &until)?,
                            None => None,
                        };
                        Ok((held, s.leases_of_others(&who, &now)?))
                    },
                    |result| [Msg::LeaseMoved { item, result }],
                )
            }
            Effect::SavePersona(p) => self.on_store(
                move |s| s.upsert_persona(&p).map(|_| p),
                |r| [Msg::PersonaSaved(r)],
            ),
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

    /// Store work on a blocking task, with a store connection of its own
    /// (one that cannot be opened answers as the work failing): `work`'s
    /// result, the error as text, becomes the messages `answer` makes, sent
    /// in order while the loop takes them.
    fn on_store<T, E, M>(
        &self,
        work: impl FnOnce(&mut Store) -> Result<T, E> + Send + 'static,
        answer: impl FnOnce(Result<T, String>) -> M + Send + 'static,
    ) where
        E: std::fmt::Display,
        M: IntoIterator<Item = Msg>,
    {
        let (path, tx) = (self.db_path.clone(), self.tx.clone());
        tokio::task::spawn_blocking(move || {
            let r = Store::open(&path)
                .map_err(|e| e.to_string())
                .and_then(|mut s| work(&mut s).map_err(|e| e.to_string()));
            for msg in answer(r) {
                if tx.send(msg).is_err() {
                    break;
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
        self.watch = None;
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
    }
}

/// The escalation queue as the workbench keeps it.
fn escalations((queue, trusted): (Vec<crate::report::trust::Escalation>, bool)) -> Escalations {
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
}

/// The agreement report on a scope, part by part in [`AgreementPart`]'s
/// order, computed exactly as `jury report` computes it (the same seed and
/// resamples: the same numbers). An error is the only part.
fn agreement_parts(
    r: Result<crate::report::Report, String>,
) -> impl Iterator<Item = AgreementPart> {
    let parts = match r {
        Ok(report) => {
            let (notes, cells) = (report.notes(), report.cells());
            vec![
                AgreementPart::Figures(Ok(report.groups)),
                AgreementPart::Notes(notes),
                AgreementPart::Ranking(report.rankings),
                AgreementPart::Estimates(
                    report
                        .estimates
                        .into_iter()
                        .chain(report.trust)
                        .chain(report.unranked)
                        .collect(),
                ),
                AgreementPart::Cells(cells),
                AgreementPart::Changes(report.changes),
            ]
        }
        Err(e) => vec![AgreementPart::Figures(Err(e))],
    };
    parts.into_iter()
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
