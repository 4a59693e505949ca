//! The store watcher: a thread with its own store connection that answers
//! "what changed since this marker?" (`Effect::WatchStore`), so others'
//! labels reach an open workbench without the screen ever waiting on the
//! store. One long-lived connection, not one per check: on PostgreSQL a
//! new connection costs a handshake and a schema check every second.

use crate::store::{ChangeMarker, Store};
use crate::tui::msg::Msg;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender};
use tokio::sync::mpsc::UnboundedSender;

/// More changed items than this are read as one pass over every label
/// (an import of a labels file), not item by item.
const MAX_ITEMS_ONE_BY_ONE: usize = 200;

/// Starts the watcher on `path`; its answers go to `reply`. It ends when
/// the sender is dropped.
pub(super) fn start(path: PathBuf, reply: UnboundedSender<Msg>) -> Option<Sender<ChangeMarker>> {
    let (tx, rx) = std::sync::mpsc::channel::<ChangeMarker>();
    std::thread::Builder::new()
        .name("jury-store-watch".into())
        .spawn(move || watch(path, rx, reply))
        .ok()
        .map(|_| tx)
}

fn watch(path: PathBuf, asks: Receiver<ChangeMarker>, reply: UnboundedSender<Msg>) {
    let mut store: Option<Store> = None;
    // The runs running last said, so the screen hears only of a change.
    let mut running: Vec<crate::store::RunningRun> = Vec::new();
    while let Ok(since) = asks.recv() {
        let result = match store.take().map_or_else(|| Store::open(&path), Ok) {
            Ok(s) => {
                // Runs of other processes (a `jury run` beside the
                // workbench): their progress for the status line.
                if let Ok(now) = s.running_runs()
                    && now != running
                {
                    running = now;
                    let _ = reply.send(Msg::RunsRunning(running.clone()));
                }
                let r = s.changed_since(&since, MAX_ITEMS_ONE_BY_ONE);
                // A connection that failed is opened again at the next
                // check (a restarted server, a network cut).
                if r.is_ok() {
                    store = Some(s);
                }
                r.map_err(|e| e.to_string())
            }
            Err(e) => Err(e.to_string()),
        };
        if reply.send(Msg::StoreWatched { since, result }).is_err() {
            break;
        }
    }
}

#[cfg(all(test, feature = "postgres"))]
mod tests {
    use super::*;

    /// The server ended the watcher's session (a restart, a network cut):
    /// that check fails, and the next one reads on a new connection, so
    /// others' labels keep arriving once the server is back.
    #[test]
    fn after_postgresql_ended_the_session_the_next_check_reads_on_a_new_connection() {
        let Some(db) = crate::store::testing::TestDatabase::create() else {
            return;
        };
        drop(db.store());
        let (reply, mut answers) = tokio::sync::mpsc::unbounded_channel();
        let asks = start(PathBuf::from(&db.url), reply).expect("the watcher starts");
        let mut check = |since: ChangeMarker| {
            asks.send(since).unwrap();
            match answers.blocking_recv() {
                Some(Msg::StoreWatched { since: s, result }) if s == since => result,
                other => panic!("not the answer to {since:?}: {other:?}"),
            }
        };
        let start = check(ChangeMarker::default()).unwrap();
        assert!(start.nothing(&ChangeMarker::default()));
        db.end_sessions();
        assert!(check(start.marker).is_err());
        let mut label = crate::tui::fixtures::label(
            "k-001",
            "urgency",
            "cleo",
            crate::domain::Value::Likert(2),
        );
        label.created_at = crate::store::now();
        db.store().upsert_label(&label).unwrap();
        let moved = check(start.marker).unwrap();
        assert_eq!(moved.items, Some(vec!["k-001".to_string()]));
        assert_eq!(moved.labels, [label]);
    }
}
