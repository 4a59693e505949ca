//! The run popups: the cancel prompt (which run, and whether).

use super::popup::dialog;
use crate::tui::action::{PopupAction, PopupKind};
use crate::tui::app::App;
use crate::tui::strings::prompt as say;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

/// What a run judges, in a few words ("awag mode 2", "rubric").
pub fn run_what(protocol: crate::domain::Protocol, mode: crate::domain::Mode) -> String {
    if protocol == crate::domain::Protocol::Awag {
        format!("{} mode {mode}", protocol.as_str())
    } else {
        protocol.as_str().to_string()
    }
}

pub fn cancel_run(app: &App, area: Rect, buf: &mut Buffer, tags: &[u64], cursor: usize) {
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
        let marked = tags.len() > 1 && i == cursor;
        let style = if marked { t.selection } else { t.text };
        lines.push(Line::styled(
            format!("{} {text}", if marked { "▶" } else { " " }),
            style,
        ));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(say::CANCEL_KEPT, t.muted));
    let key = |a| app.chrome.keymap.popup_hint(PopupKind::CancelRun, a);
    lines.push(Line::styled(
        say::cancel_keys(
            &key(PopupAction::ConfirmCancel),
            &key(PopupAction::CancelAll),
            &key(PopupAction::KeepRunning),
            tags.len() > 1,
        ),
        t.key,
    ));
    dialog(area, buf, app, say::CANCEL_TITLE, lines);
}
