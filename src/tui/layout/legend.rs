//! The first start's legend as text: what it says and how many rows it
//! takes (the list's page size depends on it, so update needs it too).

use crate::tui::app::{App, View};
use crate::tui::input::action::Action;
use crate::tui::strings;

/// The legend's lines (the help screen shows them too, with more).
pub fn lines() -> [&'static str; 2] {
    [strings::help::LIST_MARKS, strings::help::ROW_LABELS]
}

/// The legend's last line: the start-up note and the way out.
pub fn last_line(app: &App, note: &str) -> String {
    let k = |a| app.chrome.keymap.hint(a);
    let hint = strings::help::legend_hint(&k(Action::Cancel), &k(Action::Help));
    if note.is_empty() {
        hint
    } else {
        format!("{note} · {hint}")
    }
}

/// Rows the legend takes on a screen `width` columns wide: 0 when it is
/// not shown (not the first start, dismissed, or another view).
pub fn height(app: &App, width: u16) -> u16 {
    let Some(note) = app.chrome.legend.as_deref() else {
        return 0;
    };
    if app.chrome.view != View::Main {
        return 0;
    }
    let w = usize::from(width.max(1));
    let last = last_line(app, note);
    let rows: usize = lines()
        .into_iter()
        .chain([last.as_str()])
        .map(|l| super::wrapped_rows(l, w))
        .sum();
    // The title line, then the lines.
    u16::try_from(rows + 1).unwrap_or(u16::MAX)
}
