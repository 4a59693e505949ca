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
        .map(|l| wrapped_rows(l, w))
        .sum();
    // The title line, then the lines.
    u16::try_from(rows + 1).unwrap_or(u16::MAX)
}

/// Rows `text` takes when wrapped at word boundaries to `w` columns, as
/// the paragraph draws it (a word longer than a row is cut across rows).
fn wrapped_rows(text: &str, w: usize) -> usize {
    use unicode_width::UnicodeWidthStr;
    let (mut rows, mut used) = (1, 0);
    for word in text.split(' ') {
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
    }
}
