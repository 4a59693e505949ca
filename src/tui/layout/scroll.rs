//! How far the text views (prompt, help) scroll: their rows against the
//! body pane they are drawn into.

use crate::tui::app::{App, View};
use ratatui::layout::Rect;

/// Rows `text` takes wrapped at `width` columns (what the prompt view draws).
pub fn wrapped_rows(text: &str, width: u16) -> usize {
    let width = usize::from(width.max(1));
    text.lines()
        .map(|l| {
            unicode_width::UnicodeWidthStr::width(l)
                .div_ceil(width)
                .max(1)
        })
        .sum()
}

/// The furthest a text of `rows` rows scrolls in a bordered `area`: its
/// last page fills the view, never a blank one.
pub fn max_scroll(rows: usize, area: Rect) -> u16 {
    let inner = usize::from(area.height.saturating_sub(2));
    u16::try_from(rows.saturating_sub(inner)).unwrap_or(u16::MAX)
}

/// How far the prompt view or the help view may scroll on a screen of
/// `size` (the body pane, inside its border).
pub fn scroll_limit(app: &App, size: (u16, u16)) -> u16 {
    let (body, _, _) = super::body_and_bars(Rect::new(0, 0, size.0, size.1));
    match &app.chrome.view {
        View::Prompt { text, .. } => {
            max_scroll(wrapped_rows(text, body.width.saturating_sub(2)), body)
        }
        View::Help { .. } => max_scroll(super::help::lines(app).len(), body),
        _ => 0,
    }
}
