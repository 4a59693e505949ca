//! `update(&mut App, Msg, now) -> Vec<Effect>`: every decision, no I/O.
//! The clock is read by the event loop and passed in, so tests drive time.
//! One module per concern: [`nav`] (panes, rows, list, views), [`label`]
//! (human labels and their saving), [`run`] (starting runs), [`engine`]
//! (the engine's events), [`confirm`] (what `R` will send), [`cancel`]
//! (stopping runs), [`popup`] (pickers, text fields, pastes), [`quit`]
//! (quitting with unsaved labels, replaying them), [`session`] (what is
//! kept for the next start), [`request_preview`] (the prompt view's text).

pub mod active;
pub mod adjudicate;
pub mod advance;
pub mod away;
pub mod cancel;
pub mod claims;
pub mod compare;
pub mod confirm;
pub mod drill;
pub mod engine;
pub mod fewshot_loop;
pub mod label;
pub mod lease;
pub mod live;
pub mod marks;
pub mod nav;
pub mod owners;
pub mod popup;
pub mod quit;
pub mod request_preview;
pub mod run;
pub mod selection;
pub mod session;
pub mod tags;
#[cfg(test)]
mod tests;
pub mod undo;

use super::app::*;
use super::input::action::Action;
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
        Msg::Key(k) => {
            if let Some(plain) = escape_then(app, &k) {
                key(
                    app,
                    KeyEvent::from(crossterm::event::KeyCode::Esc),
                    now,
                    &mut fx,
                );
                key(app, plain, now, &mut fx);
            } else {
                key(app, k, now, &mut fx);
            }
            touched(app);
        }
        Msg::Paste(s) => {
            popup::paste(app, &s);
            touched(app);
        }
        Msg::Resize(w, h) => {
            app.chrome.size = (w, h);
            app.scroll_list_to_cursor();
        }
        Msg::Tick => {
            app.runs.spinner = app.runs.spinner.wrapping_add(1);
            session::tick(app, &mut fx);
        }
        Msg::WatchTick => live::tick(app, &mut fx),
        Msg::StoreWatched { since, result } => live::watched(app, since, result),
        Msg::RunsRunning(runs) => app.runs.running = runs,
        Msg::Engine { tag, event } => {
            // A run's row appears in (or leaves) the store: an open runs
            // view reads it again; progress in between is drawn live.
            let reread = matches!(
                event,
                crate::engine::EngineEvent::RunStarted { .. }
                    | crate::engine::EngineEvent::RunFinished { .. }
            );
            engine::engine_event(app, tag, event);
            if reread && matches!(app.chrome.view, View::Runs(_)) {
                fx.push(Effect::LoadRuns);
            }
        }
        Msg::RunEnded { tag, error } => {
            fewshot_loop::run_ended(app, tag, &error, &mut fx);
            run::run_ended(app, tag, error);
            nav::verdicts_changed(app);
        }
        Msg::LabelSaved { req, result } => label::label_saved(app, req, result, &mut fx),
        Msg::UndoRefused { req, current, why } => {
            undo::undo_refused(app, req, current, &why);
            quit::label_answered(app, &mut fx);
        }
        Msg::UnsavedKept(r) => quit::kept(app, r),
        Msg::Agreement { req, part } => nav::agreement_answered(app, req, part),
        Msg::RunsLoaded(r) => nav::runs_loaded(app, r),
        Msg::RunsPlanned { started, result } => confirm::runs_planned(app, started, result),
        Msg::PersonaSaved(r) => popup::persona_saved(app, r),
        Msg::EscalationsLoaded(r) => nav::escalations_loaded(app, r),
        Msg::ActiveOrderLoaded(r) => active::loaded(app, r),
        Msg::LabelWorth(r) => active::worth_loaded(app, r, &mut fx),
        Msg::LabelHistory { key, result, marks } => undo::history_loaded(app, key, result, marks),
        Msg::MarkNotSaved { why, retry } => marks::not_saved(app, &why, retry),
        Msg::AdjudicationNotSaved(e) => adjudicate::not_saved(app, &e),
        Msg::SampleNotKept(e) => app.chrome.warn(format!(
            "the label is saved but how it was chosen was not recorded: {}",
            crate::tui::strings::flat(&e, 200)
        )),
        // While the store is away the badge says so; the session is
        // written again later (it is small and kept on quit).
        Msg::SessionNotSaved(_) if app.data.store_away.is_some() => {}
        Msg::SessionNotSaved(e) => {
            app.chrome
                .warn(crate::tui::strings::session::session_not_saved(
                    &crate::tui::strings::flat(&e, 200),
                ))
        }
        Msg::StoreUnreachable(why) => away::unreachable(app, &why),
        Msg::StoreBack => away::back(app, &mut fx),
        Msg::LoopReady(r) => fewshot_loop::ready(app, r, &mut fx),
        Msg::SplitForLoop(r) => fewshot_loop::split_loaded(app, r, &mut fx),
        Msg::LeaseMoved { item, result } => lease::moved(app, item, result),
    }
    // The list shows the escalation queue (chosen, restored with the
    // session, or made stale by a run) and it is not there yet: find it.
    nav::want_escalations(app, &mut fx);
    // A sample order shows what the next label is worth; the active order
    // needs its draws.
    active::want(app, &mut fx);
    // Quitting (from a key or from the quit prompt's last answer): the
    // session goes to the writer, which finishes before the process ends.
    if app.chrome.quit {
        session::keep(app, &mut fx);
    }
    // The item open from my queue holds my lease; moving on, labelling it
    // or quitting gives the lease back.
    lease::follow(app, now, &mut fx);
    fx
}

/// A key or paste may have changed the session: it is kept once the keys
/// are calm (see [`session::tick`]), or on quit.
fn touched(app: &mut App) {
    app.chrome.session.touched = true;
    app.chrome.session.idle_ticks = 0;
}

/// An Alt+key that nothing binds, on the main screen, is an Esc and a key
/// typed quickly: a terminal sends Alt+x as ESC then x, and an Esc whose
/// next key reaches jury in the same read (a slow ssh link, a busy machine)
/// arrives as Alt+x. Read as the two keys, so the Esc is not lost. In a
/// popup Alt+key is left alone (a text field may bind it).
fn escape_then(app: &App, k: &KeyEvent) -> Option<KeyEvent> {
    use crossterm::event::KeyModifiers;
    if !k.modifiers.contains(KeyModifiers::ALT)
        || app.chrome.popup.is_some()
        || app.chrome.keymap.action(k).is_some()
    {
        return None;
    }
    let mut plain = *k;
    plain.modifiers.remove(KeyModifiers::ALT);
    Some(plain)
}

fn key(app: &mut App, k: KeyEvent, now: Now, fx: &mut Vec<Effect>) {
    if app.chrome.popup.is_some() {
        popup::popup_key(app, k, now, fx);
        return;
    }
    let Some(action) = app.chrome.keymap.action(&k) else {
        return;
    };
    // A message lasts until the next action, errors too: the action either
    // says something new or the key hints come back. Never on a tick, so a
    // message cannot vanish before it is read. Quit keeps it: the quit
    // prompt is about the unsaved label the message names.
    if action != Action::Quit {
        app.chrome.message = None;
    }
    // The first start's legend goes once `?` opens the help, which lists
    // the same marks (Esc puts it away too, see `nav::cancel`).
    if action == Action::Help && app.chrome.legend.take().is_some() {
        app.scroll_list_to_cursor();
    }
    act(app, action, now, fx);
}

/// Applies one action (public so tests and the help can drive it directly).
pub fn act(app: &mut App, action: Action, now: Now, fx: &mut Vec<Effect>) {
    use Action::*;
    // Where the last label moved the focus: only `n` right after reads it.
    let advanced = app.list.advanced.take();
    // After `=`, a value key adjudicates; any other key leaves adjudicating.
    if std::mem::take(&mut app.data.adjudicate_next) && adjudicate::value_key(app, action, now, fx)
    {
        return;
    }
    match action {
        Quit => quit::request(app, fx),
        Cancel => nav::cancel(app),
        CancelRun => cancel::ask(app, fx),
        Help | Compare | Personas | Runs | Agreement | Prompt => nav::open_view(app, action, fx),
        CycleSplit => nav::cycle_split(app, fx),
        OtherColumns => nav::other_columns(app),
        FewShotLoop => fewshot_loop::start(app, fx),
        MoveDown | MoveUp if drill::move_cell(app, action) => {}
        MoveDown | MoveUp | PageDown | PageUp | Top | Bottom => nav::movement(app, action),
        MoveLeft | MoveRight => {
            drill::move_cell(app, action);
        }
        FocusNext | FocusPrev if drill::toggle_matrix(app) => {}
        FocusNext | FocusPrev => nav::focus(app, action),
        NextRow => nav::move_row(app, 1),
        PrevRow => nav::move_row(app, -1),
        CycleFilter | CycleFilterBack | CycleOrder => nav::cycle_list(app, action),
        Activate => match app.chrome.view {
            View::Main | View::Compare => run::judge(app, fx),
            View::Agreement(_) => drill::open(app),
            View::Personas { cursor } => run::use_persona(app, cursor),
            View::Runs(_) | View::Prompt { .. } | View::Help { .. } => {}
        },
        RunFiltered => run::run_filtered(app, fx),
        RunMissing => run::run_missing(app, fx),
        CycleMode => {
            app.choices.mode = app.choices.mode.next();
            // The `≠` marks, the judge≠human filter and `judge:` terms read
            // the verdicts of the mode shown.
            app.refresh_all_marks();
        }
        CycleStructured => run::cycle_structured(app),
        PickPersona | PickPerspective => popup::open_picker(app, action),
        Search => popup::open_search(app),
        EditPersona | NewPersona => popup::open_persona_editor(app, action),
        Likert1 | Likert2 | Likert3 | Likert4 | Likert5 | Score0 | Score6 | Score7 | Score8
        | Score9 | Agree | Disagree => label::label_key(app, action, now, fx),
        EditNote => label::edit_note(app, advanced),
        MarkUnsure => marks::open(app, crate::domain::MarkKind::Unsure),
        MarkSkip => marks::open(app, crate::domain::MarkKind::Skip),
        PickTags => tags::open(app, advanced),
        RetryUnsaved => label::retry(app, fx),
        ToggleBlind => label::toggle_blind(app),
        Undo => undo::undo(app, now, fx),
        LabelHistory => undo::open_history(app, fx),
        Adjudicate => adjudicate::arm(app),
        CompareBy => nav::cycle_compare_axis(app),
    }
}
