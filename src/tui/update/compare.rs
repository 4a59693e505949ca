//! `r` in the compare view on the persona and model axes (the mode axis
//! starts the missing modes, see [`super::run::run_missing`]).

use super::super::app::*;
use super::super::msg::Effect;
use crate::domain::Protocol;
use crate::tui::strings::compare as say;

/// Persona axis: the current item judged, in the current mode, as every
/// persona that has no verdict on one of its rows. Model axis: only the
/// configured model can judge (the workbench knows no other model), so it
/// judges when it has not yet, else says how to judge with another.
pub fn run_missing(app: &mut App, fx: &mut Vec<Effect>) {
    let Some(item) = app.current_item() else {
        return;
    };
    let id = item.id.clone();
    let mode = app.choices.mode;
    let keys: Vec<_> = app.rows().iter().filter_map(|r| app.combo(r)).collect();
    match app.choices.compare_axis {
        CompareAxis::Persona => {
            let missing: Vec<usize> = (0..app.data.personas.len())
                .filter(|&i| {
                    let p = &app.data.personas[i].id;
                    keys.iter().any(|k| app.verdict(k, p, mode).is_none())
                })
                .collect();
            if missing.is_empty() {
                app.chrome.info(say::EVERY_PERSONA_JUDGED);
            }
            for i in missing {
                let persona = app.data.personas[i].id.clone();
                let plan = super::run::plan_for(
                    app,
                    Protocol::Awag,
                    mode,
                    Some(persona),
                    vec![id.clone()],
                );
                if let Some(plan) = plan {
                    super::run::start_run(app, plan, fx);
                }
            }
        }
        CompareAxis::Model => {
            let model = app.runs.model.clone();
            let col = CompareColumn {
                title: model.clone(),
                persona: app.persona_id().to_string(),
                mode,
                model: Some(model.clone()),
            };
            if keys.iter().any(|k| app.column_verdict(k, &col).is_none()) {
                if let Some(plan) = super::run::plan_for(app, Protocol::Awag, mode, None, vec![id])
                {
                    super::run::start_run(app, plan, fx);
                }
            } else {
                app.chrome
                    .info(say::models_need_a_list(&crate::tui::strings::flat(
                        &model, 60,
                    )));
            }
        }
        CompareAxis::Mode => {}
    }
}
