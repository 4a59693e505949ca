use super::value_style;
use crate::domain::{ComboKey, Value};
use crate::sanitize;
use crate::tui::app::{App, CompareAxis, CompareColumn, HumanReading, disagrees, human_on_scale};
use crate::tui::input::action::Action;
use crate::tui::strings::compare as say;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

/// Columns shown side by side (more are counted in the header).
const MAX_COLUMNS: usize = 4;
/// Width of a column's cell in the table.
const CELL: usize = 18;

/// The current item's verdicts side by side: by mode, by persona or by
/// model (the axis key cycles), with the human label on each column's scale.
pub struct CompareView<'a>(pub &'a App);

impl Widget for CompareView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.chrome.theme;
        let axis = app.choices.compare_axis;
        let title = say::title(
            axis.name(),
            &crate::tui::strings::flat(app.persona_id(), 20),
            &app.choices.mode.to_string(),
            &app.chrome.keymap.hint(Action::CompareBy),
            &app.chrome.keymap.hint(Action::RunMissing),
            say::run_missing_does(axis),
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
        let all = app.compare_columns();
        let cols: Vec<CompareColumn> = all.iter().take(MAX_COLUMNS).cloned().collect();
        let rows = app.rows();
        let mut lines = vec![Line::styled(
            format!("{} — {}", app.list.detail.meta, app.list.detail.title),
            t.muted,
        )];
        if cols.is_empty() {
            lines.push(Line::styled(
                say::no_columns(axis, &crate::tui::strings::flat(app.persona_id(), 20)),
                t.muted,
            ));
            Paragraph::new(lines).render(inner, buf);
            return;
        }
        let mut header = vec![
            Span::styled(format!("{:<28}", "classification"), t.title),
            Span::styled(format!("{:<12}", "classifier"), t.title),
        ];
        for c in &cols {
            header.push(Span::styled(
                format!("{:<CELL$}", crate::tui::strings::flat(&c.title, CELL - 2)),
                t.title,
            ));
        }
        if all.len() > cols.len() {
            header.push(Span::styled(say::more(all.len() - cols.len()), t.muted));
        }
        lines.push(Line::from(header));
        let mut mapped = false;
        for (ri, r) in rows.iter().enumerate() {
            let Some(key) = app.combo(r) else { continue };
            let c = &item.classifications[r.classification];
            let name = if app.active_perspectives().len() > 1 {
                format!("{} · {}", c.id, r.perspective_id)
            } else {
                c.id.clone()
            };
            let (judge, human, any_mapped) = row_lines(app, &key, &cols, ri, &name, c);
            mapped |= any_mapped;
            lines.push(judge);
            lines.push(human);
        }
        if mapped {
            lines.push(Line::styled(say::MAPPED_LEGEND, t.muted));
        }
        let [table, texts] = Layout::vertical([
            Constraint::Length(lines.len() as u16 + 1),
            Constraint::Min(0),
        ])
        .areas(inner);
        Paragraph::new(lines).render(table, buf);
        if let Some(key) = rows.get(app.list.row).and_then(|r| app.combo(r)) {
            texts_of(app, &key, &cols, texts, buf);
        }
    }
}

/// A classification's two lines: the judge value in each column (marked
/// where columns, or judge and human, differ) and the human label read on
/// each column's scale. Says whether a reading was mapped.
fn row_lines<'a>(
    app: &App,
    key: &ComboKey,
    cols: &[CompareColumn],
    ri: usize,
    name: &str,
    c: &crate::domain::Classification,
) -> (Line<'a>, Line<'a>, bool) {
    let t = &app.chrome.theme;
    let focused = ri == app.list.row;
    let values: Vec<Option<Value>> = cols
        .iter()
        .map(|col| app.column_verdict(key, col).map(|v| v.value))
        .collect();
    let readings: Vec<Option<HumanReading>> = cols
        .iter()
        .map(|col| {
            app.column_label(key, col)
                .map(|e| human_on_scale(e.label.value, col.mode.scale()))
        })
        .collect();
    let present: Vec<Value> = values.iter().flatten().copied().collect();
    let columns_differ = present
        .iter()
        .any(|a| present.iter().any(|b| disagrees(*a, *b)));
    let mut judge = vec![
        Span::styled(
            format!(
                "{}{:<26} ",
                if focused { "▶" } else { " " },
                crate::tui::strings::flat(name, 26)
            ),
            if focused { t.selection } else { t.text },
        ),
        Span::styled(
            format!("{:<12}", crate::tui::strings::flat(c.selected_text(), 11)),
            t.muted,
        ),
    ];
    let mut human = vec![Span::styled(format!("{:<40}", "  human"), t.human)];
    for (i, col) in cols.iter().enumerate() {
        let reading = readings[i];
        match values[i] {
            None if col.mode == app.choices.mode && app.runs.streams.contains_key(key) => {
                judge.push(Span::styled(format!("{:<CELL$}", "…"), t.streaming))
            }
            None => judge.push(Span::styled(format!("{:<CELL$}", "–"), t.muted)),
            Some(v) => {
                let vs_human = reading
                    .and_then(|r| r.value)
                    .is_some_and(|h| disagrees(v, h));
                let style = if columns_differ || vs_human {
                    t.disagreement_mark
                } else {
                    value_style(v, t)
                };
                judge.push(Span::styled(format!("{:<CELL$}", v.as_text()), style));
            }
        }
        human.push(Span::styled(
            format!("{:<CELL$}", say::human_cell(reading)),
            t.human,
        ));
    }
    if columns_differ {
        judge.push(Span::styled(
            say::differ(app.choices.compare_axis),
            t.disagree,
        ));
    }
    let mapped = readings.iter().flatten().any(|r| r.mapped);
    (Line::from(judge), Line::from(human), mapped)
}

/// The focused row's verdict texts, one pane per column.
fn texts_of(app: &App, key: &ComboKey, cols: &[CompareColumn], area: Rect, buf: &mut Buffer) {
    let t = &app.chrome.theme;
    let n = cols.len().max(1) as u32;
    let panes = Layout::horizontal(vec![Constraint::Ratio(1, n); cols.len()]).split(area);
    for (i, col) in cols.iter().enumerate() {
        let text = match app.column_verdict(key, col) {
            Some(v) => sanitize::for_display(&v.text, 4000),
            None if col.mode == app.choices.mode
                && col.persona == app.persona_id()
                && app.choices.compare_axis != CompareAxis::Model =>
            {
                app.runs
                    .streams
                    .get(key)
                    .map(|s| s.text.clone())
                    .unwrap_or_else(|| say::NO_VERDICT.into())
            }
            None => say::NO_VERDICT.into(),
        };
        Paragraph::new(text)
            .style(t.judge)
            .wrap(Wrap { trim: false })
            .block(
                Block::bordered()
                    .title(format!(" {} ", crate::tui::strings::flat(&col.title, 40)))
                    .border_style(t.border)
                    .title_style(t.title),
            )
            .render(panes[i], buf);
    }
}
