use super::verdicts::spinner;
use crate::sanitize;
use crate::tui::action::Action;
use crate::tui::app::{App, Level};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

/// Persona, perspective, mode, model, run progress and cost.
pub struct StatusBar<'a>(pub &'a App);

impl Widget for StatusBar<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.chrome.theme;
        buf.set_style(area, t.status_bar);
        let sep = || Span::styled(" │ ", t.status_bar);
        let persona = app
            .persona()
            .map(|p| sanitize::one_line(&p.id, 24))
            .unwrap_or_else(|| "no persona".into());
        let mut spans = vec![
            Span::styled(format!(" persona {persona}"), t.status_bar),
            sep(),
            Span::styled(
                format!(
                    "perspective {}",
                    sanitize::one_line(&app.perspective_label(), 24)
                ),
                t.status_bar,
            ),
            sep(),
            Span::styled(
                format!("mode {} ({})", app.choices.mode, app.choices.mode.scale()),
                t.status_bar,
            ),
            sep(),
            Span::styled(sanitize::one_line(&app.runs.model, 30), t.status_bar),
        ];
        let active: Vec<_> = app.runs.active.iter().filter(|r| !r.finished).collect();
        if let Some(r) = active.first() {
            let p = &r.progress;
            spans.push(sep());
            let mut s = format!(
                "{} run {}/{}",
                spinner(app.runs.spinner),
                p.done(),
                p.total.max(p.done())
            );
            if p.failed > 0 {
                s.push_str(&format!(" ✗{}", p.failed));
            }
            if active.len() > 1 {
                s.push_str(&format!(" (+{} runs)", active.len() - 1));
            }
            spans.push(Span::styled(s, t.status_bar.patch(t.streaming)));
        } else if let Some(r) = app.runs.active.last() {
            spans.push(sep());
            spans.push(Span::styled(
                format!(
                    "last run {}/{} ✗{}",
                    r.progress.verdicts, r.progress.total, r.progress.failed
                ),
                t.status_bar,
            ));
        }
        if let Some(c) = app.cost() {
            spans.push(sep());
            spans.push(Span::styled(format!("${c:.4}"), t.status_bar));
        }
        let unsaved = app.unsaved_count();
        if unsaved > 0 {
            spans.push(sep());
            spans.push(Span::styled(format!(" {unsaved} UNSAVED "), t.error));
        }
        if app.choices.blind {
            spans.push(sep());
            spans.push(Span::styled("blind", t.status_bar));
        }
        // After what a run and unsaved labels say (they matter more).
        spans.push(sep());
        spans.push(Span::styled(super::list::progress(app), t.status_bar));
        // Last: on a narrow screen the run's progress, cost and unsaved
        // labels matter more than how the next run asks for its answers.
        spans.push(sep());
        spans.push(Span::styled(
            format!(
                "structured {}",
                crate::tui::update::structured_name(app.choices.structured)
            ),
            t.status_bar,
        ));
        Line::from(spans).render(area, buf);
    }
}

/// The last message, or hints for the main keys.
pub struct MessageLine<'a>(pub &'a App);

impl Widget for MessageLine<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.chrome.theme;
        if let Some((level, text)) = &app.chrome.message {
            let style = match level {
                Level::Info => t.text,
                Level::Warning => t.warning,
                Level::Error => t.error,
            };
            Line::styled(format!(" {text}"), style).render(area, buf);
            return;
        }
        let k = |a: Action| app.chrome.keymap.hint(a);
        let mut spans = Vec::new();
        for &(a, what) in crate::tui::strings::help::KEY_HINTS {
            let key = if a == Action::Likert1 {
                String::new()
            } else {
                k(a)
            };
            spans.push(Span::styled(format!(" {key}"), t.key));
            spans.push(Span::styled(format!(" {what} "), t.muted));
        }
        Line::from(spans).render(area, buf);
    }
}
