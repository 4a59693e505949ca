//! The run's single writer: commits verdicts, failures and usage in arrival
//! order on its own thread and its own connection, then tells consumers. An
//! event is only sent after its row is committed, so what a consumer shows as
//! saved is saved.

use super::{EngineEvent, Progress};
use crate::domain::{Failure, RunStatus, Usage, Verdict};
use crate::store::Store;
use std::sync::mpsc;
use std::time::Instant;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

pub enum WriteCmd {
    Verdicts(Vec<Verdict>),
    Failure(Failure),
    /// One request finished: its usage (None = unknown) and cost.
    Request {
        usage: Option<Usage>,
        cost_usd: Option<f64>,
    },
    /// Units that ended without a verdict after every attempt.
    Failed(u64),
    /// The run is over.
    Finish {
        status: RunStatus,
        note: Option<String>,
    },
}

pub struct Writer {
    pub tx: mpsc::Sender<WriteCmd>,
    pub join: std::thread::JoinHandle<Result<Progress, String>>,
}

/// Starts the writer thread. A store error stops the run (via `cancel`): we
/// never keep asking the judge for verdicts we cannot keep.
pub fn start(
    mut store: Store,
    mut progress: Progress,
    events: UnboundedSender<EngineEvent>,
    cancel: CancellationToken,
) -> std::io::Result<Writer> {
    let (tx, rx) = mpsc::channel::<WriteCmd>();
    let started = Instant::now();
    // Named so profilers and `top -H` tell it from the async workers.
    let spawned = std::thread::Builder::new()
        .name("jury-store-writer".into())
        .spawn(move || {
            let run_id = progress.run_id;
            let mut store_error: Option<String> = None;
            let fail = |e: String, store_error: &mut Option<String>| {
                if store_error.is_none() {
                    *store_error = Some(format!("the store refused a write: {e}"));
                }
                cancel.cancel();
            };
            for cmd in rx {
                progress.elapsed = started.elapsed();
                match cmd {
                    // The verdicts of one answer are committed together, then announced.
                    WriteCmd::Verdicts(vs) => match store.insert_verdicts(&vs) {
                        Ok(fresh) => {
                            for (v, new) in vs.into_iter().zip(fresh) {
                                if new {
                                    progress.verdicts += 1;
                                    let _ = events.send(EngineEvent::Verdict {
                                        run_id,
                                        verdict: Box::new(v),
                                    });
                                }
                            }
                        }
                        Err(e) => fail(e.to_string(), &mut store_error),
                    },
                    WriteCmd::Failure(f) => match store.insert_failure(&f) {
                        Ok(()) => {
                            let _ = events.send(EngineEvent::Failure {
                                run_id,
                                failure: Box::new(f),
                            });
                        }
                        Err(e) => fail(e.to_string(), &mut store_error),
                    },
                    WriteCmd::Request { usage, cost_usd } => {
                        progress.requests += 1;
                        match usage {
                            Some(u) => {
                                progress.usage.prompt_tokens += u.prompt_tokens;
                                progress.usage.completion_tokens += u.completion_tokens;
                                if let Some(c) = cost_usd {
                                    *progress.cost_usd.get_or_insert(0.0) += c;
                                }
                                if let Err(e) = store.add_run_usage(run_id, u, cost_usd) {
                                    fail(e.to_string(), &mut store_error);
                                }
                            }
                            None => progress.usage_unknown += 1,
                        }
                        let _ = events.send(EngineEvent::Progress(progress));
                    }
                    WriteCmd::Failed(n) => {
                        progress.failed += n;
                        let _ = events.send(EngineEvent::Progress(progress));
                    }
                    WriteCmd::Finish { status, note } => {
                        let (status, note) = match &store_error {
                            Some(e) => (RunStatus::Failed, Some(e.clone())),
                            None => (status, note),
                        };
                        // Best effort: if even this fails the run stays "running" and is
                        // marked interrupted on the next start.
                        let _ = store.finish_run(run_id, status, note.as_deref());
                        let _ = events.send(EngineEvent::RunFinished {
                            run_id,
                            status,
                            progress,
                            note,
                        });
                        break;
                    }
                }
            }
            match store_error {
                Some(e) => Err(e),
                None => Ok(progress),
            }
        })?;
    Ok(Writer { tx, join: spawned })
}
