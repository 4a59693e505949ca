use super::{label_span, value_style};
use crate::domain::{Mode, Value};
use crate::sanitize;
use crate::tui::action::Action;
use crate::tui::app::{App, disagrees};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

/// Modes 1, 2 and 3 side by side for the current item, with the human label.
pub struct CompareView<'a>(pub &'a App);

impl Widget for CompareView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.chrome.theme;
        let title = format!(
            " compare modes · persona {} · {} to start missing runs, esc back ",
            sanitize::one_line(app.persona_id(), 20),
            app.chrome.keymap.hint(Action::RunMissing)
        );
        let block = Block::bordered()
            .title(title)
            .border_style(t.border_focused)
            .title_style(t.title);
        let inner = block.inner(area);
        block.render(area, buf);
        let Some(item) = app.current_item() else {
            return;
        };
        let rows = app.rows();
        let [table, texts] = Layout::vertical([
            Constraint::Length(rows.len() as u16 + 3),
            Constraint::Min(0),
        ])
        .areas(inner);
        let mut lines = vec![
            Line::styled(
                format!("{} — {}", app.list.detail.meta, app.list.detail.title),
                t.muted,
            ),
            Line::from(vec![
                Span::styled(format!("{:<28}", "classification"), t.title),
                Span::styled(format!("{:<12}", "classifier"), t.title),
                Span::styled(format!("{:<10}", "mode 1"), t.title),
                Span::styled(format!("{:<10}", "mode 2"), t.title),
                Span::styled(format!("{:<12}", "mode 3"), t.title),
                Span::styled("human", t.title),
            ]),
        ];
        let persona = app.persona_id();
        for (ri, r) in rows.iter().enumerate() {
            lines.extend(mode_row(app, item, ri, r));
        }
        Paragraph::new(lines).render(table, buf);
        // The focused row's texts, one column per mode.
        let Some(key) = rows.get(app.list.row).and_then(|r| app.combo(r)) else {
            return;
        };
        let cols = Layout::horizontal([Constraint::Ratio(1, 3); 3]).split(texts);
        for (i, m) in Mode::ALL.iter().enumerate() {
            let text = match (app.verdict(&key, persona, *m), app.choices.mode == *m) {
                (Some(v), _) => sanitize::for_display(&v.text, 4000),
                (None, true) => app
                    .runs
                    .streams
                    .get(&key)
                    .map(|s| s.text.clone())
                    .unwrap_or_else(|| "no verdict".into()),
                (None, false) => "no verdict".into(),
            };
            Paragraph::new(text)
                .style(t.judge)
                .wrap(Wrap { trim: false })
                .block(
                    Block::bordered()
                        .title(format!(" mode {m} "))
                        .border_style(t.border)
                        .title_style(t.title),
                )
                .render(cols[i], buf);
        }
    }
}

/// One classification row: the classifier's choice, each mode's value (marked
/// where modes or judge and human differ) and the human label.
fn mode_row<'a>(
    app: &App,
    item: &crate::domain::Item,
    ri: usize,
    r: &crate::tui::app::RowKey,
) -> Option<Line<'a>> {
    let t = &app.chrome.theme;
    let persona = app.persona_id();
    let key = app.combo(r)?;
    let c = &item.classifications[r.classification];
    let values: Vec<Option<Value>> = Mode::ALL
        .iter()
        .map(|m| app.verdict(&key, persona, *m).map(|v| v.value))
        .collect();
    let present: Vec<Value> = values.iter().flatten().copied().collect();
    let modes_differ = present
        .iter()
        .any(|a| present.iter().any(|b| disagrees(*a, *b)));
    let label = app.my_label(&key, app.choices.mode.scale());
    let name = if app.active_perspectives().len() > 1 {
        format!("{} · {}", c.id, r.perspective_id)
    } else {
        c.id.clone()
    };
    let mut spans = vec![
        Span::styled(
            format!(
                "{}{:<26} ",
                if ri == app.list.row { "▶" } else { " " },
                sanitize::one_line(&name, 26)
            ),
            if ri == app.list.row {
                t.selection
            } else {
                t.text
            },
        ),
        Span::styled(
            format!("{:<12}", sanitize::one_line(c.selected_text(), 11)),
            t.muted,
        ),
    ];
    for (i, v) in values.iter().enumerate() {
        let w = if i == 2 { 12 } else { 10 };
        match v {
            None if app.runs.streams.contains_key(&key) => {
                spans.push(Span::styled(format!("{:<w$}", "…"), t.streaming))
            }
            None => spans.push(Span::styled(format!("{:<w$}", "–"), t.muted)),
            Some(v) => {
                let differs = modes_differ || label.is_some_and(|l| disagrees(*v, l.label.value));
                let style = if differs {
                    t.disagreement_mark
                } else {
                    value_style(*v, t)
                };
                spans.push(Span::styled(format!("{:<w$}", v.as_text()), style));
            }
        }
    }
    spans.extend(label_span(label, t));
    if modes_differ {
        spans.push(Span::styled("  modes differ", t.disagree));
    }
    Some(Line::from(spans))
}
