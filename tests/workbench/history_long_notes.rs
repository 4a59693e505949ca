//! `h` (the label history) with notes no screen holds: a 1 MB note on one
//! line and a 5 000-line note each show their first lines and then how much
//! more there is, at 80×24, with the row's changes still on screen.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::domain::*;
use jury::store::{LabelEvent, Slot};
use jury::tui::app::App;
use jury::tui::msg::Msg;

fn event(who: &str, note: &str, at: &str) -> LabelEvent {
    LabelEvent {
        slot: Slot {
            key: ComboKey::new("k-001", "urgency", "classification"),
            persona_id: "kenton".into(),
            who: who.into(),
            scale: Scale::Likert,
        },
        value: Some(Value::Likert(4)),
        note: note.into(),
        replaced_judge_value: None,
        created_at: at.into(),
        blind: false,
        kind: jury::store::EventKind::Note,
        tags: Vec::new(),
    }
}

/// The history of k-001's urgency: alice's and bob's notes, at 80×24.
fn history_with(alice: &str, bob: &str) -> String {
    let mut app: App = app_with(loaded());
    update(
        &mut app,
        Msg::LabelHistory {
            key: ComboKey::new("k-001", "urgency", "classification"),
            result: Ok(vec![
                event("alice", alice, "2026-11-26T10:05:00Z"),
                event("bob", bob, "2026-11-26T10:01:00Z"),
            ]),
            marks: Vec::new(),
        },
    );
    app.chrome.size = (80, 24);
    screen(&app)
}

#[test]
fn a_one_megabyte_note_shows_its_start_and_how_much_more() {
    let huge = format!("START {}", "word ".repeat(200_000));
    let s = history_with(&huge, "short and sweet");
    assert!(s.contains("✎ alice (kenton, likert): START word"), "{s}");
    assert!(s.contains("more characters"), "{s}");
    // bob's note and the changes are still there, under it.
    assert!(s.contains("short and sweet"), "{s}");
    assert!(s.contains("changes, newest first"), "{s}");
    assert!(s.contains("press any key"), "{s}");
    insta::assert_snapshot!("history_one_megabyte_note_80x24", s);
}

#[test]
fn a_five_thousand_line_note_shows_its_first_lines_then_how_many_more() {
    let long: String = (1..=5000).map(|i| format!("line {i}\n")).collect();
    let s = history_with(&long, "short and sweet");
    assert!(s.contains("line 1 "), "{s}");
    assert!(!s.contains("line 4999"), "{s}");
    assert!(s.contains("4992 more lines"), "{s}");
    assert!(s.contains("short and sweet"), "{s}");
    assert!(s.contains("changes, newest first"), "{s}");
    insta::assert_snapshot!("history_five_thousand_line_note_80x24", s);
}
