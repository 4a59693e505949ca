//! "Come back later": `unsure` and `skip` marks on the focused row, with a
//! note typed in the label note editor. A mark is stored apart from labels
//! (never counted as one), undone by `u` like a label change, and settled
//! when the person labels the row.

use super::super::app::*;
use super::super::input::action::Action;
use super::super::msg::Effect;
use super::Now;
use crate::domain::{ComboKey, MarkKind, RowMark};
use crate::store::MarkSlot;
use crate::tui::strings::marks as say;

/// The focused row as a mark's place: combination, persona and scale.
pub fn focused_slot(app: &App) -> Option<(MarkSlot, crate::domain::Scale)> {
    let who = app.data.who.clone();
    if let Some(r) = app.focused_proto_row() {
        return Some((
            MarkSlot {
                key: r.key,
                persona_id: r.persona_id,
                who,
            },
            r.scale,
        ));
    }
    let rows = app.rows();
    let key = rows.get(app.list.row).and_then(|r| app.combo(r))?;
    Some((
        MarkSlot {
            key,
            persona_id: app.persona_id().to_string(),
            who,
        },
        app.choices.mode.scale(),
    ))
}

fn labelled_by_me(app: &App, s: &MarkSlot) -> bool {
    app.data.labels.get(&s.key.item_id).is_some_and(|ls| {
        ls.iter().any(|e| {
            e.label.key == s.key && e.label.persona_id == s.persona_id && e.label.who == s.who
        })
    })
}

/// `l` / `z`: the note editor for a mark on the focused row (its note so
/// far when the row is marked already).
pub fn open(app: &mut App, mark: MarkKind) {
    let Some((slot, scale)) = focused_slot(app) else {
        app.chrome.warn(say::NO_ROW_TO_MARK);
        return;
    };
    if labelled_by_me(app, &slot) {
        let undo = app.chrome.keymap.hint(Action::Undo);
        app.chrome.warn(say::already_labelled(&undo));
        return;
    }
    let note = app
        .data
        .my_mark(&slot.key, &slot.persona_id)
        .map(|m| m.note.clone())
        .unwrap_or_default();
    app.chrome.popup = Some(Popup::Input {
        kind: InputKind::MarkNote(mark),
        area: Box::new(super::label::note_area(&note)),
        target: Some((slot.key, scale)),
        error: None,
    });
}

/// The note editor submitted: the mark is set and handed to the writer.
pub fn submit(
    app: &mut App,
    mark: MarkKind,
    key: ComboKey,
    note: String,
    now: Now,
    fx: &mut Vec<Effect>,
) {
    let Some((slot, _)) = focused_slot(app).filter(|(s, _)| s.key == key) else {
        return;
    };
    let at = crate::store::timestamp(now);
    let after = RowMark {
        key: slot.key.clone(),
        persona_id: slot.persona_id.clone(),
        who: slot.who.clone(),
        mark,
        note,
        created_at: at.clone(),
    };
    let before = app.data.my_mark(&slot.key, &slot.persona_id).cloned();
    app.data.put_mark(&slot, Some(after.clone()));
    let at_len = app.data.undo.len();
    app.data.mark_undo.push((
        at_len,
        MarkStep {
            slot: slot.clone(),
            before,
            after: after.clone(),
        },
    ));
    changed(app, &slot.key);
    // A mark is an answer for now: the focus moves on as after a label, and
    // the message says both what was marked and where the focus went.
    let said = say::marked(&row_name(&slot.key), mark.as_str());
    app.chrome.message = None;
    super::advance::after_label(app);
    app.list.advanced = None;
    let said = match app.chrome.message.take() {
        Some((_, next)) => format!("{said} · {next}"),
        None => said,
    };
    app.chrome.info(said);
    fx.push(Effect::SaveMark {
        slot,
        mark: Some((mark, after.note)),
        at,
        kind: crate::store::MarkEventKind::Mark,
    });
}

/// A label given on a row settles the labeller's mark there (the store
/// does the same in the label's own write).
pub fn settle(app: &mut App, key: &ComboKey, persona: &str) {
    let slot = MarkSlot {
        key: key.clone(),
        persona_id: persona.to_string(),
        who: app.data.who.clone(),
    };
    if app.data.my_mark(key, persona).is_some() {
        app.data.put_mark(&slot, None);
        changed(app, key);
    }
}

/// `u` takes a mark back when no label change of this session came after
/// it: returns false when the newest change is a label's.
pub fn undo(app: &mut App, now: Now, fx: &mut Vec<Effect>) -> bool {
    let newest = matches!(app.data.mark_undo.last(), Some((at, _)) if *at >= app.data.undo.len());
    if !newest {
        return false;
    }
    let Some((_, step)) = app.data.mark_undo.pop() else {
        return false;
    };
    let at = crate::store::timestamp(now);
    let restore = step.before.clone().map(|m| RowMark {
        created_at: at.clone(),
        ..m
    });
    app.data.put_mark(&step.slot, restore.clone());
    changed(app, &step.slot.key);
    let back = step.before.as_ref().map(|m| m.mark.as_str());
    app.chrome.info(say::mark_undone(
        &row_name(&step.slot.key),
        step.after.mark.as_str(),
        back,
    ));
    fx.push(Effect::SaveMark {
        slot: step.slot,
        mark: restore.map(|m| (m.mark, m.note)),
        at,
        kind: crate::store::MarkEventKind::Undo,
    });
    true
}

/// A mark the store refused. While the store is away (the writer said
/// so) it is held and handed over again when the store is back, as the
/// labels are; otherwise the refusal is said.
pub fn not_saved(app: &mut App, err: &str, retry: Option<Effect>) {
    if let Some(write) = retry.filter(|_| app.data.store_away.is_some()) {
        app.data.marks_away.push(write);
        app.chrome
            .warn(say::mark_kept_while_away(app.data.marks_away.len()));
        return;
    }
    app.chrome
        .error(say::mark_not_saved(&crate::tui::strings::flat(err, 200)));
}

fn changed(app: &mut App, key: &ComboKey) {
    if let Some(&i) = app.data.index_of.get(&key.item_id) {
        app.item_changed(i as usize);
    }
}

/// "urgency · k-001".
pub fn row_name(k: &ComboKey) -> String {
    format!(
        "{} · {}",
        crate::tui::strings::flat(&k.classification_id, 30),
        crate::tui::strings::flat(&k.item_id, 40)
    )
}
