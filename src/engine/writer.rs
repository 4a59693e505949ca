//! The run's single writer: commits verdicts, failures and usage in arrival
//! order on its own thread and its own connection, then tells consumers. An
//! event is only sent after its row is committed, so what a consumer shows as
//! saved is saved.

use super::{EngineEvent, Progress};
use crate::domain::{Failure, RunStatus, Usage, Verdict};
use crate::store::{Store, StoreError, heartbeat_every};
use std::sync::mpsc;
use std::time::Instant;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

pub enum WriteCmd {
    Verdicts(Vec<Verdict>),
    Failure(Failure),
    /// How the run's answers were asked for and came back (replaces the last).
    Structured(String),
    /// The structured path an `auto` run found for its endpoint and model.
    RememberPath {
        provider: Box<crate::provider::ProviderConfig>,
        mode: crate::provider::ToolMode,
        detail: String,
    },
    /// One request finished: its usage (None = unknown) and cost.
    Request {
        usage: Option<Usage>,
        cost_usd: Option<f64>,
    },
    /// Units that ended without a verdict after every attempt.
    Failed(u64),
    /// A batch part as it now stands (its answers read): written after the
    /// verdicts handed over before it, so a process killed meanwhile never
    /// leaves a batch marked read whose verdicts were not written.
    BatchJob(Box<crate::store::BatchJob>),
    /// The run is over.
    Finish {
        status: RunStatus,
        note: Option<String>,
    },
}

pub struct Writer {
    pub tx: mpsc::Sender<WriteCmd>,
    pub join: std::thread::JoinHandle<Result<Finished, String>>,
}

impl Writer {
    /// Ends the run with `status` and `note` and waits (off the async
    /// threads) for everything handed over to be committed. Every other
    /// sender of `tx` (the run's context) must be dropped first.
    pub async fn close(
        self,
        status: RunStatus,
        note: Option<String>,
    ) -> Result<Finished, super::EngineError> {
        use super::EngineError;
        let _ = self.tx.send(WriteCmd::Finish { status, note });
        drop(self.tx);
        let join = self.join;
        tokio::task::spawn_blocking(move || join.join())
            .await
            .map_err(EngineError::WriterStopped)?
            .map_err(|_| EngineError::WriterPanicked)?
            .map_err(EngineError::WriteRefused)
    }
}

/// What the writer committed, and the status and note the run ended with
/// (`None` when no `Finish` arrived).
pub struct Finished {
    pub progress: Progress,
    pub ended: Option<(RunStatus, Option<String>)>,
}

/// What a write leaves to announce once its transaction committed: for a
/// `Verdicts` command, per verdict whether it was new (not a repeat of a
/// stored combination); nothing for the others.
type Written = Vec<bool>;

/// Most commands committed in one transaction.
const GROUP: usize = 256;

/// The store side of one command (not `Finish`).
fn write(store: &mut Store, run_id: i64, cmd: &WriteCmd) -> Result<Written, StoreError> {
    Ok(match cmd {
        WriteCmd::Verdicts(vs) => store.insert_verdicts(vs)?,
        WriteCmd::Failure(f) => {
            store.insert_failure(f)?;
            Vec::new()
        }
        WriteCmd::Request { usage, cost_usd } => {
            store.add_run_usage(run_id, *usage, *cost_usd)?;
            Vec::new()
        }
        WriteCmd::Structured(s) => {
            store.set_run_structured(run_id, s)?;
            Vec::new()
        }
        WriteCmd::RememberPath {
            provider,
            mode,
            detail,
        } => {
            super::structured_path::remember(store, provider, *mode, detail);
            Vec::new()
        }
        WriteCmd::BatchJob(job) => {
            store.save_batch_job(job)?;
            Vec::new()
        }
        WriteCmd::Failed(_) | WriteCmd::Finish { .. } => Vec::new(),
    })
}

/// Writes `group` in one transaction; if that fails, each command on its
/// own, so the outcome per command is as if each had been written alone.
/// A write lock held by another process is waited out (`waiting` hears of
/// each busy timeout that passed): what arrived is never dropped for it.
fn commit_group(
    store: &mut Store,
    run_id: i64,
    group: &[WriteCmd],
    waiting: &mut dyn FnMut(),
) -> Vec<Result<Written, StoreError>> {
    if group.len() > 1 {
        let whole = until_free(waiting, || {
            store.in_one_transaction(|s| {
                group
                    .iter()
                    .map(|c| write(s, run_id, c))
                    .collect::<Result<Vec<_>, _>>()
            })
        });
        if let Ok(written) = whole {
            return written.into_iter().map(Ok).collect::<Vec<_>>();
        }
    }
    group
        .iter()
        .map(|c| until_free(waiting, || write(store, run_id, c)))
        .collect()
}

/// `attempt` again for as long as another process holds the write lock
/// (each attempt waits the store's busy timeout first).
fn until_free<T>(
    waiting: &mut dyn FnMut(),
    mut attempt: impl FnMut() -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    loop {
        match attempt() {
            Err(StoreError::Busy { .. }) => waiting(),
            other => return other,
        }
    }
}

/// The progress and events of one committed command.
fn announce(
    cmd: WriteCmd,
    fresh: Written,
    progress: &mut Progress,
    events: &UnboundedSender<EngineEvent>,
) {
    let run_id = progress.run_id;
    match cmd {
        WriteCmd::Verdicts(vs) => {
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
        WriteCmd::Failure(f) => {
            let _ = events.send(EngineEvent::Failure {
                run_id,
                failure: Box::new(f),
            });
        }
        WriteCmd::Request { usage, cost_usd } => {
            progress.requests += 1;
            match usage {
                Some(u) => {
                    progress.usage.prompt_tokens += u.prompt_tokens;
                    progress.usage.completion_tokens += u.completion_tokens;
                    progress.usage.cached_tokens += u.cached_tokens;
                }
                None => progress.usage_unknown += 1,
            }
            // With a budget, usage never reported is charged at its worst case.
            if let Some(c) = cost_usd {
                *progress.cost_usd.get_or_insert(0.0) += c;
            }
            let _ = events.send(EngineEvent::Progress(*progress));
        }
        WriteCmd::Failed(n) => {
            progress.failed += n;
            let _ = events.send(EngineEvent::Progress(*progress));
        }
        WriteCmd::Structured(_)
        | WriteCmd::RememberPath { .. }
        | WriteCmd::BatchJob(_)
        | WriteCmd::Finish { .. } => {}
    }
}

/// The note of a run that ended with failures and not one verdict.
pub const NO_VERDICT_NOTE: &str = "no verdict: every combination asked about failed";

/// The status a run ends with, now that what it wrote is known: a run that
/// was not stopped but produced only failures failed, however it ended.
fn settle_status(
    status: RunStatus,
    note: Option<String>,
    verdicts: u64,
    failures: u64,
) -> (RunStatus, Option<String>) {
    if status == RunStatus::Done && verdicts == 0 && failures > 0 {
        (RunStatus::Failed, Some(NO_VERDICT_NOTE.to_string()))
    } else {
        (status, note)
    }
}

/// Starts the writer thread. A store error stops the run (via `cancel`): we
/// never keep asking the judge for verdicts we cannot keep.
///
/// Whatever has queued up while the last commit ran (answers arrive in
/// bursts: a round of requests sent together comes back together) is written
/// in one transaction. Should that transaction fail, its commands are
/// written one at a time so one bad write does not take the others with it.
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
            let mut finish: Option<(RunStatus, Option<String>)> = None;
            let mut last_beat = Instant::now();
            let beat_every = heartbeat_every();
            // Failures committed, to tell a run that produced nothing but
            // failures from one that is done.
            let mut failures = 0u64;
            while finish.is_none() {
                // The heartbeat is written between commands and, while the
                // judge is slow to answer, on waking up without one: other
                // processes take a run with a stale heartbeat for dead.
                if last_beat.elapsed() >= beat_every {
                    // A missed beat is harmless: only many in a row matter.
                    let _ = store.heartbeat(run_id);
                    last_beat = Instant::now();
                }
                let first = match rx.recv_timeout(beat_every) {
                    Ok(cmd) => cmd,
                    Err(mpsc::RecvTimeoutError::Timeout) => continue,
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                };
                let mut group = vec![first];
                while group.len() < GROUP && !matches!(group.last(), Some(WriteCmd::Finish { .. }))
                {
                    match rx.try_recv() {
                        Ok(cmd) => group.push(cmd),
                        Err(_) => break,
                    }
                }
                if let Some(WriteCmd::Finish { status, note }) = group.last() {
                    finish = Some((*status, note.clone()));
                    group.pop();
                }
                progress.elapsed = started.elapsed();
                let mut waited = std::time::Duration::ZERO;
                let wait = store.busy_timeout();
                let mut waiting = || {
                    waited += wait;
                    let _ = events.send(EngineEvent::StoreWaiting { run_id, waited });
                };
                let results = commit_group(&mut store, run_id, &group, &mut waiting);
                for (cmd, r) in group.into_iter().zip(results) {
                    match r {
                        Ok(w) => {
                            failures += u64::from(matches!(cmd, WriteCmd::Failure(_)));
                            announce(cmd, w, &mut progress, &events)
                        }
                        Err(e) => fail(e.to_string(), &mut store_error),
                    }
                }
            }
            let mut ended = None;
            if let Some((status, note)) = finish {
                let (status, note) = match &store_error {
                    Some(e) => (RunStatus::Failed, Some(e.clone())),
                    None => settle_status(status, note, progress.verdicts, failures),
                };
                ended = Some((status, note.clone()));
                progress.elapsed = started.elapsed();
                // A held lock is waited out (the end releases the run's
                // claims). Past that, best effort: if even this fails the run
                // stays "running" and is marked interrupted on the next start.
                let _ = until_free(&mut || {}, || {
                    store.finish_run(run_id, status, note.as_deref())
                });
                let _ = events.send(EngineEvent::RunFinished {
                    run_id,
                    status,
                    progress,
                    note,
                });
            }
            match store_error {
                Some(e) => Err(e),
                None => Ok(Finished { progress, ended }),
            }
        })?;
    Ok(Writer { tx, join: spawned })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ComboKey, Mode, Protocol, RunSpec, Value, Verdict};

    fn verdict(run_id: i64, item: &str) -> Verdict {
        Verdict {
            run_id,
            key: ComboKey::new(item, "urgency", "classification"),
            persona_id: "kenton".into(),
            protocol: Protocol::Awag,
            mode: Some(Mode::Two),
            model: "m".into(),
            value: Value::Likert(4),
            text: "fine".into(),
            evaluated_selection: None,
            selection_mismatch: false,
            latency_ms: 1,
            tokens: 1,
            raw: String::new(),
            created_at: "2026-11-23T00:00:00Z".into(),
            position: None,
            confidence: None,
            server: None,
        }
    }

    /// A group is one transaction, but one bad write in it does not cost
    /// the others: they are kept as if written one by one.
    #[test]
    fn a_failing_write_in_a_group_keeps_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("j.db")).unwrap();
        let spec = RunSpec {
            protocol: Protocol::Awag,
            mode: Some(Mode::Two),
            persona_id: "kenton".into(),
            perspective_ids: vec!["classification".into()],
            model: "m".into(),
            prompt_hash: "h".into(),
            record: None,
        };
        let run = store.create_run(&spec, 3).unwrap();
        let group = vec![
            WriteCmd::Verdicts(vec![verdict(run, "a")]),
            // No such run: the insert cannot find its prompt hash.
            WriteCmd::Verdicts(vec![verdict(run + 99, "b")]),
            WriteCmd::Request {
                usage: Some(crate::domain::Usage {
                    prompt_tokens: 5,
                    completion_tokens: 7,
                    cached_tokens: 0,
                }),
                cost_usd: None,
            },
            WriteCmd::Verdicts(vec![verdict(run, "c"), verdict(run, "a")]),
        ];
        let results = commit_group(&mut store, run, &group, &mut || {});
        assert!(matches!(results[0], Ok(ref f) if f == &[true]));
        assert!(results[1].is_err());
        assert!(results[2].is_ok());
        // "a" again is a repeat, not new.
        assert!(matches!(results[3], Ok(ref f) if f == &[true, false]));
        let stored = store.verdicts_for_run(run).unwrap();
        let mut items: Vec<&str> = stored.iter().map(|v| v.key.item_id.as_str()).collect();
        items.sort();
        assert_eq!(items, ["a", "c"]);

        // A clean group commits in one go with the same outcome.
        let group = vec![
            WriteCmd::Verdicts(vec![verdict(run, "d")]),
            WriteCmd::Failed(1),
            WriteCmd::Verdicts(vec![verdict(run, "e")]),
        ];
        let results = commit_group(&mut store, run, &group, &mut || {});
        assert!(results.iter().all(Result::is_ok));
        assert_eq!(store.verdicts_for_run(run).unwrap().len(), 4);
    }
}
