use crate::tui::app::App;
use crate::tui::layout::help::{self, HelpLine};
use crate::tui::layout::scroll::{max_scroll, wrapped_rows};
use crate::tui::strings;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

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

/// The help screen's lines, styled.
fn help_lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.chrome.theme;
    help::lines(app)
        .into_iter()
        .map(|l| match l {
            HelpLine::Blank => Line::raw(""),
            HelpLine::Binding { keys, name, help } => binding(t, &keys, &name, help),
            HelpLine::Title(s) => Line::styled(s, t.title),
            HelpLine::Note(s) => Line::styled(s, t.muted),
        })
        .collect()
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
