//! Small screens and the first minutes: the agreement view, the verdict pane
//! and the runs view at 80×24 (and 160×45), claim rows before any claim is
//! configured, the "no endpoint" popup, quitting with runs in flight, and
//! the run's end said once. TestBackend screens and insta snapshots.
#![cfg(feature = "tui")]

use crate::tui_common;
use crossterm::event::KeyCode;
use jury::domain::*;
use jury::report::GroupFigures;
use jury::tui::app::App;
use jury::tui::msg::{AgreementPart, Effect, Msg};
use tui_common::*;

mod agreement;
mod first_minutes;
mod runs;
mod verdict_pane;

fn sized(app: &mut App, w: u16, h: u16) {
    update(app, Msg::Resize(w, h));
}

/// The sample workspace with a mode 2 run (the fixture's).
fn judged_workspace() -> (tempfile::TempDir, jury::store::Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = judged_sample(&dir.path().join("j.db"));
    (dir, store)
}

/// The agreement view on the judged workspace, its figures computed as
/// `jury report` computes them (1000 resamples, as the workbench asks).
fn agreement(w: u16, h: u16) -> (App, Vec<GroupFigures>) {
    let (_dir, store) = judged_workspace();
    let report = jury::report::Report::build(&store, None, Some(1000), 42, &mut ()).unwrap();
    let mut app = app_with(jury::tui::load(&store).unwrap());
    sized(&mut app, w, h);
    open_agreement_on(&mut app, &report);
    (app, report.groups)
}

fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

/// The text of the screen's columns `from..to` (chars), row by row, joined
/// by spaces with runs of spaces made one: a sentence wrapped over several
/// rows of a pane reads as one.
fn pane_text(s: &str, from: usize, to: usize) -> String {
    let joined: Vec<String> = s
        .lines()
        .map(|l| {
            l.trim_matches('"')
                .chars()
                .skip(from)
                .take(to.saturating_sub(from))
                .collect::<String>()
        })
        .collect();
    joined
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
