//! Popups: the pickers, the text fields (search, note, persona JSON) and
//! bracketed pastes into them; the quit prompt and replay offer live in
//! [`super::quit`].

use super::super::app::*;
use super::super::input::action::{Action, PopupAction, PopupKind};
use super::super::msg::Effect;
use crate::domain::{ComboKey, Persona, Scale};
use crossterm::event::KeyEvent;
use ratatui_textarea::TextArea;

/// The persona or perspective picker.
pub fn open_picker(app: &mut App, action: Action) {
    let (kind, options, cursor) = if action == Action::PickPersona {
        let mut options: Vec<String> = app
            .data
            .personas
            .iter()
            .map(|p| format!("{} — {}", p.id, p.name))
            .collect();
        let mut cursor = app.choices.persona;
        // "Each item's owner" heads the list when items have owners.
        if app.data.has_owners {
            options.insert(0, crate::tui::strings::popup::EACH_ITEMS_OWNER.into());
            cursor = if app.choices.by_owner { 0 } else { cursor + 1 };
        }
        (PickerKind::Persona, options, cursor)
    } else {
        let mut options: Vec<String> = app
            .data
            .perspectives
            .iter()
            .map(|p| format!("{} — {}", p.id, p.name))
            .collect();
        options.push(crate::tui::strings::popup::ALL_PERSPECTIVES.into());
        let cursor = match app.choices.perspective {
            PerspectiveSel::One(i) => i,
            PerspectiveSel::All => app.data.perspectives.len(),
        };
        (PickerKind::Perspective, options, cursor)
    };
    app.chrome.popup = Some(Popup::Picker {
        kind,
        options,
        cursor,
    });
}

/// The search field, on what is searched now.
pub fn open_search(app: &mut App) {
    let mut area = TextArea::new(vec![app.list.search.clone()]);
    area.move_cursor(ratatui_textarea::CursorMove::End);
    app.chrome.popup = Some(Popup::Input {
        kind: InputKind::Search,
        area: Box::new(area),
        target: None,
        error: None,
    });
}

/// In the personas view: the JSON editor on the selected or a new persona.
pub fn open_persona_editor(app: &mut App, action: Action) {
    let View::Personas { cursor } = app.chrome.view else {
        return;
    };
    let persona = if action == Action::NewPersona {
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

/// The store's answer to a persona save.
pub fn persona_saved(app: &mut App, r: Result<Persona, String>) {
    match r {
        Ok(p) => {
            app.chrome.info(crate::tui::strings::msg::persona_saved(
                &crate::tui::strings::flat(&p.id, 60),
            ));
            match app.data.personas.iter_mut().find(|x| x.id == p.id) {
                Some(x) => *x = p,
                None => {
                    app.data.personas.push(p);
                    app.data.personas.sort_by(|a, b| a.id.cmp(&b.id));
                }
            }
        }
        Err(e) => app
            .chrome
            .error(crate::tui::strings::msg::persona_not_saved(
                &crate::tui::strings::flat(&e, 200),
            )),
    }
}

/// A bracketed paste: whole into the text field that has focus; refused
/// with a message anywhere else (it must never run as keystrokes).
pub fn paste(app: &mut App, text: &str) {
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
            app.chrome.warn(crate::tui::strings::msg::paste_ignored(
                &app.chrome.keymap.hint(Action::EditNote),
            ));
            return;
        }
    };
    if let Some(q) = search {
        app.list.search = q;
        app.refilter();
        let e = app.list.query.errors.first().cloned();
        if let Some(Popup::Input { error, .. }) = &mut app.chrome.popup {
            *error = e;
        }
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

/// A key on a popup: what it means there comes from the popup's section of
/// the keymap (a notice closes on any key; an editor types the rest).
pub fn popup_key(app: &mut App, k: KeyEvent, now: super::Now, fx: &mut Vec<Effect>) {
    let Some(popup) = app.chrome.popup.take() else {
        return;
    };
    match popup {
        Popup::Notice { .. } | Popup::History { .. } => {} // any key closes it
        Popup::Quit(q) => super::quit::prompt_key(app, q, k, fx),
        Popup::CancelRun { tags, cursor } => super::cancel::popup_key(app, tags, cursor, k, fx),
        Popup::QuitWithRuns { tags } => super::cancel::quit_key(app, tags, k, fx),
        Popup::ConfirmRuns { runs, judged } => super::confirm::popup_key(app, runs, judged, k, fx),
        Popup::Replay { labels, path } => super::quit::replay_key(app, labels, path, k, fx),
        Popup::ConfirmLoop(ready) => super::fewshot_loop::confirm_key(app, ready, k, fx),
        Popup::Picker {
            kind,
            options,
            cursor,
        } => picker_key(app, kind, options, cursor, k),
        Popup::Input {
            kind,
            area,
            target,
            error,
        } => input_key(app, (kind, area, target, error), k, now, fx),
        Popup::Tags {
            key,
            persona,
            scale,
            cursor,
        } => super::tags::popup_key(app, (key, persona, scale, cursor), k, now, fx),
    }
}

fn picker_key(
    app: &mut App,
    kind: PickerKind,
    options: Vec<String>,
    mut cursor: usize,
    k: KeyEvent,
) {
    match app.chrome.keymap.popup_action(PopupKind::Picker, &k) {
        Some(PopupAction::Close) => return,
        Some(PopupAction::Pick) => {
            pick(app, kind, cursor);
            return;
        }
        Some(PopupAction::Next) => cursor = (cursor + 1).min(options.len().saturating_sub(1)),
        Some(PopupAction::Previous) => cursor = cursor.saturating_sub(1),
        Some(PopupAction::First) => cursor = 0,
        Some(PopupAction::Last) => cursor = options.len().saturating_sub(1),
        _ => {}
    }
    app.chrome.popup = Some(Popup::Picker {
        kind,
        options,
        cursor,
    });
}

fn pick(app: &mut App, kind: PickerKind, cursor: usize) {
    match kind {
        PickerKind::Persona => {
            let first = usize::from(app.data.has_owners);
            if app.data.has_owners && cursor == 0 {
                app.choices.by_owner = true;
            } else if cursor.saturating_sub(first) < app.data.personas.len() {
                app.choices.persona = cursor.saturating_sub(first);
                app.choices.by_owner = false;
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

/// An open text field: its kind, text, the combination it is about and
/// the error shown under it.
type InputState = (
    InputKind,
    Box<TextArea<'static>>,
    Option<(ComboKey, Scale)>,
    Option<String>,
);

fn input_key(
    app: &mut App,
    (kind, mut area, target, error): InputState,
    k: KeyEvent,
    now: super::Now,
    fx: &mut Vec<Effect>,
) {
    let keys = match kind {
        InputKind::Persona => PopupKind::PersonaEditor,
        _ => PopupKind::Editor,
    };
    match app.chrome.keymap.popup_action(keys, &k) {
        // Closing a search keeps what was typed: the list already shows it.
        Some(PopupAction::Close) => return,
        Some(PopupAction::Submit) => {
            submit_input(app, kind, *area, target, now, fx);
            return;
        }
        _ => {}
    }
    area.input(k);
    let error = if kind == InputKind::Search {
        app.list.search = area.lines().join(" ");
        app.refilter();
        // A term that cannot be read says why under the field, as typed.
        app.list.query.errors.first().cloned()
    } else {
        error
    };
    app.chrome.popup = Some(Popup::Input {
        kind,
        area,
        target,
        error,
    });
}

fn submit_input(
    app: &mut App,
    kind: InputKind,
    area: TextArea<'static>,
    target: Option<(ComboKey, Scale)>,
    now: super::Now,
    fx: &mut Vec<Effect>,
) {
    let text = area.lines().join("\n");
    match kind {
        InputKind::MarkNote(mark) => {
            if let Some((key, _)) = target {
                super::marks::submit(app, mark, key, text, now, fx);
            }
        }
        InputKind::Search => {
            app.list.search = text.replace('\n', " ");
            app.refilter();
            if let Some(e) = app.list.query.errors.first() {
                app.chrome.warn(e.clone());
            }
        }
        InputKind::Note => {
            let Some((key, scale)) = target else { return };
            // Protocol rows keep their own persona (none for most of them).
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
                fx.push(Effect::SaveNote {
                    req,
                    label: e.label.clone(),
                });
                // The list's `note:` terms and mark read it at once.
                if let Some(&i) = app.data.index_of.get(&key.item_id) {
                    app.item_changed(i as usize);
                }
                super::advance::after_note(app);
            }
        }
        InputKind::Persona => match serde_json::from_str::<Persona>(&text) {
            Ok(p) if p.id.trim().is_empty() => reopen(
                app,
                kind,
                area,
                crate::tui::strings::popup::PERSONA_NEEDS_ID.into(),
            ),
            Ok(p) if crate::domain::reserved_id(&p.id).is_some() => reopen(
                app,
                kind,
                area,
                crate::domain::reserved_id(&p.id).unwrap_or_default(),
            ),
            Ok(p) if !p.definition.is_object() => reopen(
                app,
                kind,
                area,
                crate::tui::strings::popup::DEFINITION_NOT_OBJECT.into(),
            ),
            Ok(p) => fx.push(Effect::SavePersona(p)),
            Err(e) => reopen(
                app,
                kind,
                area,
                crate::tui::strings::popup::not_a_persona(&e.to_string()),
            ),
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
