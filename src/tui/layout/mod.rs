//! Where things go on the screen and how many rows they take: the panes,
//! the legend's height, the help screen's lines, how far a text scrolls,
//! which table columns a width holds.
//! Shared by drawing and by update (the list's page size, a view's scroll
//! limit), so update never asks the views.

pub mod columns;
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

/// Columns a table drawn in a bordered view (agreement, runs) has on a
/// screen of `size`.
pub fn table_width(size: (u16, u16)) -> u16 {
    size.0.saturating_sub(2)
}

/// Item rows visible in the list for a terminal of `size`.
pub fn list_rows(size: (u16, u16), legend: u16) -> usize {
    let p = panes(Rect::new(0, 0, size.0, size.1), legend);
    p.list.height.saturating_sub(2) as usize
}

/// Rows `text` takes when wrapped at word boundaries to `w` columns, as a
/// wrapping paragraph draws it (a word longer than a row is cut across rows).
pub fn wrapped_rows(text: &str, w: usize) -> usize {
    use unicode_width::UnicodeWidthStr;
    let w = w.max(1);
    // An indent is kept on the first row: it counts as part of the first word.
    let body = text.trim_start_matches(' ');
    let (mut rows, mut used) = (1, text.len() - body.len());
    for (i, word) in body.split(' ').enumerate() {
        if i == 0 {
            used += word.width();
            while used > w {
                rows += 1;
                used -= w;
            }
            continue;
        }
        let len = word.width();
        if used > 0 && used + 1 + len > w {
            rows += 1;
            used = 0;
        }
        used += if used > 0 { 1 + len } else { len };
        while used > w {
            rows += 1;
            used -= w;
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::wrapped_rows;

    #[test]
    fn rows_count_word_wrapping() {
        assert_eq!(wrapped_rows("aaa bbb", 7), 1);
        assert_eq!(wrapped_rows("aaa bbbb", 7), 2);
        assert_eq!(wrapped_rows("aaaaaaaaaa", 4), 3);
        assert_eq!(wrapped_rows("", 4), 1);
        // The indent stays on the first row.
        assert_eq!(wrapped_rows("  aaa bbb", 7), 2);
        assert_eq!(wrapped_rows("  aaa bb", 8), 1);
    }
}
