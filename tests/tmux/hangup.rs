//! The workbench's terminal goes away (its tmux session is killed, as when an
//! ssh connection drops): jury ends, keeps the label typed just before, and
//! does not stay behind spinning. crossterm 0.29 reads a hung-up terminal in
//! an endless loop; before input moved to its own thread, jury caught there
//! kept a core at full load and ignored SIGTERM (see `src/tui/input/reader.rs`).
//! Skips (with a note) when tmux is missing.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

use jury::domain::Value;
use std::time::{Duration, Instant};

/// Whether `pid` still runs (a zombie has ended).
fn running(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses.
        Ok(stat) => stat
            .rsplit_once(')')
            .map(|(_, rest)| !rest.trim_start().starts_with('Z'))
            .unwrap_or(false),
        Err(_) => false,
    }
}

/// Waits up to 20 s for `pid` to end; says whether it did.
async fn ends(pid: i32) -> bool {
    let t0 = Instant::now();
    while running(pid) && t0.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    !running(pid)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_session_ends_jury_and_keeps_the_label_typed_just_before() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    let server = jury::testserver::TestServer::start(|r| {
        jury::testserver::demo_judge::reply(r, Duration::from_millis(0))
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("hangup.db");
    let name = format!("jury-hangup-{}", std::process::id());

    // Several rounds: the hangup lands at a different moment of the loop each
    // time (idle, between keys, while a label is being written).
    for round in 0..4 {
        let s = Session::start(&name, &db, &server.base_url());
        wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
        let pid = s.pane_pid();
        if round == 0 {
            // Label the first verdict row; hang up as soon as the screen
            // shows the label (saved or still on its way to the store).
            s.keys(&["Tab", "Tab", "4"]);
            wait_for(&s.name, "the label on screen", |x| x.contains("H 4")).await;
        } else {
            s.keys(&["j", "k", "j", "k", "j"]);
        }
        tmux(&["kill-session", "-t", &s.name]);
        drop(s);
        if !ends(pid).await {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
            panic!(
                "round {round}: jury (pid {pid}) still runs 20 s after its terminal went away: {stat}"
            );
        }
    }

    let kept = labels(&db, "k-001");
    assert!(
        kept.iter().any(|l| l.value == Value::Likert(4)),
        "the label typed just before the hangup is in the store: {kept:?}"
    );
}
