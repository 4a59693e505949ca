//! Human labels: the label keys on AwAg and protocol rows, notes, the
//! label writer's answers and retries of unsaved labels.

use super::super::app::*;
use super::super::input::action::Action;
use super::super::msg::Effect;
use super::Now;
use crate::domain::{ComboKey, Label, Scale, Value};
use ratatui_textarea::TextArea;

/// 1–5, 0 and 6–9, a and d: a label on the focused row, on its scale.
pub fn label_key(app: &mut App, action: Action, now: Now, fx: &mut Vec<Effect>) {
    if app.focused_proto_row().is_some() {
        label_proto_row(app, action, now, fx);
        return;
    }
    let v = match action {
        // A Likert row (modes 1 and 2) shows only 1–5: an AGREE/DISAGREE
        // label there would be stored out of sight and counted as a
        // comparison of its own, so a/d are refused and the keys named.
        Action::Agree | Action::Disagree if app.choices.mode.scale() == Scale::Likert => {
            let mode_key = app.chrome.keymap.hint(Action::CycleMode);
            app.chrome
                .warn(crate::tui::strings::msg::agreement_on_likert_row(
                    &app.choices.mode.to_string(),
                    &mode_key,
                ));
            return;
        }
        Action::Agree => Value::Agreement(crate::domain::Agreement::Agree),
        Action::Disagree => Value::Agreement(crate::domain::Agreement::Disagree),
        _ => match action.likert() {
            None => {
                app.chrome.warn(crate::tui::strings::msg::SCORE_KEYS);
                return;
            }
            Some(n) => match app.choices.mode.scale() {
                Scale::Agreement => match Value::Likert(n).as_agreement() {
                    Some(a) => Value::Agreement(a),
                    None => {
                        app.chrome
                            .warn(crate::tui::strings::msg::UNDECIDED_IN_MODE_3);
                        return;
                    }
                },
                _ => Value::Likert(n),
            },
        },
    };
    set_label(app, v, now, fx);
}

/// The retry key: every unsaved label to the writer again.
pub fn retry(app: &mut App, fx: &mut Vec<Effect>) {
    let n = retry_unsaved(app, fx);
    app.chrome
        .info(crate::tui::strings::msg::retrying_unsaved(n));
}

pub fn toggle_blind(app: &mut App) {
    app.choices.blind = !app.choices.blind;
    // The list must not sort or filter by what the judge said either.
    if app.choices.blind
        && (app.list.filter.reads_judge() || app.list.order != crate::tui::app::queue::Order::File)
    {
        if app.list.filter.reads_judge() {
            app.list.filter = Filter::All;
        }
        app.list.order = crate::tui::app::queue::Order::File;
        app.refilter();
    }
    app.chrome
        .info(crate::tui::strings::msg::blind_review(app.choices.blind));
}

/// Hands every unsaved label to the writer again; returns how many.
pub fn retry_unsaved(app: &mut App, fx: &mut Vec<Effect>) -> usize {
    let mut n = 0;
    let mut next = app.data.next_req;
    for e in app.data.labels.values_mut().flatten() {
        if matches!(e.state, SaveState::Unsaved(_)) {
            e.state = SaveState::Pending(next);
            fx.push(Effect::SaveLabel {
                req: next,
                label: e.label.clone(),
            });
            next += 1;
            n += 1;
        }
    }
    app.data.next_req = next;
    n
}

/// The judge value a row shows (None while blind review hides it).
pub fn visible_judge(app: &App, key: &ComboKey) -> Option<Value> {
    let v = app
        .shown_verdict(key, app.persona_id(), app.choices.mode)?
        .value;
    if app.choices.blind && app.my_label(key, app.choices.mode.scale()).is_none() {
        return None;
    }
    Some(v)
}

/// The value a label key means on a protocol row's scale, or why it means none.
pub(super) fn proto_value(scale: Scale, action: Action) -> Result<Value, &'static str> {
    use crate::domain::Degree;
    let digit = action.likert().or(action.score_digit());
    match (scale, action) {
        (Scale::Likert, _) => match digit {
            Some(n @ 1..=5) => Ok(Value::Likert(n)),
            _ => Err(crate::tui::strings::msg::ROW_LIKERT),
        },
        (Scale::Score09, _) => digit
            .map(Value::Score)
            .ok_or(crate::tui::strings::msg::ROW_SCORE),
        (Scale::Bool, Action::Agree) => Ok(Value::Bool(true)),
        (Scale::Bool, Action::Disagree) => Ok(Value::Bool(false)),
        (Scale::Bool, _) => Err(crate::tui::strings::msg::ROW_BOOL),
        (Scale::Degree, Action::Agree) => Ok(Value::Degree(Degree::Fully)),
        (Scale::Degree, Action::Disagree) => Ok(Value::Degree(Degree::No)),
        (Scale::Degree, _) => match digit {
            Some(1) => Ok(Value::Degree(Degree::No)),
            Some(2) => Ok(Value::Degree(Degree::Partially)),
            Some(3) => Ok(Value::Degree(Degree::Fully)),
            _ => Err(crate::tui::strings::msg::ROW_DEGREE),
        },
        (Scale::Agreement, Action::Agree) => Ok(Value::Agreement(crate::domain::Agreement::Agree)),
        (Scale::Agreement, Action::Disagree) => {
            Ok(Value::Agreement(crate::domain::Agreement::Disagree))
        }
        (Scale::Agreement, _) => Err(crate::tui::strings::msg::ROW_AGREEMENT),
    }
}

/// A label on the focused protocol row, on that row's own scale.
fn label_proto_row(app: &mut App, action: Action, now: Now, fx: &mut Vec<Effect>) {
    let Some(row) = app.focused_proto_row() else {
        return;
    };
    match proto_value(row.scale, action) {
        Ok(value) => {
            let judge = app.proto_verdict(&row).map(|v| v.value);
            let shown = judge.filter(|_| !app.choices.blind || app.proto_label(&row).is_some());
            let blind = judge.is_some() && shown.is_none();
            let seen = Seen {
                replaced: shown,
                blind,
            };
            save_label(app, row.key, row.persona_id, value, seen, now, fx);
        }
        Err(why) => app.chrome.warn(why),
    }
}

fn set_label(app: &mut App, value: Value, now: Now, fx: &mut Vec<Effect>) {
    let rows = app.rows();
    let Some(key) = rows.get(app.list.row).and_then(|r| app.combo(r)) else {
        app.chrome.warn(crate::tui::strings::msg::NO_ROW_TO_LABEL);
        return;
    };
    let replaced = visible_judge(app, &key);
    let persona = app.persona_id().to_string();
    let blind = replaced.is_none() && app.verdict(&key, &persona, app.choices.mode).is_some();
    save_label(app, key, persona, value, Seen { replaced, blind }, now, fx);
}

/// What the person saw of the judge when labelling.
struct Seen {
    /// The judge value the label replaces (shown on the row).
    replaced: Option<Value>,
    /// A verdict existed but blind review hid it.
    blind: bool,
}

/// Records a label as pending and asks the writer to store it; the screen
/// shows it saved only when the store says so.
fn save_label(
    app: &mut App,
    key: ComboKey,
    persona: String,
    value: Value,
    seen: Seen,
    now: Now,
    fx: &mut Vec<Effect>,
) {
    let Seen { replaced, blind } = seen;
    // Read before the label is added: whether it is the sample's next item.
    let selected = super::selection::selection(app, &key);
    let who = app.data.who.clone();
    let req = app.data.next_req;
    app.data.next_req += 1;
    let entries = app.data.labels.entry(key.item_id.clone()).or_default();
    let existing = entries.iter_mut().find(|e| {
        e.label.key == key
            && e.label.persona_id == persona
            && e.label.who == who
            && e.label.value.scale() == value.scale()
    });
    let before = existing.as_ref().map(|e| e.label.clone());
    let label = match existing {
        Some(e) => {
            e.label.value = value;
            e.label.created_at = crate::store::timestamp(now);
            if replaced.is_some() {
                e.label.replaced_judge_value = replaced;
            }
            e.label.blind = blind;
            e.state = SaveState::Pending(req);
            e.label.clone()
        }
        None => {
            let label = Label {
                key: key.clone(),
                persona_id: persona,
                value,
                note: String::new(),
                who,
                created_at: crate::store::timestamp(now),
                replaced_judge_value: replaced,
                blind,
                tags: Vec::new(),
            };
            entries.push(LabelEntry {
                label: label.clone(),
                state: SaveState::Pending(req),
            });
            label
        }
    };
    app.data.undo.push(UndoStep {
        before,
        after: label.clone(),
    });
    // The row is labelled: it no longer waits for this person.
    super::marks::settle(app, &label.key, &label.persona_id);
    if let Some(&i) = app.data.index_of.get(&key.item_id) {
        app.item_changed(i as usize);
    }
    // Given on the random order's next item (a random sample), or in a list
    // made of the judge's verdicts (selected by the judge).
    if selected.is_none() && app.list.order == crate::tui::app::queue::Order::Sample {
        // Said, so a person who skipped or searched knows the sample did not grow.
        app.chrome.info(crate::tui::update::selection::NOT_SAMPLED);
    }
    if let Some(how) = selected {
        fx.push(Effect::MarkSampled {
            key: label.key.clone(),
            persona: label.persona_id.clone(),
            who: label.who.clone(),
            how,
        });
    }
    super::active::after_label(app, &label, fx);
    fx.push(Effect::SaveLabel { req, label });
    super::advance::after_label(app);
    super::active::focus_next_draw(app);
}

pub fn label_saved(app: &mut App, req: u64, result: Result<(), String>, fx: &mut Vec<Effect>) {
    let Some(e) = app
        .data
        .labels
        .values_mut()
        .flatten()
        .find(|e| e.state == SaveState::Pending(req))
    else {
        // A retraction has no entry left to mark; else superseded by a
        // newer write of the same label.
        super::undo::retraction_answered(app, req, result);
        return;
    };
    let refused = result.is_err();
    record_answer(e, result, &mut app.chrome);
    if refused {
        super::away::refused(app, fx);
    }
    super::away::answered(app, fx);
    super::quit::label_answered(app, fx);
    super::active::label_saved(app, fx);
}

fn record_answer(e: &mut LabelEntry, result: Result<(), String>, chrome: &mut Chrome) {
    match result {
        Ok(()) => e.state = SaveState::Saved,
        Err(err) => {
            let err = crate::tui::strings::flat(&err, 200);
            e.state = SaveState::Unsaved(err.clone());
            chrome.error(crate::tui::strings::msg::label_not_saved(
                &err,
                &chrome.keymap.hint(Action::RetryUnsaved),
            ));
        }
    }
}

/// `n`: the note of the focused row's label (of the label just given, when
/// that label moved the focus here: [`super::advance::back_to_label`]).
pub fn edit_note(app: &mut App, advanced: Option<Advanced>) {
    super::advance::back_to_label(app, advanced);
    if let Some(row) = app.focused_proto_row() {
        let Some(entry) = app.proto_label(&row) else {
            app.chrome.warn(crate::tui::strings::msg::LABEL_ROW_FIRST);
            return;
        };
        app.chrome.popup = Some(Popup::Input {
            kind: InputKind::Note,
            area: Box::new(note_area(&entry.label.note)),
            target: Some((row.key, row.scale)),
            error: None,
        });
        return;
    }
    let rows = app.rows();
    let Some(key) = rows.get(app.list.row).and_then(|r| app.combo(r)) else {
        return;
    };
    let Some(entry) = app.my_label(&key, app.choices.mode.scale()) else {
        app.chrome
            .warn(crate::tui::strings::msg::LABEL_AWAG_ROW_FIRST);
        return;
    };
    let scale = entry.label.value.scale();
    let area = note_area(&entry.label.note);
    app.chrome.popup = Some(Popup::Input {
        kind: InputKind::Note,
        area: Box::new(area),
        target: Some((key, scale)),
        error: None,
    });
}

/// The note editor on a label's note: every line of it (a pasted note keeps
/// its newlines), the cursor at the end, soft-wrapped so a long line is laid
/// out in screen rows and only the visible ones are drawn.
pub(super) fn note_area(note: &str) -> TextArea<'static> {
    let mut area = TextArea::new(note.split('\n').map(str::to_string).collect());
    area.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
    area.move_cursor(ratatui_textarea::CursorMove::Bottom);
    area.move_cursor(ratatui_textarea::CursorMove::End);
    area
}
