//! My queue on screen, at 80×24 and 160×45: the "not labelled by me"
//! filter with a negated search term in the list's borders, the message and
//! focus after `auto_advance = "item"` moved on to the next item, and `u`
//! going back to the item of the label it undid.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use crossterm::event::KeyCode;
use jury::config::AutoAdvance;
use jury::domain::*;
use jury::tui::app::{App, Filter};

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 45)];

/// Labelling as alice: bob labelled k-001, alice k-002; the judge said
/// Likert 2 on k-003's urgency.
fn queue() -> App {
    let mut data = loaded();
    data.verdicts = vec![verdict(
        1,
        "k-003",
        "urgency",
        Mode::Two,
        Value::Likert(2),
        "Not urgent: an overdue invoice can wait a day.",
    )];
    data.labels = vec![
        label("k-001", "urgency", "bob", Value::Likert(4)),
        label("k-001", "work-pers", "bob", Value::Likert(4)),
        label("k-002", "urgency", "alice", Value::Likert(1)),
        label("k-002", "work-pers", "alice", Value::Likert(5)),
    ];
    let mut app = app_with(data);
    app.choices.auto_advance = AutoAdvance::Item;
    app
}

fn screen_at(app: &mut App, (w, h): (u16, u16)) -> String {
    app.chrome.size = (w, h);
    app.scroll_list_to_cursor();
    screen(app)
}

#[test]
fn not_labelled_by_me_with_a_negated_term() {
    for size in SIZES {
        let mut app = queue();
        while app.list.filter != Filter::NotMine {
            key(&mut app, 'f');
        }
        key(&mut app, '/');
        for c in "-by:bob".chars() {
            key(&mut app, c);
        }
        code(&mut app, KeyCode::Enter);
        let s = screen_at(&mut app, size);
        assert!(s.contains("k-003") && !s.contains("k-001 "), "{s}");
        // The queue's progress over what the search keeps (done items left).
        assert!(s.contains("done"), "{s}");
        insta::assert_snapshot!(format!("not_mine_negated_{}x{}", size.0, size.1), s);
    }
}

#[test]
fn a_label_on_the_last_row_moves_on_to_the_next_item_that_needs_me() {
    for size in SIZES {
        let mut app = queue();
        key(&mut app, '2');
        key(&mut app, '3');
        let s = screen_at(&mut app, size);
        assert_eq!(app.current_item().unwrap().id, "k-003");
        assert!(s.contains("next item without your label: k-003"), "{s}");
        insta::assert_snapshot!(format!("advanced_to_next_item_{}x{}", size.0, size.1), s);
    }
}

#[test]
fn undo_goes_back_to_the_item_of_the_label() {
    for size in SIZES {
        let mut app = queue();
        key(&mut app, '2');
        key(&mut app, '3');
        key(&mut app, 'u');
        let s = screen_at(&mut app, size);
        assert_eq!(app.current_item().unwrap().id, "k-001");
        assert_eq!(app.list.row, 1);
        assert!(s.contains("no label · now showing k-001"), "{s}");
        insta::assert_snapshot!(format!("undo_moved_back_{}x{}", size.0, size.1), s);
    }
}
