//! Starting runs from the workbench and the settings they use.

use super::super::app::*;
use super::super::input::action::Action;
use super::super::msg::Effect;
use crate::domain::{Mode, PersonaRef, Protocol};
use crate::protocol::{JudgeSpec, SpecRefusal};

/// Enter on the main screen and in compare: judges the current item. One
/// item is cheap: it starts at once, and like `R` it judges only what is
/// missing; when nothing is, the run asks before re-judging.
pub fn judge(app: &mut App, fx: &mut Vec<Effect>) {
    if let Some(it) = app.current_item() {
        let ids = vec![(it.id.clone(), it.kind.clone())];
        let plans = plans_for(app, app.choices.mode, ids);
        // A warning from planning (a claim it cannot judge) outlives
        // the "judging…" line of the runs that could start.
        let warning = app
            .chrome
            .message
            .clone()
            .filter(|(level, _)| *level != Level::Info);
        for plan in plans {
            start_run(app, plan, fx);
        }
        if warning.is_some() {
            app.chrome.message = warning;
        }
    }
}

/// Enter in the personas view: the persona under the cursor is the one
/// judged as from now on.
pub fn use_persona(app: &mut App, cursor: usize) {
    if cursor < app.data.personas.len() {
        app.choices.persona = cursor;
        app.choices.by_owner = false;
        app.refresh_all_marks();
        app.chrome.info(crate::tui::strings::msg::persona_chosen(
            &crate::tui::strings::flat(&app.data.personas[cursor].name, 60),
        ));
    }
}

/// `R`: counts what judging every item the list shows would send (off the
/// UI thread); the confirmation opens when the counts come back.
pub fn run_filtered(app: &mut App, fx: &mut Vec<Effect>) {
    let ids: Vec<(String, String)> = app
        .list
        .filtered
        .iter()
        .map(|i| {
            let it = &app.data.items[*i as usize];
            (it.id.to_string(), it.kind.to_string())
        })
        .collect();
    let plans = plans_for(app, app.choices.mode, ids);
    if !plans.is_empty() {
        app.chrome.info(crate::tui::strings::msg::COUNTING);
        fx.push(Effect::PlanRuns(plans));
    }
}

/// In compare: one run per mode that has no verdict yet on some row.
pub fn run_missing(app: &mut App, fx: &mut Vec<Effect>) {
    if app.chrome.view != View::Compare {
        app.chrome
            .info(crate::tui::strings::msg::open_compare_first(
                &app.chrome.keymap.hint(Action::Compare),
            ));
        return;
    }
    if app.choices.compare_axis != CompareAxis::Mode {
        super::compare::run_missing(app, fx);
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
        app.chrome.info(crate::tui::strings::msg::EVERY_MODE_JUDGED);
    }
    for m in missing {
        if let Some(plan) = plan_for(app, Protocol::Awag, m, None, vec![id.clone()]) {
            start_run(app, plan, fx);
        }
    }
}

/// auto → tools → json_schema → json → auto, for the next runs.
pub fn cycle_structured(app: &mut App) {
    use crate::provider::ToolMode;
    app.choices.structured = match app.choices.structured {
        None => Some(ToolMode::Tools),
        Some(ToolMode::Tools) => Some(ToolMode::JsonSchema),
        Some(ToolMode::JsonSchema) => Some(ToolMode::JsonContent),
        Some(ToolMode::JsonContent) => None,
    };
    app.chrome
        .info(crate::tui::strings::msg::structured(structured_name(
            app.choices.structured,
        )));
}

/// A run task ended (after its last event, or without any).
pub fn run_ended(app: &mut App, tag: u64, error: Option<String>) {
    app.runs.streams.retain(|_, s| s.tag != tag);
    let Some(r) = app.runs.active.iter_mut().find(|r| r.tag == tag) else {
        if let Some(e) = error {
            app.chrome.error(crate::tui::strings::flat(&e, 300));
        }
        return;
    };
    r.finished = true;
    // The engine said how it ended (and it was said then); else it stopped
    // before: an error fails it, a cancel while planning cancels it.
    if r.ended.is_none() {
        r.ended = Some(match error {
            Some(_) => crate::domain::RunStatus::Failed,
            None => crate::domain::RunStatus::Cancelled,
        });
        app.runs.last_ended = Some(tag);
    }
    if let Some(e) = error {
        let outcome = r.outcome().unwrap_or_default();
        app.chrome.error(crate::tui::strings::msg::run_finished(
            &outcome,
            Some(&crate::tui::strings::flat(&e, 300)),
        ));
    }
}

/// The protocol that judges an item of this kind from the workbench. A
/// proposition is no kind of item: its claims are rows on any item, judged
/// by [`start_claim_runs`].
fn protocol_for_kind(kind: &str) -> Protocol {
    match kind {
        crate::protocol::rubric::KIND => Protocol::Rubric,
        crate::protocol::guideline::KIND => Protocol::Guideline,
        _ => Protocol::Awag,
    }
}

/// The runs that judge `(id, kind)` items: content items in `mode`, rubric
/// examples and conversations with their own protocol — one per protocol
/// present; each resumes (skips what is judged) until the user re-judges.
/// Empty, with the reason on screen, when none can run.
fn plans_for(app: &mut App, mode: Mode, items: Vec<(String, String)>) -> Vec<RunPlan> {
    if no_endpoint(app) {
        return Vec::new();
    }
    if items.is_empty() {
        app.chrome.warn(crate::tui::strings::msg::NO_ITEMS);
        return Vec::new();
    }
    let mut by: std::collections::BTreeMap<Protocol, Vec<String>> = Default::default();
    let all: Vec<String> = items.iter().map(|(id, _)| id.clone()).collect();
    for (id, kind) in items {
        by.entry(protocol_for_kind(&kind)).or_default().push(id);
    }
    let mut plans = Vec::new();
    for (protocol, ids) in by {
        if protocol != Protocol::Awag {
            plans.extend(plan_for(app, protocol, mode, None, ids));
            continue;
        }
        // One run per persona the items are judged as (each its owner's).
        for (persona, ids) in super::owners::group_by_persona(app, ids) {
            plans.extend(plan_for(app, protocol, mode, Some(persona), ids));
        }
    }
    plans.extend(claim_plans(app, &all));
    plans
}

/// The proposition rows on `items`: one run per claim whose settings are
/// known; the others are named in a warning.
fn claim_plans(app: &mut App, items: &[String]) -> Vec<RunPlan> {
    let (runs, unknown) = super::claims::claim_runs(app, items);
    if !unknown.is_empty() {
        app.chrome.warn(crate::tui::strings::claim::cannot_judge(
            &crate::tui::strings::flat(&unknown.join(", "), 200),
        ));
    }
    runs.into_iter()
        .filter_map(|r| {
            // A claim keeps the persona its row is for.
            let spec = JudgeSpec::proposition(r.settings, PersonaRef::from_id(&r.persona_id));
            plan_of(app, spec, r.item_ids)
        })
        .collect()
}

/// Says so, and how to start the demo judge, and returns true when no
/// endpoint is configured.
pub(super) fn no_endpoint(app: &mut App) -> bool {
    let Some(e) = &app.runs.endpoint_error else {
        return false;
    };
    app.chrome.popup = Some(Popup::Notice {
        title: crate::tui::strings::msg::NO_ENDPOINT_TITLE.into(),
        text: crate::tui::strings::msg::no_endpoint(e),
    });
    true
}

/// One run's plan with the current choices; `None` (said) when it cannot run.
pub(super) fn plan_for(
    app: &mut App,
    protocol: Protocol,
    mode: Mode,
    persona: Option<String>,
    item_ids: Vec<String>,
) -> Option<RunPlan> {
    if item_ids.is_empty() {
        app.chrome.warn(crate::tui::strings::msg::NO_ITEMS);
        return None;
    }
    // Other protocols judge under their own perspective, without a persona.
    let spec = if protocol != Protocol::Awag {
        RunPlan::spec_for(protocol, mode, "", Vec::new())
    } else {
        awag_spec(app, mode, persona)?
    };
    plan_of(app, spec, item_ids)
}

/// The AwAg spec of the current choices in `mode`, as `persona` (else the
/// chosen one); `None` after saying what is missing (a persona, a
/// perspective).
pub(super) fn awag_spec(
    app: &mut App,
    mode: Mode,
    persona: Option<String>,
) -> Option<Result<JudgeSpec, SpecRefusal>> {
    if app.persona().is_none() {
        app.chrome.warn(crate::tui::strings::msg::NO_PERSONA);
        return None;
    }
    let perspective_ids: Vec<String> = app
        .active_perspectives()
        .iter()
        .map(|p| p.id.clone())
        .collect();
    if perspective_ids.is_empty() {
        app.chrome.warn(crate::tui::strings::msg::NO_PERSPECTIVE);
        return None;
    }
    let persona = persona.unwrap_or_else(|| app.persona_id().to_string());
    Some(RunPlan::spec_for(
        Protocol::Awag,
        mode,
        &persona,
        perspective_ids,
    ))
}

/// A run of `spec` over `item_ids` with the current choices; `None` (said)
/// when its constructor refused it.
fn plan_of(
    app: &mut App,
    spec: Result<JudgeSpec, SpecRefusal>,
    item_ids: Vec<String>,
) -> Option<RunPlan> {
    plan_worded(app, spec, item_ids, |e| e.to_string())
}

/// As [`plan_of`], a refusal shown in the words `word` gives it: the one
/// place a workbench run's plan is made from a spec (`R`, Enter, compare,
/// claims, the few-shot loop).
pub(super) fn plan_worded(
    app: &mut App,
    spec: Result<JudgeSpec, SpecRefusal>,
    item_ids: Vec<String>,
    word: impl Fn(&str) -> String,
) -> Option<RunPlan> {
    match spec {
        Ok(spec) => Some(RunPlan {
            spec,
            structured: app.choices.structured,
            item_ids,
            resume: true,
            batch: None,
        }),
        Err(e) => {
            let said = word(&crate::tui::strings::flat(&e.to_string(), 300));
            app.chrome.message = Some((Level::Error, said));
            None
        }
    }
}

/// Starts a run: the one place the workbench does (Enter, `R`'s
/// confirmation, compare's missing modes).
pub fn start_run(app: &mut App, plan: RunPlan, fx: &mut Vec<Effect>) {
    if no_endpoint(app) {
        return;
    }
    let tag = track(app, &plan, &what(&plan));
    fx.push(Effect::StartRun { tag, plan });
}

/// What a run judges, for the message that says it started.
pub(super) fn what(plan: &RunPlan) -> String {
    match (plan.claim(), plan.mode()) {
        (Some(claim), _) => crate::tui::strings::msg::with_protocol(&format!(
            "{} ({})",
            plan.protocol().as_str(),
            crate::tui::strings::flat(&claim.claim_id, 40)
        )),
        (None, Some(mode)) => crate::tui::strings::msg::in_mode(&mode.to_string()),
        (None, None) => crate::tui::strings::msg::with_protocol(plan.protocol().as_str()),
    }
}

/// A new run in the tracker (the status bar and runs view follow it), and
/// the message that says it started; its tag.
pub(super) fn track(app: &mut App, plan: &RunPlan, what: &str) -> u64 {
    let tag = app.runs.take_tag();
    app.runs.active.push(ActiveRun {
        tag,
        run_id: None,
        protocol: plan.protocol(),
        mode: plan.mode(),
        items: plan.item_ids.len(),
        progress: Default::default(),
        finished: false,
        cancelled: false,
        note: None,
        ended: None,
        batch: None,
    });
    app.chrome
        .info(crate::tui::strings::msg::judging(plan.item_ids.len(), what));
    tag
}

/// `auto`, `tools`, `json_schema` or `json`: the words of `--structured`.
pub fn structured_name(m: Option<crate::provider::ToolMode>) -> &'static str {
    m.map(|m| m.as_str()).unwrap_or("auto")
}
