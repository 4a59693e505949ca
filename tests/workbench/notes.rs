//! Notes on screen, at 80×24 and 160×45: the list's `✎` mark, every note of
//! the focused row in full in the verdict pane (one's own first, escapes
//! shown, never obeyed), the history's notes before its changes, and the
//! list narrowed by `note:` and `why:` terms.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use crossterm::event::KeyCode;
use jury::domain::*;
use jury::store::{LabelEvent, Slot};
use jury::tui::app::App;
use jury::tui::msg::Msg;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 45)];

fn noted(item: &str, c: &str, who: &str, value: Value, note: &str) -> Label {
    Label {
        note: note.into(),
        ..label(item, c, who, value)
    }
}

const MINE: &str = "Rang Priya back: the stores are the Leeds ones, so this is Kenton's \
                    account after all.\nUrgent by his own rules (2pm deadline).";

/// Labelling as alice: she and bob wrote notes on k-001's urgency, the
/// judge gave its reasons there.
fn noted_app() -> App {
    let mut data = loaded();
    data.verdicts = vec![verdict(
        1,
        "k-001",
        "urgency",
        Mode::Two,
        Value::Likert(2),
        "Not urgent: a stock-out is a logistics matter for the stores.",
    )];
    data.labels = vec![
        noted(
            "k-001",
            "urgency",
            "bob",
            Value::Likert(5),
            "agree with alice \x1b[2J",
        ),
        noted("k-001", "urgency", "alice", Value::Likert(4), MINE),
    ];
    app_with(data)
}

fn screen_at(app: &mut App, (w, h): (u16, u16)) -> String {
    app.chrome.size = (w, h);
    app.scroll_list_to_cursor();
    screen(app)
}

#[test]
fn every_note_of_the_row_in_the_verdict_pane() {
    for size in SIZES {
        let mut app = noted_app();
        code(&mut app, KeyCode::Tab);
        code(&mut app, KeyCode::Tab);
        let s = screen_at(&mut app, size);
        assert!(s.contains("✎ alice: Rang Priya"), "{s}");
        assert!(s.contains("(2pm deadline)."), "{s}");
        assert!(s.contains("\\e[2J"), "{s}");
        assert!(s.contains("✎k-001"), "{s}");
        insta::assert_snapshot!(format!("verdict_pane_notes_{}x{}", size.0, size.1), s);
    }
}

#[test]
fn the_history_shows_the_notes_then_the_changes() {
    for size in SIZES {
        let mut app = noted_app();
        let key_ = ComboKey::new("k-001", "urgency", "classification");
        let event = |who: &str, v: u8, note: &str, kind: &str, at: &str| LabelEvent {
            slot: Slot {
                key: key_.clone(),
                persona_id: "kenton".into(),
                who: who.into(),
                scale: Scale::Likert,
            },
            value: Some(Value::Likert(v)),
            note: note.into(),
            replaced_judge_value: Some(Value::Likert(2)),
            created_at: at.into(),
            blind: false,
            kind: jury::store::EventKind::parse(kind).expect("a label event kind"),
            tags: Vec::new(),
        };
        update(
            &mut app,
            Msg::LabelHistory {
                key: key_.clone(),
                result: Ok(vec![
                    event("alice", 4, MINE, "note", "2026-11-26T10:05:00Z"),
                    event("bob", 5, "agree with alice", "set", "2026-11-26T10:01:00Z"),
                    event("alice", 4, "", "set", "2026-11-26T10:00:00Z"),
                ]),
                marks: Vec::new(),
            },
        );
        let s = screen_at(&mut app, size);
        assert!(s.contains("notes on this row"), "{s}");
        assert!(s.contains("(2pm deadline)."), "{s}");
        assert!(s.contains("press any key"), "{s}");
        insta::assert_snapshot!(format!("history_notes_{}x{}", size.0, size.1), s);
    }
}

#[test]
fn note_and_why_terms_in_the_list_title() {
    for size in SIZES {
        let mut app = noted_app();
        search(&mut app, "note:leeds -why:logistics");
        assert!(listed(&app).is_empty());
        search(&mut app, "note:leeds why:logistics");
        assert_eq!(listed(&app), ["k-001"]);
        let s = screen_at(&mut app, size);
        // (The 80-column list's border cuts the terms.)
        assert!(s.contains("· note:le"), "{s}");
        insta::assert_snapshot!(format!("note_and_why_terms_{}x{}", size.0, size.1), s);
    }
}
