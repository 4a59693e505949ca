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
use jury::tui::msg::{Effect, Msg};
use tui_common::*;

mod agreement;
mod first_minutes;
mod runs;
mod verdict_pane;

fn sized(app: &mut App, w: u16, h: u16) {
    update(app, Msg::Resize(w, h));
}

/// The sample workspace with a mode 2 run answering every labelled row with
/// a Likert value that varies by item, so the figures differ.
fn judged_workspace() -> (tempfile::TempDir, jury::store::Store) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = jury::store::Store::open(&dir.path().join("j.db")).unwrap();
    jury::import::import_sample(&mut store, "me").unwrap();
    let spec = RunSpec {
        protocol: Protocol::Awag,
        mode: Some(Mode::Two),
        persona_id: "kenton".into(),
        perspective_ids: vec!["classification".into()],
        model: "demo".into(),
        prompt_hash: "h".into(),
        params: serde_json::Value::Null,
    };
    let run = store.create_run(&spec, 0).unwrap();
    let mut vs = Vec::new();
    let mut ids: Vec<String> = store.labelled_item_ids().unwrap().into_iter().collect();
    ids.sort();
    for (n, id) in ids.iter().enumerate() {
        for l in store.labels_for_item(id).unwrap() {
            let value = Value::Likert((n % 5 + 1) as u8);
            let mut v = verdict(run, id, &l.key.classification_id, Mode::Two, value, "ok");
            v.key = l.key.clone();
            v.persona_id = l.persona_id.clone();
            v.model = "demo".into();
            vs.push(v);
        }
    }
    store.insert_verdicts(&vs).unwrap();
    (dir, store)
}

/// The agreement view on the judged workspace, its figures computed as
/// `jury report` computes them (1000 resamples, as the workbench asks).
fn agreement(w: u16, h: u16) -> (App, Vec<GroupFigures>) {
    let (_dir, store) = judged_workspace();
    let report = jury::report::Report::build(&store, None, Some(1000), 42, &mut ()).unwrap();
    let mut app = app_with(jury::tui::load(&store).unwrap());
    sized(&mut app, w, h);
    key(&mut app, 'A');
    update(&mut app, Msg::AgreementLoaded(Ok(report.groups.clone())));
    update(&mut app, Msg::AgreementCells(report.cells()));
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
