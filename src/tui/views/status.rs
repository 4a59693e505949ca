use super::verdicts::spinner;
use crate::tui::app::{App, Level};
use crate::tui::input::action::Action;
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
            .map(|p| crate::tui::strings::flat(&p.id, 24))
            .unwrap_or_else(|| "no persona".into());
        // Under 120 columns the words go and the values stay, so the mode
        // is read whole ("mode ?" was all that was left of it at 80).
        let narrow = area.width < 120;
        let status = if app.choices.by_owner && app.current_item().is_none() {
            crate::tui::strings::msg::PERSONA_BY_OWNER.to_string()
        } else if app.choices.by_owner && narrow && app.as_owner() {
            format!(" {persona} (owner)")
        } else if app.choices.by_owner && narrow {
            format!(" {persona} (no owner)")
        } else if app.choices.by_owner {
            crate::tui::strings::msg::persona_by_owner_status(&persona, app.as_owner())
        } else if narrow {
            format!(" {persona}")
        } else {
            crate::tui::strings::msg::persona_status(&persona)
        };
        let perspective = crate::tui::strings::flat(&app.perspective_label(), 24);
        let mut spans = vec![
            Span::styled(status, t.status_bar),
            sep(),
            Span::styled(
                if narrow {
                    perspective
                } else {
                    format!("perspective {perspective}")
                },
                t.status_bar,
            ),
            sep(),
            Span::styled(
                format!("mode {} ({})", app.choices.mode, app.choices.mode.scale()),
                t.status_bar,
            ),
            sep(),
            Span::styled(crate::tui::strings::flat(&app.runs.model, 30), t.status_bar),
        ];
        if let Some(s) = run_progress(app) {
            spans.push(sep());
            let style = if app.running() {
                t.status_bar.patch(t.streaming)
            } else {
                t.status_bar
            };
            spans.push(Span::styled(s, style));
        }
        if app.cost().is_some() {
            spans.push(sep());
            spans.push(Span::styled(session_cost(app), t.status_bar));
        }
        let unsaved = app.unsaved_count();
        if unsaved > 0 {
            spans.push(sep());
            spans.push(Span::styled(format!(" {unsaved} UNSAVED "), t.error));
        }
        if app.data.store_away.is_some() {
            spans.push(sep());
            spans.push(Span::styled(" store unreachable ", t.error));
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
        // `?` is always in sight, at 80 columns too: the right end is kept
        // for it and the rest is cut before it.
        let help = format!(
            " {} {} ",
            app.chrome.keymap.hint(Action::Help),
            crate::tui::strings::help::HELP_WORD
        );
        let help_w = (unicode_width::UnicodeWidthStr::width(help.as_str()) as u16).min(area.width);
        let left = Rect::new(area.x, area.y, area.width - help_w, area.height);
        Line::from(spans).render(left, buf);
        Line::styled(help, t.status_bar.patch(t.key))
            .render(Rect::new(left.right(), area.y, help_w, area.height), buf);
    }
}

/// This session's runs in a few words: the first running run's progress
/// (`⠋ run 4/10 ✗1 (+1 runs)`), else how the run that ended last ended, in
/// its end message's words. The status bar and the runs view both say it
/// with this, so their numbers agree.
pub fn run_progress(app: &App) -> Option<String> {
    let active: Vec<_> = app.runs.active.iter().filter(|r| !r.finished).collect();
    if let Some(r) = active.first() {
        let p = &r.progress;
        let mut s = match &r.batch {
            // Waiting on the server: its counts say more than the run's.
            Some(b) => crate::tui::strings::msg::batch_waiting(
                spinner(app.runs.spinner),
                &crate::tui::strings::flat(&b.status, 20),
                b.answered,
                b.total,
            ),
            None => format!(
                "{} run {}/{}",
                spinner(app.runs.spinner),
                p.done(),
                p.total.max(p.done())
            ),
        };
        if p.failed > 0 {
            s.push_str(&format!(" ✗{}", p.failed));
        }
        if active.len() > 1 {
            s.push_str(&format!(" (+{} runs)", active.len() - 1));
        }
        return Some(s);
    }
    // A run of another process on this store (`jury run` beside the
    // workbench): its requests so far, live.
    let own: Vec<i64> = app.runs.active.iter().filter_map(|r| r.run_id).collect();
    let others: Vec<_> = app
        .runs
        .running
        .iter()
        .filter(|r| !own.contains(&r.id))
        .collect();
    if let Some(r) = others.first() {
        return Some(crate::tui::strings::msg::run_elsewhere(
            spinner(app.runs.spinner),
            r.id,
            r.requests,
            r.total,
            others.len() - 1,
        ));
    }
    // Several runs this session (`R` starts one per persona, mode and
    // perspective): all of them, not only the one that ended last.
    let ended: Vec<_> = app
        .runs
        .active
        .iter()
        .filter(|r| r.ended.is_some())
        .collect();
    if ended.len() > 1 {
        let sum = |f: fn(&crate::engine::Progress) -> u64| -> u64 {
            ended.iter().map(|r| f(&r.progress)).sum()
        };
        let not_done = ended
            .iter()
            .filter(|r| r.ended != Some(crate::domain::RunStatus::Done))
            .count();
        return Some(crate::tui::strings::msg::runs_done(
            ended.len(),
            sum(|p| p.verdicts),
            sum(|p| p.failed),
            not_done,
        ));
    }
    // The run that ended last, as its end message said it.
    let outcome = app.runs.last_ended()?.outcome()?;
    Some(crate::tui::strings::msg::last_run(&outcome))
}

/// The session's cost: `$0.0123`, `$0.0123+?` when some requests reported
/// no usage (`?` when none did), or `—` when no run priced its requests.
pub fn session_cost(app: &App) -> String {
    let (requests, unknown) = app.runs.active.iter().fold((0, 0), |(r, u), a| {
        (r + a.progress.requests, u + a.progress.usage_unknown)
    });
    let usage = crate::analytics::usage_text::known(requests, unknown);
    match app.cost() {
        Some(c) => crate::analytics::usage_text::cost_cell(Some(c), 4, usage),
        None => "—".to_string(),
    }
}

/// The last message, or hints for the main keys.
pub struct MessageLine<'a>(pub &'a App);

impl Widget for MessageLine<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.chrome.theme;
        let mut spans = Vec::new();
        if let Some((level, text)) = &app.chrome.message {
            let style = match level {
                Level::Info => t.text,
                Level::Warning => t.warning,
                Level::Error => t.error,
            };
            // The hints follow the message where the line has room.
            spans.push(Span::styled(format!(" {text} "), style));
            spans.push(Span::styled("│", t.muted));
        }
        let k = |a: Action| app.chrome.keymap.hint(a);
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
