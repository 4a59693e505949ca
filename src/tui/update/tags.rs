//! Tags on a label (why the judge was wrong), from the configured set: `T`
//! opens a picker on the focused row's label whose pick key toggles the
//! highlighted tag. Each toggle is a label change: saved by the label
//! writer, kept in the label's history, undone by `u`.

use super::super::app::*;
use super::super::input::action::{Action, PopupAction, PopupKind};
use super::super::msg::Effect;
use super::Now;
use crate::domain::{ComboKey, Scale};
use crate::tui::strings::marks as say;
use crossterm::event::KeyEvent;

/// The focused row's label of mine: its place (combination, persona, scale).
fn my_label_place(app: &App) -> Option<(ComboKey, String, Scale)> {
    if let Some(r) = app.focused_proto_row() {
        let e = app.proto_label(&r)?;
        return Some((r.key, r.persona_id, e.label.value.scale()));
    }
    let rows = app.rows();
    let key = rows.get(app.list.row).and_then(|r| app.combo(r))?;
    let e = app.my_label(&key, app.choices.mode.scale())?;
    Some((key, app.persona_id().to_string(), e.label.value.scale()))
}

/// `T`: the tag picker on the focused row's label (on the label just given,
/// when that label moved the focus on, as `n` does: the focus goes back to
/// it, and on again once the picker closes).
pub fn open(app: &mut App, advanced: Option<Advanced>) {
    if app.data.tag_set.is_empty() {
        app.chrome.warn(say::NO_TAGS);
        return;
    }
    super::advance::back_to_label(app, advanced);
    if super::marks::focused_slot(app).is_none() {
        app.chrome.warn(say::NO_ROW_TO_TAG);
        return;
    }
    let Some((key, persona, scale)) = my_label_place(app) else {
        let tag_key = app.chrome.keymap.hint(Action::PickTags);
        app.chrome.warn(say::label_first(&tag_key));
        return;
    };
    app.chrome.popup = Some(Popup::Tags {
        key,
        persona,
        scale,
        cursor: 0,
    });
}

/// The tags the label at this place carries now.
pub fn current(app: &App, key: &ComboKey, persona: &str, scale: Scale) -> Vec<String> {
    entry(app, key, persona, scale)
        .map(|e| e.label.tags.clone())
        .unwrap_or_default()
}

fn entry<'a>(app: &'a App, key: &ComboKey, persona: &str, scale: Scale) -> Option<&'a LabelEntry> {
    app.data.labels.get(&key.item_id)?.iter().find(|e| {
        e.label.key == *key
            && e.label.persona_id == persona
            && e.label.who == app.data.who
            && e.label.value.scale() == scale
    })
}

/// A key on the tag picker: the picker's keys move, pick toggles, close closes.
pub fn popup_key(
    app: &mut App,
    (key, persona, scale, mut cursor): (ComboKey, String, Scale, usize),
    k: KeyEvent,
    now: Now,
    fx: &mut Vec<Effect>,
) {
    let n = app.data.tag_set.len();
    match app.chrome.keymap.popup_action(PopupKind::Picker, &k) {
        Some(PopupAction::Close) => {
            // Opened right after a label: the focus moves on again.
            super::advance::after_note(app);
            return;
        }
        Some(PopupAction::Pick) => toggle(app, &key, &persona, scale, cursor, now, fx),
        Some(PopupAction::Next) => cursor = (cursor + 1).min(n.saturating_sub(1)),
        Some(PopupAction::Previous) => cursor = cursor.saturating_sub(1),
        Some(PopupAction::First) => cursor = 0,
        Some(PopupAction::Last) => cursor = n.saturating_sub(1),
        _ => {}
    }
    app.chrome.popup = Some(Popup::Tags {
        key,
        persona,
        scale,
        cursor,
    });
}

fn toggle(
    app: &mut App,
    key: &ComboKey,
    persona: &str,
    scale: Scale,
    cursor: usize,
    now: Now,
    fx: &mut Vec<Effect>,
) {
    let Some(tag) = app.data.tag_set.get(cursor).cloned() else {
        return;
    };
    let req = app.data.take_req();
    let who = app.data.who.clone();
    let Some(e) = app.data.labels.get_mut(&key.item_id).and_then(|ls| {
        ls.iter_mut().find(|e| {
            e.label.key == *key
                && e.label.persona_id == persona
                && e.label.who == who
                && e.label.value.scale() == scale
        })
    }) else {
        return;
    };
    let before = e.label.clone();
    let mut tags = e.label.tags.clone();
    match tags.iter().position(|t| *t == tag) {
        Some(i) => {
            tags.remove(i);
        }
        None => tags.push(tag),
    }
    tags.sort();
    e.label.tags = tags;
    e.label.created_at = crate::store::timestamp(now);
    e.state = SaveState::Pending(req);
    let after = e.label.clone();
    app.data.undo.push(UndoStep {
        before: Some(before),
        after: after.clone(),
    });
    if let Some(&i) = app.data.index_of.get(&key.item_id) {
        app.item_changed(i as usize);
    }
    fx.push(Effect::SaveLabel { req, label: after });
}
