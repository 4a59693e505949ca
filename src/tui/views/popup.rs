use crate::tui::app::{App, InputKind, PickerKind, Popup};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph, Widget, Wrap};

pub struct PopupView<'a> {
    pub app: &'a App,
    pub popup: &'a Popup,
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let [r] = Layout::horizontal([Constraint::Length(w.min(area.width))])
        .flex(Flex::Center)
        .areas(area);
    let [r] = Layout::vertical([Constraint::Length(h.min(area.height))])
        .flex(Flex::Center)
        .areas(r);
    r
}

impl Widget for PopupView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = &self.app.theme;
        match self.popup {
            Popup::Notice { title, text } => {
                let r = centered(area, 70, 9);
                Clear.render(r, buf);
                Paragraph::new(vec![
                    Line::styled(text.clone(), t.text),
                    Line::raw(""),
                    Line::styled("press any key", t.muted),
                ])
                .wrap(Wrap { trim: false })
                .block(
                    Block::bordered()
                        .title(format!(" {title} "))
                        .border_style(t.error)
                        .title_style(t.error),
                )
                .style(t.text)
                .render(r, buf);
            }
            Popup::Picker {
                kind,
                options,
                cursor,
            } => {
                let h = (options.len() as u16 + 2)
                    .min(area.height.saturating_sub(4))
                    .max(3);
                let r = centered(area, 60, h);
                Clear.render(r, buf);
                let title = match kind {
                    PickerKind::Persona => " persona (enter picks, esc closes) ",
                    PickerKind::Perspective => " perspective (enter picks, esc closes) ",
                };
                let block = Block::bordered()
                    .title(title)
                    .border_style(t.border_focused)
                    .title_style(t.title);
                let inner = block.inner(r);
                block.render(r, buf);
                let first = cursor.saturating_sub(inner.height.saturating_sub(1) as usize);
                for (row, (i, o)) in options
                    .iter()
                    .enumerate()
                    .skip(first)
                    .take(inner.height as usize)
                    .enumerate()
                {
                    let line = Line::styled(
                        format!(" {}", crate::sanitize::one_line(o, 56)),
                        if i == *cursor { t.selection } else { t.text },
                    );
                    let lr = Rect::new(inner.x, inner.y + row as u16, inner.width, 1);
                    if i == *cursor {
                        buf.set_style(lr, t.selection);
                    }
                    line.render(lr, buf);
                }
            }
            Popup::Input {
                kind,
                area: ta,
                error,
                ..
            } => {
                let (title, h, w) = match kind {
                    InputKind::Search => (
                        " search id, title, sender (enter keeps, esc closes) ",
                        3,
                        70,
                    ),
                    InputKind::Note => (
                        " note for this label (enter saves, esc cancels) ",
                        2 + ta.lines().len().clamp(1, 8) as u16,
                        80,
                    ),
                    InputKind::Persona => (
                        " persona JSON (ctrl-s saves, esc cancels) ",
                        area.height.saturating_sub(4),
                        100,
                    ),
                };
                let h = h + if error.is_some() { 1 } else { 0 };
                let r = centered(area, w, h);
                Clear.render(r, buf);
                let block = Block::bordered()
                    .title(title)
                    .border_style(t.border_focused)
                    .title_style(t.title);
                let inner = block.inner(r);
                block.render(r, buf);
                let mut text_area = inner;
                if let Some(e) = error {
                    Line::styled(crate::sanitize::one_line(e, 200), t.error)
                        .render(Rect::new(inner.x, inner.y, inner.width, 1), buf);
                    text_area = Rect::new(
                        inner.x,
                        inner.y + 1,
                        inner.width,
                        inner.height.saturating_sub(1),
                    );
                }
                ta.as_ref().render(text_area, buf);
            }
        }
    }
}
