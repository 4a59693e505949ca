//! Adjudication on screen at 80×24 and 160×45: the "to adjudicate" filter
//! with every person's label and note on the focused row, `=` asking for
//! the reference label, and the row once it is given.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::domain::*;
use jury::tui::app::{App, Filter};

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 45)];

fn noted(item: &str, who: &str, v: u8, note: &str) -> Label {
    Label {
        note: note.into(),
        ..label(item, "urgency", who, Value::Likert(v))
    }
}

/// bob and carol disagree on k-002's urgency (5 and 1, with notes); they
/// agree on k-001's (4 and 5).
fn disputed() -> App {
    let mut data = loaded();
    data.labels = vec![
        noted("k-001", "bob", 4, ""),
        noted("k-001", "carol", 5, ""),
        noted("k-002", "bob", 5, "the boss asked"),
        noted("k-002", "carol", 1, "just lunch"),
    ];
    app_with(data)
}

fn screen_at(app: &mut App, (w, h): (u16, u16)) -> String {
    app.chrome.size = (w, h);
    app.scroll_list_to_cursor();
    screen(app)
}

#[test]
fn the_queue_with_equals_pressed() {
    for size in SIZES {
        let mut app = disputed();
        choose_filter(&mut app, Filter::Adjudicate);
        key(&mut app, '=');
        let s = screen_at(&mut app, size);
        assert!(s.contains("adjudicate urgency · k-002: press"), "{s}");
        assert!(s.contains("bob 5"), "{s}");
        assert!(s.contains("carol 1"), "{s}");
        assert!(s.contains("just lunch"), "{s}");
        insta::assert_snapshot!(format!("adjudicate_queue_{}x{}", size.0, size.1), s);
    }
}

#[test]
fn the_row_once_adjudicated() {
    for size in SIZES {
        let mut app = disputed();
        choose_filter(&mut app, Filter::Adjudicate);
        key(&mut app, '=');
        key(&mut app, '2');
        let s = screen_at(&mut app, size);
        assert!(s.contains("adjudicated urgency · k-002 as 2"), "{s}");
        insta::assert_snapshot!(format!("adjudicated_row_{}x{}", size.0, size.1), s);
    }
}
