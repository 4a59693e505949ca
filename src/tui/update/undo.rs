//! Undo of this session's label changes and the label history popup. An
//! undo is stored as one more change (the earlier answer restored, or the
//! label retracted), never as a deletion from the history.

use super::super::app::*;
use super::super::msg::Effect;
use super::Now;
use crate::domain::{ComboKey, Label};
use crate::store::{LabelEvent, LabelUndo, Slot};
use crate::tui::strings::session as s;

/// `u`: walks this session's label changes back, newest first, on any item.
pub fn undo(app: &mut App, now: Now, fx: &mut Vec<Effect>) {
    // The newest change may be an adjudication's, or a mark's.
    if super::adjudicate::undo(app, now, fx) {
        return;
    }
    if super::marks::undo(app, now, fx) {
        return;
    }
    let Some(step) = app.data.undo.pop() else {
        app.chrome.info(s::NOTHING_TO_UNDO);
        return;
    };
    let slot = Slot::of(&step.after);
    let at = crate::store::timestamp(now);
    let req = app.data.take_req();
    let restore = step.before.clone().map(|l| Label {
        created_at: at.clone(),
        ..l
    });
    // The next undo of this slot reverts to what this one writes: that is
    // the label it then expects to find (the store checks it).
    if let Some(l) = &restore
        && let Some(older) = app
            .data
            .undo
            .iter_mut()
            .rev()
            .find(|s| Slot::of(&s.after) == slot)
    {
        older.after = l.clone();
    }
    let entries = app.data.labels.entry(slot.key.item_id.clone()).or_default();
    let i = entries.iter().position(|e| Slot::of(&e.label) == slot);
    match (&restore, i) {
        (Some(l), Some(i)) => {
            entries[i].label = l.clone();
            entries[i].state = SaveState::Pending(req);
        }
        (Some(l), None) => entries.push(LabelEntry {
            label: l.clone(),
            state: SaveState::Pending(req),
        }),
        (None, Some(i)) => {
            entries.remove(i);
            app.data.undo_pending.insert(req, step.clone());
        }
        (None, None) => {
            app.data.undo_pending.insert(req, step.clone());
        }
    }
    if let Some(&i) = app.data.index_of.get(&slot.key.item_id) {
        app.item_changed(i as usize);
    }
    let (what, undone) = (row_name(&slot.key), step.after.value.as_text());
    let back = step.before.as_ref().map(|l| l.value.as_text());
    let back = back.as_deref();
    // The row undone is shown: a person sees what went back.
    let id = crate::tui::strings::flat(&slot.key.item_id, 40);
    let said = match super::advance::show_label(app, &slot.key, slot.scale) {
        super::advance::Shown::Here => s::undone(&what, &undone, back),
        super::advance::Shown::Moved => s::undone_elsewhere(&what, &undone, back, &id),
        super::advance::Shown::Hidden => s::undone_unlisted(&what, &undone, back, &id),
    };
    app.chrome.info(said);
    fx.push(Effect::UndoLabel {
        req,
        undo: LabelUndo {
            slot,
            restore,
            at,
            undoes: Box::new(step.after),
        },
    });
}

/// The writer answered a retraction: a refused one puts the label back as
/// the store still holds it, and the step back on the stack.
pub fn retraction_answered(app: &mut App, req: u64, result: Result<(), String>) {
    let Some(step) = app.data.undo_pending.remove(&req) else {
        return;
    };
    let Err(err) = result else {
        return;
    };
    let key = step.after.key.clone();
    app.data
        .labels
        .entry(key.item_id.clone())
        .or_default()
        .push(LabelEntry {
            label: step.after.clone(),
            state: SaveState::Saved,
        });
    app.data.undo.push(step);
    if let Some(&i) = app.data.index_of.get(&key.item_id) {
        app.item_changed(i as usize);
    }
    app.chrome.error(s::undo_failed(
        &row_name(&key),
        &crate::tui::strings::flat(&err, 200),
    ));
}

/// The store refused undo `req`: the label changed since (another process,
/// `jury label`). Nothing was changed: the workbench shows the label the
/// store holds now and says what it is; the step is spent.
pub fn undo_refused(app: &mut App, req: u64, current: Option<Label>, why: &str) {
    let slot = match app.data.undo_pending.remove(&req) {
        Some(step) => Some(Slot::of(&step.after)),
        None => app
            .data
            .labels
            .values()
            .flatten()
            .find(|e| e.state == SaveState::Pending(req))
            .map(|e| Slot::of(&e.label)),
    };
    let Some(slot) = slot else { return };
    let entries = app.data.labels.entry(slot.key.item_id.clone()).or_default();
    entries.retain(|e| Slot::of(&e.label) != slot);
    if let Some(label) = current {
        entries.push(LabelEntry {
            label,
            state: SaveState::Saved,
        });
    }
    if let Some(&i) = app.data.index_of.get(&slot.key.item_id) {
        app.item_changed(i as usize);
    }
    app.chrome.warn(format!(
        "{}: {}",
        row_name(&slot.key),
        crate::tui::strings::flat(why, 200)
    ));
}

/// `h`: asks the store for the focused row's history.
pub fn open_history(app: &mut App, fx: &mut Vec<Effect>) {
    let key = match app.focused_proto_row() {
        Some(r) => Some(r.key),
        None => app.rows().get(app.list.row).and_then(|r| app.combo(r)),
    };
    let Some(key) = key else {
        app.chrome.warn(s::NO_ROW_FOR_HISTORY);
        return;
    };
    app.chrome.info(s::LOADING_HISTORY);
    fx.push(Effect::LoadLabelHistory(key));
}

/// The store answered: the popup opens when nothing else took the screen.
pub fn history_loaded(
    app: &mut App,
    key: ComboKey,
    result: Result<Vec<LabelEvent>, String>,
    marks: Vec<crate::store::MarkEvent>,
) {
    if matches!(app.chrome.message, Some((Level::Info, ref m)) if m == s::LOADING_HISTORY) {
        app.chrome.message = None;
    }
    let events = match result {
        Ok(ev) => ev,
        Err(e) => {
            app.chrome
                .error(s::history_failed(&crate::tui::strings::flat(&e, 200)));
            return;
        }
    };
    if app.chrome.popup.is_some() {
        return;
    }
    // Blind review and blind double-coding hide the others' part here too.
    let (events, marks) = app.visible_history(&key, events, marks);
    // Labels and marks, newest first (timestamps sort as text).
    let mut dated: Vec<(&str, String)> = events
        .iter()
        .map(|e| (e.created_at.as_str(), history_line(e)))
        .chain(marks.iter().map(|m| (m.created_at.as_str(), mark_line(m))))
        .collect();
    dated.sort_by(|a, b| b.0.cmp(a.0));
    let mut lines = current_notes(&events);
    if !lines.is_empty() {
        lines.push(String::new());
        lines.push(s::CHANGES.into());
    }
    let changes = dated.len();
    lines.extend(dated.into_iter().map(|(_, l)| l));
    if changes == 0 {
        lines.push(s::NO_HISTORY.into());
    }
    app.chrome.popup = Some(Popup::History {
        title: s::history_title(&row_name(&key)),
        lines,
    });
}

/// The note each person's label on the row carries now (the newest event of
/// each label, unless it was retracted), sanitised, under a heading; nothing
/// when no label has one. A long note shows its first lines, each cut to a
/// few rows, then how much more it holds: a 5 000-line or 1 MB note would
/// otherwise fill (or, taller than the screen, empty) the popup.
fn current_notes(events: &[LabelEvent]) -> Vec<String> {
    let mut seen: Vec<&Slot> = Vec::new();
    let mut out = Vec::new();
    // Newest first: the first event of a label is its current state.
    for e in events {
        if seen.contains(&&e.slot) {
            continue;
        }
        seen.push(&e.slot);
        if e.value.is_none() || e.note.is_empty() {
            continue;
        }
        let head = format!(
            "✎ {} ({}, {}): ",
            crate::tui::strings::flat(&e.slot.who, 24),
            crate::tui::strings::flat(&e.slot.persona_id, 20),
            e.slot.scale.as_str(),
        );
        out.extend(note_lines(&e.note, head));
    }
    if !out.is_empty() {
        out.insert(0, s::NOTES_NOW.into());
    }
    out
}

/// Lines of one note shown in the history.
const NOTE_LINES: usize = 8;
/// Characters of one line of a note shown (four rows at 80 columns).
const NOTE_LINE_CHARS: usize = 300;

/// A note's first [`NOTE_LINES`] lines, each sanitised and cut at
/// [`NOTE_LINE_CHARS`], the first after `head`; then how many lines (or,
/// for a note of few long lines, characters) were left out.
fn note_lines(note: &str, head: String) -> Vec<String> {
    let mut out = Vec::new();
    let mut cut_chars = 0usize;
    let mut total = 0usize;
    for (n, line) in note.lines().enumerate() {
        total = n + 1;
        if n >= NOTE_LINES {
            continue;
        }
        let (shown, rest) = crate::sanitize::split_chars(line, NOTE_LINE_CHARS);
        cut_chars += rest.chars().count();
        let mut text = crate::sanitize::one_line(shown, NOTE_LINE_CHARS);
        if !rest.is_empty() {
            text.push('…');
        }
        out.push(if n == 0 {
            format!("{head}{text}")
        } else {
            text
        });
    }
    if total > NOTE_LINES {
        out.push(s::note_more_lines(total - NOTE_LINES));
    } else if cut_chars > 0 {
        out.push(s::note_more_chars(cut_chars));
    }
    out
}

/// One change: when, who (persona), the value on its scale, the judge value
/// it replaced, why it changed, and the note's start. Every text sanitised.
fn history_line(e: &LabelEvent) -> String {
    let when: String = crate::tui::strings::flat(&e.created_at, 40)
        .replace('T', " ")
        .chars()
        .take(19)
        .collect();
    let value = match e.value {
        Some(v) => v.as_text(),
        None => s::RETRACTED.into(),
    };
    let mut line = format!(
        "{when}  {} ({})  {} {}",
        crate::tui::strings::flat(&e.slot.who, 24),
        crate::tui::strings::flat(&e.slot.persona_id, 20),
        e.slot.scale.as_str(),
        value,
    );
    if let Some(j) = e.replaced_judge_value {
        line.push_str(&format!("  replaced judge {}", j.as_text()));
    }
    if e.blind {
        line.push_str("  blind");
    }
    for t in &e.tags {
        line.push_str(&format!("  #{}", crate::tui::strings::flat(t, 30)));
    }
    line.push_str(&format!("  [{}]", e.kind.as_str()));
    if !e.note.is_empty() {
        line.push_str(&format!("  “{}”", crate::tui::strings::flat(&e.note, 40)));
    }
    line
}

/// One mark change: when, who (persona), the mark or its clearing, why,
/// and the note's start.
fn mark_line(m: &crate::store::MarkEvent) -> String {
    let when: String = crate::tui::strings::flat(&m.created_at, 40)
        .replace('T', " ")
        .chars()
        .take(19)
        .collect();
    let what = match m.mark {
        Some(k) => format!("marked {}", k.as_str()),
        None => "mark cleared".to_string(),
    };
    let mut line = format!(
        "{when}  {} ({})  {what}  [{}]",
        crate::tui::strings::flat(&m.slot.who, 24),
        crate::tui::strings::flat(&m.slot.persona_id, 20),
        m.kind.as_str(),
    );
    if !m.note.is_empty() {
        line.push_str(&format!("  “{}”", crate::tui::strings::flat(&m.note, 40)));
    }
    line
}

/// "urgency · k-001" (with the perspective when it is not the usual one).
fn row_name(k: &ComboKey) -> String {
    let mut name = format!(
        "{} · {}",
        crate::tui::strings::flat(&k.classification_id, 30),
        crate::tui::strings::flat(&k.item_id, 40)
    );
    if k.perspective_id != "classification" {
        name.push_str(&format!(
            " ({})",
            crate::tui::strings::flat(&k.perspective_id, 20)
        ));
    }
    name
}
