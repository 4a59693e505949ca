//! The first start's legend: what the list marks and the row labels mean,
//! above the status line until Esc (or `?`, where the same lines stay).

use crate::tui::app::App;
use crate::tui::layout::legend::{last_line, lines};
use crate::tui::strings;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

pub struct Legend<'a>(pub &'a App);

impl Widget for Legend<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.chrome.theme;
        let Some(note) = &app.chrome.legend else {
            return;
        };
        let mut text: Vec<Line> = lines().iter().map(|l| Line::styled(*l, t.text)).collect();
        text.push(Line::styled(last_line(app, note), t.muted));
        let block = Block::new()
            .borders(Borders::TOP)
            .title(strings::help::LEGEND_TITLE)
            .border_style(t.border_focused)
            .title_style(t.title);
        let inner = block.inner(area);
        block.render(area, buf);
        Paragraph::new(text)
            .wrap(Wrap { trim: false })
            .render(inner, buf);
    }
}
