//! Drawing: short-lived structs that borrow the state and render it. Nothing
//! here does I/O, parses or waits.

pub mod agreement;
pub mod agreement_detail;
pub mod compare;
pub mod fewshot_delta;
pub mod item;
pub mod legend;
pub mod list;
pub mod personas;
pub mod popup;
pub mod root;
pub mod run_popups;
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

/// A human label on a row of scale `row`: as [`label_span`] when the label
/// is on that scale; otherwise the label says which scale it was given on
/// and, on an AGREE/DISAGREE row, how the report reads it (its `(mapped)`
/// rule: Likert 4–5 AGREE, 1–2 DISAGREE, 3 no reading), never a bare value
/// that looks like the row's own.
pub fn label_on_scale<'a>(
    e: Option<&LabelEntry>,
    row: crate::domain::Scale,
    t: &Theme,
) -> Vec<Span<'a>> {
    let mut spans = label_span(e, t);
    if let Some(e) = e.filter(|e| e.label.value.scale() != row)
        && let Some(first) = spans.first_mut()
    {
        let v = e.label.value;
        let mapped = (row == crate::domain::Scale::Agreement)
            .then(|| v.as_agreement())
            .flatten();
        let text = super::strings::label::other_scale(
            &v.as_text(),
            v.scale().as_str(),
            mapped.map(|a| Value::Agreement(a).as_text()).as_deref(),
        );
        *first = Span::styled(text, t.human);
    }
    spans
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
