//! "Come back later" and tags on the real binary in tmux (160×45): `l`
//! marks a row unsure with a note (stored as a mark, no label), the
//! "marked unsure/skip by me" filter lists it, a label settles it, `T`
//! toggles a tag from config.toml's set on the label, and `u` takes the
//! toggle back.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

use std::path::Path;

fn marks(db: &Path) -> Vec<jury::domain::RowMark> {
    jury::store::Store::open(db)
        .unwrap()
        .current_marks()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mark_filter_settle_and_tag_on_the_real_binary() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "tags = [\"persona-misread\", \"off-topic\"]\n").unwrap();
    let db = dir.path().join("marks.db");
    let name = format!("jury-marks-{}", std::process::id());
    let s = Session::start_with_config(&name, &db, &config);
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    s.hide_legend().await;
    s.keys(&["Tab", "Tab"]);
    // l: the note editor; the note; enter marks.
    s.keys(&["l"]);
    wait_for(&s.name, "the mark's note editor", |x| {
        x.contains("unsure: a note for later")
    })
    .await;
    s.keys(&["-l", "sarcasm?"]);
    s.keys(&["Enter"]);
    let screen = wait_for(&s.name, "the marked row", |x| {
        x.contains("? unsure: sarcasm?")
    })
    .await;
    eprintln!("--- marked ---\n{screen}");
    assert!(
        screen.contains("0/94 labelled by me"),
        "a mark is no label: {screen}"
    );
    wait_for(&s.name, "the mark stored", |_| marks(&db).len() == 1).await;
    let m = &marks(&db)[0];
    assert_eq!(
        (m.key.item_id.as_str(), m.note.as_str()),
        ("k-001", "sarcasm?")
    );
    assert!(labels(&db, "k-001").is_empty());
    // The filter lists it alone.
    for _ in 0..8 {
        s.keys(&["f"]);
    }
    let screen = wait_for(&s.name, "the marked filter", |x| {
        x.contains("filter: marked unsure/skip by me (1 of 94 items)")
    })
    .await;
    eprintln!("--- marked by me ---\n{screen}");
    // A label on the row settles the mark.
    s.keys(&["2"]);
    wait_for(&s.name, "the label and the settled mark", |_| {
        labels(&db, "k-001").len() == 1 && marks(&db).is_empty()
    })
    .await;
    // Back to the labelled row; T: the configured set.
    s.keys(&["["]);
    s.keys(&["T"]);
    wait_for(&s.name, "the tag picker", |x| {
        x.contains("[ ] persona-misread") && x.contains("[ ] off-topic")
    })
    .await;
    s.keys(&["j", "Enter"]);
    let screen = wait_for(&s.name, "the tag on", |x| x.contains("[x] off-topic")).await;
    eprintln!("--- tag picker ---\n{screen}");
    s.keys(&["Escape"]);
    // The picker closed (the row behind it already showed the tag).
    wait_for(&s.name, "the tagged row", |x| {
        x.contains("#off-topic") && !x.contains("[x] off-topic")
    })
    .await;
    wait_for(&s.name, "the tag stored", |_| {
        labels(&db, "k-001").first().map(|l| l.tags.clone()) == Some(vec!["off-topic".into()])
    })
    .await;
    // u takes the toggle back; the label stays.
    s.keys(&["u"]);
    let screen = wait_for(&s.name, "the undo said", |x| x.contains("undone:")).await;
    eprintln!("--- u ---\n{screen}");
    wait_for(&s.name, "the toggle undone", |_| {
        labels(&db, "k-001")
            .first()
            .is_some_and(|l| l.tags.is_empty())
    })
    .await;
    s.keys(&["q"]);
    wait_gone(&s.name).await;
    assert_eq!(labels(&db, "k-001").len(), 1);
}

/// A mark made in one session is on its row, and in its filter, in the next
/// (the workbench's start-up read no marks: they showed only until quit).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mark_is_still_there_after_a_restart() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let db = dir.path().join("marks.db");
    let name = format!("jury-marks-restart-{}", std::process::id());
    let s = Session::start_with_config(&name, &db, &config);
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    s.hide_legend().await;
    s.keys(&["Tab", "Tab", "l"]);
    wait_for(&s.name, "the mark's note editor", |x| {
        x.contains("unsure: a note for later")
    })
    .await;
    s.keys(&["-l", "ask again"]);
    s.keys(&["Enter"]);
    wait_for(&s.name, "the mark stored", |_| marks(&db).len() == 1).await;
    s.keys(&["q"]);
    wait_gone(&s.name).await;

    let s = Session::start_with_config(&name, &db, &config);
    let screen = wait_for(&s.name, "the mark after the restart", |x| {
        x.contains("items 94/94") && x.contains("? unsure: ask again")
    })
    .await;
    eprintln!("--- after the restart ---\n{screen}");
    for _ in 0..8 {
        s.keys(&["f"]);
    }
    wait_for(&s.name, "the marked filter", |x| {
        x.contains("filter: marked unsure/skip by me (1 of 94 items)")
    })
    .await;
    s.keys(&["q"]);
    wait_gone(&s.name).await;
}
