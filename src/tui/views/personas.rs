use crate::sanitize;
use crate::tui::app::App;
use crate::tui::input::action::Action;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

/// Personas: the list, the selected one's definition.
pub struct PersonasView<'a> {
    pub app: &'a App,
    pub cursor: usize,
}

impl Widget for PersonasView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let t = &app.chrome.theme;
        let k = |a| app.chrome.keymap.hint(a);
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(30), Constraint::Percentage(70)])
                .areas(area);
        let lines: Vec<Line> = app
            .data
            .personas
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let cur = if i == app.choices.persona {
                    "● "
                } else {
                    "  "
                };
                let st = if i == self.cursor {
                    t.selection
                } else {
                    t.text
                };
                Line::styled(
                    format!(
                        "{cur}{} — {}",
                        crate::tui::strings::flat(&p.id, 24),
                        crate::tui::strings::flat(&p.name, 40)
                    ),
                    st,
                )
            })
            .collect();
        let title = format!(
            " personas · {} use · {} edit · {} new · esc back ",
            k(Action::Activate),
            k(Action::EditPersona),
            k(Action::NewPersona)
        );
        Paragraph::new(lines)
            .block(
                Block::bordered()
                    .title(title)
                    .border_style(t.border_focused)
                    .title_style(t.title),
            )
            .render(left, buf);
        let Some(p) = app.data.personas.get(self.cursor) else {
            Paragraph::new("no personas yet")
                .style(t.muted)
                .block(Block::bordered().border_style(t.border))
                .render(right, buf);
            return;
        };
        let mut lines = vec![
            Line::styled(crate::tui::strings::flat(&p.name, 100), t.title),
            Line::raw(""),
        ];
        match &p.definition {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    let v = match v {
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    lines.push(Line::from(vec![Span::styled(
                        format!("{}: ", crate::tui::strings::flat(k, 40)),
                        t.accent,
                    )]));
                    for l in sanitize::for_display(&v, 4000).lines() {
                        lines.push(Line::styled(format!("  {l}"), t.text));
                    }
                }
            }
            other => lines.push(Line::styled(
                sanitize::for_display(&other.to_string(), 4000),
                t.text,
            )),
        }
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(
                Block::bordered()
                    .title(format!(" {} ", crate::tui::strings::flat(&p.id, 40)))
                    .border_style(t.border)
                    .title_style(t.title),
            )
            .render(right, buf);
    }
}
