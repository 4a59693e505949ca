//! Notes as first-class text: searched with `note:`, the item's body with
//! `text:` and the judge's reasoning in view with `why:` (each turned around
//! with `-`), every note of a row in full in the verdict pane and in `h`.

use crate::domain::*;
use crate::store::{LabelEvent, Slot};
use crate::tui::app::{App, Popup};
use crate::tui::fixtures::*;
use crate::tui::msg::Msg;
use crossterm::event::KeyCode;

fn noted(item: &str, c: &str, who: &str, value: Value, note: &str) -> Label {
    Label {
        note: note.into(),
        ..label(item, c, who, value)
    }
}

fn error_under_search(app: &App) -> Option<String> {
    app.list.query.errors.first().cloned()
}

#[test]
fn note_terms_find_anyone_s_note_and_follow_an_edit() {
    let mut data = loaded();
    data.labels = vec![
        noted(
            "k-001",
            "urgency",
            "bob",
            Value::Likert(4),
            "Call the STORES first",
        ),
        noted(
            "k-003",
            "work-pers",
            "carol",
            Value::Likert(5),
            "Déjà payé, voir le relevé",
        ),
    ];
    let mut app = app_with(data);
    search(&mut app, "note:stores");
    assert_eq!(listed(&app), ["k-001"]);
    search(&mut app, "-note:stores");
    assert_eq!(listed(&app), ["k-002", "k-003"]);
    // Lower-cased beyond ASCII too.
    search(&mut app, "note:DÉJÀ");
    assert_eq!(listed(&app), ["k-003"]);
    // The free words still read the id, title and sender only.
    search(&mut app, "stores");
    assert_eq!(listed(&app), ["k-001"]);
    search(&mut app, "relevé");
    assert!(listed(&app).is_empty());
    // A term without its word is left out and says so.
    search(&mut app, "note:");
    assert_eq!(listed(&app), ["k-001", "k-002", "k-003"]);
    let e = error_under_search(&app).expect("an error for `note:`");
    assert!(e.contains("note:") && e.contains("word"), "{e}");

    // A note written in this session is found at the next keystroke.
    search(&mut app, "");
    key(&mut app, 'j');
    assert_eq!(app.current_item().unwrap().id, "k-002");
    key(&mut app, '4');
    key(&mut app, 'n');
    for c in "Lunch booked".chars() {
        key(&mut app, c);
    }
    code(&mut app, KeyCode::Enter);
    search(&mut app, "note:booked");
    assert_eq!(listed(&app), ["k-002"]);
    search(&mut app, "-note:booked");
    assert_eq!(listed(&app), ["k-001", "k-003"]);
}

#[test]
fn text_and_why_terms_read_the_body_and_the_reasoning_in_view() {
    let mut data = loaded();
    data.verdicts = vec![verdict(
        1,
        "k-003",
        "urgency",
        Mode::Two,
        Value::Likert(2),
        "Not urgent, though the sender mentions a LATE fee.",
    )];
    let mut app = app_with(data);
    // `text:` reads the body, not the title ("escalating" is only in k-001's title).
    search(&mut app, "text:ring");
    assert_eq!(listed(&app), ["k-001"]);
    search(&mut app, "text:escalating");
    assert!(listed(&app).is_empty());
    search(&mut app, "-text:thursday");
    assert_eq!(listed(&app), ["k-001", "k-003"]);
    // `why:` reads the judge's text on the rows in view.
    search(&mut app, "why:late");
    assert_eq!(listed(&app), ["k-003"]);
    search(&mut app, "-why:late");
    assert_eq!(listed(&app), ["k-001", "k-002"]);
    // Terms combine with each other and with free words.
    search(&mut app, "why:fee text:invoice 4471");
    assert_eq!(listed(&app), ["k-003"]);
    // Mode 3 shows no verdict: nothing to read.
    key(&mut app, 'm');
    assert_eq!(app.choices.mode, Mode::Three);
    search(&mut app, "why:late");
    assert!(listed(&app).is_empty());
    // A verdict arriving in mode 3 is read at the next keystroke.
    app.data
        .verdicts
        .entry("k-002".into())
        .or_default()
        .push(verdict(
            2,
            "k-002",
            "urgency",
            Mode::Three,
            Value::Agreement(Agreement::Agree),
            "A lunch invitation is never late.",
        ));
    app.item_changed(1);
    search(&mut app, "why:late");
    assert_eq!(listed(&app), ["k-002"]);
    for empty in ["text:", "why:"] {
        search(&mut app, empty);
        let e = error_under_search(&app).expect("an error");
        assert!(e.contains(empty), "{e}");
    }
}

/// The focused row shows every note on it in full, wrapped, escapes made
/// visible; the row and the list mark that a note is there.
#[test]
fn the_verdict_pane_and_the_list_show_every_note_in_full() {
    let mut data = loaded();
    let long = "Rang the sender back: the stores are the Leeds ones, not Hull, so this \
                is Kenton's account after all and the judge was right to call it work. END-ALICE";
    data.labels = vec![
        noted("k-001", "urgency", "alice", Value::Likert(4), long),
        noted(
            "k-001",
            "urgency",
            "bob",
            Value::Likert(5),
            "agree \x1b]0;pwned\x07 with alice END-BOB",
        ),
    ];
    let app = app_with(data);
    let s = screen(&app);
    assert!(s.contains("END-ALICE"), "{s}");
    assert!(s.contains("END-BOB"), "{s}");
    assert!(s.contains("\\e]0;pwned\\x07"), "{s}");
    assert!(!s.contains('\x1b'), "{s}");
    // The list marks the item with a note, not the others.
    // (The list pane is the first 34 columns.)
    let row = |id: &str| -> String {
        let line = s.lines().find(|l| l.contains(id)).unwrap();
        line.chars().take(34).collect()
    };
    assert!(row("k-001").contains('✎'), "{}", row("k-001"));
    assert!(!row("k-002").contains('✎'), "{}", row("k-002"));
}

/// Blind review hides the others' notes as it hides their labels, until
/// the row has one's own label.
#[test]
fn blind_review_hides_the_others_notes_until_one_labels() {
    let mut data = loaded();
    data.labels = vec![noted(
        "k-001",
        "urgency",
        "bob",
        Value::Likert(5),
        "bob thinks URGENT-NOTE",
    )];
    let mut app = app_with(data);
    key(&mut app, 'b');
    assert!(app.choices.blind);
    assert!(!screen(&app).contains("URGENT-NOTE"));
    key(&mut app, '4');
    key(&mut app, '[');
    assert_eq!(app.list.row, 0);
    assert!(screen(&app).contains("URGENT-NOTE"));
}

/// `h` shows the notes on the row in full (everyone's), then the changes.
#[test]
fn history_shows_every_note_in_full() {
    let mut app = app();
    let key_ = ComboKey::new("k-001", "urgency", "classification");
    let event = |who: &str, note: &str, at: &str| LabelEvent {
        slot: Slot {
            key: key_.clone(),
            persona_id: "kenton".into(),
            who: who.into(),
            scale: Scale::Likert,
        },
        value: Some(Value::Likert(4)),
        note: note.into(),
        replaced_judge_value: None,
        created_at: at.into(),
        blind: false,
        kind: crate::store::EventKind::Note,
        tags: Vec::new(),
    };
    let long = "The stores are the Leeds ones, so this is Kenton's account; asked Priya \
                to confirm by Friday and she did. FULL-STOP";
    update(
        &mut app,
        Msg::LabelHistory {
            key: key_.clone(),
            result: Ok(vec![
                event(
                    "bob",
                    "second \x1b[2J thought BOB-END",
                    "2026-11-26T10:00:02Z",
                ),
                event("alice", long, "2026-11-26T10:00:01Z"),
                event("alice", "first try", "2026-11-26T10:00:00Z"),
            ]),
            marks: Vec::new(),
        },
    );
    let Some(Popup::History { lines, .. }) = &app.chrome.popup else {
        panic!("no history popup")
    };
    let all = lines.join("\n");
    assert!(
        all.contains("FULL-STOP") && all.contains("BOB-END"),
        "{all}"
    );
    assert!(!all.contains('\x1b'), "{all}");
    let s = screen(&app);
    assert!(s.contains("FULL-STOP") && s.contains("BOB-END"), "{s}");
    assert!(s.contains("press any key"), "{s}");
}
