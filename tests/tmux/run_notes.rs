//! End to end: the real binary against a closed port shows the engine's
//! sentence, URL included, once, on the status line and in the runs view.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_down_endpoint_is_named_with_its_url() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let sentence = format!("could not connect to {url}: connection refused");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("down.db");
    let s = Session::start(&format!("jury-down-{}", std::process::id()), &db, &url);
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    s.keys(&["Enter"]);
    let screen = wait_for(&s.name, "the run's note", |x| x.contains("run 1 failed")).await;
    eprintln!("--- after Enter ---\n{screen}");
    assert!(screen.contains(&sentence), "{screen}");
    assert!(!screen.contains("streaming"), "no stale spinner:\n{screen}");
    s.keys(&["U"]);
    let screen = wait_for(&s.name, "the runs view", |x| x.contains("note: could not")).await;
    eprintln!("--- runs view ---\n{screen}");
    assert!(screen.contains(&format!("note: {sentence}")), "{screen}");
    // One attempt, not a retry per item: a refused connection is not retried.
    assert_eq!(screen.matches(" · attempt ").count(), 1, "{screen}");
}
