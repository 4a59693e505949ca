//! Keep moving: after a label the focus goes to the next row of the item
//! that needs the annotator, and with `auto_advance = "item"` on to the
//! next listed item that still does (config `auto_advance`); `n` right
//! after goes back to the label just given; an undo shows the row it undid.

use super::super::app::*;
use crate::config::AutoAdvance;
use crate::domain::{ComboKey, Scale};
use crate::tui::app::mark;
use crate::tui::strings::msg;

/// A label was just given on the focused row.
pub fn after_label(app: &mut App) {
    let mode = app.choices.auto_advance;
    let Some(item) = app.current_index() else {
        return;
    };
    let from = (item, app.list.row);
    if mode == AutoAdvance::Off {
        return;
    }
    let needs = app.rows_needing_me();
    if let Some(r) = (app.list.row + 1..needs.len()).find(|&r| needs[r]) {
        app.list.row = r;
    } else if mode == AutoAdvance::Item {
        let Some(pos) = app.next_item_needing_me() else {
            let done = app.data.marks[item] & mark::DONE != 0;
            app.chrome.info(if done {
                msg::NOTHING_LEFT_FOR_ME
            } else {
                msg::ONLY_THIS_ITEM_LEFT
            });
            return;
        };
        app.list.cursor = pos;
        app.scroll_list_to_cursor();
        app.refresh_detail();
        app.list.row = app.rows_needing_me().iter().position(|&n| n).unwrap_or(0);
        let id = app.current_item().map(|i| i.id.clone()).unwrap_or_default();
        app.chrome
            .info(msg::next_item_for_me(&crate::tui::strings::flat(&id, 40)));
    } else {
        return;
    }
    let to = (app.current_index().unwrap_or(item), app.list.row);
    app.list.advanced = Some(Advanced {
        from,
        to,
        noting: false,
    });
}

/// `n` on a row without the annotator's label right after a label moved the
/// focus there: the focus goes back to the label just given, whose note
/// the editor then opens (`advanced` is what the last action left).
pub fn back_to_label(app: &mut App, advanced: Option<Advanced>) {
    let Some(a) = advanced else { return };
    let here = (app.current_index(), app.list.row);
    let needs = app.rows_needing_me();
    if here != (Some(a.to.0), a.to.1) || !needs.get(a.to.1).copied().unwrap_or(false) {
        return;
    }
    if a.from.0 != a.to.0 && !app.select_item(a.from.0) {
        return;
    }
    app.list.row = a.from.1;
    app.list.advanced = Some(Advanced { noting: true, ..a });
}

/// A note was saved: when `n` had gone back to the label just given, the
/// focus moves on again as after the label.
pub fn after_note(app: &mut App) {
    let Some(a) = app.list.advanced.take() else {
        return;
    };
    if a.noting && (app.current_index(), app.list.row) == (Some(a.from.0), a.from.1) {
        after_label(app);
    }
}

/// Where an undo's label is: `Here` when it is the current item (the focus
/// is on its row), `Moved` when the cursor went to another item to show it,
/// `Hidden` when the list does not hold that item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    Here,
    Moved,
    Hidden,
}

/// Shows the row of an undone label: its item (when listed) and its row.
pub fn show_label(app: &mut App, key: &ComboKey, scale: Scale) -> Shown {
    let Some(&i) = app.data.index_of.get(&key.item_id) else {
        return Shown::Hidden;
    };
    let i = i as usize;
    let shown = if app.current_index() == Some(i) {
        Shown::Here
    } else if app.select_item(i) {
        Shown::Moved
    } else {
        return Shown::Hidden;
    };
    if let Some(r) = app.row_of(key, scale) {
        app.list.row = r;
    }
    shown
}
