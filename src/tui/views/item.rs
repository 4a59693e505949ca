use super::focused_block;
use crate::tui::app::{App, Pane};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

/// The current item: meta, title, text and its classifications.
pub struct ItemPane<'a>(pub &'a App);

impl Widget for ItemPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.chrome.theme;
        let block = focused_block(" item ", app.chrome.focus == Pane::Item, app);
        let Some(item) = app.current_item() else {
            Paragraph::new("no item selected")
                .style(t.muted)
                .block(block)
                .render(area, buf);
            return;
        };
        let d = &app.list.detail;
        let mut lines: Vec<Line> = vec![
            Line::styled(d.meta.clone(), t.muted),
            Line::styled(d.title.clone(), t.title),
        ];
        for w in &d.warnings {
            lines.push(Line::styled(format!("⚠ {w}"), t.warning));
        }
        lines.push(Line::raw(""));
        for l in d.text.lines() {
            lines.push(Line::styled(l.to_string(), t.text));
        }
        if !item.classifications.is_empty() {
            lines.push(Line::raw(""));
            lines.push(Line::styled("classifications", t.accent));
        }
        for c in &item.classifications {
            lines.push(Line::from(vec![
                Span::styled(crate::tui::strings::flat(&c.id, 40), t.title),
                Span::styled(
                    format!("  {}", crate::tui::strings::flat(&c.description, 200)),
                    t.muted,
                ),
            ]));
            let mut spans = vec![Span::raw("  ")];
            for v in &c.available {
                let sel = Some(v.as_str()) == c.selected.as_deref();
                let txt = crate::tui::strings::flat(v, 40);
                spans.push(if sel {
                    Span::styled(format!("[{txt}]"), t.accent)
                } else {
                    Span::styled(format!(" {txt} "), t.muted)
                });
            }
            if c.selected
                .as_deref()
                .is_none_or(|s| !c.available.iter().any(|a| a == s))
            {
                spans.push(Span::styled(
                    format!(
                        "  selected: {}",
                        crate::tui::strings::flat(c.selected_text(), 40)
                    ),
                    t.accent,
                ));
            }
            lines.push(Line::from(spans));
        }
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false })
            .scroll((app.list.text_scroll, 0))
            .render(area, buf);
    }
}
