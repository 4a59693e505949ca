//! The compare view.

use crate::tui::app::{CompareAxis, HumanReading};

pub const NO_VERDICT: &str = "no verdict";
pub const MAPPED_LEGEND: &str = "mapped: a label on another scale, read as AGREE/DISAGREE (Likert ≥4 AGREE, ≤2 DISAGREE, 3 undecided)";

pub fn title(
    axis: &str,
    persona: &str,
    mode: &str,
    axis_key: &str,
    r: &str,
    r_does: &str,
) -> String {
    format!(
        " compare by {axis} · persona {persona} · mode {mode} · {axis_key} next axis · {r} {r_does} · esc back "
    )
}
/// What `r` does on each axis.
pub fn run_missing_does(axis: CompareAxis) -> &'static str {
    match axis {
        CompareAxis::Mode => "judge missing modes",
        CompareAxis::Persona => "judge missing personas",
        CompareAxis::Model => "judge with the configured model",
    }
}
pub fn no_columns(axis: CompareAxis, persona: &str) -> String {
    match axis {
        CompareAxis::Model => format!(
            "no model has judged this item as {persona} in this mode yet (enter judges it with the configured model)"
        ),
        _ => "nothing to compare".into(),
    }
}
pub fn more(n: usize) -> String {
    format!("+{n} more")
}
pub fn differ(axis: CompareAxis) -> String {
    format!("  {}s differ", axis.name())
}
/// A human cell: "H 4", "H AGREE mapped", "H undecided mapped", "H –".
pub fn human_cell(r: Option<HumanReading>) -> String {
    match r {
        None => "H –".into(),
        Some(HumanReading { value, mapped }) => {
            let v = value
                .map(|v| v.as_text())
                .unwrap_or_else(|| "undecided".into());
            if mapped {
                format!("H {v} mapped")
            } else {
                format!("H {v}")
            }
        }
    }
}
pub fn models_need_a_list(model: &str) -> String {
    format!(
        "only the configured model ({model}) judges from here (no model list); jury run --model NAME judges with another"
    )
}
pub const EVERY_PERSONA_JUDGED: &str =
    "every persona already has verdicts for this item in this mode";
