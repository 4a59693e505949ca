//! The sample orders' words (issue #33): the active order and what the
//! next label is worth.

pub const FINDING_ACTIVE_ORDER: &str =
    "laying out the active order (draws where the judge is unsure, as jury sample --order active)…";
pub const ACTIVE_NOT_READY: &str =
    "label saved, not recorded as a draw: the active order is still being laid out";
pub const ACTIVE_NOT_DRAWN: &str = "label saved, not a draw yet: an earlier draw of this classification is unlabelled (it counts once the draws reach it)";

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
        1 => "label saved as draw of the active order (jury estimate weighs it by its π)".to_string(),
        n => format!("label saved; {n} draws of the active order recorded (labels reached again count again)"),
    }
}

pub fn label_worth_failed(why: &str) -> String {
    format!("could not compute what the next label is worth: {why}")
}

/// "urgency ±0.061 → ±0.058 (from ±0.072)": the half-width now, after one
/// more label, and (once labels narrowed it) when the session began.
pub fn worth(w: &crate::tui::app::active::RowWorth, max_chars: usize) -> String {
    let name = crate::tui::strings::flat(&w.classification, max_chars.min(24));
    let mut s = format!("{name} ±{:.3} → ±{:.3}", w.now, w.next);
    if (w.first - w.now).abs() >= 0.0005 {
        s.push_str(&format!(" (from ±{:.3})", w.first));
    }
    s
}
