//! Drawing: short-lived structs that borrow the state and render it. Nothing
//! here does I/O, parses or waits.

pub mod agreement;
pub mod compare;
pub mod fewshot_delta;
pub mod item;
pub mod layout;
pub mod list;
pub mod personas;
pub mod popup;
pub mod root;
pub mod runs;
pub mod status;
pub mod text;
pub mod verdicts;

pub use root::Root;

use super::app::{App, LabelEntry, SaveState};
use super::theme::Theme;
use crate::domain::Value;
use ratatui::text::Span;

/// A human label as a short cell: value and its save state.
pub fn label_span<'a>(e: Option<&LabelEntry>, t: &Theme) -> Vec<Span<'a>> {
    match e {
        None => vec![Span::styled("H –", t.muted)],
        Some(e) => {
            let v = e.label.value.as_text();
            let (mark, style) = match &e.state {
                SaveState::Saved => (" ✓saved", t.agree),
                SaveState::Pending(_) => (" …saving", t.warning),
                SaveState::Unsaved(_) => (" ✗UNSAVED", t.error),
            };
            vec![
                Span::styled(format!("H {v}"), t.human),
                Span::styled(mark, style),
            ]
        }
    }
}

/// The style of a value: agreement colours for AGREE/DISAGREE readings.
pub fn value_style(v: Value, t: &Theme) -> ratatui::style::Style {
    match v.as_agreement() {
        Some(crate::domain::Agreement::Agree) => t.agree,
        Some(crate::domain::Agreement::Disagree) => t.disagree,
        None => t.text,
    }
}

pub fn focused_block<'a>(
    title: impl Into<ratatui::text::Line<'a>>,
    focused: bool,
    app: &App,
) -> ratatui::widgets::Block<'a> {
    ratatui::widgets::Block::bordered()
        .border_style(app.chrome.theme.border(focused))
        .title(title)
        .title_style(app.chrome.theme.title)
}
