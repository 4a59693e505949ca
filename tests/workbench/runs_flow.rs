//! Runs from the workbench: Esc backs out and never stops a run; `x`
//! cancels one, asking first; `R` plans, says what it will send, and judges
//! only what is missing unless re-judging is chosen.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use crossterm::event::KeyCode;
use jury::engine::{EngineEvent, Progress};
use jury::tui::app::Popup;
use jury::tui::msg::{Effect, Msg};

/// Starts a run on the current item (Enter) and returns its tag.
fn start(app: &mut jury::tui::app::App) -> u64 {
    match &code(app, KeyCode::Enter)[..] {
        [Effect::StartRun { tag, .. }] => *tag,
        other => panic!("expected one StartRun, got {other:?}"),
    }
}

/// The engine planned run `run_id` for `tag` with `total` combinations, `done` of them done.
fn progress(app: &mut jury::tui::app::App, tag: u64, run_id: i64, total: u64, done: u64) {
    let event = EngineEvent::RunStarted {
        run_id,
        total,
        skipped: 0,
    };
    update(app, Msg::Engine { tag, event });
    let p = Progress {
        run_id,
        total,
        verdicts: done,
        ..Progress::default()
    };
    update(
        app,
        Msg::Engine {
            tag,
            event: EngineEvent::Progress(p),
        },
    );
}

fn cancels(fx: &[Effect]) -> Vec<u64> {
    fx.iter()
        .filter_map(|f| match f {
            Effect::CancelRun { tag } => Some(*tag),
            _ => None,
        })
        .collect()
}

#[test]
fn esc_clears_the_search_and_the_run_goes_on() {
    let mut app = app();
    let tag = start(&mut app);
    progress(&mut app, tag, 4, 110, 80);
    key(&mut app, '/');
    for c in "invoice".chars() {
        key(&mut app, c);
    }
    // The first Esc closes the field, the second clears the search.
    assert!(code(&mut app, KeyCode::Esc).is_empty());
    assert!(app.chrome.popup.is_none());
    assert_eq!(app.list.search, "invoice");
    assert!(code(&mut app, KeyCode::Esc).is_empty());
    assert_eq!(app.list.search, "");
    // Then the filter, then the message; never the run.
    key(&mut app, 'f');
    assert_ne!(app.list.filter, jury::tui::app::Filter::All);
    assert!(code(&mut app, KeyCode::Esc).is_empty());
    assert_eq!(app.list.filter, jury::tui::app::Filter::All);
    for _ in 0..3 {
        assert!(code(&mut app, KeyCode::Esc).is_empty());
    }
    assert!(app.running());
    assert!(!app.runs.active[0].cancelled);
}

#[test]
fn x_asks_before_cancelling_a_run_with_many_requests_left() {
    let mut app = app();
    let tag = start(&mut app);
    progress(&mut app, tag, 4, 110, 80);
    assert!(key(&mut app, 'x').is_empty());
    assert!(matches!(app.chrome.popup, Some(Popup::CancelRun { .. })));
    assert!(screen(&app).contains("run 4 · awag mode 2 · 80 of 110 done"));
    // n keeps it going.
    assert!(key(&mut app, 'n').is_empty());
    assert!(app.chrome.popup.is_none() && app.running());
    // x, y cancels it.
    key(&mut app, 'x');
    assert_eq!(cancels(&key(&mut app, 'y')), vec![tag]);
    assert!(app.chrome.popup.is_none());
    assert!(app.runs.active[0].cancelled);
    // Nothing left to cancel: said, nothing sent.
    assert!(key(&mut app, 'x').is_empty());
    assert!(app.chrome.popup.is_none());
}

#[test]
fn a_run_that_ends_while_the_prompt_is_open_is_not_cancelled() {
    let mut app = app();
    let tag = start(&mut app);
    progress(&mut app, tag, 4, 110, 80);
    key(&mut app, 'x');
    update(&mut app, Msg::RunEnded { tag, error: None });
    assert!(key(&mut app, 'y').is_empty());
    assert!(
        app.chrome
            .message
            .as_ref()
            .unwrap()
            .1
            .contains("no run is going")
    );
    assert!(!app.runs.active[0].cancelled);
}

#[test]
fn x_cancels_at_once_when_only_a_few_are_left() {
    let mut app = app();
    let tag = start(&mut app);
    progress(&mut app, tag, 4, 110, 107);
    assert_eq!(cancels(&key(&mut app, 'x')), vec![tag]);
    assert!(app.chrome.popup.is_none());
}

#[test]
fn with_several_runs_x_asks_which_newest_first() {
    let mut app = app();
    let first = start(&mut app);
    progress(&mut app, first, 4, 110, 10);
    key(&mut app, 'j');
    let second = start(&mut app);
    progress(&mut app, second, 5, 30, 2);
    key(&mut app, 'x');
    match &app.chrome.popup {
        Some(Popup::CancelRun { tags, cursor }) => {
            assert_eq!(tags, &vec![first, second]);
            assert_eq!(*cursor, 1, "the newest is highlighted");
        }
        _ => panic!("the cancel prompt is open"),
    }
    insta::assert_snapshot!("cancel_prompt_two_runs", screen(&app));
    // k highlights the older run; y cancels that one only.
    key(&mut app, 'k');
    assert_eq!(cancels(&key(&mut app, 'y')), vec![first]);
    // Again: only the second is left, and `a` cancels every run still going.
    key(&mut app, 'x');
    assert_eq!(cancels(&key(&mut app, 'a')), vec![second]);
}

#[test]
fn esc_on_the_cancel_prompt_keeps_the_run() {
    let mut app = app();
    let tag = start(&mut app);
    progress(&mut app, tag, 4, 110, 80);
    key(&mut app, 'x');
    insta::assert_snapshot!("cancel_prompt_one_run", screen(&app));
    assert!(code(&mut app, KeyCode::Esc).is_empty());
    assert!(app.chrome.popup.is_none() && app.running());
}

fn planned(
    protocol: jury::domain::Protocol,
    persona: &str,
    missing: (usize, u64, usize),
    all: (usize, u64, usize),
    cost: Option<f64>,
) -> jury::tui::app::PlannedRun {
    let count = |(items, combos, requests): (usize, u64, usize), cost: Option<f64>| {
        jury::tui::app::RunCount {
            items,
            combos,
            requests,
            skipped: 0,
            cost_usd: cost,
            batch_cost_usd: cost.map(|c| c / 2.0),
        }
    };
    jury::tui::app::PlannedRun {
        plan: jury::tui::app::RunPlan {
            spec: jury::tui::app::RunPlan::spec_for(
                protocol,
                jury::domain::Mode::Two,
                persona,
                vec!["classification".into()],
            )
            .unwrap(),
            structured: None,
            item_ids: (0..all.0).map(|i| format!("k-{i:03}")).collect(),
            resume: true,
            batch: None,
        },
        missing: count(missing, cost.map(|c| c * missing.2 as f64 / all.2 as f64)),
        all: count(all, cost),
    }
}

fn started(fx: &[Effect]) -> Vec<(jury::domain::Protocol, bool)> {
    fx.iter()
        .filter_map(|f| match f {
            Effect::StartRun { plan, .. } => Some((plan.protocol(), plan.resume)),
            _ => None,
        })
        .collect()
}

#[test]
fn r_counts_first_then_starts_only_the_missing_runs() {
    use jury::domain::Protocol;
    let mut app = app();
    // R sends nothing yet: it asks for the counts, off the UI thread.
    let fx = key(&mut app, 'R');
    assert!(matches!(&fx[..], [Effect::PlanRuns(p)] if p.len() == 1 && p[0].resume));
    assert!(app.chrome.popup.is_none() && !app.running());
    // The counts come back: the popup lists each run.
    let runs = vec![
        planned(
            Protocol::Awag,
            "kenton",
            (40, 80, 8),
            (94, 188, 19),
            Some(0.19),
        ),
        planned(Protocol::Guideline, "-", (0, 0, 0), (3, 6, 1), Some(0.01)),
    ];
    update(
        &mut app,
        Msg::RunsPlanned {
            started: None,
            result: Ok(runs.clone()),
        },
    );
    assert!(matches!(
        app.chrome.popup,
        Some(Popup::ConfirmRuns { judged: false, .. })
    ));
    app.runs.model = "gpt-4o-mini".into();
    insta::assert_snapshot!("confirm_runs", screen(&app));
    // Enter starts the missing ones only: the guideline run has none.
    let fx = code(&mut app, KeyCode::Enter);
    assert_eq!(started(&fx), vec![(Protocol::Awag, true)]);
    assert!(app.chrome.popup.is_none());
    // Re-judging is its own key, and sends everything again.
    update(
        &mut app,
        Msg::RunsPlanned {
            started: None,
            result: Ok(runs.clone()),
        },
    );
    let fx = key(&mut app, 'r');
    assert_eq!(
        started(&fx),
        vec![(Protocol::Awag, false), (Protocol::Guideline, false)]
    );
    // With runs going, the counts say that what they have not stored counts as missing.
    update(
        &mut app,
        Msg::RunsPlanned {
            started: None,
            result: Ok(runs.clone()),
        },
    );
    let s = screen(&app);
    assert!(
        s.contains("A run is going") && s.contains("x cancels it"),
        "{s}"
    );
    code(&mut app, KeyCode::Esc);
    // Esc starts nothing.
    update(
        &mut app,
        Msg::RunsPlanned {
            started: None,
            result: Ok(runs),
        },
    );
    assert!(code(&mut app, KeyCode::Esc).is_empty());
    assert!(app.chrome.popup.is_none());
}

#[test]
fn a_model_without_a_price_shows_a_dash_not_a_figure() {
    let mut app = app();
    app.runs.model = "jury-demo-judge".into();
    let runs = vec![planned(
        jury::domain::Protocol::Awag,
        "kenton",
        (3, 6, 1),
        (3, 6, 1),
        None,
    )];
    update(
        &mut app,
        Msg::RunsPlanned {
            started: None,
            result: Ok(runs),
        },
    );
    let s = screen(&app);
    assert!(s.contains("cost —"), "{s}");
    assert!(!s.contains('$'), "{s}");
}

#[test]
fn enter_on_a_judged_item_asks_before_re_judging_it() {
    let mut app = app();
    app.runs.model = "jury-demo-judge".into();
    let tag = start(&mut app);
    assert!(app.running());
    // The engine found nothing missing: the run never started.
    let runs = vec![planned(
        jury::domain::Protocol::Awag,
        "kenton",
        (0, 0, 0),
        (1, 2, 1),
        None,
    )];
    update(
        &mut app,
        Msg::RunsPlanned {
            started: Some(tag),
            result: Ok(runs),
        },
    );
    assert!(app.runs.active.is_empty() && !app.running());
    assert!(matches!(
        app.chrome.popup,
        Some(Popup::ConfirmRuns { judged: true, .. })
    ));
    insta::assert_snapshot!("confirm_judged_item", screen(&app));
    assert!(!screen(&app).contains("A run is going"));
    // Enter does not re-judge; r does.
    assert!(code(&mut app, KeyCode::Enter).is_empty());
    let tag = start(&mut app);
    let runs = vec![planned(
        jury::domain::Protocol::Awag,
        "kenton",
        (0, 0, 0),
        (1, 2, 1),
        None,
    )];
    update(
        &mut app,
        Msg::RunsPlanned {
            started: Some(tag),
            result: Ok(runs),
        },
    );
    assert_eq!(
        started(&key(&mut app, 'r')),
        vec![(jury::domain::Protocol::Awag, false)]
    );
}

#[test]
fn a_planning_error_is_said_and_nothing_starts() {
    let mut app = app();
    key(&mut app, 'R');
    update(
        &mut app,
        Msg::RunsPlanned {
            started: None,
            result: Err("prices.toml line 2: bad entry".into()),
        },
    );
    assert!(app.chrome.popup.is_none());
    assert!(
        app.chrome
            .message
            .as_ref()
            .unwrap()
            .1
            .contains("prices.toml line 2")
    );
}
