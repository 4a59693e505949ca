//! The session kept across a restart, end to end: the real binary in tmux.
//! Choose a persona, a mode and a filter, move to the 7th item, quit, reopen:
//! the same screen.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

use std::time::Duration;

/// The item pane shows the 7th listed item (its id on the list's 7th row).
fn seventh_shown(screen: &str) -> bool {
    let lines: Vec<&str> = screen.lines().collect();
    let shown = lines
        .get(1)
        .and_then(|l| l.split("││").nth(1))
        .and_then(|t| t.split(' ').next())
        .filter(|id| !id.is_empty());
    match (shown, lines.get(7)) {
        (Some(id), Some(row)) => row.contains(&format!(" {id} ")),
        _ => false,
    }
}

/// The screen without its last line (the start-up message and key hints).
fn body(screen: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    lines[..lines.len().saturating_sub(1)].join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn persona_mode_filter_and_item_come_back_after_a_restart() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let server = jury::testserver::TestServer::start(|r| {
        jury::testserver::demo_judge::reply(r, Duration::from_millis(10))
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("session.db");
    let name = format!("jury-session-{}", std::process::id());

    let s = Session::start(&name, &db, &server.base_url());
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    // A first start shows the legend of marks; Esc puts it away (a later
    // start does not show it, and the screens are compared whole).
    s.keys(&["Escape"]);
    // Escape starts a key sequence: an Escape and a `p` that reach jury in one
    // read are read as Alt+p.
    wait_for(&s.name, "the legend hidden", |x| {
        !x.contains("what the marks mean")
    })
    .await;
    // Persona maren (the picker lists "each item's owner", kenton, maren),
    // mode 3, filter "unlabelled", the 7th item.
    s.keys(&["p"]);
    wait_for(&s.name, "the persona picker", |x| x.contains("maren")).await;
    s.keys(&["j", "j", "Enter", "m", "f", "f", "f", "f"]);
    wait_for(&s.name, "the filter", |x| x.contains("unlabelled")).await;
    s.keys(&["j", "j", "j", "j", "j", "j"]);
    let before = wait_for(&s.name, "the 7th item, fully drawn", |x| {
        seventh_shown(x)
            && x.contains("persona maren")
            && x.contains("mode 3 (agreement)")
            && x.contains("▶")
    })
    .await;
    s.keys(&["q"]);
    wait_gone(&s.name).await;
    drop(s);

    let s = Session::start(&name, &db, &server.base_url());
    // The whole screen drawn as before (a capture may catch a frame half
    // drawn: wait for the full one; the panic shows the last capture).
    let want = body(&before);
    let after = wait_for(&s.name, "the same screen after a restart", |x| {
        body(x) == want
    })
    .await;
    eprintln!("--- before quit ---\n{before}\n--- reopened ---\n{after}");
    s.keys(&["q"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_and_history_on_the_real_binary() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let server = jury::testserver::TestServer::start(|r| {
        jury::testserver::demo_judge::reply(r, Duration::from_millis(10))
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("undo.db");
    let name = format!("jury-undo-{}", std::process::id());
    let s = Session::start(&name, &db, &server.base_url());
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    s.keys(&["Enter"]);
    wait_for(&s.name, "a verdict", |x| x.contains("run 1 done")).await;
    s.keys(&["Tab", "Tab", "2"]);
    wait_for(&s.name, "the first label", |x| x.contains("H 2 ✓saved")).await;
    // The label moved the focus to the next row (auto_advance = "row"):
    // back up to change the same label.
    s.keys(&["k", "4"]);
    wait_for(&s.name, "the second label", |x| x.contains("H 4 ✓saved")).await;
    s.keys(&["u"]);
    let screen = wait_for(&s.name, "the undo", |x| {
        x.contains("back to 2") && x.contains("H 2 ✓saved")
    })
    .await;
    eprintln!("--- after u ---\n{screen}");
    s.keys(&["u"]);
    wait_for(&s.name, "the retraction", |x| x.contains("→ no label")).await;
    s.keys(&["h"]);
    let screen = wait_for(&s.name, "the history popup", |x| {
        x.contains("label history") && x.contains("retracted")
    })
    .await;
    eprintln!("--- history ---\n{screen}");
    assert!(
        screen.contains("[undo]") && screen.contains("likert 4"),
        "{screen}"
    );
    // Any key closes the popup (not Escape: followed by q it reads as alt-q).
    s.keys(&["x"]);
    wait_for(&s.name, "the popup closed", |x| {
        !x.contains("label history")
    })
    .await;
    s.keys(&["q"]);
    wait_gone(&s.name).await;
    drop(s);
    // Through the store: no current label left from this session, and
    // the history holds all four changes.
    assert!(
        labels(&db, "k-001").is_empty(),
        "{:?}",
        labels(&db, "k-001")
    );
    let store = jury::store::Store::open(&db).unwrap();
    let mut events = 0;
    for c in ["work-pers", "urgency"] {
        events += store
            .label_history(&jury::domain::ComboKey::new("k-001", c, "classification"))
            .unwrap()
            .iter()
            .filter(|e| e.slot.who == "tester")
            .count();
    }
    assert_eq!(events, 4, "set 2, set 4, undo → 2, undo → retracted");
}
