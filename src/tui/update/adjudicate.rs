//! Adjudication in the workbench: `=` on a row people disagree on, then a
//! value key, gives the row's reference label (stored as an adjudication
//! with who and when, never as one's own label); `u` undoes it as it undoes
//! a label (one more row in its history).

use super::super::app::adjudication::AdjudicationStep;
use super::super::app::*;
use super::super::input::action::Action;
use super::super::msg::Effect;
use super::Now;
use crate::domain::{Adjudication, AdjudicationSlot, Scale, Value};
use crate::tui::strings::adjudicate as say;

/// The focused row as an adjudication slot (combination, persona, scale).
fn focused_slot(app: &App) -> Option<AdjudicationSlot> {
    if let Some(r) = app.focused_proto_row() {
        return Some((r.key, r.persona_id, r.scale));
    }
    let rows = app.rows();
    let key = rows.get(app.list.row).and_then(|r| app.combo(r))?;
    Some((key, app.persona_id().to_string(), app.choices.mode.scale()))
}

/// `=`: the next value key gives the focused row's reference label, where
/// people disagree (or an adjudication already stands, to change it).
pub fn arm(app: &mut App) {
    let Some((key, persona, scale)) = focused_slot(app) else {
        app.chrome.warn(say::NO_ROW);
        return;
    };
    if !app.data.row_disputed(&key, &persona, scale)
        && app.data.adjudication(&key, &persona, scale).is_none()
    {
        app.chrome.warn(say::NOTHING_TO_SETTLE);
        return;
    }
    app.data.adjudicate_next = true;
    let keys = match scale {
        Scale::Likert => "1–5",
        Scale::Agreement | Scale::Bool => "a / d",
        Scale::Score09 => "0–9",
        Scale::Degree => "1 no · 2 partially · 3 fully",
    };
    app.chrome
        .info(say::armed(&super::marks::row_name(&key), keys));
}

/// The key after `=`: a value key adjudicates (true: the key is used);
/// Esc leaves (used too); any other key is for its own action (false).
pub fn value_key(app: &mut App, action: Action, now: Now, fx: &mut Vec<Effect>) -> bool {
    let value_key = action.likert().is_some()
        || action.score_digit().is_some()
        || matches!(action, Action::Agree | Action::Disagree);
    if action == Action::Cancel {
        app.chrome.info(say::LEFT);
        return true;
    }
    if !value_key {
        return false;
    }
    let Some((key, persona, scale)) = focused_slot(app) else {
        app.chrome.warn(say::NO_ROW);
        return true;
    };
    match value_on(scale, action) {
        Ok(value) => give(app, (key, persona, scale), value, now, fx),
        Err(why) => app.chrome.warn(why),
    }
    true
}

/// What a value key means on a row's scale (as a label key would on it).
fn value_on(scale: Scale, action: Action) -> Result<Value, &'static str> {
    match (scale, action.likert()) {
        // A Likert 3 has no agreement reading: refused on an AGREE row.
        (Scale::Agreement, Some(n)) => Value::Likert(n)
            .as_agreement()
            .map(Value::Agreement)
            .ok_or(crate::tui::strings::msg::UNDECIDED_IN_MODE_3),
        _ => super::label::proto_value(scale, action),
    }
}

fn give(app: &mut App, slot: AdjudicationSlot, value: Value, now: Now, fx: &mut Vec<Effect>) {
    let (key, persona, scale) = slot;
    let a = Adjudication {
        key,
        persona_id: persona,
        value,
        note: String::new(),
        who: app.data.who.clone(),
        created_at: crate::store::timestamp(now),
    };
    let before = app.data.adjudication(&a.key, &a.persona_id, scale).cloned();
    app.data.put_adjudication(&a.slot(), Some(a.clone()));
    app.data.adjudication_undo.push(AdjudicationStep {
        before,
        after: a.clone(),
        labels: app.data.undo.len(),
        marks: app.data.mark_undo.len(),
    });
    changed(app, &a.key.item_id);
    let undo_key = app.chrome.keymap.hint(Action::Undo);
    app.chrome.info(say::given(
        &super::marks::row_name(&a.key),
        &value.as_text(),
        &undo_key,
    ));
    fx.push(Effect::SaveAdjudication(a));
}

/// `u` when this session's newest change is an adjudication: the one
/// before comes back (or none stands). False: the newest change is another's.
pub fn undo(app: &mut App, now: Now, fx: &mut Vec<Effect>) -> bool {
    let newest =
        app.data.adjudication_undo.last().is_some_and(|s| {
            s.labels >= app.data.undo.len() && s.marks >= app.data.mark_undo.len()
        });
    if !newest {
        return false;
    }
    let Some(step) = app.data.adjudication_undo.pop() else {
        return false;
    };
    let at = crate::store::timestamp(now);
    let restore = step.before.clone().map(|a| Adjudication {
        created_at: at.clone(),
        ..a
    });
    let slot = step.after.slot();
    // The next undo of this slot expects what this one writes.
    if let Some(r) = &restore
        && let Some(older) = app
            .data
            .adjudication_undo
            .iter_mut()
            .rev()
            .find(|s| s.after.slot() == slot)
    {
        older.after = r.clone();
    }
    app.data.put_adjudication(&slot, restore.clone());
    changed(app, &slot.0.item_id);
    let back = step.before.as_ref().map(|a| a.value.as_text());
    app.chrome.info(say::undone(
        &super::marks::row_name(&slot.0),
        &step.after.value.as_text(),
        back.as_deref(),
    ));
    fx.push(Effect::UndoAdjudication {
        undoes: step.after,
        restore,
        at,
    });
    true
}

pub fn not_saved(app: &mut App, why: &str) {
    app.chrome
        .error(say::not_saved(&crate::tui::strings::flat(why, 200)));
}

fn changed(app: &mut App, item_id: &str) {
    if let Some(&i) = app.data.index_of.get(item_id) {
        app.item_changed(i as usize);
    }
}
