//! A team on one store, on screen at 80×24 and 160×45: my queue with the
//! items assigned to me first and its border counting them ("N of M
//! assigned done · K left"), bob's label and note hidden on the item
//! assigned to me until I label the row, then shown.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::domain::*;
use jury::tui::app::{App, Filter};

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 45)];

/// Labelling as alice, k-003 and k-002 assigned to her; bob labelled
/// k-003's urgency with a note and k-001 whole.
fn team() -> App {
    let mut data = loaded();
    let mut noted = label("k-003", "urgency", "bob", Value::Likert(5));
    noted.note = "overdue invoices are urgent for us".into();
    data.labels = vec![
        label("k-001", "urgency", "bob", Value::Likert(4)),
        label("k-001", "work-pers", "bob", Value::Likert(4)),
        noted,
    ];
    let mut app = app_with(data);
    app.set_team(["k-003".to_string(), "k-002".to_string()], &[]);
    choose_filter(&mut app, Filter::NotMine);
    app
}

fn screen_at(app: &mut App, (w, h): (u16, u16)) -> String {
    app.chrome.size = (w, h);
    app.scroll_list_to_cursor();
    screen(app)
}

#[test]
fn my_queue_with_assigned_items_first_hides_bobs_label_until_i_label() {
    for size in SIZES {
        let mut app = team();
        assert_eq!(listed(&app), ["k-002", "k-003", "k-001"]);
        key(&mut app, 'j');
        assert_eq!(app.current_item().unwrap().id, "k-003");
        let s = screen_at(&mut app, size);
        assert!(!s.contains("bob"), "{s}");
        assert!(!s.contains("overdue invoices are urgent"), "{s}");
        // No "labelled" or note mark from bob in the list either.
        assert!(s.contains("│     k-003 Invoice"), "{s}");
        let progress = if size.0 >= 160 {
            "0 of 2 assigned done · 2 left"
        } else {
            "0/2 assigned"
        };
        assert!(s.contains(progress), "{s}");
        insta::assert_snapshot!(format!("team_hidden_{}x{}", size.0, size.1), s);
    }
}

#[test]
fn bobs_label_and_note_appear_once_i_labelled_the_row() {
    for size in SIZES {
        let mut app = team();
        key(&mut app, 'j');
        key(&mut app, '2');
        let s = screen_at(&mut app, size);
        assert!(s.contains("others: bob 5"), "{s}");
        assert!(s.contains("✎ bob: overdue invoices"), "{s}");
        insta::assert_snapshot!(format!("team_shown_{}x{}", size.0, size.1), s);
    }
}
