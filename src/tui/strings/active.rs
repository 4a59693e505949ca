//! The sample orders' words (issue #33): the active order and what the
//! next label is worth.

pub const FINDING_ACTIVE_ORDER: &str =
    "laying out the active order (draws where the judge is unsure, as jury sample --order active)…";
pub const ACTIVE_NOT_READY: &str =
    "label saved, not recorded as a draw: the active order is still being laid out";
pub const ACTIVE_NOT_DRAWN: &str = "label saved, not a draw yet: an earlier draw is unlabelled (label the items above first; it counts once the draws reach it)";

pub fn active_order_failed(why: &str) -> String {
    format!("could not lay out the active order: {why}")
}

pub fn active_order(combinations: usize) -> String {
    format!(
        "active order: {combinations} judged combinations, items by their first draw (seed {}, as jury sample --order active)",
        crate::report::active_walk::WORKBENCH_SEED
    )
}

pub fn active_draws(n: usize) -> String {
    match n {
        0 => "label saved; its draw was recorded already".to_string(),
        1 => "label saved as a draw of the active order (jury estimate weighs it by its π)"
            .to_string(),
        n => format!(
            "label saved; {n} draws of the active order recorded (labels reached again count again)"
        ),
    }
}

/// Where the focus went: the next draw's combination.
pub fn next_draw(draw: u64, item: &str, classification: &str) -> String {
    format!("active order: draw {draw} next, {item} · {classification}")
}

pub fn label_worth_failed(why: &str) -> String {
    format!("could not compute what the next label is worth: {why}")
}

/// The focused row's worth in a pane border of `room` columns, the
/// longest that fits: "next label: urgency ±0.061 → ±0.058 (from ±0.072)"
/// (the half-width now, after one more label, and when the session began,
/// once labels narrowed it), down to "±0.061 → ±0.058".
pub fn worth(w: &crate::tui::app::active::RowWorth, room: usize) -> Option<String> {
    let name = crate::tui::strings::flat(&w.classification, 24);
    let step = format!("±{:.3} → ±{:.3}", w.now, w.next);
    let from = ((w.first - w.now).abs() >= 0.0005).then(|| format!(" (from ±{:.3})", w.first));
    let from = from.as_deref().unwrap_or("");
    [
        format!(" next label: {name} {step}{from} "),
        format!(" {name} {step}{from} "),
        format!(" {step}{from} "),
        format!(" {step} "),
    ]
    .into_iter()
    .find(|s| unicode_width::UnicodeWidthStr::width(s.as_str()) <= room)
}
