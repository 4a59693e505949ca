use crate::analytics::usage_text::{cost_cell, count_cell, known};
use crate::sanitize;
use crate::tui::app::{App, ListedRun, RunsView};
use crate::tui::input::action::Action;
use crate::tui::layout::columns;
use crate::tui::strings::{self, flat};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

/// Runs, newest first, with when, how long, the judge, prompts, progress,
/// tokens and cost; the selected run's configuration and its failures with
/// their raw text.
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
        let runs: Vec<std::borrow::Cow<ListedRun>> =
            runs.iter().map(|r| live(self.app, r)).collect();
        let top_block = block(" runs, newest first (j/k select, esc back) ");
        let inner = top_block.inner(top);
        top_block.render(top, buf);
        let mut lines = vec![Line::styled(session_line(self.app), t.text)];
        lines.extend(run_table(self.app, &runs, cursor, inner));
        Paragraph::new(lines).render(inner, buf);
        let Some(listed) = runs.get(cursor) else {
            return;
        };
        let run = &listed.run;
        let mut lines = configuration(self.app, listed);
        lines.extend(run_detail(self.app, run, failures));
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(&format!(
                " run {}: its judge, how it answered, its failures (raw responses) ",
                run.id
            )))
            .render(bottom, buf);
    }
}

/// A stored run with this session's live counters over it, when the engine
/// runs it for this workbench: the same numbers the status bar shows.
fn live<'r>(app: &App, l: &'r ListedRun) -> std::borrow::Cow<'r, ListedRun> {
    let Some(a) = app.runs.active.iter().find(|a| a.run_id == Some(l.run.id)) else {
        return std::borrow::Cow::Borrowed(l);
    };
    let p = &a.progress;
    let mut l = l.clone();
    let r = &mut l.run;
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
    // How long it has run, as the engine last said.
    if l.took.is_none() && !p.elapsed.is_zero() {
        l.took = Some(p.elapsed);
    }
    std::borrow::Cow::Owned(l)
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

/// The runs table, newest first, scrolled so the selected run shows; the
/// columns the width holds ([`columns::RUNS`]), the others a key away.
fn run_table<'a>(
    app: &App,
    runs: &[std::borrow::Cow<ListedRun>],
    cursor: usize,
    area: Rect,
) -> Vec<Line<'a>> {
    let t = &app.chrome.theme;
    let paged = columns::paged(columns::RUNS, area.width, app.chrome.column_page);
    let cols = &paged.cols;
    let mut lines = vec![Line::styled(columns::header(cols), t.title)];
    if runs.is_empty() {
        lines.push(Line::styled("no runs yet", t.muted));
        return lines;
    }
    // The session line, the header and the status line take three rows.
    let room = usize::from(area.height).saturating_sub(3).max(1);
    let all_fit = runs.len() <= room + usize::from(paged.page.1 == 1);
    let h = if all_fit { runs.len() } else { room };
    let first = cursor.saturating_sub(h.saturating_sub(1));
    for (i, l) in runs.iter().enumerate().skip(first).take(h) {
        let st = if i == cursor { t.selection } else { t.text };
        lines.push(Line::styled(
            columns::row(cols, |head| run_cell(l, head)),
            st,
        ));
    }
    let status = strings::table::status(
        first,
        runs.len().saturating_sub(first + h),
        &app.chrome.keymap.hint(Action::OtherColumns),
        paged.page,
        &paged.next,
        strings::table::RUNS_FIRST,
    );
    if let Some(s) = status {
        lines.push(Line::styled(s, t.muted));
    }
    lines
}

/// A run's cell under the column `head` (see [`columns::RUNS`]).
fn run_cell(l: &ListedRun, head: &str) -> String {
    let r = &l.run;
    // Usage never reported is unknown, not zero.
    let usage = known(r.requests, r.usage_unknown);
    match head {
        "id" => r.id.to_string(),
        "status" => r.status.as_str().into(),
        "started (UTC)" => flat(&l.started, 16),
        "took" => l.took.map(took).unwrap_or_else(|| "–".into()),
        "judge" => judge_config(r),
        // Eight columns: the hash, which identifies the prompts (the
        // detail below names the folder, as `jury runs` does beside it).
        "prompts" => match r.spec.prompt_hash.chars().take(8).collect::<String>() {
            h if h.is_empty() => flat(&r.prompt_version(), 30),
            h => h,
        },
        "verdicts" => format!("{}/{}", r.verdicts, r.total),
        "failed" => r.failures.to_string(),
        "cost" => match cost_cell(r.cost_usd, 4, usage).as_str() {
            "-" => "—".to_string(),
            c => c.to_string(),
        },
        "tokens in/out" => count_cell(
            &format!("{}/{}", r.prompt_tokens, r.completion_tokens),
            usage,
        ),
        "requests" => r.requests.to_string(),
        "cached" => cached_share(r),
        "unknown" => r.usage_unknown.to_string(),
        _ => String::new(),
    }
}

/// How long a run took, in two units at most: `42s`, `3m05s`, `2h02m`.
fn took(d: std::time::Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s % 3600 / 60),
    }
}

/// The protocol, with the mode for AwAg: `awag 2`, `proposition`.
fn judge_name(r: &crate::domain::Run) -> String {
    match r.spec.mode {
        Some(m) => format!("{} {m}", r.spec.protocol),
        None => r.spec.protocol.to_string(),
    }
}

/// The judge configuration in a few words: `awag 2 · kenton · gpt-4o-mini`
/// (no persona for the protocols judged from no one's view).
fn judge_config(r: &crate::domain::Run) -> String {
    let mut parts = vec![judge_name(r)];
    if r.spec.persona_id != crate::domain::PersonaRef::NONE_ID {
        parts.push(flat(&r.spec.persona_id, 24));
    }
    parts.push(flat(&r.spec.model, 40));
    parts.join(" · ")
}

/// A run's recorded settings as words (`temperature 0 · batch_size 10`),
/// the unset ones left out; or why it has no record; `None` when neither.
fn settings(run: &crate::domain::Run) -> Option<String> {
    let Some(r) = run.spec.record.as_deref() else {
        return run.record_note.as_deref().map(|n| flat(n, 400));
    };
    let mut parts = Vec::new();
    if let Some(t) = r.temperature {
        parts.push(format!("temperature {t}"));
    }
    parts.push(format!("batch_size {}", r.batch_size));
    parts.push(format!("concurrency {}", r.concurrency));
    parts.push(format!("max_attempts {}", r.max_attempts));
    parts.push(format!(
        "structured {}",
        r.structured.map_or("auto", |m| m.as_str())
    ));
    parts.push(format!("confidence {}", r.confidence.as_str()));
    parts.push(format!(
        "prompts {}",
        r.prompts_dir()
            .map_or("embedded".to_string(), |d| d.display().to_string())
    ));
    if let Some(seed) = r.shuffle_seed {
        parts.push(format!("shuffle_seed {seed}"));
    }
    if let Some(b) = &r.batch {
        parts.push(format!("batch {}", b.way.as_str()));
    }
    if !r.servers.is_empty() {
        parts.push(format!("servers {}", r.servers.join(", ")));
    }
    Some(flat(&parts.join(" · "), 400))
}

/// The selected run's whole configuration: what it judged and with what,
/// when, and how long it took.
fn configuration<'a>(app: &App, l: &ListedRun) -> Vec<Line<'a>> {
    let t = &app.chrome.theme;
    let r = &l.run;
    let s = &r.spec;
    let perspectives: Vec<String> = s.perspective_ids.iter().map(|p| flat(p, 40)).collect();
    let mut what = vec![judge_name(r)];
    if s.persona_id != crate::domain::PersonaRef::NONE_ID {
        what.push(format!("persona {}", flat(&s.persona_id, 40)));
    }
    if !perspectives.is_empty() {
        what.push(format!("perspectives {}", perspectives.join(", ")));
    }
    what.push(format!("model {}", flat(&s.model, 60)));
    let mut when = vec![format!(
        "{} · started {} UTC",
        r.status,
        flat(&l.started, 40)
    )];
    if let Some(f) = &l.ended {
        when.push(format!("ended {}", flat(f, 40)));
    }
    if let Some(d) = l.took {
        when.push(format!("took {}", took(d)));
    }
    let mut lines = vec![
        Line::styled(what.join(" · "), t.title),
        Line::styled(when.join(" · "), t.text),
        Line::styled(format!("prompt set {}", flat(&s.prompt_hash, 80)), t.text),
    ];
    if let Some(settings) = settings(r) {
        lines.push(Line::styled(format!("settings: {settings}"), t.muted));
    }
    lines
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
    let waiting = app.runs.active.iter().find(|a| a.run_id == Some(run.id));
    if let Some(b) = waiting.and_then(|a| a.batch.as_ref()) {
        lines.push(Line::styled(
            crate::tui::strings::flat(&b.to_string(), 300),
            t.text,
        ));
    }
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
