//! `R` and Enter through the executor against a real store and a real
//! (local) judge server: the confirmation's counts are what is sent, a second
//! `R` finds nothing missing, and a judged item is not judged again unasked.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use crossterm::event::KeyCode;
use jury::tui::app::{App, PlannedRun, Popup};
use jury::tui::effects::{EngineLink, Executor};
use jury::tui::msg::{Effect, Msg};
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;

/// 25 inbox items with two classifications each: 50 combinations, 5
/// requests of 10 in mode 2.
fn data() -> jury::tui::app::Loaded {
    let mut d = loaded();
    d.items = (0..25)
        .map(|i| item(&format!("k-{i:03}"), &format!("Item {i}"), "Some text."))
        .collect();
    d
}

async fn next(rx: &mut UnboundedReceiver<Msg>) -> Msg {
    tokio::time::timeout(Duration::from_secs(30), rx.recv())
        .await
        .expect("a message in time")
        .expect("channel open")
}

/// Runs the effects, then feeds messages back until `done` says so.
async fn drive(
    app: &mut App,
    exec: &mut Executor,
    rx: &mut UnboundedReceiver<Msg>,
    fx: Vec<Effect>,
    done: impl Fn(&Msg) -> bool,
) {
    let mut pending = fx;
    loop {
        for f in pending.drain(..) {
            exec.run(f);
        }
        let msg = next(rx).await;
        let stop = done(&msg);
        pending = update(app, msg);
        if stop && pending.is_empty() {
            return;
        }
    }
}

fn confirm(app: &App) -> Vec<PlannedRun> {
    match &app.chrome.popup {
        Some(Popup::ConfirmRuns { runs, .. }) => runs.clone(),
        _ => panic!("the confirmation is open:\n{}", screen(app)),
    }
}

fn posts(server: &jury::testserver::TestServer) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.method == "POST")
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_sends_what_it_said_and_then_only_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.db");
    let d = data();
    jury::store::Store::open(&db)
        .unwrap()
        .upsert_all(&d.items, &d.personas, &d.perspectives, &[])
        .unwrap();
    let server = jury::testserver::TestServer::start(|r| {
        jury::testserver::demo_judge::reply(r, Duration::ZERO)
    })
    .await
    .unwrap();
    let provider =
        jury::provider::ProviderConfig::new(server.base_url(), "jury-demo-judge".to_string());
    let cfg = jury::engine::EngineConfig {
        db_path: db.clone(),
        provider,
        prompts: std::sync::Arc::new(jury::prompt::PromptSet::embedded()),
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let link = EngineLink {
        config: Some(cfg.clone()),
    };
    let mut exec = Executor::new(db.clone(), link, tx);
    let mut app = app_with(data());
    app.runs.model = "jury-demo-judge".into();

    // 1. R: the counts, and nothing sent.
    let fx = key(&mut app, 'R');
    let planned = |m: &Msg| matches!(m, Msg::RunsPlanned { .. });
    drive(&mut app, &mut exec, &mut rx, fx, planned).await;
    let runs = confirm(&app);
    assert_eq!(runs.len(), 1);
    let first = runs[0].missing;
    assert_eq!((first.items, first.combos, first.requests), (25, 50, 5));
    assert_eq!(first.cost_usd, None, "the demo judge has no price");
    assert_eq!(runs[0].all, first);
    assert_eq!(posts(&server), 0, "counting sends nothing");
    assert!(screen(&app).contains("5 request(s)"));

    // 2. Enter: the missing ones start, and exactly the counted requests go out.
    let fx = code(&mut app, KeyCode::Enter);
    let ended = |m: &Msg| matches!(m, Msg::RunEnded { .. });
    drive(&mut app, &mut exec, &mut rx, fx, ended).await;
    assert_eq!(posts(&server), first.requests);
    assert_eq!(
        jury::store::Store::open(&db).unwrap().runs().unwrap().len(),
        1
    );

    // 3. R again: nothing missing; re-judging would send the same again.
    let fx = key(&mut app, 'R');
    drive(&mut app, &mut exec, &mut rx, fx, planned).await;
    let runs = confirm(&app);
    assert_eq!(runs[0].missing.combos, 0);
    assert_eq!(runs[0].missing.requests, 0);
    assert_eq!(runs[0].missing.skipped, 50);
    assert_eq!(runs[0].all.requests, 5);
    assert!(
        code(&mut app, KeyCode::Enter).is_empty(),
        "nothing to start"
    );

    // 4. Enter on a judged item: no request, no empty run; it asks instead.
    let fx = code(&mut app, KeyCode::Enter);
    assert!(matches!(&fx[..], [Effect::StartRun { plan, .. }] if plan.resume));
    drive(&mut app, &mut exec, &mut rx, fx, planned).await;
    assert!(matches!(
        app.chrome.popup,
        Some(Popup::ConfirmRuns { judged: true, .. })
    ));
    assert!(!app.running());
    assert_eq!(posts(&server), 5);
    assert_eq!(
        jury::store::Store::open(&db).unwrap().runs().unwrap().len(),
        1
    );
    // r re-judges it: one request.
    let fx = key(&mut app, 'r');
    assert!(matches!(&fx[..], [Effect::StartRun { plan, .. }] if !plan.resume));
    drive(&mut app, &mut exec, &mut rx, fx, ended).await;
    assert_eq!(posts(&server), 6);

    // 5. With a priced model the estimate is a figure, and grows with the work.
    let mut priced = cfg.clone();
    priced.provider.model = "gpt-4o-mini".into();
    let plan = runs[0].plan.clone();
    let got = jury::tui::effects::run_task::summarize(&priced, vec![plan]).unwrap();
    let (missing, all) = (got[0].missing, got[0].all);
    assert_eq!(missing.requests, 5, "another model: nothing judged with it");
    let cost = all.cost_usd.expect("gpt-4o-mini has a price");
    assert!(cost > 0.0 && cost < 1.0, "{cost}");
}
