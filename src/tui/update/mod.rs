//! `update(&mut App, Msg, now) -> Vec<Effect>`: every decision, no I/O.
//! The clock is read by the event loop and passed in, so tests drive time.
//! One module per concern: [`nav`] (panes, rows, list, views), [`label`]
//! (human labels and their saving), [`run`] (starting runs), [`engine`]
//! (the engine's events), [`popup`] (pickers, text fields, pastes).

pub mod drill;
pub mod engine;
pub mod label;
pub mod nav;
pub mod popup;
pub mod run;

use super::action::Action;
use super::app::*;
use super::msg::{Effect, Msg};
use crossterm::event::{KeyEvent, KeyEventKind};

pub use label::{retry_unsaved, visible_judge};
pub use nav::agreement_rows;
pub use popup::paste_text;
pub use run::structured_name;

/// The wall-clock time a message is handled at (labels are stamped with it).
pub type Now = chrono::DateTime<chrono::Utc>;

pub fn update(app: &mut App, msg: Msg, now: Now) -> Vec<Effect> {
    let mut fx = Vec::new();
    match msg {
        Msg::Key(k) if k.kind == KeyEventKind::Release => {}
        Msg::Key(k) => key(app, k, now, &mut fx),
        Msg::Paste(s) => popup::paste(app, &s),
        Msg::Resize(w, h) => {
            app.chrome.size = (w, h);
            app.scroll_list_to_cursor();
        }
        Msg::Tick => app.runs.spinner = app.runs.spinner.wrapping_add(1),
        Msg::Engine { tag, event } => engine::engine_event(app, tag, event),
        Msg::RunEnded { tag, error } => run::run_ended(app, tag, error),
        Msg::LabelSaved { req, result } => label::label_saved(app, req, result, &mut fx),
        Msg::UnsavedKept(r) => super::quit::kept(app, r),
        Msg::AgreementLoaded(r) => nav::agreement_loaded(app, r),
        Msg::AgreementNotes(lines) => nav::agreement_notes(app, lines),
        Msg::AgreementCells(cells) => drill::cells_loaded(app, cells),
        Msg::RunsLoaded(r) => nav::runs_loaded(app, r),
        Msg::PersonaSaved(r) => popup::persona_saved(app, r),
    }
    fx
}

fn key(app: &mut App, k: KeyEvent, now: Now, fx: &mut Vec<Effect>) {
    if app.chrome.popup.is_some() {
        popup::popup_key(app, k, fx);
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
    act(app, action, now, fx);
}

/// Applies one action (public so tests and the help can drive it directly).
pub fn act(app: &mut App, action: Action, now: Now, fx: &mut Vec<Effect>) {
    use Action::*;
    match action {
        Quit => super::quit::request(app, fx),
        Cancel => {
            if !drill::back(app) {
                nav::cancel(app, fx)
            }
        }
        Help | Compare | Personas | Runs | Agreement | Prompt => nav::open_view(app, action, fx),
        CycleSplit => nav::cycle_split(app, fx),
        MoveDown | MoveUp if drill::move_cell(app, action) => {}
        MoveDown | MoveUp | PageDown | PageUp | Top | Bottom => nav::movement(app, action),
        MoveLeft | MoveRight => {
            drill::move_cell(app, action);
        }
        FocusNext | FocusPrev if drill::toggle_matrix(app) => {}
        FocusNext | FocusPrev => nav::focus(app, action),
        NextRow => nav::move_row(app, 1),
        PrevRow => nav::move_row(app, -1),
        CycleFilter | CycleOrder => nav::cycle_list(app, action),
        Judge if matches!(app.chrome.view, View::Agreement(_)) => drill::open(app),
        Judge => run::judge(app, fx),
        RunFiltered => run::run_filtered(app, fx),
        RunMissing => run::run_missing(app, fx),
        CycleMode => {
            app.choices.mode = app.choices.mode.next();
            // `judge:` terms read the verdicts of the mode shown.
            if app.list.query.reads_judge() {
                app.refilter();
            }
        }
        CycleStructured => run::cycle_structured(app),
        PickPersona | PickPerspective => popup::open_picker(app, action),
        Search => popup::open_search(app),
        EditPersona | NewPersona => popup::open_persona_editor(app, action),
        Likert1 | Likert2 | Likert3 | Likert4 | Likert5 | Score0 | Score6 | Score7 | Score8
        | Score9 | Agree | Disagree => label::label_key(app, action, now, fx),
        EditNote => label::edit_note(app),
        RetryUnsaved => label::retry(app, fx),
        ToggleBlind => label::toggle_blind(app),
    }
}
