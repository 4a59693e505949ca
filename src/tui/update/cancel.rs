//! Cancelling a run: its own key, never Esc. One run with only a few
//! combinations left stops at once; otherwise a prompt asks first (and which
//! run, when several are going). Verdicts already stored stay: the engine
//! commits as it goes, and the run ends as cancelled. Quitting with runs
//! going asks the same way.

use super::super::app::*;
use super::super::input::action::{PopupAction, PopupKind};
use super::super::msg::Effect;
use crossterm::event::KeyEvent;

/// At most this many combinations left: cancelling costs little, so no question.
pub const FEW_LEFT: u64 = 5;

/// The runs a cancel can still stop (oldest first).
fn going(app: &App) -> Vec<u64> {
    app.runs
        .active
        .iter()
        .filter(|r| !r.finished && !r.cancelled)
        .map(|r| r.tag)
        .collect()
}

/// Whether stopping the runs `tags` costs little: one run with at most
/// [`FEW_LEFT`] combinations left (nothing is asked then).
fn nearly_done(app: &App, tags: &[u64]) -> bool {
    match tags {
        [tag] => app
            .runs
            .active
            .iter()
            .find(|r| r.tag == *tag)
            .and_then(|r| r.left())
            .is_some_and(|left| left <= FEW_LEFT),
        _ => false,
    }
}

/// The cancel key: stops a nearly done lone run, asks otherwise.
pub fn ask(app: &mut App, fx: &mut Vec<Effect>) {
    let tags = going(app);
    if tags.is_empty() {
        app.chrome.info(crate::tui::strings::msg::NO_RUN_TO_CANCEL);
    } else if nearly_done(app, &tags) {
        cancel(app, &tags, fx);
    } else {
        let cursor = tags.len() - 1; // the newest
        app.chrome.popup = Some(Popup::CancelRun { tags, cursor });
    }
}

/// Quitting asks as the cancel key does: nothing when no run goes or a
/// lone one is nearly done (quitting cancels it), else the prompt, whose
/// yes cancels them all and quits. True when it asked.
pub fn ask_before_quit(app: &mut App) -> bool {
    let tags = going(app);
    if tags.is_empty() || nearly_done(app, &tags) {
        return false;
    }
    app.chrome.popup = Some(Popup::QuitWithRuns { tags });
    true
}

/// A key on the quitting prompt: yes (or the quit key again) quits, which
/// cancels every run; keep stays with the runs going.
pub fn quit_key(app: &mut App, tags: Vec<u64>, k: KeyEvent, fx: &mut Vec<Effect>) {
    let again = app.chrome.keymap.action(&k) == Some(crate::tui::input::action::Action::Quit);
    match app.chrome.keymap.popup_action(PopupKind::CancelRun, &k) {
        Some(PopupAction::ConfirmCancel | PopupAction::CancelAll) => {
            super::quit::request_now(app, fx)
        }
        _ if again => super::quit::request_now(app, fx),
        Some(PopupAction::KeepRunning) => app
            .chrome
            .info(crate::tui::strings::popup::not_quitting_runs(tags.len())),
        _ => app.chrome.popup = Some(Popup::QuitWithRuns { tags }),
    }
}

/// A key on the cancel prompt.
pub fn popup_key(
    app: &mut App,
    tags: Vec<u64>,
    mut cursor: usize,
    k: KeyEvent,
    fx: &mut Vec<Effect>,
) {
    match app.chrome.keymap.popup_action(PopupKind::CancelRun, &k) {
        Some(PopupAction::KeepRunning) => return,
        Some(PopupAction::ConfirmCancel) => {
            if let Some(tag) = tags.get(cursor) {
                cancel(app, &[*tag], fx);
            }
            return;
        }
        Some(PopupAction::CancelAll) => {
            cancel(app, &tags, fx);
            return;
        }
        Some(PopupAction::Next) => cursor = (cursor + 1).min(tags.len().saturating_sub(1)),
        Some(PopupAction::Previous) => cursor = cursor.saturating_sub(1),
        _ => {}
    }
    app.chrome.popup = Some(Popup::CancelRun { tags, cursor });
}

/// Asks the engine to stop these runs (those that ended meanwhile are skipped).
fn cancel(app: &mut App, tags: &[u64], fx: &mut Vec<Effect>) {
    let before = fx.len();
    for r in app.runs.active.iter_mut() {
        if tags.contains(&r.tag) && !r.finished && !r.cancelled {
            r.cancelled = true;
            fx.push(Effect::CancelRun { tag: r.tag });
        }
    }
    if fx.len() > before {
        app.chrome.warn(crate::tui::strings::msg::CANCELLING);
    } else {
        // It ended while the prompt was open.
        app.chrome.info(crate::tui::strings::msg::NO_RUN_TO_CANCEL);
    }
}
