//! "Come back later" marks and label tags on screen, at 80×24 and 160×45:
//! the mark's note editor, a marked row (the list's `?`, the row's mark and
//! note) under the "marked unsure/skip by me" filter, and the tag picker
//! with a tag on, the row showing it.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use crossterm::event::KeyCode;
use jury::domain::*;
use jury::tui::app::{App, Filter};

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 45)];

/// The judge said Likert 2 on k-001's urgency.
fn judged() -> App {
    let mut data = loaded();
    data.verdicts = vec![verdict(
        1,
        "k-001",
        "urgency",
        Mode::Two,
        Value::Likert(2),
        "Not urgent: the stores can wait.",
    )];
    app_with(data)
}

fn screen_at(app: &mut App, (w, h): (u16, u16)) -> String {
    app.chrome.size = (w, h);
    app.scroll_list_to_cursor();
    screen(app)
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, c);
    }
}

#[test]
fn the_mark_note_editor() {
    for size in SIZES {
        let mut app = judged();
        key(&mut app, 'l');
        type_text(&mut app, "sarcasm or not?");
        let s = screen_at(&mut app, size);
        assert!(s.contains("unsure: a note for later"), "{s}");
        insta::assert_snapshot!(format!("mark_note_editor_{}x{}", size.0, size.1), s);
    }
}

#[test]
fn a_marked_row_under_the_marked_by_me_filter() {
    for size in SIZES {
        let mut app = judged();
        key(&mut app, 'l');
        type_text(&mut app, "sarcasm or not?");
        code(&mut app, KeyCode::Enter);
        while app.list.filter != Filter::MarkedByMe {
            key(&mut app, 'f');
        }
        let s = screen_at(&mut app, size);
        assert!(
            s.contains("? unsure:") && s.contains("sarcasm or not?"),
            "{s}"
        );
        assert!(s.contains("marked unsure/skip by me"), "{s}");
        assert!(s.contains("0/1 labelled by me"), "a mark is no label: {s}");
        insta::assert_snapshot!(format!("marked_row_{}x{}", size.0, size.1), s);
    }
}

#[test]
fn the_tag_picker_and_a_tagged_row() {
    for size in SIZES {
        let mut app = judged();
        key(&mut app, '5');
        key(&mut app, 'T');
        code(&mut app, KeyCode::Enter);
        let s = screen_at(&mut app, size);
        assert!(s.contains("[x] persona-misread"), "{s}");
        assert!(s.contains("[ ] injection-worked"), "{s}");
        insta::assert_snapshot!(format!("tag_picker_{}x{}", size.0, size.1), s);
        code(&mut app, KeyCode::Esc);
        let s = screen_at(&mut app, size);
        assert!(s.contains("#persona-misread"), "{s}");
        insta::assert_snapshot!(format!("tagged_row_{}x{}", size.0, size.1), s);
    }
}
