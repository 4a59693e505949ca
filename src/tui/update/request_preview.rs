//! The prompt view's text: exactly what is sent for the current item, from
//! `protocol::awag::preview` and the provider's `request_body` (built when the
//! view opens, never while drawing).

use super::super::app::App;
use crate::provider::{ToolMode, request_body};
use crate::sanitize;

pub fn preview_text(app: &App) -> String {
    let (Some(item), Some(persona)) = (app.current_item(), app.persona()) else {
        return "no item or persona selected".into();
    };
    let persp: Vec<_> = app.active_perspectives().into_iter().cloned().collect();
    if persp.is_empty() {
        return "no perspective selected".into();
    }
    let boundary = crate::protocol::new_boundary();
    let call = match crate::protocol::awag::preview(
        app.runs.prompts.clone(),
        app.choices.mode,
        persona,
        &persp,
        item,
        &boundary,
    ) {
        Ok(c) => c,
        Err(e) => {
            return format!(
                "cannot build the request: {}",
                crate::tui::strings::flat(&e.to_string(), 300)
            );
        }
    };
    let body = request_body(&app.runs.preview_cfg, &call, ToolMode::Tools);
    let mut out = format!(
        "mode {} · model {} · prompt set {} (hash {}) · boundary {boundary} (fresh per run)\n\n",
        app.choices.mode,
        app.runs.preview_cfg.model,
        app.runs.prompts.origin,
        app.runs.prompts.hash()
    );
    for (i, m) in call.messages.iter().enumerate() {
        out.push_str(&format!(
            "── message {} · {} ──\n{}\n\n",
            i + 1,
            m.role,
            m.content
        ));
    }
    out.push_str("── tools ──\n");
    out.push_str(&serde_json::to_string_pretty(&body["tools"]).unwrap_or_default());
    out.push_str("\n\n── tool_choice ──\n");
    out.push_str(&serde_json::to_string_pretty(&body["tool_choice"]).unwrap_or_default());
    sanitize::for_display(&out, 400_000)
}
