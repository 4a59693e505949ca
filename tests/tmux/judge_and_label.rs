//! End to end: the real binary in a detached tmux session against a local
//! OpenAI-compatible server. Skips (with a note) when tmux is missing.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

use std::process::Command;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn judge_label_quit_reopen_and_kill_9() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let server = jury::testserver::TestServer::start(|r| {
        jury::testserver::demo_judge::reply(r, Duration::from_millis(150))
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("e2e.db");
    let name = format!("jury-e2e-{}", std::process::id());

    // 1. Open: a new workspace loads the sample data.
    let s = Session::start(&name, &db, &server.base_url());
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;

    // 2. Judge the current item: verdict values and text appear.
    s.keys(&["Enter"]);
    let screen = wait_for(&s.name, "a verdict", |x| x.contains("run 1 done")).await;
    assert!(
        screen.contains("Speaking as"),
        "verdict text shown:\n{screen}"
    );
    eprintln!("--- after judging ---\n{screen}");

    // 3. Label the focused row, see it saved, quit.
    s.keys(&["Tab", "Tab", "2"]);
    let screen = wait_for(&s.name, "saved label", |x| x.contains("H 2 ✓saved")).await;
    eprintln!("--- after labelling ---\n{screen}");
    s.keys(&["q"]);
    let t0 = Instant::now();
    while alive(&s.name) && t0.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(!alive(&s.name), "q quits");
    drop(s);

    // 4. Reopen: the label is still there.
    let s = Session::start(&name, &db, &server.base_url());
    let screen = wait_for(&s.name, "the label after restart", |x| {
        x.contains("H 2 ✓saved")
    })
    .await;
    eprintln!("--- reopened ---\n{screen}");

    // 5. Label another row, and kill -9 right after the screen says saved.
    s.keys(&["Tab", "Tab", "j", "5"]);
    wait_for(&s.name, "the second label saved", |x| {
        x.contains("H 5 ✓saved")
    })
    .await;
    let pid = s.pane_pid();
    let killed = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(killed);
    drop(s);
    let ls = labels(&db, "k-001");
    assert!(
        ls.iter().any(|l| l.value == jury::domain::Value::Likert(5)),
        "label survived kill -9: {ls:?}"
    );
    assert!(ls.iter().any(|l| l.value == jury::domain::Value::Likert(2)));

    // 6. And the workbench shows it after the restart.
    let s = Session::start(&name, &db, &server.base_url());
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    s.keys(&["Tab", "Tab", "j"]);
    let screen = wait_for(&s.name, "the killed label", |x| x.contains("H 5 ✓saved")).await;
    eprintln!("--- after kill -9 and restart ---\n{screen}");
    s.keys(&["q"]);
}
