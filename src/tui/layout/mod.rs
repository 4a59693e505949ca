//! Where things go on the screen and how many rows they take: the panes,
//! the legend's height, the help screen's lines, how far a text scrolls.
//! Shared by drawing and by update (the list's page size, a view's scroll
//! limit), so update never asks the views.

pub mod help;
pub mod legend;
pub mod scroll;

use ratatui::layout::{Constraint, Layout, Rect};

pub struct Panes {
    pub list: Rect,
    pub item: Rect,
    pub verdicts: Rect,
    pub legend: Rect,
    pub status: Rect,
    pub message: Rect,
}

pub fn body_and_bars(area: Rect) -> (Rect, Rect, Rect) {
    let [body, status, message] = Layout::vertical([
        Constraint::Min(3),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    (body, status, message)
}

/// The panes of the main screen, with `legend` rows kept for the legend
/// under them (0: none).
pub fn panes(area: Rect, legend: u16) -> Panes {
    let (body, status, message) = body_and_bars(area);
    let legend = legend.min(body.height.saturating_sub(3));
    let [body, legend_area] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(legend)]).areas(body);
    let [list, item, verdicts] = Layout::horizontal([
        Constraint::Percentage(28),
        Constraint::Percentage(36),
        Constraint::Percentage(36),
    ])
    .areas(body);
    Panes {
        list,
        item,
        verdicts,
        legend: legend_area,
        status,
        message,
    }
}

/// Item rows visible in the list for a terminal of `size`.
pub fn list_rows(size: (u16, u16), legend: u16) -> usize {
    let p = panes(Rect::new(0, 0, size.0, size.1), legend);
    p.list.height.saturating_sub(2) as usize
}
