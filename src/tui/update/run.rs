//! Starting runs from the workbench and the settings they use.

use super::super::action::Action;
use super::super::app::*;
use super::super::msg::Effect;
use crate::domain::{Mode, Protocol};
use crate::sanitize;

/// Enter: judges the current item on the main screen and in compare; picks
/// the selected persona in the personas view.
pub fn judge(app: &mut App, fx: &mut Vec<Effect>) {
    if app.chrome.view == View::Main || app.chrome.view == View::Compare {
        if let Some(it) = app.current_item() {
            let ids = vec![(it.id.clone(), it.kind.clone())];
            start_runs(app, app.choices.mode, ids, fx);
        }
        return;
    }
    if let View::Personas { cursor } = app.chrome.view
        && cursor < app.data.personas.len()
    {
        app.choices.persona = cursor;
        app.chrome.message = Some((
            Level::Info,
            crate::tui::strings::msg::persona_chosen(&sanitize::one_line(
                &app.data.personas[cursor].name,
                60,
            )),
        ));
    }
}

/// Judges every item the list shows.
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
    start_runs(app, app.choices.mode, ids, fx);
}

/// In compare: one run per mode that has no verdict yet on some row.
pub fn run_missing(app: &mut App, fx: &mut Vec<Effect>) {
    if app.chrome.view != View::Compare {
        app.chrome.message = Some((
            Level::Info,
            crate::tui::strings::msg::open_compare_first(&app.chrome.keymap.hint(Action::Compare)),
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
        app.chrome.message = Some((
            Level::Info,
            crate::tui::strings::msg::EVERY_MODE_JUDGED.into(),
        ));
    }
    for m in missing {
        start_run(app, Protocol::Awag, m, vec![id.clone()], fx);
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
    app.chrome.message = Some((
        Level::Info,
        crate::tui::strings::msg::structured(structured_name(app.choices.structured)),
    ));
}

/// A run task ended (after its last event, or without any).
pub fn run_ended(app: &mut App, tag: u64, error: Option<String>) {
    if let Some(r) = app.runs.active.iter_mut().find(|r| r.tag == tag) {
        r.finished = true;
    }
    app.runs.streams.retain(|_, s| s.tag != tag);
    if let Some(e) = error {
        app.chrome.message = Some((Level::Error, sanitize::one_line(&e, 300)));
    }
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
        app.chrome.message = Some((Level::Warning, crate::tui::strings::msg::NO_ITEMS.into()));
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

pub(super) fn start_run(
    app: &mut App,
    protocol: Protocol,
    mode: Mode,
    item_ids: Vec<String>,
    fx: &mut Vec<Effect>,
) {
    if let Some(e) = &app.runs.endpoint_error {
        app.chrome.popup = Some(Popup::Notice {
            title: crate::tui::strings::msg::NO_ENDPOINT_TITLE.into(),
            text: e.clone(),
        });
        return;
    }
    if item_ids.is_empty() {
        app.chrome.message = Some((Level::Warning, crate::tui::strings::msg::NO_ITEMS.into()));
        return;
    }
    // Other protocols judge without a persona, under their own perspective.
    let (persona_id, perspective_ids, what) = if protocol != Protocol::Awag {
        let p = vec![protocol.as_str().to_string()];
        (
            "-".to_string(),
            p,
            crate::tui::strings::msg::with_protocol(protocol.as_str()),
        )
    } else {
        if app.persona().is_none() {
            app.chrome.message =
                Some((Level::Warning, crate::tui::strings::msg::NO_PERSONA.into()));
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
                crate::tui::strings::msg::NO_PERSPECTIVE.into(),
            ));
            return;
        }
        let persona = app.persona_id().to_string();
        (
            persona,
            perspective_ids,
            crate::tui::strings::msg::in_mode(&mode.to_string()),
        )
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
        crate::tui::strings::msg::judging(item_ids.len(), &what),
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

/// `auto`, `tools`, `json_schema` or `json`: the words of `--structured`.
pub fn structured_name(m: Option<crate::provider::ToolMode>) -> &'static str {
    m.map(|m| m.as_str()).unwrap_or("auto")
}
