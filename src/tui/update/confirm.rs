//! `R`'s confirmation: the counts come back from the engine's planning, the
//! popup says what each run would send, and the user starts the missing
//! combinations (streamed, or as one Batch API batch per run), re-judges
//! everything, or starts nothing.

use super::super::app::*;
use super::super::input::action::{PopupAction, PopupKind};
use super::super::msg::Effect;
use crossterm::event::KeyEvent;

/// The counts for `R` (or for a run that found nothing missing: `started`).
pub fn runs_planned(app: &mut App, started: Option<u64>, result: Result<Vec<PlannedRun>, String>) {
    if let Some(tag) = started {
        // It never started: nothing to track.
        app.runs.active.retain(|r| r.tag != tag);
        app.runs.streams.retain(|_, s| s.tag != tag);
    }
    let runs = match result {
        Ok(runs) => runs,
        Err(e) => {
            app.chrome.error(crate::tui::strings::flat(&e, 300));
            return;
        }
    };
    app.chrome.message = None;
    if started.is_some() {
        app.chrome.info(crate::tui::strings::msg::NOTHING_MISSING);
    }
    // A popup the user opened meanwhile is theirs: the counts wait for `R` again.
    if app.chrome.popup.is_none() {
        app.chrome.popup = Some(Popup::ConfirmRuns {
            runs,
            judged: started.is_some(),
        });
    }
}

/// A key on the confirmation.
pub fn popup_key(
    app: &mut App,
    runs: Vec<PlannedRun>,
    judged: bool,
    k: KeyEvent,
    fx: &mut Vec<Effect>,
) {
    match app.chrome.keymap.popup_action(PopupKind::ConfirmRuns, &k) {
        Some(PopupAction::StartMissing) => {
            let missing: Vec<RunPlan> = runs
                .into_iter()
                .filter(|r| r.missing.combos > 0)
                .map(|r| r.plan)
                .collect();
            if missing.is_empty() {
                app.chrome.info(crate::tui::strings::msg::NOTHING_MISSING);
            }
            for plan in missing {
                super::run::start_run(
                    app,
                    RunPlan {
                        resume: true,
                        ..plan
                    },
                    fx,
                );
            }
        }
        Some(PopupAction::StartBatch) if !judged => {
            let poll = app.choices.batch_poll;
            let missing: Vec<RunPlan> = runs
                .into_iter()
                .filter(|r| r.missing.combos > 0)
                .map(|r| r.plan)
                .collect();
            if missing.is_empty() {
                app.chrome.info(crate::tui::strings::msg::NOTHING_MISSING);
            }
            for plan in missing {
                let plan = RunPlan {
                    resume: true,
                    batch: Some(poll),
                    ..plan
                };
                super::run::start_run(app, plan, fx);
            }
        }
        Some(PopupAction::RejudgeAll) => {
            for r in runs.into_iter().filter(|r| r.all.combos > 0) {
                let plan = RunPlan {
                    resume: false,
                    ..r.plan
                };
                super::run::start_run(app, plan, fx);
            }
        }
        Some(PopupAction::DontStart) => {}
        _ => app.chrome.popup = Some(Popup::ConfirmRuns { runs, judged }),
    }
}
