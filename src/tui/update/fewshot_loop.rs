//! The few-shot loop (`L`): build the few-shot set from `train` labels
//! beside the store, confirm its run on the held-out `test` items (how many
//! requests), run it with `--resume` semantics, then open the agreement
//! view on `test` with the change it made. In that view, when no earlier
//! version judged the test items, `L` offers the baseline run instead.
//! Every step's I/O is an Effect (`tui::fewshot_effects`).

use super::super::app::*;
use super::super::input::action::{Action, PopupAction, PopupKind};
use super::super::msg::Effect;
use super::super::strings::fewshot as say;
use crate::domain::Side;
use crossterm::event::KeyEvent;

/// `L`.
pub fn start(app: &mut App, fx: &mut Vec<Effect>) {
    if super::run::no_endpoint(app) {
        return;
    }
    if app.runs.fewshot.as_ref().is_some_and(|l| {
        l.tags
            .iter()
            .any(|t| app.runs.active.iter().any(|r| r.tag == *t && !r.finished))
    }) {
        app.chrome.warn(say::ALREADY_RUNNING);
        return;
    }
    if app.data.split.is_none() {
        // Made with `jury split` since the workbench opened, perhaps: the
        // store says, and `L` goes on from there.
        fx.push(Effect::LoadSplitForLoop);
        return;
    }
    // A split made by pair (before splits were by item) leaks: an item's
    // text could be an example while it is scored as held-out.
    if let Some(split) = &app.data.split
        && let Some(first) = split.mixed_items().first()
    {
        app.chrome.warn(say::pair_level_split(
            split.mixed_items().len(),
            &crate::tui::strings::flat(first, 40),
            split.rule.holdout,
            split.rule.seed,
        ));
        return;
    }
    let Some(plan) = awag_plan(app) else {
        return;
    };
    let on_test = matches!(&app.chrome.view, View::Agreement(a) if a.side == Some(Side::Test));
    let baseline_for = app
        .runs
        .fewshot
        .as_ref()
        .filter(|l| on_test && l.needs_baseline())
        .map(|l| l.ready.dir.clone());
    app.chrome.info(if baseline_for.is_some() {
        say::BASELINE_PREPARING
    } else {
        say::PREPARING
    });
    fx.push(Effect::PrepareLoop {
        plan,
        baseline_for,
        by_owner: app.choices.by_owner,
    });
}

/// The store's split arrived for `L`: kept (rows show their side from now
/// on) and the loop goes on; none, and `L` says how to make one.
pub fn split_loaded(
    app: &mut App,
    r: Result<Option<crate::store::Split>, String>,
    fx: &mut Vec<Effect>,
) {
    match r {
        Ok(Some(split)) => {
            app.data.split = Some(split);
            start(app, fx);
        }
        Ok(None) => app.chrome.warn(say::NO_SPLIT),
        Err(e) => app
            .chrome
            .error(say::failed(&crate::tui::strings::flat(&e, 300))),
    }
}

/// The run's plan from the workbench's choices (items filled in later with
/// the held-out ones); `None` after saying what is missing.
fn awag_plan(app: &mut App) -> Option<RunPlan> {
    let spec = super::run::awag_spec(app, app.choices.mode, None)?;
    super::run::plan_worded(app, spec, Vec::new(), say::failed)
}

/// The set is written and the run planned: ask (or, when everything is
/// already judged, go straight to the change).
pub fn ready(app: &mut App, r: Result<Box<LoopReady>, String>, fx: &mut Vec<Effect>) {
    let ready = match r {
        Ok(r) => r,
        Err(e) => {
            app.chrome
                .error(say::failed(&crate::tui::strings::flat(&e, 300)));
            return;
        }
    };
    if ready.items() == 0 {
        let who = if ready.by_owner {
            say::EACH_ITEMS_OWNER.to_string()
        } else {
            crate::tui::strings::flat(ready.plan.persona_id(), 40)
        };
        app.chrome.warn(say::no_test_items(&who));
        return;
    }
    if ready.requests == 0 {
        // A run finished earlier with these very prompts: nothing to send.
        remember(app, &ready, Vec::new());
        open_delta(app, fx);
        app.chrome.info(say::ALL_JUDGED);
        return;
    }
    app.chrome.message = None;
    app.chrome.popup = Some(Popup::ConfirmLoop(ready));
}

/// A key on the confirm step.
pub fn confirm_key(app: &mut App, ready: Box<LoopReady>, k: KeyEvent, fx: &mut Vec<Effect>) {
    match app.chrome.keymap.popup_action(PopupKind::ConfirmLoop, &k) {
        Some(PopupAction::StartRun) => start_run(app, *ready, fx),
        Some(PopupAction::Close) => {
            app.chrome.info(say::NOT_STARTED);
        }
        _ => app.chrome.popup = Some(Popup::ConfirmLoop(ready)),
    }
}

/// Keeps the loop's state; a baseline keeps the few-shot set it serves.
fn remember(app: &mut App, ready: &LoopReady, tags: Vec<u64>) {
    match (&mut app.runs.fewshot, ready.stage) {
        (Some(l), LoopStage::Baseline) => l.tags = tags,
        _ => {
            app.runs.fewshot = Some(FewShotLoop {
                ready: ready.clone(),
                tags,
                changes: None,
            })
        }
    }
}

/// Starts the step's runs: one, or one per owner persona.
fn start_run(app: &mut App, ready: LoopReady, fx: &mut Vec<Effect>) {
    let prompts = (ready.stage == LoopStage::FewShot).then(|| ready.dir.clone());
    let mut tags = Vec::new();
    for plan in ready.plans().filter(|p| !p.item_ids.is_empty()).cloned() {
        let tag = super::run::track(app, &plan, &super::run::what(&plan));
        tags.push(tag);
        fx.push(Effect::StartLoopRun {
            tag,
            plan,
            prompts: prompts.clone(),
        });
    }
    remember(app, &ready, tags);
}

/// A run ended: when it was the loop's and it ran to the end, the change.
pub fn run_ended(app: &mut App, tag: u64, error: &Option<String>, fx: &mut Vec<Effect>) {
    let Some(l) = app.runs.fewshot.as_mut() else {
        return;
    };
    if !l.tags.contains(&tag) {
        return;
    }
    l.tags.retain(|t| *t != tag);
    if error.is_some() {
        // run_ended already shows it; the change waits for a whole step.
        l.tags.clear();
        return;
    }
    let stopped = app
        .runs
        .active
        .iter()
        .find(|r| r.tag == tag)
        .is_some_and(|r| r.note.is_some());
    if stopped {
        if let Some(l) = app.runs.fewshot.as_mut() {
            l.tags.clear();
        }
        let key = app.chrome.keymap.hint(Action::FewShotLoop);
        app.chrome.warn(say::stopped(&key));
        return;
    }
    // With one run per owner persona, the change once every run ended.
    if app.runs.fewshot.as_ref().is_some_and(|l| l.tags.is_empty()) {
        open_delta(app, fx);
    }
}

/// Opens the agreement view on the `test` side (its figures and the
/// prompt-version changes are computed by `Effect::LoadAgreement`).
fn open_delta(app: &mut App, fx: &mut Vec<Effect>) {
    if let Some(l) = app.runs.fewshot.as_mut() {
        l.changes = None;
    }
    super::nav::open_view(app, Action::Agreement, fx);
    if let View::Agreement(a) = &mut app.chrome.view {
        a.side = Some(Side::Test);
    }
    if let Some(Effect::LoadAgreement { scope, .. }) = fx.last_mut() {
        scope.side = Some(Side::Test);
    }
}

/// The agreement view's prompt-version changes arrived (for the request it
/// waits for): the loop keeps those on `test`.
pub fn changes(app: &mut App, changes: Vec<crate::report::prompt_change::PromptChange>) {
    let on_test = matches!(&app.chrome.view, View::Agreement(a) if a.side == Some(Side::Test));
    if let (true, Some(l)) = (on_test, app.runs.fewshot.as_mut()) {
        l.changes = Some(changes);
    }
}
