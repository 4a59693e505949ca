//! The agreement view's answers name the request they answer: a side
//! switched with `t`, or the view closed and opened again, while figures
//! are read never mixes the parts of two answers (an earlier request's
//! parts are dropped, as the label writer's stale answers are).
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::domain::*;
use jury::tui::app::{FiguresState, View};
use jury::tui::effects::{EngineLink, Executor};
use jury::tui::msg::{AgreementPart, Effect, Msg};
use std::time::Duration;

/// The one `LoadAgreement` in `fx`: its request and side.
fn load(fx: &[Effect]) -> (u64, Option<Side>) {
    match fx {
        [Effect::LoadAgreement { req, scope }] => (*req, scope.side),
        _ => panic!("expected one LoadAgreement: {fx:?}"),
    }
}

fn part(req: u64, part: AgreementPart) -> Msg {
    Msg::Agreement { req, part }
}

fn state(app: &jury::tui::app::App) -> &jury::tui::app::AgreementState {
    match &app.chrome.view {
        View::Agreement(a) => a,
        v => panic!("not the agreement view: {v:?}"),
    }
}

/// All pairs asked for, then `t` before they came: the test side's parts and
/// the slow all-pairs parts arrive interleaved, in any order; the view shows
/// the test side's alone.
#[test]
fn parts_of_the_side_switched_away_from_are_dropped_in_any_order() {
    let mut app = app();
    app.chrome.size = (170, 44);
    let (all, side) = load(&key(&mut app, 'A'));
    assert_eq!(side, None);
    let (test, side) = load(&key(&mut app, 't'));
    assert_eq!(side, Some(Side::Test));
    assert_ne!(all, test, "a new request for the new side");

    // The old side's figures first: the view still waits for its own.
    update(
        &mut app,
        part(all, AgreementPart::Figures(Err("all pairs".into()))),
    );
    assert_eq!(state(&app).figures, FiguresState::Computing);
    update(
        &mut app,
        part(all, AgreementPart::Notes(vec!["all: note".into()])),
    );
    assert!(state(&app).notes.is_empty());

    // Then the two interleaved.
    update(&mut app, part(test, AgreementPart::Figures(Ok(Vec::new()))));
    update(
        &mut app,
        part(test, AgreementPart::Notes(vec!["test: note".into()])),
    );
    update(
        &mut app,
        part(all, AgreementPart::Estimates(vec!["all: est".into()])),
    );
    update(&mut app, part(all, AgreementPart::Cells(vec![Vec::new()])));
    update(
        &mut app,
        part(test, AgreementPart::Estimates(vec!["test: est".into()])),
    );
    update(&mut app, part(test, AgreementPart::Cells(Vec::new())));
    update(
        &mut app,
        part(all, AgreementPart::Notes(vec!["all: late".into()])),
    );
    update(
        &mut app,
        part(all, AgreementPart::Figures(Err("all again".into()))),
    );

    let a = state(&app);
    assert_eq!(a.side, Some(Side::Test));
    assert_eq!(a.figures, FiguresState::Ready(Vec::new()));
    assert_eq!(a.notes, ["test: note"]);
    assert_eq!(a.estimates, ["test: est"]);
    assert!(a.cells.is_empty(), "{:?}", a.cells);
    let s = screen(&app);
    assert!(!s.contains("all: "), "{s}");
}

/// The view closed and opened again: the first opening's answer is stale.
#[test]
fn an_answer_for_a_view_since_closed_is_dropped() {
    let mut app = app();
    app.chrome.size = (170, 44);
    let (first, _) = load(&key(&mut app, 'A'));
    code(&mut app, crossterm::event::KeyCode::Esc);
    assert_eq!(app.chrome.view, View::Main);
    // Closed: nothing to answer, nothing changes.
    update(
        &mut app,
        part(first, AgreementPart::Figures(Err("closed".into()))),
    );
    assert_eq!(app.chrome.view, View::Main);
    let (second, _) = load(&key(&mut app, 'A'));
    assert_ne!(first, second);
    update(
        &mut app,
        part(first, AgreementPart::Figures(Err("stale".into()))),
    );
    assert_eq!(state(&app).figures, FiguresState::Computing);
    update(
        &mut app,
        part(second, AgreementPart::Figures(Ok(Vec::new()))),
    );
    assert_eq!(state(&app).figures, FiguresState::Ready(Vec::new()));
}

/// Every part the executor sends for one request, in the order sent.
async fn answer(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>,
    want: u64,
) -> Vec<AgreementPart> {
    let mut parts = Vec::new();
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(60), rx.recv())
            .await
            .expect("the executor answers")
            .expect("the channel is open");
        let Msg::Agreement { req, part } = msg else {
            continue;
        };
        assert_eq!(req, want, "only the request run is answered");
        let last = matches!(
            part,
            AgreementPart::Changes(_) | AgreementPart::Figures(Err(_))
        );
        parts.push(part);
        if last {
            return parts;
        }
    }
}

/// Through the real executor and store: all pairs asked for, `t` pressed
/// while that read is slow (it finishes only after the test side's), and
/// its parts, arriving last, leave the test side's figures in view.
#[tokio::test]
async fn a_slow_read_for_the_side_left_does_not_replace_the_new_sides_figures() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.db");
    let mut store = judged_sample(&db);
    store
        .make_split(SplitRule::new(0.5, 1).unwrap(), "tester", false)
        .unwrap();
    let mut app = app_with(jury::tui::load(&store).unwrap());
    app.chrome.size = (170, 44);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut exec = Executor::new(db, EngineLink { config: None }, tx);

    let slow = key(&mut app, 'A');
    let (all, _) = load(&slow);
    let fx = key(&mut app, 't');
    let (test, _) = load(&fx);
    exec.run(fx.into_iter().next().unwrap());
    let test_parts = answer(&mut rx, test).await;
    for p in test_parts.clone() {
        update(&mut app, part(test, p));
    }
    let AgreementPart::Figures(Ok(test_groups)) = &test_parts[0] else {
        panic!("no figures for the test side: {test_parts:?}")
    };
    assert_eq!(
        state(&app).figures,
        FiguresState::Ready(test_groups.clone())
    );

    // The slow read ends now.
    exec.run(slow.into_iter().next().unwrap());
    let all_parts = answer(&mut rx, all).await;
    let AgreementPart::Figures(Ok(all_groups)) = &all_parts[0] else {
        panic!("no figures for all pairs: {all_parts:?}")
    };
    assert_ne!(all_groups, test_groups, "the sides give other figures");
    for p in all_parts {
        update(&mut app, part(all, p));
    }
    let a = state(&app);
    assert_eq!(a.side, Some(Side::Test));
    assert_eq!(a.figures, FiguresState::Ready(test_groups.clone()));
    let AgreementPart::Cells(test_cells) = &test_parts[4] else {
        panic!("the cells are the fifth part: {test_parts:?}")
    };
    assert_eq!(&a.cells, test_cells);
}
