use crate::tui::app::App;
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
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((self.scroll, 0))
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

impl Widget for HelpView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = &self.app.chrome.theme;
        let mut lines = vec![Line::styled(strings::help::HEADER, t.muted), Line::raw("")];
        for (action, keys) in self.app.chrome.keymap.bindings() {
            lines.push(binding(t, &keys, &action.name(), action.help()));
        }
        lines.push(Line::raw(""));
        lines.push(Line::styled(strings::help::LIST_MARKS, t.muted));
        lines.push(Line::styled(strings::help::LABEL_STATES, t.muted));
        // What each popup answers to, from its own section of the keymap.
        for (kind, actions) in self.app.chrome.keymap.popup_bindings() {
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                strings::help::popup_section(kind.title(), kind.section()),
                t.title,
            ));
            for (action, keys) in actions {
                lines.push(binding(t, &keys, &action.name(), action.help()));
            }
        }
        Paragraph::new(lines)
            .scroll((self.scroll, 0))
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
