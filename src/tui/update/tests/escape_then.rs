//! An Esc and the next key that reach jury in one read arrive as Alt+key:
//! on the main screen, with nothing bound to it, both keys take effect.

use crate::tui::app::{App, Pane};
use crate::tui::fixtures::*;
use crate::tui::msg::Msg;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn alt(app: &mut App, c: KeyCode) {
    update(app, Msg::Key(KeyEvent::new(c, KeyModifiers::ALT)));
}

#[test]
fn alt_tab_unbound_is_an_esc_then_a_tab() {
    let mut app = app();
    search(&mut app, "k-002");
    assert_eq!(listed(&app), ["k-002"]);
    assert_eq!(app.chrome.focus, Pane::List);
    alt(&mut app, KeyCode::Tab);
    // The Esc cleared the search; the Tab moved the focus.
    assert_eq!(listed(&app).len(), 3, "{:?}", listed(&app));
    assert_ne!(app.chrome.focus, Pane::List);
}

#[test]
fn a_bound_alt_key_keeps_its_action_and_a_popup_keeps_alt_keys() {
    let mut app = app();
    app.chrome
        .keymap
        .merge_toml("[keys]\n\"alt-j\" = \"move_down\"\n")
        .unwrap();
    search(&mut app, "k-00");
    let before = app.list.search.clone();
    alt(&mut app, KeyCode::Char('j'));
    assert_eq!(app.list.search, before, "a bound alt-j is no Esc");
    // The search field open: an Alt+key goes to it untouched (no Esc).
    key(&mut app, '/');
    assert!(app.chrome.popup.is_some());
    alt(&mut app, KeyCode::Char('x'));
    assert!(app.chrome.popup.is_some());
}
