//! Quitting with labels not on disk (retry, then ask, keeping them in the
//! recovery file), and replaying the labels an earlier session kept there.
//! Decisions only, like [`super`]: files are written by the executor.

use super::super::app::{App, LabelEntry, Popup, QuitPrompt, SaveState};
use super::super::effects::recovery::same_slot;
use super::super::input::action::{PopupAction, PopupKind};
use super::super::msg::Effect;
use super::retry_unsaved;
use crate::domain::Label;
use crossterm::event::KeyEvent;

/// The quit action: with runs going, first asks as the cancel key does
/// ([`super::cancel::ask_before_quit`]); then [`request_now`].
pub fn request(app: &mut App, fx: &mut Vec<Effect>) {
    if super::cancel::ask_before_quit(app) {
        return;
    }
    request_now(app, fx);
}

/// Quits at once when every label is saved (cancelling the runs still
/// going); else every unsaved label is retried and the answer awaited
/// ([`QuitPrompt::Saving`]).
pub fn request_now(app: &mut App, fx: &mut Vec<Effect>) {
    if app.unsaved_count() + app.pending_count() == 0 {
        finish(app, fx);
        return;
    }
    retry_unsaved(app, fx);
    app.chrome.popup = Some(Popup::Quit(QuitPrompt::Saving));
}

fn finish(app: &mut App, fx: &mut Vec<Effect>) {
    app.chrome.quit = true;
    for r in app.runs.active.iter().filter(|r| !r.finished) {
        fx.push(Effect::CancelRun { tag: r.tag });
    }
}

/// After each answer of the label writer: completes a replay, and moves the
/// quit prompt on once nothing is pending.
pub fn label_answered(app: &mut App, fx: &mut Vec<Effect>) {
    let pending = app.pending_count();
    if app.data.replaying && pending == 0 && app.unsaved_count() == 0 {
        app.data.replaying = false;
        fx.push(Effect::ClearUnsaved);
        app.chrome.info(crate::tui::strings::msg::RECOVERED_SAVED);
    }
    if pending > 0 || !matches!(app.chrome.popup, Some(Popup::Quit(QuitPrompt::Saving))) {
        return;
    }
    let labels = app.unsaved_labels();
    if labels.is_empty() {
        finish(app, fx);
        return;
    }
    let reason = app
        .data
        .labels
        .values()
        .flatten()
        .find_map(|e| match &e.state {
            SaveState::Unsaved(why) => Some(why.clone()),
            _ => None,
        })
        .unwrap_or_default();
    app.chrome.popup = Some(Popup::Quit(QuitPrompt::Unsaved {
        count: labels.len(),
        reason,
        kept: None,
    }));
    fx.push(Effect::KeepUnsaved(labels));
}

/// The executor's answer to [`Effect::KeepUnsaved`].
pub fn kept(app: &mut App, r: Result<String, String>) {
    match &mut app.chrome.popup {
        Some(Popup::Quit(QuitPrompt::Unsaved { kept, .. })) => {
            *kept = Some(r.map_err(|e| crate::tui::strings::flat(&e, 200)))
        }
        _ => match r {
            Err(e) => app
                .chrome
                .error(crate::tui::strings::msg::recovery_file_error(
                    &crate::tui::strings::flat(&e, 200),
                )),
            Ok(path) if app.data.store_away.is_some() => super::away::kept(app, &path),
            Ok(_) => {}
        },
    }
}

/// Keys on the quit prompt (the popup was taken out of `app`); while the
/// retry is being saved only "stay" acts.
pub fn prompt_key(app: &mut App, q: QuitPrompt, k: KeyEvent, fx: &mut Vec<Effect>) {
    let action = app.chrome.keymap.popup_action(PopupKind::QuitPrompt, &k);
    match (&q, action) {
        (_, Some(PopupAction::Stay)) => {
            app.chrome.warn(crate::tui::strings::msg::not_quitting(
                app.unsaved_count() + app.pending_count(),
            ));
        }
        (QuitPrompt::Unsaved { .. }, Some(PopupAction::QuitAnyway)) => finish(app, fx),
        (QuitPrompt::Unsaved { .. }, Some(PopupAction::RetrySaving)) => {
            retry_unsaved(app, fx);
            app.chrome.popup = Some(Popup::Quit(QuitPrompt::Saving));
        }
        _ => app.chrome.popup = Some(Popup::Quit(q)),
    }
}

/// The recovered labels the store does not already hold (as new or newer).
pub fn still_unsaved(app: &App, labels: Vec<Label>) -> Vec<Label> {
    labels
        .into_iter()
        .filter(|l| {
            !app.data.labels.get(&l.key.item_id).is_some_and(|es| {
                es.iter().any(|e| {
                    e.state == SaveState::Saved
                        && same_slot(&e.label, l)
                        && e.label.created_at >= l.created_at
                })
            })
        })
        .collect()
}

/// Keys on the replay offer.
pub fn replay_key(
    app: &mut App,
    labels: Vec<Label>,
    path: String,
    k: KeyEvent,
    fx: &mut Vec<Effect>,
) {
    let n = labels.len();
    match app.chrome.keymap.popup_action(PopupKind::Replay, &k) {
        Some(PopupAction::Replay) => replay(app, labels, fx),
        Some(PopupAction::Keep) => app
            .chrome
            .warn(crate::tui::strings::msg::kept_for_later(n, &path)),
        Some(PopupAction::Discard) => {
            fx.push(Effect::ClearUnsaved);
            app.chrome.info(crate::tui::strings::msg::discarded(n));
        }
        _ => app.chrome.popup = Some(Popup::Replay { labels, path }),
    }
}

/// Puts the recovered labels on screen as pending and hands them to the
/// writer; the file goes once all are saved ([`label_answered`]).
fn replay(app: &mut App, labels: Vec<Label>, fx: &mut Vec<Effect>) {
    let n = labels.len();
    for l in labels {
        let req = app.data.next_req;
        app.data.next_req += 1;
        let entries = app.data.labels.entry(l.key.item_id.clone()).or_default();
        let state = SaveState::Pending(req);
        match entries.iter_mut().find(|e| same_slot(&e.label, &l)) {
            Some(e) => {
                e.label = l.clone();
                e.state = state;
            }
            None => entries.push(LabelEntry {
                label: l.clone(),
                state,
            }),
        }
        if let Some(&i) = app.data.index_of.get(&l.key.item_id) {
            app.item_changed(i as usize);
        }
        fx.push(Effect::SaveLabel { req, label: l });
    }
    app.data.replaying = true;
    app.chrome.info(crate::tui::strings::msg::replaying(n));
}
