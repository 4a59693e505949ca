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
        LabelJob::Mark { .. } => Msg::MarkNotSaved {
            why: GONE.into(),
            retry: None,
        },
        LabelJob::Adjudicate(_) | LabelJob::UndoAdjudication { .. } => {
            Msg::AdjudicationNotSaved(GONE.into())
        }
    }
}

/// How long a label queued behind one the lock refused waits for the lock.
const QUEUED_BEHIND_BUSY: std::time::Duration = std::time::Duration::from_millis(200);

/// While the store cannot be reached (a PostgreSQL server restarting, a
/// network cut), the writer asks again after this long, doubling up to
/// [`AWAY_LONGEST`]: the unsaved labels are replayed on their own once it
/// answers, without a key, and a server that is down for an hour costs a
/// connection attempt every few seconds, not a busy loop.
const AWAY_FIRST: std::time::Duration = std::time::Duration::from_millis(250);
const AWAY_LONGEST: std::time::Duration = std::time::Duration::from_secs(4);

/// Owns a store connection; answers every job with saved or the error.
/// Each write waits up to the store's busy timeout for another process's
/// lock; the jobs already queued behind one that timed out wait only
/// [`QUEUED_BEHIND_BUSY`] each, so ten labels under a held lock are all
/// answered in about one timeout, not ten (the quit prompt waits on them).
/// A lost connection is said once (`Msg::StoreUnreachable`, before the
/// answer to the job that found it), then tried again with backoff
/// between jobs; `Msg::StoreBack` says it answers again.
fn label_writer(path: PathBuf, jobs: Receiver<LabelJob>, reply: UnboundedSender<Msg>) {
    let mut store: Option<Store> = None;
    let mut behind_busy = false;
    // Some(wait before the next try) while the store cannot be reached.
    let mut away: Option<std::time::Duration> = None;
    // Only a server can be away and come back: a file that cannot be
    // opened (a directory in its place) is refused as before.
    let remote = matches!(
        crate::store::Location::from(path.as_path()),
        crate::store::Location::Postgres(_)
    );
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
        } else if let Some(wait) = away {
            match jobs.recv_timeout(wait) {
                Ok(j) => j,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    match Store::open(&path) {
                        Ok(s) => {
                            store = Some(s);
                            away = None;
                            let _ = reply.send(Msg::StoreBack);
                        }
                        Err(_) => away = Some((wait * 2).min(AWAY_LONGEST)),
                    }
                    continue;
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            }
        } else {
            match jobs.recv() {
                Ok(j) => j,
                Err(_) => break,
            }
        };
        if store.is_none() {
            match Store::open(&path) {
                Ok(s) => {
                    store = Some(s);
                    if away.take().is_some() {
                        let _ = reply.send(Msg::StoreBack);
                    }
                }
                Err(e) => {
                    if remote && away.is_none() {
                        away = Some(AWAY_FIRST);
                        let _ = reply.send(Msg::StoreUnreachable(e.to_string()));
                    }
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
        // fails every later call: a new connection is tried with backoff,
        // and the next job opens one too.
        if let Err(e) = &result
            && s.connection_lost()
        {
            store = None;
            if away.is_none() {
                away = Some(AWAY_FIRST);
                let _ = reply.send(Msg::StoreUnreachable(e.to_string()));
            }
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
        LabelJob::Mark {
            slot,
            mark,
            at,
            kind,
        } => Msg::MarkNotSaved {
            why: result.err().unwrap_or_default(),
            retry: Some(crate::tui::msg::Effect::SaveMark {
                slot: slot.clone(),
                mark: mark.clone(),
                at: at.clone(),
                kind: *kind,
            }),
        },
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

    /// The writer's next message, waiting up to a minute (the backoff
    /// between tries is at most a few seconds).
    fn next(answers: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>) -> Msg {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            match answers.try_recv() {
                Ok(m) => return m,
                Err(tokio::sync::mpsc::error::TryRecvError::Empty)
                    if std::time::Instant::now() < deadline =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(10))
                }
                Err(e) => panic!("no message from the writer: {e:?}"),
            }
        }
    }

    fn save(
        jobs: &Sender<LabelJob>,
        answers: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>,
        req: u64,
        label: &Label,
    ) -> Result<(), String> {
        jobs.send(LabelJob::Save {
            req,
            label: label.clone(),
        })
        .unwrap();
        match next(answers) {
            Msg::LabelSaved { req: r, result } if r == req => result,
            other => panic!("not the answer to {req}: {other:?}"),
        }
    }

    /// The server ended the writer's session (a restart, a network cut):
    /// it says the store is unreachable, then refuses the label written on
    /// it; it tries again on its own and says when the store is back (the
    /// workbench then hands the unsaved labels over), and the next label is
    /// saved on the new connection.
    #[test]
    fn after_postgresql_ended_the_session_the_writer_says_so_and_comes_back_on_its_own() {
        let Some(db) = crate::store::testing::TestDatabase::create() else {
            return;
        };
        drop(db.store());
        let (reply, mut answers) = tokio::sync::mpsc::unbounded_channel();
        let (jobs, writer) = start(PathBuf::from(&db.url), reply);
        assert_eq!(save(&jobs, &mut answers, 1, &label(2)), Ok(()));
        db.end_sessions();
        jobs.send(LabelJob::Save {
            req: 2,
            label: label(3),
        })
        .unwrap();
        let why = match next(&mut answers) {
            Msg::StoreUnreachable(why) => why,
            other => panic!("not said unreachable first: {other:?}"),
        };
        assert!(why.contains("PostgreSQL"), "{why}");
        match next(&mut answers) {
            Msg::LabelSaved { req: 2, result } => {
                let refused = result.expect_err("written on a session the server ended");
                assert!(refused.contains("PostgreSQL"), "{refused}");
            }
            other => panic!("not the refusal: {other:?}"),
        }
        // The server is up: the writer's own next try reaches it.
        assert!(matches!(next(&mut answers), Msg::StoreBack));
        assert_eq!(save(&jobs, &mut answers, 3, &label(4)), Ok(()));
        drop(jobs);
        writer.unwrap().join().unwrap();
        let stored = db.store().labels_for_item("k-001").unwrap();
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].value, Value::Likert(4));
    }

    /// A network cut (every connection closed, new ones refused for a
    /// while, then back), through a TCP proxy: unreachable is said once,
    /// every label meanwhile is refused (the workbench keeps it), and
    /// once the network is back the writer says so on its own and the
    /// label handed over again is stored once.
    #[test]
    fn a_network_cut_is_said_once_and_the_writer_comes_back_when_it_mends() {
        let Some(db) = crate::store::testing::TestDatabase::create() else {
            return;
        };
        drop(db.store());
        let proxy = crate::store::testing::CutProxy::to(&db);
        let (reply, mut answers) = tokio::sync::mpsc::unbounded_channel();
        let (jobs, writer) = start(PathBuf::from(&proxy.url), reply);
        assert_eq!(save(&jobs, &mut answers, 1, &label(2)), Ok(()));
        proxy.cut();
        jobs.send(LabelJob::Save {
            req: 2,
            label: label(3),
        })
        .unwrap();
        assert!(matches!(next(&mut answers), Msg::StoreUnreachable(_)));
        assert!(matches!(
            next(&mut answers),
            Msg::LabelSaved {
                req: 2,
                result: Err(_)
            }
        ));
        // Refused while cut (a connection refused), said once only.
        let five = label(5);
        let refused = save(&jobs, &mut answers, 3, &five).expect_err("the network is cut");
        assert!(refused.contains("connect"), "{refused}");
        assert!(answers.try_recv().is_err(), "nothing more while cut");
        proxy.mend();
        assert!(matches!(next(&mut answers), Msg::StoreBack));
        // The workbench hands the unsaved label over again: stored once.
        assert_eq!(save(&jobs, &mut answers, 4, &five), Ok(()));
        assert_eq!(save(&jobs, &mut answers, 5, &five), Ok(()));
        drop(jobs);
        writer.unwrap().join().unwrap();
        let stored = db.store().labels_for_item("k-001").unwrap();
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].value, Value::Likert(5));
        let history = db.store().label_history(&stored[0].key).unwrap();
        assert_eq!(history.len(), 2, "2 then 5, the 5 once: {history:?}");
    }
}
