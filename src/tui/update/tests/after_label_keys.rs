//! Keys right after a label that moved the focus on: `T` tags the label just
//! given (as `n` notes it), and a mark (`l`/`z`) moves the focus on as a
//! label does.

use crate::config::AutoAdvance;
use crate::domain::*;
use crate::tui::app::{App, Popup};
use crate::tui::fixtures::*;
use crate::tui::msg::Effect;
use crossterm::event::KeyCode;

fn at(app: &App) -> (String, usize) {
    let id = app.current_item().map(|i| i.id.clone()).unwrap_or_default();
    (id, app.list.row)
}

fn advancing(mode: AutoAdvance) -> App {
    let mut app = app();
    app.choices.auto_advance = mode;
    app
}

#[test]
fn t_right_after_a_label_tags_that_label_then_the_focus_moves_on_again() {
    for mode in [AutoAdvance::Row, AutoAdvance::Item] {
        let mut app = advancing(mode);
        key(&mut app, '2');
        assert_eq!(at(&app), ("k-001".into(), 1), "{mode:?}");
        // `T` on the row the label moved to: the picker opens on the label
        // just given, not "label this row first".
        assert!(key(&mut app, 'T').is_empty());
        assert!(
            matches!(&app.chrome.popup, Some(Popup::Tags { key, .. })
                if *key == ComboKey::new("k-001", "urgency", "classification")),
            "{mode:?}: {}",
            message(&app)
        );
        assert_eq!(at(&app), ("k-001".into(), 0));
        let fx = code(&mut app, KeyCode::Enter);
        let [Effect::SaveLabel { label, .. }] = &fx[..] else {
            panic!("{fx:?}")
        };
        assert_eq!(label.key.classification_id, "urgency");
        assert_eq!(label.tags, [app.data.tag_set[0].clone()]);
        // Closed: on again to where the label had moved the focus.
        code(&mut app, KeyCode::Esc);
        assert!(app.chrome.popup.is_none());
        assert_eq!(at(&app), ("k-001".into(), 1), "{mode:?}");
        // The item's last row: in item mode the label moved to k-002; `T`
        // comes back to k-001's row.
        key(&mut app, '4');
        if mode == AutoAdvance::Item {
            assert_eq!(at(&app), ("k-002".into(), 0));
            key(&mut app, 'T');
            assert_eq!(at(&app), ("k-001".into(), 1));
            code(&mut app, KeyCode::Esc);
            assert_eq!(at(&app), ("k-002".into(), 0));
        }
    }
    // With a key between, `T` is about the focused row again.
    let mut app = advancing(AutoAdvance::Row);
    key(&mut app, '2');
    key(&mut app, 'j');
    key(&mut app, 'k');
    key(&mut app, 'T');
    assert!(app.chrome.popup.is_none());
    assert!(message(&app).starts_with("label this row first"));
}

#[test]
fn a_mark_moves_the_focus_on_as_a_label_does() {
    let mut app = advancing(AutoAdvance::Item);
    key(&mut app, 'l');
    for c in "ask".chars() {
        key(&mut app, c);
    }
    let fx = code(&mut app, KeyCode::Enter);
    assert!(matches!(&fx[..], [Effect::SaveMark { .. }]), "{fx:?}");
    assert_eq!(at(&app), ("k-001".into(), 1));
    assert!(message(&app).starts_with("marked unsure: urgency · k-001"));
    // The item's last row, skipped: on to the next item, both said.
    key(&mut app, 'z');
    code(&mut app, KeyCode::Enter);
    assert_eq!(at(&app), ("k-002".into(), 0));
    let m = message(&app);
    assert!(
        m.starts_with("marked skip: work-pers · k-001")
            && m.ends_with("next item without your label: k-002"),
        "{m}"
    );
    // Row mode: within the item only.
    let mut app = advancing(AutoAdvance::Row);
    key(&mut app, 'z');
    code(&mut app, KeyCode::Enter);
    assert_eq!(at(&app), ("k-001".into(), 1));
    key(&mut app, 'z');
    code(&mut app, KeyCode::Enter);
    assert_eq!(at(&app), ("k-001".into(), 1));
    // `n` right after a mark does not go back (there is no label to note).
    key(&mut app, 'n');
    assert!(app.chrome.popup.is_none());
    assert_eq!(at(&app), ("k-001".into(), 1));
}
