//! Safe data on the real binary in tmux: unsaved labels on quit (prompt,
//! recovery file, replay at the next start), bracketed paste, and SIGTERM.
//! Skips (with a note) when tmux is missing.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

use jury::domain::Value;
use std::time::Duration;

/// Another process's write lock, held until committed or dropped.
fn hold_write_lock(db: &std::path::Path) -> rusqlite::Connection {
    let c = rusqlite::Connection::open(db).unwrap();
    c.execute_batch("BEGIN IMMEDIATE").unwrap();
    c
}

async fn server() -> jury::testserver::TestServer {
    jury::testserver::TestServer::start(|r| {
        jury::testserver::demo_judge::reply(r, Duration::from_millis(0))
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quit_with_a_locked_store_asks_keeps_and_replays_at_the_next_start() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    let server = server().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("locked.db");
    let name = format!("jury-unsaved-{}", std::process::id());
    let s = Session::start_in_shell(&name, &db, &server.base_url());
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;

    // Another process holds the write lock: the label cannot be saved.
    let lock = hold_write_lock(&db);
    s.keys(&["Tab", "Tab", "2"]);
    wait_for(&s.name, "the unsaved label", |x| x.contains("H 2 ✗UNSAVED")).await;

    // q retries, then asks, naming how many and where they are kept.
    s.keys(&["q"]);
    let screen = wait_for(&s.name, "the quit prompt", |x| {
        // The file's name shows once it is written.
        x.contains("1 label(s) NOT saved")
            && x.contains("unsaved-labels.jsonl")
            && x.contains("q quit anyway")
    })
    .await;
    eprintln!("--- quit prompt ---\n{screen}");
    let recovery = jury::tui::effects::recovery::path_for(&db);
    let (kept, _) = jury::tui::effects::recovery::read(&recovery).unwrap();
    assert_eq!(kept.len(), 1, "kept before quitting");
    assert_eq!(kept[0].value, Value::Likert(2));

    // Quit anyway: the label is not in the store yet.
    s.keys(&["q"]);
    wait_for(&s.name, "jury to exit", |x| x.contains("jury exited 0")).await;
    drop(lock);
    assert!(labels(&db, "k-001").is_empty());
    drop(s);

    // The next start offers the replay; r writes it into the store.
    let s = Session::start(&name, &db, &server.base_url());
    let screen = wait_for(&s.name, "the replay offer", |x| {
        x.contains("unsaved labels from the last session") && x.contains("x discard them")
    })
    .await;
    eprintln!("--- replay offer ---\n{screen}");
    assert!(screen.contains("k-001 · work-pers · kenton · tester = 2"));
    s.keys(&["r"]);
    wait_for(&s.name, "the replayed label saved", |x| {
        x.contains("H 2 ✓saved") && x.contains("recovery file is removed")
    })
    .await;
    let ls = labels(&db, "k-001");
    assert_eq!(ls.len(), 1, "{ls:?}");
    assert_eq!(ls[0].value, Value::Likert(2));
    assert!(
        !recovery.exists(),
        "the recovery file is gone once replayed"
    );
    s.keys(&["q"]);
    wait_gone(&s.name).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bracketed_paste_goes_whole_into_the_note_and_never_runs_as_keys() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    let server = server().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("paste.db");
    let name = format!("jury-paste-{}", std::process::id());
    let s = Session::start(&name, &db, &server.base_url());
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    s.keys(&["Tab", "Tab", "2"]);
    wait_for(&s.name, "the label saved", |x| x.contains("H 2 ✓saved")).await;

    // Outside a text field a paste is refused: no label, no persona switch, no quit.
    s.paste("a\nd\n4\nP\nq\n");
    wait_for(&s.name, "the refusal", |x| x.contains("paste ignored")).await;

    // Into the note editor: every line of it, hotkeys and all.
    let note = "first line\na\nd\n4\nP\nq and the end";
    s.keys(&["n"]);
    wait_for(&s.name, "the note editor", |x| {
        x.contains("note for this label")
    })
    .await;
    s.paste(note);
    wait_for(&s.name, "the pasted note", |x| x.contains("q and the end")).await;
    s.keys(&["Enter"]);
    wait_for(&s.name, "the note saved", |x| {
        x.contains("✎ first line") && x.contains("H 2 ✓saved")
    })
    .await;
    let ls = labels(&db, "k-001");
    assert_eq!(ls.len(), 1, "no label came from the pasted keys: {ls:?}");
    assert_eq!(ls[0].value, Value::Likert(2));
    assert_eq!(ls[0].note, note, "the note holds the whole paste");
    let screen = capture(&s.name);
    assert!(
        screen.contains("persona: each item's owner (kenton)"),
        "{screen}"
    );
    s.keys(&["q"]);
    wait_gone(&s.name).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_flushes_the_pending_label_and_restores_the_terminal() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    let server = server().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("term.db");
    let name = format!("jury-sigterm-{}", std::process::id());
    let s = Session::start_in_shell(&name, &db, &server.base_url());
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    assert!(s.alternate_on());

    // The write waits on another process's lock when the signal comes.
    let lock = hold_write_lock(&db);
    s.keys(&["Tab", "Tab", "4"]);
    wait_for(&s.name, "the label being saved", |x| {
        x.contains("H 4 …saving")
    })
    .await;
    let pid = s.jury_pid();
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .unwrap()
            .success()
    );
    // The lock goes within the store's busy wait: the pending write lands.
    tokio::time::sleep(Duration::from_millis(500)).await;
    lock.execute_batch("COMMIT").unwrap();
    let screen = wait_for(&s.name, "the shell after jury", |x| {
        x.contains("jury exited 143")
    })
    .await;
    eprintln!("--- after SIGTERM ---\n{screen}");
    assert!(!s.alternate_on(), "back on the main screen");
    assert!(!screen.contains("items 94/94"), "the workbench is gone");
    let ls = labels(&db, "k-001");
    assert_eq!(ls.len(), 1, "{ls:?}");
    assert_eq!(ls[0].value, Value::Likert(4));
    assert!(!jury::tui::effects::recovery::path_for(&db).exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sighup_keeps_a_label_the_store_refused_for_the_next_start() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    let server = server().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("hup.db");
    let name = format!("jury-sighup-{}", std::process::id());
    let s = Session::start_in_shell(&name, &db, &server.base_url());
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    let lock = hold_write_lock(&db);
    s.keys(&["Tab", "Tab", "5"]);
    wait_for(&s.name, "the unsaved label", |x| x.contains("H 5 ✗UNSAVED")).await;
    let pid = s.jury_pid();
    assert!(
        std::process::Command::new("kill")
            .args(["-HUP", &pid.to_string()])
            .status()
            .unwrap()
            .success()
    );
    wait_for(&s.name, "the shell after jury", |x| {
        x.contains("jury exited 129")
    })
    .await;
    assert!(!s.alternate_on());
    drop(lock);
    let (kept, _) =
        jury::tui::effects::recovery::read(&jury::tui::effects::recovery::path_for(&db)).unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].value, Value::Likert(5));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_restores_the_terminal_and_keeps_the_labels() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    let server = server().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("int.db");
    let name = format!("jury-sigint-{}", std::process::id());
    let s = Session::start_in_shell(&name, &db, &server.base_url());
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    s.keys(&["Tab", "Tab", "3"]);
    wait_for(&s.name, "the label saved", |x| x.contains("H 3 ✓saved")).await;
    let pid = s.jury_pid();
    assert!(
        std::process::Command::new("kill")
            .args(["-INT", &pid.to_string()])
            .status()
            .unwrap()
            .success()
    );
    let screen = wait_for(&s.name, "the shell after jury", |x| {
        x.contains("jury exited 130")
    })
    .await;
    assert!(!s.alternate_on(), "back on the main screen:\n{screen}");
    // Raw mode is off: the shell's line starts at column 0, not where the
    // cursor was left.
    assert!(
        screen.lines().any(|l| l.starts_with("jury exited 130")),
        "{screen}"
    );
    assert_eq!(labels(&db, "k-001")[0].value, Value::Likert(3));
}
