use crate::analytics::usage_text::{cost_cell, count_cell, known};
use crate::sanitize;
use crate::tui::app::{App, RunsView};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

/// Runs with progress, tokens and cost; the selected run's failures with raw text.
pub struct RunsPane<'a> {
    pub app: &'a App,
    pub view: &'a RunsView,
}

impl Widget for RunsPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = &self.app.chrome.theme;
        let block = |title: &str| {
            Block::bordered()
                .title(title.to_string())
                .border_style(t.border_focused)
                .title_style(t.title)
        };
        let (runs, failures, cursor) = match self.view {
            RunsView::Loading => {
                Paragraph::new("reading runs…")
                    .style(t.muted)
                    .block(block(" runs "))
                    .render(area, buf);
                return;
            }
            RunsView::Error(e) => {
                Paragraph::new(sanitize::for_display(e, 2000))
                    .style(t.error)
                    .block(block(" runs "))
                    .render(area, buf);
                return;
            }
            RunsView::Loaded {
                runs,
                failures,
                cursor,
            } => (runs, failures, *cursor),
        };
        let [top, bottom] =
            Layout::vertical([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(area);
        // This session's runs as the engine reports them now, not as the
        // store held them when the view was read.
        let runs: Vec<std::borrow::Cow<crate::domain::Run>> =
            runs.iter().map(|r| live(self.app, r)).collect();
        let h = top.height.saturating_sub(4) as usize;
        let mut lines = vec![Line::styled(session_line(self.app), t.text)];
        lines.extend(run_table(self.app, &runs, cursor, h));
        Paragraph::new(lines)
            .block(block(" runs (j/k select, esc back) "))
            .render(top, buf);
        let Some(run) = runs.get(cursor) else { return };
        let run: &crate::domain::Run = run;
        let lines = run_detail(self.app, run, failures);
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(&format!(
                " run {}: how it answered, its failures (raw responses) ",
                run.id
            )))
            .render(bottom, buf);
    }
}

/// A stored run with this session's live counters over it, when the engine
/// runs it for this workbench: the same numbers the status bar shows.
fn live<'r>(app: &App, r: &'r crate::domain::Run) -> std::borrow::Cow<'r, crate::domain::Run> {
    let Some(a) = app.runs.active.iter().find(|a| a.run_id == Some(r.id)) else {
        return std::borrow::Cow::Borrowed(r);
    };
    let p = &a.progress;
    let mut r = r.clone();
    r.total = p.total.max(p.done());
    r.verdicts = p.verdicts;
    r.failures = p.failed;
    r.requests = p.requests;
    r.prompt_tokens = p.usage.prompt_tokens;
    r.completion_tokens = p.usage.completion_tokens;
    r.cached_tokens = p.usage.cached_tokens;
    r.usage_unknown = p.usage_unknown;
    r.cost_usd = p.cost_usd;
    if !a.finished {
        r.status = crate::domain::RunStatus::Running;
    }
    std::borrow::Cow::Owned(r)
}

/// The view's first line: this session's runs as the status bar says them.
fn session_line(app: &App) -> String {
    crate::tui::strings::msg::session_runs(
        super::status::run_progress(app).as_deref(),
        &super::status::session_cost(app),
    )
}

/// Share of the prompt tokens the server answered from its cache (`-` when no
/// prompt tokens were counted).
fn cached_share(r: &crate::domain::Run) -> String {
    if r.prompt_tokens == 0 {
        return "-".into();
    }
    format!(
        "{:.0}%",
        100.0 * r.cached_tokens as f64 / r.prompt_tokens as f64
    )
}

/// The runs table, scrolled so the selected run shows in `h` rows.
fn run_table<'a>(
    app: &App,
    runs: &[std::borrow::Cow<crate::domain::Run>],
    cursor: usize,
    h: usize,
) -> Vec<Line<'a>> {
    let t = &app.chrome.theme;
    let mut lines = vec![Line::styled(
        format!(
            "{:>5} {:<10} {:<13} {:<14} {:<18} {:>9} {:>7} {:>14} {:>7} {:>8} {:>7} {:>10}",
            "id",
            "status",
            "judge",
            "persona",
            "model",
            "verdicts",
            "failed",
            "tokens in/out",
            "cached",
            "requests",
            "unknown",
            "cost"
        ),
        t.title,
    )];
    let first = cursor.saturating_sub(h.saturating_sub(1));
    for (i, r) in runs.iter().enumerate().skip(first).take(h.max(1)) {
        let st = if i == cursor { t.selection } else { t.text };
        // Usage never reported is unknown, not zero.
        let usage = known(r.requests, r.usage_unknown);
        lines.push(Line::styled(
            format!(
                "{:>5} {:<10} {:<13} {:<14} {:<18} {:>4}/{:<4} {:>7} {:>14} {:>7} {:>8} {:>7} {:>10}",
                r.id,
                r.status.as_str(),
                judge_name(r),
                crate::tui::strings::flat(&r.spec.persona_id, 14),
                crate::tui::strings::flat(&r.spec.model, 18),
                r.verdicts,
                r.total,
                r.failures,
                count_cell(&format!("{}/{}", r.prompt_tokens, r.completion_tokens), usage),
                cached_share(r),
                r.requests,
                r.usage_unknown,
                match cost_cell(r.cost_usd, 4, usage).as_str() {
                    "-" => "—".to_string(),
                    c => c.to_string(),
                },
            ),
            st,
        ));
    }
    if runs.is_empty() {
        lines.push(Line::styled("no runs yet", t.muted));
    }
    lines
}

/// The protocol, with the mode for AwAg: `awag 2`, `proposition`.
fn judge_name(r: &crate::domain::Run) -> String {
    match r.spec.mode {
        Some(m) => format!("{} {m}", r.spec.protocol),
        None => r.spec.protocol.to_string(),
    }
}

/// How the selected run answered, and its failures with their raw responses.
fn run_detail<'a>(
    app: &App,
    run: &crate::domain::Run,
    failures: &[crate::domain::Failure],
) -> Vec<Line<'a>> {
    let t = &app.chrome.theme;
    let mut lines = vec![Line::styled(
        format!(
            "structured: {} · {} request(s), every attempt · usage unknown on {} · cached {} of prompt tokens",
            run.structured
                .as_deref()
                .map(|s| crate::tui::strings::flat(s, 200))
                .unwrap_or_else(|| "not recorded".into()),
            run.requests,
            run.usage_unknown,
            cached_share(run),
        ),
        t.text,
    )];
    if let Some(n) = &run.note {
        lines.push(Line::styled(
            format!("note: {}", crate::tui::strings::flat(n, 300)),
            t.warning,
        ));
    }
    for f in failures.iter().filter(|f| f.run_id == run.id).take(20) {
        lines.push(Line::styled(
            format!(
                "{} · {} · attempt {} · http {} · finish {} · {} combination(s)",
                f.created_at,
                f.kind.as_str(),
                f.attempt,
                f.http_status
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| "-".into()),
                crate::tui::strings::flat(f.finish_reason.as_deref().unwrap_or("-"), 20),
                f.keys.len()
            ),
            t.error,
        ));
        // The reason may quote the answer, and a raw answer is the judge's
        // answer about items: blind review hides both.
        if app.choices.blind {
            lines.push(Line::styled(
                format!("  │ {}", crate::tui::strings::msg::BLIND_RAW),
                t.muted,
            ));
            continue;
        }
        lines.push(Line::styled(
            format!("  reason: {}", crate::tui::strings::flat(&f.reason, 300)),
            t.text,
        ));
        for l in sanitize::for_display(&f.raw_response, 1500).lines() {
            lines.push(Line::styled(format!("  │ {l}"), t.muted));
        }
    }
    if lines.len() == 1 {
        lines.push(Line::styled("no failures in this run", t.muted));
    }
    lines
}
