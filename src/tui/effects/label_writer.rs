//! The label writer: a thread with its own store connection that saves
//! labels, undoes, notes, the session and sample marks in the order they
//! were handed over, and answers each with saved or the error.

use crate::domain::Label;
use crate::store::Store;
use crate::tui::msg::Msg;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender};
use tokio::sync::mpsc::UnboundedSender;

/// The label writer's work, done in the order handed over (an undo after
/// the write it undoes; the session after the labels before a quit).
pub(super) enum LabelJob {
    Save {
        req: u64,
        label: Label,
    },
    Undo {
        req: u64,
        undo: crate::store::LabelUndo,
    },
    Note {
        req: u64,
        label: Label,
    },
    Session {
        who: String,
        state: String,
    },
    Sampled {
        key: crate::domain::ComboKey,
        persona: String,
        who: String,
        how: crate::store::Selected,
    },
    /// An adjudication given (answered only when refused).
    Adjudicate(crate::domain::Adjudication),
    /// An adjudication undone (answered only when refused).
    UndoAdjudication {
        undoes: crate::domain::Adjudication,
        restore: Option<crate::domain::Adjudication>,
        at: String,
    },
    /// A "come back later" mark set or cleared.
    Mark {
        slot: crate::store::MarkSlot,
        mark: Option<(crate::domain::MarkKind, String)>,
        at: String,
        kind: crate::store::MarkEventKind,
    },
}

/// Starts the writer on `path`; its answers go to `reply`. The writer ends
/// once the sender is dropped and the jobs already handed over are done.
pub(super) fn start(
    path: PathBuf,
    reply: UnboundedSender<Msg>,
) -> (Sender<LabelJob>, Option<std::thread::JoinHandle<()>>) {
    let (tx, rx) = std::sync::mpsc::channel::<LabelJob>();
    let writer = std::thread::Builder::new()
        .name("jury-label-writer".into())
        .spawn(move || label_writer(path, rx, reply))
        .ok();
    (tx, writer)
}

/// The answer to a job the writer is not running to take: the refusal.
pub(super) fn gone(job: LabelJob) -> Msg {
    const GONE: &str = "the label writer is not running";
    match job {
        LabelJob::Save { req, .. } | LabelJob::Undo { req, .. } | LabelJob::Note { req, .. } => {
            Msg::LabelSaved {
                req,
                result: Err(GONE.into()),
            }
        }
        LabelJob::Session { .. } => Msg::SessionNotSaved(GONE.into()),
        LabelJob::Sampled { .. } => Msg::SampleNotKept(GONE.into()),
        LabelJob::Mark { .. } => Msg::MarkNotSaved(GONE.into()),
        LabelJob::Adjudicate(_) | LabelJob::UndoAdjudication { .. } => {
            Msg::AdjudicationNotSaved(GONE.into())
        }
    }
}

/// How long a label queued behind one the lock refused waits for the lock.
const QUEUED_BEHIND_BUSY: std::time::Duration = std::time::Duration::from_millis(200);

/// Owns a store connection; answers every job with saved or the error.
/// Each write waits up to the store's busy timeout for another process's
/// lock; the jobs already queued behind one that timed out wait only
/// [`QUEUED_BEHIND_BUSY`] each, so ten labels under a held lock are all
/// answered in about one timeout, not ten (the quit prompt waits on them).
fn label_writer(path: PathBuf, jobs: Receiver<LabelJob>, reply: UnboundedSender<Msg>) {
    let mut store: Option<Store> = None;
    let mut behind_busy = false;
    loop {
        let job = if behind_busy {
            match jobs.try_recv() {
                Ok(j) => j,
                Err(std::sync::mpsc::TryRecvError::Empty) => {
                    behind_busy = false;
                    continue;
                }
                Err(std::sync::mpsc::TryRecvError::Disconnected) => break,
            }
        } else {
            match jobs.recv() {
                Ok(j) => j,
                Err(_) => break,
            }
        };
        if store.is_none() {
            match Store::open(&path) {
                Ok(s) => store = Some(s),
                Err(e) => {
                    let _ = reply.send(answer(&job, Err(e.to_string())));
                    continue;
                }
            }
        }
        let Some(s) = store.as_mut() else { continue };
        let wait = if behind_busy {
            QUEUED_BEHIND_BUSY
        } else {
            crate::store::BUSY_TIMEOUT
        };
        // A connection that cannot change its wait keeps the one it has.
        let _ = s.set_busy_timeout(wait);
        let result = match &job {
            LabelJob::Save { label, .. } => s.upsert_label(label),
            LabelJob::Undo { undo, .. } => s.undo_label(undo),
            // The note alone: a value changed since by another process stays.
            LabelJob::Note { label, .. } => s
                .set_label_note(
                    &label.key,
                    &label.persona_id,
                    &label.who,
                    label.value.scale(),
                    &label.note,
                )
                .and_then(|held| if held { Ok(()) } else { s.upsert_label(label) }),
            LabelJob::Session { who, state } => s.save_workbench_session(who, state),
            LabelJob::Sampled {
                key,
                persona,
                who,
                how,
            } => s.mark_selected(key, persona, who, how),
            LabelJob::Mark {
                slot,
                mark,
                at,
                kind,
            } => s.record_mark(
                slot,
                mark.as_ref().map(|(m, n)| (*m, n.as_str())),
                at,
                *kind,
            ),
            LabelJob::Adjudicate(a) => s.adjudicate(a),
            LabelJob::UndoAdjudication {
                undoes,
                restore,
                at,
            } => s.undo_adjudication(undoes, restore.as_ref(), at),
        };
        behind_busy = matches!(result, Err(crate::store::StoreError::Busy { .. }));
        // A PostgreSQL session the server ended (a restart, a network cut)
        // fails every later call: the next job opens a new connection, so
        // `s` (retry) and the next label work once the server is back.
        if result.is_err() && s.connection_lost() {
            store = None;
        }
        if let (
            LabelJob::Undo { req, .. },
            Err(crate::store::StoreError::LabelChanged { current }),
        ) = (&job, &result)
        {
            let why = result
                .as_ref()
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            let _ = reply.send(Msg::UndoRefused {
                req: *req,
                current: current.as_deref().cloned(),
                why,
            });
            continue;
        }
        let result = result.map_err(|e| e.to_string());
        // A kept session or sample mark is answered only when it failed.
        if matches!(
            job,
            LabelJob::Session { .. }
                | LabelJob::Sampled { .. }
                | LabelJob::Mark { .. }
                | LabelJob::Adjudicate(_)
                | LabelJob::UndoAdjudication { .. }
        ) && result.is_ok()
        {
            continue;
        }
        let _ = reply.send(answer(&job, result));
    }
}

/// The writer's answer to a job.
fn answer(job: &LabelJob, result: Result<(), String>) -> Msg {
    match job {
        LabelJob::Save { req, .. } | LabelJob::Undo { req, .. } | LabelJob::Note { req, .. } => {
            Msg::LabelSaved { req: *req, result }
        }
        LabelJob::Session { .. } => Msg::SessionNotSaved(result.err().unwrap_or_default()),
        LabelJob::Sampled { .. } => Msg::SampleNotKept(result.err().unwrap_or_default()),
        LabelJob::Mark { .. } => Msg::MarkNotSaved(result.err().unwrap_or_default()),
        LabelJob::Adjudicate(_) | LabelJob::UndoAdjudication { .. } => {
            Msg::AdjudicationNotSaved(result.err().unwrap_or_default())
        }
    }
}

#[cfg(all(test, feature = "postgres"))]
mod tests {
    use super::*;
    use crate::domain::{ComboKey, Value};

    fn label(v: u8) -> Label {
        Label {
            key: ComboKey::new("k-001", "urgency", "classification"),
            persona_id: "kenton".into(),
            value: Value::Likert(v),
            note: String::new(),
            who: "ann".into(),
            created_at: crate::store::now(),
            replaced_judge_value: None,
            blind: false,
            tags: Vec::new(),
        }
    }

    /// The server ended the writer's session (a restart, a network cut):
    /// the label written on it is refused, and the next one (or `s`,
    /// which hands it over again) is saved on a new connection.
    #[test]
    fn after_postgresql_ended_the_session_the_next_label_is_saved_on_a_new_connection() {
        let Some(db) = crate::store::testing::TestDatabase::create() else {
            return;
        };
        drop(db.store());
        let (reply, mut answers) = tokio::sync::mpsc::unbounded_channel();
        let (jobs, writer) = start(PathBuf::from(&db.url), reply);
        let mut save = |req: u64, v: u8| {
            jobs.send(LabelJob::Save {
                req,
                label: label(v),
            })
            .unwrap();
            match answers.blocking_recv() {
                Some(Msg::LabelSaved { req: r, result }) if r == req => result,
                other => panic!("not the answer to {req}: {other:?}"),
            }
        };
        assert_eq!(save(1, 2), Ok(()));
        db.end_sessions();
        let refused = save(2, 3).expect_err("written on a session the server ended");
        assert!(refused.contains("PostgreSQL"), "{refused}");
        assert_eq!(save(3, 4), Ok(()));
        drop(jobs);
        writer.unwrap().join().unwrap();
        let stored = db.store().labels_for_item("k-001").unwrap();
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].value, Value::Likert(4));
    }
}
