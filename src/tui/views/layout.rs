//! Where the panes go; shared by drawing and by update (list height).

use ratatui::layout::{Constraint, Layout, Rect};

pub struct Panes {
    pub list: Rect,
    pub item: Rect,
    pub verdicts: Rect,
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

pub fn panes(area: Rect) -> Panes {
    let (body, status, message) = body_and_bars(area);
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
        status,
        message,
    }
}

/// Item rows visible in the list for a terminal of `size`.
pub fn list_rows(size: (u16, u16)) -> usize {
    let p = panes(Rect::new(0, 0, size.0, size.1));
    p.list.height.saturating_sub(2) as usize
}
