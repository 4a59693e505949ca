//! `R` then Enter while a batch of the same combinations is still open on
//! the server (a batch run of the same judge stopped while it waited): the
//! workbench waits for that batch and reads its answers, and judges none
//! of those combinations directly at full price.
#![cfg(feature = "tui")]

use super::runs_executor::{Bench, bench, confirm, drive};
use crate::tui_common::*;

use crossterm::event::KeyCode;
use jury::engine::{BatchMode, BatchOrder, make_plan, spawn_batch_with};
use jury::testserver::{BatchApi, BatchScript, TestServer};
use jury::tui::msg::Msg;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_then_enter_waits_for_the_open_batch_of_its_combinations() {
    let api = BatchApi::new(BatchScript::default(), |r| {
        jury::testserver::demo_judge::reply(r, Duration::ZERO)
    });
    let a = api.clone();
    let server = TestServer::start(move |r| a.reply(r)).await.expect("start");
    let Bench {
        _dir,
        db,
        cfg,
        mut exec,
        mut rx,
        mut app,
    } = bench(&server);

    // R: the workbench's plan of the missing combinations.
    let fx = key(&mut app, 'R');
    let planned = |m: &Msg| matches!(m, Msg::RunsPlanned { .. });
    drive(&mut app, &mut exec, &mut rx, fx, planned).await;
    let plan = confirm(&app)[0].plan.clone();

    // The same judge sent as a batch, stopped (batch left running) once it
    // has seen its batch move on: the batch is open on the server.
    let req = jury::tui::effects::run_request(plan);
    let store = jury::store::Store::open(&db).expect("store");
    let engine_plan = make_plan(&cfg, &req, &store).expect("plan");
    drop(store);
    let order = BatchOrder {
        mode: BatchMode::Api {
            poll: Duration::from_secs(1),
        },
    };
    let stop = CancellationToken::new();
    let mut first = spawn_batch_with(cfg.clone(), req, engine_plan, order, stop.clone());
    let looks = || {
        server
            .requests()
            .iter()
            .filter(|r| r.method == "GET" && r.path.contains("/batches/"))
            .count()
    };
    let start = Instant::now();
    while looks() < 2 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the batch run never looked"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    stop.cancel();
    while first.events.recv().await.is_some() {}
    let _ = first.join.await;
    assert_eq!(api.created().len(), 1);

    // Enter: the missing combinations are the batch's; it is waited for.
    let fx = code(&mut app, KeyCode::Enter);
    let ended = |m: &Msg| matches!(m, Msg::RunEnded { .. });
    drive(&mut app, &mut exec, &mut rx, fx, ended).await;
    let direct = server
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .count();
    assert_eq!(direct, 0, "nothing judged directly while the batch runs");
    assert_eq!(api.created().len(), 1, "no second batch");
    let store = jury::store::Store::open(&db).expect("store");
    let runs = store.runs().expect("runs");
    assert_eq!(runs.len(), 1, "the batch's run, taken up again");
    assert_eq!(runs[0].verdicts, 50, "{:?}", runs[0]);
}
