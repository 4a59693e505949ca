use crate::tui::app::App;
use crate::tui::strings;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

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
    let (body, _, _) = super::layout::body_and_bars(Rect::new(0, 0, size.0, size.1));
    match &app.chrome.view {
        crate::tui::app::View::Prompt { text, .. } => {
            max_scroll(wrapped_rows(text, body.width.saturating_sub(2)), body)
        }
        crate::tui::app::View::Help { .. } => max_scroll(help_lines(app).len(), body),
        _ => 0,
    }
}

/// A scrollable text (the prompt view). The text was sanitised when built.
pub struct TextView<'a> {
    pub app: &'a App,
    pub title: &'a str,
    pub text: &'a str,
    pub scroll: u16,
}

impl Widget for TextView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = &self.app.chrome.theme;
        let lines: Vec<Line> = self
            .text
            .lines()
            .map(|l| Line::styled(l.to_string(), t.text))
            .collect();
        let rows = wrapped_rows(self.text, area.width.saturating_sub(2));
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((self.scroll.min(max_scroll(rows, area)), 0))
            .block(
                Block::bordered()
                    .title(self.title)
                    .border_style(t.border_focused)
                    .title_style(t.title),
            )
            .render(area, buf);
    }
}

/// Every binding, generated from the live keymap.
pub struct HelpView<'a> {
    pub app: &'a App,
    pub scroll: u16,
}

/// The help screen's lines, from the live keymap.
fn help_lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.chrome.theme;
    let mut lines = vec![Line::styled(strings::help::HEADER, t.muted), Line::raw("")];
    for (action, keys) in app.chrome.keymap.bindings() {
        lines.push(binding(t, &keys, &action.name(), action.help()));
    }
    lines.push(Line::raw(""));
    // One mark a line: the help must read at 80 columns too.
    let legend = super::legend::lines();
    for l in legend
        .iter()
        .chain([&strings::help::LABEL_STATES, &strings::help::BLIND_NOTE])
    {
        let (head, marks) = l.split_once(": ").unwrap_or(("", l));
        lines.push(Line::styled(format!("{head}:"), t.title));
        for m in marks.split(" · ").flat_map(|m| m.split(", ")) {
            lines.push(Line::styled(format!("  {m}"), t.muted));
        }
    }
    lines.push(Line::raw(""));
    for l in strings::help::SEARCH_TERMS {
        lines.push(Line::styled(*l, t.muted));
    }
    // What each popup answers to, from its own section of the keymap.
    for (kind, actions) in app.chrome.keymap.popup_bindings() {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            strings::help::popup_section(kind.title(), kind.section()),
            t.title,
        ));
        for (action, keys) in actions {
            lines.push(binding(t, &keys, &action.name(), action.help()));
        }
    }
    lines
}

impl Widget for HelpView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = &self.app.chrome.theme;
        let lines = help_lines(self.app);
        let most = max_scroll(lines.len(), area);
        Paragraph::new(lines)
            .scroll((self.scroll.min(most), 0))
            .block(
                Block::bordered()
                    .title(" help ")
                    .border_style(t.border_focused)
                    .title_style(t.title),
            )
            .render(area, buf);
    }
}

/// One help line: the keys, the action's name in keymap files, what it does.
fn binding<'a>(
    t: &crate::tui::theme::Theme,
    keys: &[String],
    name: &str,
    help: &'a str,
) -> Line<'a> {
    let keys = if keys.is_empty() {
        strings::help::UNBOUND.to_string()
    } else {
        keys.join(", ")
    };
    Line::from(vec![
        Span::styled(format!("{keys:>16}  "), t.key),
        Span::styled(format!("{name:<18}"), t.muted),
        Span::styled(help, t.text),
    ])
}
