//! The few-shot loop on screen: its confirm step, and the change it made at
//! the top of the agreement view on the `test` side.

use crate::domain::Side;
use crate::tui::app::{AgreementState, App, LoopDelta, LoopReady, LoopStage};
use crate::tui::input::action::{Action, PopupAction, PopupKind};
use crate::tui::strings::fewshot as say;
use crate::tui::strings::flat;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

/// The confirm step's title and lines.
pub fn confirm<'a>(app: &App, r: &LoopReady) -> (&'static str, Vec<Line<'a>>) {
    let t = &app.chrome.theme;
    let baseline = r.stage == LoopStage::Baseline;
    let set = r
        .dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (by_owner, who) = r.judged_as();
    let mut lines: Vec<Line> = say::confirm_lines(
        baseline,
        &flat(&set, 60),
        &r.run_hash().chars().take(8).collect::<String>(),
        r.examples,
        r.reused,
        r.items(),
        r.left_out,
        &r.plan.mode().map(|m| m.to_string()).unwrap_or_default(),
        (by_owner, &flat(&who, 80)),
        r.requests,
        r.skipped,
    )
    .into_iter()
    .map(|l| Line::styled(l, t.text))
    .collect();
    let key = |a| app.chrome.keymap.popup_hint(PopupKind::ConfirmLoop, a);
    lines.push(Line::styled(
        format!(
            "{} start · {} not now",
            key(PopupAction::StartRun),
            key(PopupAction::Close)
        ),
        t.key,
    ));
    let title = if baseline {
        say::BASELINE_TITLE
    } else {
        say::TITLE
    };
    (title, lines)
}

fn fig(v: Option<f64>) -> String {
    v.map_or("–".into(), |x| format!("{x:.2}"))
}

use crate::report::paired::ci_or_reason as ci;

/// The loop's lines for the agreement view (none when no loop ran this
/// session or the view is not on `test`).
pub fn lines(app: &App, state: &AgreementState) -> Vec<String> {
    let Some(l) = &app.runs.fewshot else {
        return Vec::new();
    };
    if state.side != Some(Side::Test) {
        return Vec::new();
    }
    match l.delta() {
        LoopDelta::Computing => vec![say::COMPUTING.into()],
        LoopDelta::NeedsBaseline => {
            vec![say::needs_baseline(
                &app.chrome.keymap.hint(Action::FewShotLoop),
            )]
        }
        LoopDelta::Found(found) => found
            .iter()
            .take(3)
            .flat_map(|d| {
                [
                    say::headline(
                        &flat(&d.judge, 50),
                        &flat(&d.person, 20),
                        &fig(d.kappa_before),
                        &fig(d.kappa_after.value),
                        &ci(&d.kappa_after),
                        d.n,
                    ),
                    say::delta_line(
                        &flat(&d.versions, 100),
                        &d.delta.value.map_or("–".into(), |x| format!("{x:+.2}")),
                        &ci(&d.delta),
                    ),
                ]
            })
            .collect(),
    }
}

/// Draws the loop's lines at the top of `area` and returns what is left.
pub fn take_rows(app: &App, state: &AgreementState, area: Rect, buf: &mut Buffer) -> Rect {
    let lines = lines(app, state);
    if lines.is_empty() {
        return area;
    }
    let t = &app.chrome.theme;
    let rows = (lines.len() as u16 + 1).min(area.height / 2);
    let [top, rest] = Layout::vertical([Constraint::Length(rows), Constraint::Min(0)]).areas(area);
    Paragraph::new(
        lines
            .into_iter()
            .map(|l| Line::styled(l, t.title))
            .collect::<Vec<_>>(),
    )
    .wrap(Wrap { trim: false })
    .render(top, buf);
    rest
}
