//! `update(&mut App, Msg) -> Vec<Effect>`: every decision, no I/O.

use super::action::Action;
use super::app::*;
use super::msg::{Effect, Msg};
use crate::domain::{Agreement, ComboKey, Label, Mode, Persona, Protocol, Scale, Value};
use crate::engine::EngineEvent;
use crate::sanitize;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui_textarea::TextArea;

pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    let mut fx = Vec::new();
    match msg {
        Msg::Key(k) if k.kind == KeyEventKind::Release => {}
        Msg::Key(k) => key(app, k, &mut fx),
        Msg::Paste(s) => paste(app, &s),
        Msg::Resize(w, h) => {
            app.chrome.size = (w, h);
            app.scroll_list_to_cursor();
        }
        Msg::Tick => app.runs.spinner = app.runs.spinner.wrapping_add(1),
        Msg::Engine { tag, event } => engine_event(app, tag, event),
        Msg::RunEnded { tag, error } => {
            if let Some(r) = app.runs.active.iter_mut().find(|r| r.tag == tag) {
                r.finished = true;
            }
            app.runs.streams.retain(|_, s| s.tag != tag);
            if let Some(e) = error {
                app.chrome.message = Some((Level::Error, sanitize::one_line(&e, 300)));
            }
        }
        Msg::LabelSaved { req, result } => label_saved(app, req, result, &mut fx),
        Msg::UnsavedKept(r) => super::quit::kept(app, r),
        Msg::AgreementLoaded(r) => {
            if let View::Agreement(a) = &mut app.chrome.view {
                a.figures = match r {
                    Ok(groups) => FiguresState::Ready(groups),
                    Err(e) => FiguresState::Error(sanitize::one_line(&e, 300)),
                };
                a.cursor = 0;
            }
        }
        Msg::AgreementNotes(lines) => {
            if let View::Agreement(a) = &mut app.chrome.view {
                a.notes = lines;
            }
        }
        Msg::RunsLoaded(r) => {
            if let View::Runs(rv) = &mut app.chrome.view {
                *rv = match r {
                    Ok((runs, failures)) => RunsView::Loaded {
                        runs,
                        failures,
                        cursor: 0,
                    },
                    Err(e) => RunsView::Error(e),
                };
            }
        }
        Msg::PersonaSaved(r) => match r {
            Ok(p) => {
                app.chrome.message = Some((
                    Level::Info,
                    format!("persona {} saved", sanitize::one_line(&p.id, 60)),
                ));
                match app.data.personas.iter_mut().find(|x| x.id == p.id) {
                    Some(x) => *x = p,
                    None => {
                        app.data.personas.push(p);
                        app.data.personas.sort_by(|a, b| a.id.cmp(&b.id));
                    }
                }
            }
            Err(e) => {
                app.chrome.message = Some((
                    Level::Error,
                    format!("persona NOT saved: {}", sanitize::one_line(&e, 200)),
                ))
            }
        },
    }
    fx
}

fn key(app: &mut App, k: KeyEvent, fx: &mut Vec<Effect>) {
    if app.chrome.popup.is_some() {
        popup_key(app, k, fx);
        return;
    }
    let Some(action) = app.chrome.keymap.action(&k) else {
        return;
    };
    if !matches!(action, Action::Quit | Action::Cancel) {
        // A new action replaces an informational message, never an error.
        if matches!(app.chrome.message, Some((Level::Info, _))) {
            app.chrome.message = None;
        }
    }
    act(app, action, fx);
}

/// Applies one action (public so tests and the help can drive it directly).
pub fn act(app: &mut App, action: Action, fx: &mut Vec<Effect>) {
    use Action::*;
    match action {
        Quit => super::quit::request(app, fx),
        Cancel => cancel(app, fx),
        Help => app.chrome.view = View::Help { scroll: 0 },
        Compare => app.chrome.view = View::Compare,
        Personas => {
            let cursor = app.choices.persona.min(app.data.personas.len().saturating_sub(1));
            app.chrome.view = View::Personas { cursor };
        }
        Runs => {
            app.chrome.view = View::Runs(RunsView::Loading);
            fx.push(Effect::LoadRuns);
        }
        Agreement => {
            app.chrome.view = View::Agreement(AgreementState {
                quick: agreement_rows(app),
                figures: FiguresState::Computing,
                cursor: 0,
                notes: Vec::new(),
            });
            fx.push(Effect::LoadAgreement);
        }
        Prompt => {
            let text = super::prompt::preview_text(app);
            app.chrome.view = View::Prompt { text, scroll: 0 };
        }
        MoveDown | MoveUp | PageDown | PageUp | Top | Bottom => movement(app, action),
        FocusNext | FocusPrev if app.chrome.view == View::Main => {
            app.chrome.focus = match (app.chrome.focus, action == FocusNext) {
                (Pane::List, true) | (Pane::Verdicts, false) => Pane::Item,
                (Pane::Item, true) | (Pane::List, false) => Pane::Verdicts,
                (Pane::Verdicts, true) | (Pane::Item, false) => Pane::List,
            }
        }
        NextRow => move_row(app, 1),
        PrevRow => move_row(app, -1),
        Judge if app.chrome.view == View::Main || app.chrome.view == View::Compare => {
            if let Some(it) = app.current_item() {
                let ids = vec![(it.id.clone(), it.kind.clone())];
                start_runs(app, app.choices.mode, ids, fx);
            }
        }
        Judge => {
            if let View::Personas { cursor } = app.chrome.view
                && cursor < app.data.personas.len()
            {
                app.choices.persona = cursor;
                app.chrome.message = Some((
                    Level::Info,
                    format!(
                        "persona: {}",
                        sanitize::one_line(&app.data.personas[cursor].name, 60)
                    ),
                ));
            }
        }
        RunFiltered => {
            let ids: Vec<(String, String)> = app
                .list
                .filtered
                .iter()
                .map(|i| {
                    let it = &app.data.items[*i as usize];
                    (it.id.to_string(), it.kind.to_string())
                })
                .collect();
            start_runs(app, app.choices.mode, ids, fx);
        }
        RunMissing => {
            if app.chrome.view != View::Compare {
                app.chrome.message = Some((
                    Level::Info,
                    format!(
                        "open compare ({}) to start missing runs",
                        app.chrome.keymap.hint(Compare)
                    ),
                ));
                return;
            }
            let Some(item) = app.current_item() else {
                return;
            };
            let id = item.id.clone();
            let rows = app.rows();
            let persona = app.persona_id().to_string();
            let missing: Vec<Mode> = Mode::ALL
                .into_iter()
                .filter(|m| {
                    rows.iter().any(|r| {
                        app.combo(r)
                            .is_some_and(|k| app.verdict(&k, &persona, *m).is_none())
                    })
                })
                .collect();
            if missing.is_empty() {
                app.chrome.message = Some((
                    Level::Info,
                    "every mode already has verdicts for this item".into(),
                ));
            }
            for m in missing {
                start_run(app, Protocol::Awag, m, vec![id.clone()], fx);
            }
        }
        CycleMode => {
            app.choices.mode = app.choices.mode.next();
        }
        CycleStructured => {
            use crate::provider::ToolMode;
            app.choices.structured = match app.choices.structured {
                None => Some(ToolMode::Tools),
                Some(ToolMode::Tools) => Some(ToolMode::JsonSchema),
                Some(ToolMode::JsonSchema) => Some(ToolMode::JsonContent),
                Some(ToolMode::JsonContent) => None,
            };
            app.chrome.message = Some((
                Level::Info,
                format!(
                    "structured answers for the next runs: {}",
                    structured_name(app.choices.structured)
                ),
            ));
        }
        PickPersona => {
            let options = app
                .data
                .personas
                .iter()
                .map(|p| format!("{} — {}", p.id, p.name))
                .collect();
            app.chrome.popup = Some(Popup::Picker {
                kind: PickerKind::Persona,
                options,
                cursor: app.choices.persona,
            });
        }
        PickPerspective => {
            let mut options: Vec<String> = app
                .data
                .perspectives
                .iter()
                .map(|p| format!("{} — {}", p.id, p.name))
                .collect();
            options.push("all perspectives".into());
            let cursor = match app.choices.perspective {
                PerspectiveSel::One(i) => i,
                PerspectiveSel::All => app.data.perspectives.len(),
            };
            app.chrome.popup = Some(Popup::Picker {
                kind: PickerKind::Perspective,
                options,
                cursor,
            });
        }
        Likert1 | Likert2 | Likert3 | Likert4 | Likert5 | Score0 | Score6 | Score7 | Score8
        | Score9
            if app.focused_proto_row().is_some() =>
        {
            label_proto_row(app, action, fx);
        }
        Agree | Disagree if app.focused_proto_row().is_some() => label_proto_row(app, action, fx),
        Score0 | Score6 | Score7 | Score8 | Score9 => {
            app.chrome.message = Some((
                Level::Warning,
                "0 and 6–9 label 0–9 scores (proposition score rows)".into(),
            ));
        }
        Likert1 | Likert2 | Likert3 | Likert4 | Likert5 => {
            let n = action.likert().unwrap_or(3);
            let v = match app.choices.mode.scale() {
                Scale::Agreement => match Value::Likert(n).as_agreement() {
                    Some(a) => Value::Agreement(a),
                    None => {
                        app.chrome.message = Some((
                            Level::Warning,
                            "3 is undecided on the AGREE/DISAGREE scale of mode 3: use a or d"
                                .into(),
                        ));
                        return;
                    }
                },
                _ => Value::Likert(n),
            };
            set_label(app, v, fx);
        }
        Agree => set_label(app, Value::Agreement(crate::domain::Agreement::Agree), fx),
        Disagree => set_label(
            app,
            Value::Agreement(crate::domain::Agreement::Disagree),
            fx,
        ),
        EditNote => edit_note(app),
        RetryUnsaved => {
            let n = retry_unsaved(app, fx);
            app.chrome.message = Some((Level::Info, format!("retrying {n} unsaved label(s)")));
        }
        ToggleBlind => {
            app.choices.blind = !app.choices.blind;
            app.chrome.message = Some((
                Level::Info,
                format!(
                    "blind review {}",
                    if app.choices.blind {
                        "on: judge values hidden until you label"
                    } else {
                        "off"
                    }
                ),
            ));
        }
        Search => {
            let mut area = TextArea::new(vec![app.list.search.clone()]);
            area.move_cursor(ratatui_textarea::CursorMove::End);
            app.chrome.popup = Some(Popup::Input {
                kind: InputKind::Search,
                area: Box::new(area),
                target: None,
                error: None,
            });
        }
        CycleFilter => {
            app.list.filter = app.list.filter.next();
            app.refilter();
        }
        CycleOrder => {
            app.list.order = app.list.order.next();
            app.refilter();
            app.list.cursor = 0;
            app.list.list_offset = 0;
            app.refresh_detail();
            app.chrome.message = Some((Level::Info, format!("list order: {}", app.list.order.name())));
        }
        EditPersona | NewPersona => {
            let View::Personas { cursor } = app.chrome.view else {
                return;
            };
            let persona = if action == NewPersona {
                Persona {
                    id: "new-persona".into(),
                    name: "New persona".into(),
                    definition: serde_json::json!({"type": "", "age": "", "gender": "", "does": "", "feelThinkBelieve": "", "technologyExperience": "", "problems": "", "needs": "", "existingSolutions": ""}),
                }
            } else {
                match app.data.personas.get(cursor) {
                    Some(p) => p.clone(),
                    None => return,
                }
            };
            let json = serde_json::to_string_pretty(&persona).unwrap_or_default();
            let area = TextArea::new(json.lines().map(str::to_string).collect());
            app.chrome.popup = Some(Popup::Input {
                kind: InputKind::Persona,
                area: Box::new(area),
                target: None,
                error: None,
            });
        }
        FocusNext | FocusPrev => {}
    }
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

fn cancel(app: &mut App, fx: &mut Vec<Effect>) {
    if app.chrome.view != View::Main {
        app.chrome.view = View::Main;
    } else if app.running() {
        for r in app.runs.active.iter().filter(|r| !r.finished) {
            fx.push(Effect::CancelRun { tag: r.tag });
        }
        app.chrome.message = Some((Level::Warning, "cancelling the run…".into()));
    } else if !app.list.search.is_empty() {
        app.list.search.clear();
        app.refilter();
    } else {
        app.chrome.message = None;
    }
}

fn movement(app: &mut App, action: Action) {
    let page = app.list_height().max(1) as i64;
    let delta: i64 = match action {
        Action::MoveDown => 1,
        Action::MoveUp => -1,
        Action::PageDown => page,
        Action::PageUp => -page,
        Action::Top => i64::MIN / 2,
        _ => i64::MAX / 2,
    };
    let step = |v: u16| (v as i64 + delta.clamp(-10_000, 10_000)).clamp(0, u16::MAX as i64) as u16;
    match &mut app.chrome.view {
        View::Help { scroll } | View::Prompt { scroll, .. } => *scroll = step(*scroll),
        View::Personas { cursor } => *cursor = clamp_add(*cursor, delta, app.data.personas.len()),
        View::Runs(RunsView::Loaded { runs, cursor, .. }) => {
            *cursor = clamp_add(*cursor, delta, runs.len())
        }
        View::Compare => move_row(app, delta.clamp(-1000, 1000) as i32),
        View::Agreement(AgreementState {
            figures: FiguresState::Ready(groups),
            cursor,
            ..
        }) => *cursor = clamp_add(*cursor, delta, groups.len()),
        View::Main => match app.chrome.focus {
            Pane::List => {
                app.list.cursor = clamp_add(app.list.cursor, delta, app.list.filtered.len());
                app.scroll_list_to_cursor();
                app.refresh_detail();
            }
            Pane::Item => app.list.text_scroll = step(app.list.text_scroll),
            Pane::Verdicts => move_row(app, delta.clamp(-1000, 1000) as i32),
        },
        _ => {}
    }
}

fn clamp_add(v: usize, d: i64, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    (v as i64).saturating_add(d).clamp(0, len as i64 - 1) as usize
}

fn move_row(app: &mut App, d: i32) {
    let n = app.row_count();
    app.list.row = clamp_add(app.list.row, d as i64, n);
}

/// The protocol that judges an item of this kind from the workbench.
fn protocol_for_kind(kind: &str) -> Protocol {
    match kind {
        crate::protocol::rubric::KIND => Protocol::Rubric,
        crate::protocol::guideline::KIND => Protocol::Guideline,
        _ => Protocol::Awag,
    }
}

/// Judges `(id, kind)` items: content items in `mode`, rubric examples and
/// conversations with their own protocol — one run per protocol present.
fn start_runs(app: &mut App, mode: Mode, items: Vec<(String, String)>, fx: &mut Vec<Effect>) {
    if items.is_empty() {
        app.chrome.message = Some((Level::Warning, "no items to judge".into()));
        return;
    }
    let mut by: std::collections::BTreeMap<Protocol, Vec<String>> = Default::default();
    for (id, kind) in items {
        by.entry(protocol_for_kind(&kind)).or_default().push(id);
    }
    for (protocol, ids) in by {
        start_run(app, protocol, mode, ids, fx);
    }
}

fn start_run(
    app: &mut App,
    protocol: Protocol,
    mode: Mode,
    item_ids: Vec<String>,
    fx: &mut Vec<Effect>,
) {
    if let Some(e) = &app.runs.endpoint_error {
        app.chrome.popup = Some(Popup::Notice {
            title: "cannot judge: no endpoint".into(),
            text: e.clone(),
        });
        return;
    }
    if item_ids.is_empty() {
        app.chrome.message = Some((Level::Warning, "no items to judge".into()));
        return;
    }
    // Other protocols judge without a persona, under their own perspective.
    let (persona_id, perspective_ids, what) = if protocol != Protocol::Awag {
        let p = vec![protocol.as_str().to_string()];
        ("-".to_string(), p, format!("with the {protocol} protocol"))
    } else {
        if app.persona().is_none() {
            app.chrome.message = Some((
                Level::Warning,
                "no persona: import one (jury import) or create one (P, then N)".into(),
            ));
            return;
        }
        let perspective_ids: Vec<String> = app
            .active_perspectives()
            .iter()
            .map(|p| p.id.clone())
            .collect();
        if perspective_ids.is_empty() {
            app.chrome.message = Some((
                Level::Warning,
                "no perspective: import one with jury import".into(),
            ));
            return;
        }
        let persona = app.persona_id().to_string();
        (persona, perspective_ids, format!("in mode {mode}"))
    };
    let tag = app.runs.next_tag;
    app.runs.next_tag += 1;
    app.runs.active.push(ActiveRun {
        tag,
        run_id: None,
        protocol,
        mode,
        items: item_ids.len(),
        progress: Default::default(),
        finished: false,
        note: None,
    });
    app.chrome.message = Some((
        Level::Info,
        format!("judging {} item(s) {what}…", item_ids.len()),
    ));
    fx.push(Effect::StartRun {
        tag,
        plan: RunPlan {
            protocol,
            mode,
            structured: app.choices.structured,
            persona_id,
            perspective_ids,
            item_ids,
        },
    });
}

/// The judge value a row shows (None while blind review hides it).
pub fn visible_judge(app: &App, key: &ComboKey) -> Option<Value> {
    let v = app.verdict(key, app.persona_id(), app.choices.mode)?.value;
    if app.choices.blind && app.my_label(key, app.choices.mode.scale()).is_none() {
        return None;
    }
    Some(v)
}

/// The value a label key means on a protocol row's scale, or why it means none.
fn proto_value(scale: Scale, action: Action) -> Result<Value, &'static str> {
    use crate::domain::Degree;
    let digit = action.likert().or(action.score_digit());
    match (scale, action) {
        (Scale::Likert, _) => match digit {
            Some(n @ 1..=5) => Ok(Value::Likert(n)),
            _ => Err("this row is on a 1–5 scale: use 1–5"),
        },
        (Scale::Score09, _) => digit
            .map(Value::Score)
            .ok_or("this row is on a 0–9 scale: use 0–9"),
        (Scale::Bool, Action::Agree) => Ok(Value::Bool(true)),
        (Scale::Bool, Action::Disagree) => Ok(Value::Bool(false)),
        (Scale::Bool, _) => Err("this row is true/false: a = true, d = false"),
        (Scale::Degree, Action::Agree) => Ok(Value::Degree(Degree::Fully)),
        (Scale::Degree, Action::Disagree) => Ok(Value::Degree(Degree::No)),
        (Scale::Degree, _) => match digit {
            Some(1) => Ok(Value::Degree(Degree::No)),
            Some(2) => Ok(Value::Degree(Degree::Partially)),
            Some(3) => Ok(Value::Degree(Degree::Fully)),
            _ => Err("this row is no/partially/fully: 1 no, 2 partially, 3 fully (or d / a)"),
        },
        (Scale::Agreement, Action::Agree) => Ok(Value::Agreement(crate::domain::Agreement::Agree)),
        (Scale::Agreement, Action::Disagree) => {
            Ok(Value::Agreement(crate::domain::Agreement::Disagree))
        }
        (Scale::Agreement, _) => Err("this row is AGREE/DISAGREE: use a or d"),
    }
}

/// A label on the focused protocol row, on that row's own scale.
fn label_proto_row(app: &mut App, action: Action, fx: &mut Vec<Effect>) {
    let Some(row) = app.focused_proto_row() else {
        return;
    };
    match proto_value(row.scale, action) {
        Ok(value) => {
            let judge = app.proto_verdict(&row).map(|v| v.value);
            let shown = judge.filter(|_| !app.choices.blind || app.proto_label(&row).is_some());
            let blind = judge.is_some() && shown.is_none();
            save_label(app, row.key, row.persona_id, value, shown, blind, fx);
        }
        Err(why) => app.chrome.message = Some((Level::Warning, why.into())),
    }
}

fn set_label(app: &mut App, value: Value, fx: &mut Vec<Effect>) {
    let rows = app.rows();
    let Some(key) = rows.get(app.list.row).and_then(|r| app.combo(r)) else {
        app.chrome.message = Some((Level::Warning, "no classification row to label".into()));
        return;
    };
    let replaced = visible_judge(app, &key);
    let persona = app.persona_id().to_string();
    let blind = replaced.is_none() && app.verdict(&key, &persona, app.choices.mode).is_some();
    save_label(app, key, persona, value, replaced, blind, fx);
}

/// Records a label as pending and asks the writer to store it; the screen
/// shows it saved only when the store says so.
fn save_label(
    app: &mut App,
    key: ComboKey,
    persona: String,
    value: Value,
    replaced: Option<Value>,
    blind: bool,
    fx: &mut Vec<Effect>,
) {
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
    let label = match existing {
        Some(e) => {
            e.label.value = value;
            e.label.created_at = crate::store::now();
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
                created_at: crate::store::now(),
                replaced_judge_value: replaced,
                blind,
            };
            entries.push(LabelEntry {
                label: label.clone(),
                state: SaveState::Pending(req),
            });
            label
        }
    };
    if let Some(&i) = app.data.index_of.get(&key.item_id) {
        app.item_changed(i as usize);
    }
    fx.push(Effect::SaveLabel { req, label });
}

fn label_saved(app: &mut App, req: u64, result: Result<(), String>, fx: &mut Vec<Effect>) {
    let Some(e) = app
        .data
        .labels
        .values_mut()
        .flatten()
        .find(|e| e.state == SaveState::Pending(req))
    else {
        return; // superseded by a newer write of the same label
    };
    record_answer(e, result, &app.chrome.keymap, &mut app.chrome.message);
    super::quit::label_answered(app, fx);
}

fn record_answer(
    e: &mut LabelEntry,
    result: Result<(), String>,
    keymap: &super::keymap::Keymap,
    message: &mut Option<(Level, String)>,
) {
    match result {
        Ok(()) => e.state = SaveState::Saved,
        Err(err) => {
            let err = sanitize::one_line(&err, 200);
            e.state = SaveState::Unsaved(err.clone());
            *message = Some((
                Level::Error,
                format!(
                    "label NOT saved: {err} — kept as unsaved; press {} to retry",
                    keymap.hint(Action::RetryUnsaved)
                ),
            ));
        }
    }
}

fn edit_note(app: &mut App) {
    if let Some(row) = app.focused_proto_row() {
        let Some(entry) = app.proto_label(&row) else {
            app.chrome.message = Some((
                Level::Warning,
                "label this row first, then add a note".into(),
            ));
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
        app.chrome.message = Some((
            Level::Warning,
            "label this row first (1–5, a/d), then add a note".into(),
        ));
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
fn note_area(note: &str) -> TextArea<'static> {
    let mut area = TextArea::new(note.split('\n').map(str::to_string).collect());
    area.set_wrap_mode(ratatui_textarea::WrapMode::WordOrGlyph);
    area.move_cursor(ratatui_textarea::CursorMove::Bottom);
    area.move_cursor(ratatui_textarea::CursorMove::End);
    area
}

/// A bracketed paste: whole into the text field that has focus; refused
/// with a message anywhere else (it must never run as keystrokes).
fn paste(app: &mut App, text: &str) {
    let text = paste_text(text);
    let search = match &mut app.chrome.popup {
        Some(Popup::Input {
            kind: InputKind::Search,
            area,
            ..
        }) => {
            // The search field is one line.
            area.insert_str(text.replace('\n', " "));
            Some(area.lines().join(" "))
        }
        Some(Popup::Input { area, .. }) => {
            area.insert_str(&text);
            None
        }
        _ => {
            app.chrome.message = Some((
                Level::Warning,
                format!(
                    "paste ignored: no text field has focus (press {} on a label to write a note)",
                    app.chrome.keymap.hint(Action::EditNote)
                ),
            ));
            return;
        }
    };
    if let Some(q) = search {
        app.list.search = q;
        app.refilter();
    }
}

/// Pasted text as a field holds it: line ends as `\n`, tabs kept, every other
/// control character dropped (a paste must not smuggle escapes into a note).
pub fn paste_text(s: &str) -> String {
    let s = s.replace("\r\n", "\n").replace('\r', "\n");
    s.chars()
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .collect()
}

fn popup_key(app: &mut App, k: KeyEvent, fx: &mut Vec<Effect>) {
    let Some(popup) = app.chrome.popup.take() else {
        return;
    };
    match popup {
        Popup::Notice { .. } => {} // any key closes it
        Popup::Quit(q) => super::quit::prompt_key(app, q, k, fx),
        Popup::Replay { labels, path } => super::quit::replay_key(app, labels, path, k, fx),
        Popup::Picker {
            kind,
            options,
            mut cursor,
        } => match k.code {
            KeyCode::Esc => {}
            KeyCode::Char('q') => {}
            KeyCode::Enter => {
                match kind {
                    PickerKind::Persona => {
                        if cursor < app.data.personas.len() {
                            app.choices.persona = cursor;
                        }
                    }
                    PickerKind::Perspective => {
                        app.choices.perspective = if cursor >= app.data.perspectives.len() {
                            PerspectiveSel::All
                        } else {
                            PerspectiveSel::One(cursor)
                        };
                        let n = app.row_count();
                        app.list.row = app.list.row.min(n.saturating_sub(1));
                    }
                }
                app.refresh_all_marks();
            }
            KeyCode::Down | KeyCode::Char('j') => {
                cursor = (cursor + 1).min(options.len().saturating_sub(1));
                app.chrome.popup = Some(Popup::Picker {
                    kind,
                    options,
                    cursor,
                });
            }
            KeyCode::Up | KeyCode::Char('k') => {
                cursor = cursor.saturating_sub(1);
                app.chrome.popup = Some(Popup::Picker {
                    kind,
                    options,
                    cursor,
                });
            }
            _ => {
                app.chrome.popup = Some(Popup::Picker {
                    kind,
                    options,
                    cursor,
                })
            }
        },
        Popup::Input {
            kind,
            mut area,
            target,
            error,
        } => {
            let submit = match kind {
                InputKind::Persona => {
                    k.code == KeyCode::Char('s') && k.modifiers.contains(KeyModifiers::CONTROL)
                }
                _ => k.code == KeyCode::Enter,
            };
            if k.code == KeyCode::Esc {
                if kind == InputKind::Search {
                    // Esc keeps what was typed: the list already shows it.
                }
                return;
            }
            if submit {
                submit_input(app, kind, *area, target, fx);
                return;
            }
            area.input(k);
            if kind == InputKind::Search {
                app.list.search = area.lines().join(" ");
                app.refilter();
            }
            app.chrome.popup = Some(Popup::Input {
                kind,
                area,
                target,
                error,
            });
        }
    }
}

fn submit_input(
    app: &mut App,
    kind: InputKind,
    area: TextArea<'static>,
    target: Option<(ComboKey, Scale)>,
    fx: &mut Vec<Effect>,
) {
    let text = area.lines().join("\n");
    match kind {
        InputKind::Search => {
            app.list.search = text.replace('\n', " ");
            app.refilter();
        }
        InputKind::Note => {
            let Some((key, scale)) = target else { return };
            // Protocol rows keep their own persona ("-" for most of them).
            let persona = match app.focused_proto_row() {
                Some(r) if r.key == key => r.persona_id,
                _ => app.persona_id().to_string(),
            };
            let who = app.data.who.clone();
            let req = app.data.next_req;
            app.data.next_req += 1;
            if let Some(e) = app.data.labels.get_mut(&key.item_id).and_then(|v| {
                v.iter_mut().find(|e| {
                    e.label.key == key
                        && e.label.persona_id == persona
                        && e.label.who == who
                        && e.label.value.scale() == scale
                })
            }) {
                e.label.note = text;
                e.state = SaveState::Pending(req);
                fx.push(Effect::SaveLabel {
                    req,
                    label: e.label.clone(),
                });
            }
        }
        InputKind::Persona => match serde_json::from_str::<Persona>(&text) {
            Ok(p) if p.id.trim().is_empty() => {
                reopen(app, kind, area, "the persona needs an id".into())
            }
            Ok(p) if !p.definition.is_object() => {
                reopen(app, kind, area, "definition must be a JSON object".into())
            }
            Ok(p) => fx.push(Effect::SavePersona(p)),
            Err(e) => reopen(app, kind, area, format!("not a persona: {e}")),
        },
    }
}

fn reopen(app: &mut App, kind: InputKind, area: TextArea<'static>, error: String) {
    app.chrome.popup = Some(Popup::Input {
        kind,
        area: Box::new(area),
        target: None,
        error: Some(error),
    });
}

/// `auto`, `tools`, `json_schema` or `json`: the words of `--structured`.
pub fn structured_name(m: Option<crate::provider::ToolMode>) -> &'static str {
    m.map(|m| m.as_str()).unwrap_or("auto")
}

fn engine_event(app: &mut App, tag: u64, ev: EngineEvent) {
    let Some(run) = app.runs.active.iter_mut().find(|r| r.tag == tag) else {
        return; // not a run of this session: stale
    };
    match ev {
        EngineEvent::RunStarted {
            run_id,
            total,
            skipped,
        } => {
            run.run_id = Some(run_id);
            run.progress.run_id = run_id;
            run.progress.total = total;
            if skipped > 0 {
                run.note = Some(format!("{skipped} already judged, skipped"));
            }
        }
        EngineEvent::RequestStarted { keys, .. } => {
            for k in keys {
                app.runs.streams.insert(k, Stream::new(tag));
            }
        }
        EngineEvent::TextDelta { key, text, .. } => {
            let s = app.runs.streams.entry(key).or_insert_with(|| Stream::new(tag));
            if s.tag != tag {
                *s = Stream::new(tag);
            }
            s.set(&text);
        }
        EngineEvent::Retrying {
            keys,
            reason,
            delay,
            ..
        } => {
            for k in &keys {
                app.runs.streams.remove(k);
            }
            app.chrome.message = Some((
                Level::Warning,
                format!(
                    "retrying in {:.1}s: {}",
                    delay.as_secs_f64(),
                    sanitize::one_line(&reason, 200)
                ),
            ));
        }
        EngineEvent::Verdict { verdict, .. } => {
            let mut v = *verdict;
            super::queue::compact_raw(&mut v);
            if app.runs.streams.get(&v.key).is_some_and(|s| s.tag == tag) {
                app.runs.streams.remove(&v.key);
            }
            let item = v.key.item_id.clone();
            app.data.verdicts.entry(item.clone()).or_default().push(v);
            if let Some(&i) = app.data.index_of.get(&item) {
                app.item_changed(i as usize);
            }
        }
        EngineEvent::Failure { failure, .. } => {
            for k in &failure.keys {
                app.runs.streams.remove(k);
            }
            app.chrome.message = Some((
                Level::Error,
                format!(
                    "judge failure ({}): {}",
                    failure.kind.as_str(),
                    sanitize::one_line(&failure.reason, 200)
                ),
            ));
        }
        EngineEvent::Progress(p) => run.progress = p,
        EngineEvent::RunFinished {
            status,
            progress,
            note,
            ..
        } => {
            run.progress = progress;
            run.finished = true;
            // A run that stopped short says so in the colour of its status,
            // not in the calm one of a finished run.
            let level = match status {
                crate::domain::RunStatus::Failed => Level::Error,
                _ if progress.failed > 0 || note.is_some() => Level::Warning,
                _ => Level::Info,
            };
            let mut msg = format!(
                "run {} {status}: {} verdicts, {} failed",
                run.run_id.unwrap_or(0),
                progress.verdicts,
                progress.failed
            );
            if let Some(n) = &note {
                msg.push_str(&format!(" — {}", sanitize::one_line(n, 200)));
            }
            run.note = note;
            app.runs.streams.retain(|_, s| s.tag != tag);
            app.chrome.message = Some((level, msg));
        }
    }
}

/// Judge vs human per classification over every label and the latest verdict
/// on the same combination and persona.
pub fn agreement_rows(app: &App) -> Vec<AgreementRow> {
    let mut rows: std::collections::BTreeMap<String, AgreementRow> = Default::default();
    for (item, labels) in &app.data.labels {
        let Some(vs) = app.data.verdicts.get(item) else {
            continue;
        };
        for e in labels {
            let l = &e.label;
            let Some(v) = vs
                .iter()
                .filter(|v| v.key == l.key && v.persona_id == l.persona_id)
                .filter(|v| {
                    v.value.scale() == l.value.scale()
                        || v.value.as_agreement().is_some()
                        || l.value.as_agreement().is_some()
                })
                .max_by(|a, b| a.created_at.cmp(&b.created_at))
            else {
                continue;
            };
            let r = rows
                .entry(l.key.classification_id.clone())
                .or_insert_with(|| AgreementRow {
                    classification: l.key.classification_id.clone(),
                    n: 0,
                    agree: 0,
                    undecided: 0,
                    judge_agree: 0,
                    human_agree: 0,
                });
            let cross = v.value.scale() != l.value.scale();
            if cross && (v.value.as_agreement().is_none() || l.value.as_agreement().is_none()) {
                r.undecided += 1;
                continue;
            }
            r.n += 1;
            if !super::app::disagrees(v.value, l.value) {
                r.agree += 1;
            }
            if v.value.as_agreement() == Some(Agreement::Agree) {
                r.judge_agree += 1;
            }
            if l.value.as_agreement() == Some(Agreement::Agree) {
                r.human_agree += 1;
            }
        }
    }
    rows.into_values().collect()
}
