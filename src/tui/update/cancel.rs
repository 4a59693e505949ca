//! Cancelling a run: its own key, never Esc. One run with only a few
//! combinations left stops at once; otherwise a prompt asks first (and which
//! run, when several are going). Verdicts already stored stay: the engine
//! commits as it goes, and the run ends as cancelled.

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

/// The cancel key: stops a nearly done lone run, asks otherwise.
pub fn ask(app: &mut App, fx: &mut Vec<Effect>) {
    let tags = going(app);
    match tags.as_slice() {
        [] => app.chrome.info(crate::tui::strings::msg::NO_RUN_TO_CANCEL),
        [tag]
            if app
                .runs
                .active
                .iter()
                .find(|r| r.tag == *tag)
                .and_then(|r| r.left())
                .is_some_and(|left| left <= FEW_LEFT) =>
        {
            cancel(app, &[*tag], fx)
        }
        _ => {
            let cursor = tags.len() - 1; // the newest
            app.chrome.popup = Some(Popup::CancelRun { tags, cursor });
        }
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
