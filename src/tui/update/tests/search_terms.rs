//! The search reads marks' notes (`note:kenton` finds "ask Kenton…"), and
//! the search popup and the help name every term it reads and `o`'s random
//! sample.

use crate::tui::fixtures::*;
use crossterm::event::KeyCode;

#[test]
fn note_finds_the_note_of_an_unsure_mark() {
    let mut app = app();
    key(&mut app, 'j');
    key(&mut app, 'l');
    for c in "ask Kenton about the stores".chars() {
        key(&mut app, c);
    }
    code(&mut app, KeyCode::Enter);
    search(&mut app, "note:kenton");
    assert_eq!(listed(&app), ["k-002"]);
    search(&mut app, "-note:kenton");
    assert_eq!(listed(&app), ["k-001", "k-003"]);
    // The mark taken back: the note goes from the search too.
    code(&mut app, KeyCode::Esc);
    key(&mut app, 'u');
    search(&mut app, "note:kenton");
    assert!(listed(&app).is_empty(), "{:?}", listed(&app));
}

#[test]
fn the_search_popup_and_the_help_name_every_term() {
    let terms = [
        "cls=value",
        "judge:cls=value",
        "by:name",
        "tag:name",
        "split:test",
        "conf<0.6",
        "text:word",
        "why:word",
        "note:word",
        "-term",
    ];
    for size in [(80, 24), (160, 45)] {
        let mut app = app();
        app.chrome.size = size;
        key(&mut app, '/');
        let s = screen(&app);
        for t in terms {
            assert!(s.contains(t), "{size:?} {t}:\n{s}");
        }
    }
    // The help's lines, as `?` shows them (scrolled).
    let app = app();
    let help: String = crate::tui::layout::help::lines(&app)
        .iter()
        .filter_map(|l| match l {
            crate::tui::layout::help::HelpLine::Note(t) => Some(format!("{t}\n")),
            _ => None,
        })
        .collect();
    for t in [
        "tag:persona-misread",
        "conf<0.6",
        "text:kettle",
        "why:invoice",
        "note:ring",
        "-by:alice",
        "random sample",
    ] {
        assert!(help.contains(t), "{t}:\n{help}");
    }
}
