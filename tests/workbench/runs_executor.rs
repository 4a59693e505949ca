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
pub(crate) async fn drive(
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

pub(crate) fn confirm(app: &App) -> Vec<PlannedRun> {
    match &app.chrome.popup {
        Some(Popup::ConfirmRuns { runs, .. }) => runs.clone(),
        _ => panic!("the confirmation is open:\n{}", screen(app)),
    }
}

pub(crate) fn posts(server: &jury::testserver::TestServer) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.method == "POST")
        .count()
}

/// A store of [`data`], the executor judging with `server`, and the
/// workbench over the same items.
pub(crate) struct Bench {
    pub(crate) _dir: tempfile::TempDir,
    pub(crate) db: std::path::PathBuf,
    pub(crate) cfg: jury::engine::EngineConfig,
    pub(crate) exec: Executor,
    pub(crate) rx: UnboundedReceiver<Msg>,
    pub(crate) app: App,
}

pub(crate) fn bench(server: &jury::testserver::TestServer) -> Bench {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.db");
    let d = data();
    jury::store::Store::open(&db)
        .unwrap()
        .upsert_all(&d.items, &d.personas, &d.perspectives, &[])
        .unwrap();
    let provider =
        jury::provider::ProviderConfig::new(server.base_url(), "jury-demo-judge".to_string());
    let cfg = jury::engine::EngineConfig {
        db_path: db.clone(),
        provider,
        prompts: std::sync::Arc::new(jury::prompt::PromptSet::embedded()),
    };
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let link = EngineLink {
        config: Some(cfg.clone()),
    };
    let exec = Executor::new(db.clone(), link, tx);
    let mut app = app_with(data());
    app.runs.model = "jury-demo-judge".into();
    Bench {
        _dir: dir,
        db,
        cfg,
        exec,
        rx,
        app,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_sends_what_it_said_and_then_only_what_is_missing() {
    let server = jury::testserver::TestServer::start(|r| {
        jury::testserver::demo_judge::reply(r, Duration::ZERO)
    })
    .await
    .unwrap();
    let Bench {
        _dir,
        db,
        cfg,
        mut exec,
        mut rx,
        mut app,
    } = bench(&server);

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

/// The batch test server: the Files and Batches API, each line answered as
/// the demo judge; a batch answers `in_progress` to its first `looks` looks.
pub(crate) async fn batch_server(
    looks: usize,
) -> (
    jury::testserver::TestServer,
    std::sync::Arc<jury::testserver::BatchApi>,
) {
    let script = jury::testserver::BatchScript {
        polls_in_progress: looks,
        ..Default::default()
    };
    let api = jury::testserver::BatchApi::new(script, |r| {
        jury::testserver::demo_judge::reply(r, Duration::ZERO)
    });
    let a = api.clone();
    let server = jury::testserver::TestServer::start(move |r| a.reply(r))
        .await
        .unwrap();
    (server, api)
}

pub(crate) fn paths(server: &jury::testserver::TestServer, end: &str) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with(end))
        .count()
}

/// `R` then `b`: the missing combinations leave as one Batch API batch
/// (nothing streamed), the run waits and shows the batch's status; `x`
/// stops the waiting and leaves the batch on the server; `R` `b` again
/// waits for that same batch (nothing uploaded twice) and reads its
/// answers. The run's record holds the judge the workbench asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b_sends_the_missing_as_a_batch_and_waits_again_for_it_after_a_cancel() {
    let (server, api) = batch_server(2).await;
    let Bench {
        _dir,
        db,
        mut exec,
        mut rx,
        mut app,
        ..
    } = bench(&server);
    // A long wait between looks: the cancel comes while it waits.
    app.choices.batch_poll = Duration::from_secs(3600);

    let planned = |m: &Msg| matches!(m, Msg::RunsPlanned { .. });
    let fx = key(&mut app, 'R');
    drive(&mut app, &mut exec, &mut rx, fx, planned).await;
    let shown = screen(&app);
    assert!(shown.contains("as a batch: 5 request(s)"), "{shown}");
    assert!(shown.contains("b as a batch"), "{shown}");

    // b: sent as a batch; the first look finds it in progress.
    let fx = key(&mut app, 'b');
    let asked = match &fx[..] {
        [Effect::StartRun { plan, .. }] if plan.batch.is_some() && plan.resume => plan.spec.clone(),
        _ => panic!("{fx:?}"),
    };
    let looked = |m: &Msg| {
        matches!(
            m,
            Msg::Engine {
                event: jury::engine::EngineEvent::BatchStatus { .. },
                ..
            }
        )
    };
    drive(&mut app, &mut exec, &mut rx, fx, looked).await;
    assert_eq!(api.created().len(), 1);
    assert_eq!(paths(&server, "/files"), 1);
    assert_eq!(paths(&server, "/chat/completions"), 0, "nothing streamed");
    let bar = screen(&app);
    assert!(bar.contains("run: batch in_progress 0/5"), "{bar}");

    // x: the waiting stops; the batch stays on the server.
    let mut fx = key(&mut app, 'x');
    if fx.is_empty() {
        fx = key(&mut app, 'y');
    }
    let ended = |m: &Msg| matches!(m, Msg::RunEnded { .. });
    drive(&mut app, &mut exec, &mut rx, fx, ended).await;
    assert!(!app.running());
    let first_run = {
        let s = jury::store::Store::open(&db).unwrap();
        let runs = s.runs().unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(s.open_batch_jobs().unwrap().len(), 1, "the batch is open");
        runs[0].id
    };

    // R, b again: the same batch is waited for and its answers read.
    app.choices.batch_poll = Duration::from_millis(20);
    let fx = key(&mut app, 'R');
    drive(&mut app, &mut exec, &mut rx, fx, planned).await;
    let fx = key(&mut app, 'b');
    drive(&mut app, &mut exec, &mut rx, fx, ended).await;
    assert_eq!(api.created().len(), 1, "not sent again");
    assert_eq!(paths(&server, "/files"), 1, "one upload");
    assert_eq!(paths(&server, "/chat/completions"), 0);
    let store = jury::store::Store::open(&db).unwrap();
    let runs = store.runs().unwrap();
    assert_eq!(runs.len(), 1, "the same run, taken up again");
    assert_eq!(runs[0].id, first_run);
    assert_eq!(runs[0].status, jury::domain::RunStatus::Done);
    assert_eq!(store.verdicts_for_run(first_run).unwrap().len(), 50);
    assert!(store.open_batch_jobs().unwrap().is_empty());

    // The run keeps the judge the workbench asked as its typed record.
    let record = runs[0].spec.record.as_deref().expect("a typed record");
    assert_eq!(record.judge, asked);
    assert_eq!(
        record.batch.as_ref().map(|b| b.way),
        Some(jury::domain::BatchWay::Api)
    );
}
