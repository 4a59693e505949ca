//! End to end: the first screen of the real binary at 80×24 shows the legend
//! of the marks and the `?` hint; a later start does not show the legend
//! again. Skips (with a note) when tmux is missing.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_start_shows_the_legend_and_the_help_key_at_80x24() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let server = jury::testserver::TestServer::start(|r| {
        jury::testserver::demo_judge::reply(r, Duration::from_millis(50))
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("first.db");
    let name = format!("jury-first-{}", std::process::id());
    let small = |s: &Session| {
        tmux(&["resize-window", "-t", &s.name, "-x", "80", "-y", "24"]);
    };

    // 1. A new workspace: the sample data is loaded and the legend shows.
    let s = Session::start(&name, &db, &base_url(&server));
    small(&s);
    let screen = wait_for(&s.name, "the legend at 80x24", |x| {
        x.contains("what the marks mean") && x.lines().count() <= 24
    })
    .await;
    eprintln!("--- first start, 80x24 ---\n{screen}");
    let lines: Vec<&str> = screen.lines().collect();
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{screen}");
    for want in [
        "list marks: J judged",
        "H labelled (by anyone)",
        "≠ a label and the judge disagree",
        "verdict rows: J the judge's value",
        "test/train",
        "sample data loaded",
        "esc hides this",
    ] {
        assert!(screen.contains(want), "{want}:\n{screen}");
    }
    // The start-up note is in the legend, so the hints line keeps the keys,
    // and `?` sits at the end of the status line.
    let status = lines
        .iter()
        .rev()
        .find(|l| l.contains("│ mode "))
        .expect("a status line");
    assert!(status.trim_end().ends_with("? help"), "{status}");
    // The mode whole at 80 columns, not "mode ?".
    assert!(status.contains("mode 2 (likert)"), "{status}");
    assert!(lines.iter().any(|l| l.contains("enter judge")), "{screen}");

    // 2. Esc hides it; `?` stays.
    s.keys(&["Escape"]);
    let screen = wait_for(&s.name, "the legend hidden", |x| {
        !x.contains("what the marks mean")
    })
    .await;
    assert!(screen.contains("? help"), "{screen}");
    s.keys(&["q"]);
    wait_gone(&s.name).await;
    drop(s);

    // 3. A second start (the sample labels are in): no legend, `?` in sight.
    let s = Session::start(&name, &db, &base_url(&server));
    small(&s);
    let screen = wait_for(&s.name, "the second start", |x| {
        x.contains("? help") && x.contains("items")
    })
    .await;
    assert!(!screen.contains("what the marks mean"), "{screen}");
    s.keys(&["q"]);
    wait_gone(&s.name).await;
}

fn base_url(server: &jury::testserver::TestServer) -> String {
    server.base_url()
}
