//! How long a batch run waits, in tokio's paused time (no wall-clock
//! waits): a batch that never leaves `in_progress` is left after its
//! 24-hour window, and a status poll that fails for an hour ends the wait;
//! both leave the batch running on the server, say how to resume, and a
//! resume reads that same batch.

use crate::common::{config, request, store_with};
use jury::domain::{Mode, RunStatus};
use jury::engine::{
    BatchMode, BatchOrder, EngineEvent, Reopen, make_plan, spawn_batch, spawn_reopen,
};
use jury::store::Store;
use jury::testserver::{BatchApi, BatchScript, Faults, TestServer, demo_judge};
use std::sync::Arc;
use std::time::Duration;

const POLL: Duration = Duration::from_secs(60);

async fn server(script: BatchScript) -> (TestServer, Arc<BatchApi>) {
    let api = BatchApi::new(script, |r| demo_judge::reply(r, Duration::ZERO));
    let a = api.clone();
    let server = TestServer::start(move |r| a.reply(r)).await.expect("start");
    (server, api)
}

/// Runs `handle` to its end: the outcome and the notices said.
async fn ended(mut h: jury::engine::RunHandle) -> (jury::engine::RunOutcome, Vec<String>) {
    let mut notices = Vec::new();
    while let Some(e) = h.events.recv().await {
        if let EngineEvent::Notice { text, .. } = e {
            notices.push(text);
        }
    }
    let outcome = h.join.await.expect("no panic").expect("the run started");
    (outcome, notices)
}

/// A batch run of 4 items of 2 classifications against `server`.
async fn batch_run(
    db: &std::path::Path,
    server: &TestServer,
) -> (jury::engine::RunOutcome, Vec<String>) {
    let cfg = config(db, server.base_url());
    let req = request(Mode::One, 2, 1);
    let plan = make_plan(&cfg, &req, &Store::open(db).expect("store")).expect("plan");
    let order = BatchOrder {
        mode: BatchMode::Api { poll: POLL },
    };
    ended(spawn_batch(cfg, req, plan, order)).await
}

/// Takes run `run_id` up again, as `--resume` does, with the server fixed.
async fn resumed(
    db: &std::path::Path,
    server: &TestServer,
    run_id: i64,
) -> jury::engine::RunOutcome {
    let cfg = config(db, server.base_url());
    let mut req = request(Mode::One, 2, 1);
    req.resume = true;
    ended(spawn_reopen(cfg, req, run_id, Reopen::Wait { poll: POLL }))
        .await
        .0
}

#[tokio::test(start_paused = true)]
async fn a_batch_that_never_ends_is_left_after_its_window() {
    let (_dir, db) = store_with(4, 2);
    let (server, api) = server(BatchScript {
        polls_in_progress: usize::MAX / 2,
        ..BatchScript::default()
    })
    .await;
    let started = tokio::time::Instant::now();
    let (outcome, notices) = batch_run(&db, &server).await;
    assert_eq!(outcome.status, RunStatus::Failed, "{:?}", outcome.note);
    let note = outcome.note.unwrap_or_default();
    assert!(note.contains("past its 24-hour window"), "{note}");
    assert!(
        note.contains("left running on the server") && note.contains("--resume"),
        "{note}"
    );
    assert!(notices.iter().any(|n| n == &note), "{notices:?}");
    // Left some time after the window, not before it.
    assert!(
        started.elapsed() >= Duration::from_secs(24 * 3600),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(api.created().len(), 1);
    assert_eq!(
        server
            .requests()
            .iter()
            .filter(|r| r.path.ends_with("/cancel"))
            .count(),
        0,
        "left, not cancelled"
    );
    drop(server);
}

#[tokio::test(start_paused = true)]
async fn a_poll_failing_for_an_hour_leaves_the_batch_and_resume_reads_it() {
    let (_dir, db) = store_with(4, 2);
    let (server, api) = server(BatchScript::default()).await;
    api.set_faults(Faults {
        failing_looks: usize::MAX,
        ..Faults::default()
    });
    let started = tokio::time::Instant::now();
    let (outcome, notices) = batch_run(&db, &server).await;
    assert_eq!(outcome.status, RunStatus::Failed, "{:?}", outcome.note);
    let note = outcome.note.unwrap_or_default();
    assert!(
        note.contains("HTTP 503") && note.contains("failing for"),
        "{note}"
    );
    assert!(note.contains("left running on the server"), "{note}");
    assert!(!note.contains("bad endpoint configuration"), "{note}");
    assert!(
        started.elapsed() >= Duration::from_secs(30 * 60),
        "{:?}",
        started.elapsed()
    );
    assert!(
        notices
            .iter()
            .filter(|n| n.contains("trying again in"))
            .count()
            > 5,
        "{notices:?}"
    );
    assert_eq!(api.created().len(), 1);

    // Resumable: with the server well again, the same batch is read.
    api.set_faults(Faults::default());
    let again = resumed(&db, &server, outcome.run_id).await;
    assert_eq!(again.status, RunStatus::Done, "{:?}", again.note);
    assert_eq!(again.progress.verdicts, 8);
    assert_eq!(api.created().len(), 1, "no second batch");
    let direct = server
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .count();
    assert_eq!(direct, 0);
}
