//! Notes on the real binary in tmux (160×45): the sample data's notes are
//! marked in the list and shown in full in the verdict pane and in `h`; a
//! note written with `n` is saved, shown and found with `note:`; `-note:`
//! and `text:` narrow the list.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

/// Opens the search, empties it and types `text` (then Enter).
fn search(s: &Session, text: &str) {
    s.keys(&["/"]);
    for _ in 0..40 {
        s.keys(&["BSpace"]);
    }
    s.keys(&["-l", "--", text]);
    s.keys(&["Enter"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notes_are_marked_shown_in_full_saved_and_searched() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("notes.db");
    let name = format!("jury-notes-{}", std::process::id());
    let s = Session::start(&name, &db, "http://127.0.0.1:9/v1");
    // alice and bob wrote notes on k-001's urgency (the sample labels).
    let screen = wait_for(&s.name, "the item list", |x| {
        x.contains("items 94/94") && x.contains("✎k-001")
    })
    .await;
    eprintln!("--- start ---\n{screen}");
    // k-017 has no label, so no note.
    let k017 = screen.lines().find(|l| l.contains("k-017")).unwrap_or("");
    assert!(k017.contains(" k-017") && !k017.contains('✎'), "{screen}");
    s.hide_legend().await;
    s.keys(&["Tab", "Tab"]);
    // Another row than the focused one marks its notes.
    let screen = wait_for(&s.name, "work-pers", |x| focused(x) == "work-pers").await;
    assert!(screen.contains("bob 1  ✎"), "{screen}");
    // A label moves the focus to urgency: every note on it, in full (the
    // row's own text used to show only one's own note, cut at 60).
    s.keys(&["2"]);
    let screen = wait_for(&s.name, "the others' notes", |x| {
        focused(x) == "urgency"
            && x.contains("✎ alice: Stock-out escalation")
            && x.contains("✎ bob: Customer wants")
    })
    .await;
    eprintln!("--- verdict pane ---\n{screen}");
    assert!(
        screen.contains("plainly urgent.") && screen.contains("'not'."),
        "{screen}"
    );
    // `n` goes back to the label just given: the note is written, and
    // shown on its row once the focus moved on again.
    s.keys(&["n"]);
    wait_for(&s.name, "the note editor", |x| {
        x.contains("note for this label")
    })
    .await;
    s.keys(&["-l", "--", "rang Priya, call back BEFORE-LUNCH"]);
    s.keys(&["Enter"]);
    let screen = wait_for(&s.name, "my note", |x| {
        x.contains("H 2 ✓saved  ✎ rang Priya, call back BEFORE-LUNCH")
    })
    .await;
    eprintln!("--- my note ---\n{screen}");
    wait_for(&s.name, "the note saved", |_| {
        labels(&db, "k-001")
            .iter()
            .any(|l| l.note == "rang Priya, call back BEFORE-LUNCH")
    })
    .await;
    // `h` on urgency: every note on the row in full, then the changes.
    wait_for(&s.name, "urgency", |x| focused(x) == "urgency").await;
    s.keys(&["h"]);
    let screen = wait_for(&s.name, "the history", |x| {
        x.contains("notes on this row") && x.contains("changes, newest first")
    })
    .await;
    eprintln!("--- h ---\n{screen}");
    assert!(
        screen.contains("✎ alice (kenton, likert): Stock-out"),
        "{screen}"
    );
    assert!(screen.contains("Should never be 'not'."), "{screen}");
    s.keys(&["Escape"]);
    wait_for(&s.name, "the history closed", |x| {
        !x.contains("notes on this row")
    })
    .await;
    // Searched: `note:` finds the note just written, `-note:` the others.
    search(&s, "note:before-lunch");
    let screen = wait_for(&s.name, "note:", |x| {
        x.contains("items 1/94") && x.contains("· note:before-lunch")
    })
    .await;
    eprintln!("--- note:before-lunch ---\n{screen}");
    search(&s, "-note:before-lunch");
    wait_for(&s.name, "-note:", |x| x.contains("items 93/94")).await;
    // `text:` reads the body ("end-cap" is in k-001's, not in its title).
    search(&s, "text:end-cap");
    wait_for(&s.name, "text:", |x| {
        x.contains("items 1/94") && x.contains("· text:end-cap")
    })
    .await;
    s.keys(&["q"]);
    wait_gone(&s.name).await;
}
