//! The run popups: the cancel prompt (which run, and whether) and `R`'s
//! confirmation (what each run would send, and what it may cost).

use super::popup::dialog;
use crate::tui::app::App;
use crate::tui::input::action::{PopupAction, PopupKind};
use crate::tui::strings::popup as say;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

/// What a run judges, in a few words ("awag mode 2", "rubric"): only AwAg
/// has a mode.
pub fn run_what(protocol: crate::domain::Protocol, mode: Option<crate::domain::Mode>) -> String {
    match mode {
        Some(mode) => format!("{} mode {mode}", protocol.as_str()),
        None => protocol.as_str().to_string(),
    }
}

/// The cancel prompt: the runs still going and the keys. `cursor` is the
/// highlighted run; `None` when quitting, which cancels them all.
pub fn cancel_run(app: &App, area: Rect, buf: &mut Buffer, tags: &[u64], cursor: Option<usize>) {
    let t = &app.chrome.theme;
    let mut lines = Vec::new();
    for (i, tag) in tags.iter().enumerate() {
        let Some(r) = app.runs.active.iter().find(|r| r.tag == *tag) else {
            continue;
        };
        let p = &r.progress;
        let text = say::cancel_line(
            &say::run_name(r.run_id, r.tag),
            &run_what(r.protocol, r.mode),
            p.done(),
            p.total.max(p.done()),
        );
        let marked = tags.len() > 1 && cursor == Some(i);
        let style = if marked { t.selection } else { t.text };
        lines.push(Line::styled(
            format!("{} {text}", if marked { "▶" } else { " " }),
            style,
        ));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(say::CANCEL_KEPT, t.muted));
    let key = |a| app.chrome.keymap.popup_hint(PopupKind::CancelRun, a);
    let (title, keys) = match cursor {
        Some(_) => (
            say::CANCEL_TITLE,
            say::cancel_keys(
                &key(PopupAction::ConfirmCancel),
                &key(PopupAction::CancelAll),
                &key(PopupAction::KeepRunning),
                tags.len() > 1,
            ),
        ),
        None => (
            say::quit_with_runs_title(tags.len()),
            say::quit_with_runs_keys(
                &key(PopupAction::ConfirmCancel),
                &app.chrome
                    .keymap
                    .hint(crate::tui::input::action::Action::Quit),
                &key(PopupAction::KeepRunning),
                tags.len(),
            ),
        ),
    };
    lines.push(Line::styled(keys, t.key));
    dialog(area, buf, app, title, lines);
}

/// What `R` would send, run by run: the missing combinations and everything.
pub fn confirm_runs(
    app: &App,
    area: Rect,
    buf: &mut Buffer,
    runs: &[crate::tui::app::PlannedRun],
    judged: bool,
) {
    let t = &app.chrome.theme;
    let mut lines = Vec::new();
    if judged {
        lines.push(Line::styled(say::JUDGED_INTRO, t.text));
        lines.push(Line::raw(""));
    }
    let count = |label: &str, c: &crate::tui::app::RunCount| {
        say::confirm_count(label, c.items, c.combos, c.requests, &say::cost(c.cost_usd))
    };
    for r in runs {
        lines.push(Line::styled(
            say::confirm_run(
                &run_what(r.plan.protocol(), r.plan.mode()),
                r.plan
                    .spec
                    .persona()
                    .map(|p| crate::tui::strings::flat(p, 40))
                    .as_deref(),
                r.plan.item_ids.len(),
            ),
            t.title,
        ));
        if !judged {
            lines.push(Line::styled(count("missing:", &r.missing), t.text));
        }
        lines.push(Line::styled(count("re-judge:", &r.all), t.muted));
    }
    if runs.len() > 1 {
        let sum = |f: fn(&crate::tui::app::PlannedRun) -> &crate::tui::app::RunCount| {
            let requests = runs.iter().map(|r| f(r).requests).sum();
            let cost = runs.iter().map(|r| f(r).cost_usd).sum::<Option<f64>>();
            (requests, say::cost(cost))
        };
        lines.push(Line::raw(""));
        let (n, c) = sum(|r| &r.missing);
        lines.push(Line::styled(say::confirm_total("missing:", n, &c), t.text));
        let (n, c) = sum(|r| &r.all);
        lines.push(Line::styled(
            say::confirm_total("re-judge:", n, &c),
            t.muted,
        ));
    }
    if !judged {
        let requests = runs.iter().map(|r| r.missing.requests).sum();
        let cost = runs
            .iter()
            .map(|r| r.missing.batch_cost_usd)
            .sum::<Option<f64>>();
        lines.push(Line::styled(
            say::confirm_batch(requests, &say::cost(cost)),
            t.muted,
        ));
    }
    lines.push(Line::raw(""));
    if app.running() {
        let cancel = app
            .chrome
            .keymap
            .hint(crate::tui::input::action::Action::CancelRun);
        lines.push(Line::styled(say::run_going(&cancel), t.warning));
    }
    let model = crate::tui::strings::flat(&app.runs.model, 40);
    let priced = runs.iter().any(|r| r.all.cost_usd.is_some());
    lines.push(Line::styled(say::cost_note(&model, priced), t.muted));
    let key = |a| app.chrome.keymap.popup_hint(PopupKind::ConfirmRuns, a);
    lines.push(Line::styled(
        say::confirm_keys(
            &key(PopupAction::StartMissing),
            &key(PopupAction::StartBatch),
            &key(PopupAction::RejudgeAll),
            &key(PopupAction::DontStart),
            judged,
        ),
        t.key,
    ));
    let title = if judged {
        say::JUDGED_TITLE
    } else {
        say::CONFIRM_TITLE
    };
    dialog(area, buf, app, title, lines);
}
