//! The engine's own note on why a run stopped (a down endpoint with its URL, a
//! budget, a Retry-After pause) is what the status line says, word for word.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use crossterm::event::KeyCode;
use jury::domain::*;
use jury::engine::{EngineEvent, Progress};
use jury::tui::app::Level;
use jury::tui::msg::{Effect, Msg};
use std::time::Duration;

fn start(app: &mut jury::tui::app::App) -> u64 {
    match code(app, KeyCode::Enter).as_slice() {
        [Effect::StartRun { tag, .. }] => *tag,
        other => panic!("expected one StartRun, got {other:?}"),
    }
}

fn send(app: &mut jury::tui::app::App, tag: u64, event: EngineEvent) {
    update(app, Msg::Engine { tag, event });
}

fn finished(app: &mut jury::tui::app::App, tag: u64, status: RunStatus, failed: u64, note: &str) {
    send(
        app,
        tag,
        EngineEvent::RunFinished {
            run_id: 4,
            status,
            progress: Progress {
                run_id: 4,
                total: 5,
                failed,
                ..Default::default()
            },
            note: Some(note.into()),
        },
    );
}

const REFUSED: &str = "could not connect to http://127.0.0.1:8089/v1: connection refused";

#[test]
fn a_down_endpoint_shows_the_engines_sentence_with_its_url() {
    let mut app = app();
    let tag = start(&mut app);
    send(
        &mut app,
        tag,
        EngineEvent::RunStarted {
            run_id: 4,
            total: 5,
            skipped: 0,
        },
    );
    let k = ComboKey::new("k-001", "urgency", "classification");
    send(
        &mut app,
        tag,
        EngineEvent::RequestStarted {
            run_id: 4,
            keys: vec![k.clone()],
        },
    );
    finished(&mut app, tag, RunStatus::Failed, 5, REFUSED);
    let (level, msg) = app.chrome.message.clone().unwrap();
    assert_eq!(level, Level::Error, "a failed run is an error: {msg}");
    assert!(msg.contains("run 4 failed"), "{msg}");
    assert!(msg.contains(REFUSED), "{msg}");
    assert!(app.runs.streams.is_empty(), "no stale spinner stays");
    assert!(app.runs.active.iter().all(|r| r.finished));
    let s = screen(&app);
    assert!(s.contains(REFUSED), "{s}");
    assert!(!s.contains("streaming"), "{s}");
}

#[test]
fn a_budget_stop_shows_the_budget_sentence() {
    let mut app = app();
    let tag = start(&mut app);
    let note = "budget of $0.0100 reached: $0.0102 spent";
    finished(&mut app, tag, RunStatus::Cancelled, 0, note);
    let (level, msg) = app.chrome.message.clone().unwrap();
    assert_eq!(level, Level::Warning, "{msg}");
    assert!(msg.contains(note), "{msg}");
    assert!(screen(&app).contains(note));
}

#[test]
fn a_retry_after_pause_says_how_long_and_why() {
    let mut app = app();
    let tag = start(&mut app);
    send(
        &mut app,
        tag,
        EngineEvent::Retrying {
            run_id: 4,
            keys: vec![ComboKey::new("k-001", "urgency", "classification")],
            delay: Duration::from_secs(7),
            reason: "HTTP 429 Too Many Requests (Retry-After: 7)".into(),
        },
    );
    let s = screen(&app);
    assert!(
        s.contains("retrying in 7.0s: HTTP 429 Too Many Requests (Retry-After: 7)"),
        "{s}"
    );
}
