//! The workbench's batch runs (`R` then `b`) keep what they ask as the
//! run's typed record, and `R` `b` on a batch left open takes it up from
//! that record: the judge, the structured path and the batch settings the
//! run was sent with, whatever the workbench's choices are now.
#![cfg(feature = "tui")]

use crate::runs_executor::{Bench, batch_server, bench, drive, paths};
use crate::tui_common::*;

use jury::domain::{BatchWay, RunStatus};
use jury::provider::ToolMode;
use jury::tui::msg::{Effect, Msg};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b_records_the_run_and_r_b_takes_it_up_from_the_record() {
    let (server, api) = batch_server(2).await;
    let Bench {
        _dir,
        db,
        mut exec,
        mut rx,
        mut app,
        ..
    } = bench(&server);
    app.choices.batch_poll = Duration::from_secs(3600);
    app.choices.structured = Some(ToolMode::JsonSchema);
    let planned = |m: &Msg| matches!(m, Msg::RunsPlanned { .. });
    let looked = |m: &Msg| {
        matches!(
            m,
            Msg::Engine {
                event: jury::engine::EngineEvent::BatchStatus { .. },
                ..
            }
        )
    };
    let ended = |m: &Msg| matches!(m, Msg::RunEnded { .. });

    let fx = key(&mut app, 'R');
    drive(&mut app, &mut exec, &mut rx, fx, planned).await;
    let fx = key(&mut app, 'b');
    let asked = match &fx[..] {
        [Effect::StartRun { plan, .. }] => plan.spec.clone(),
        _ => panic!("{fx:?}"),
    };
    drive(&mut app, &mut exec, &mut rx, fx, looked).await;
    let mut fx = key(&mut app, 'x');
    if fx.is_empty() {
        fx = key(&mut app, 'y');
    }
    drive(&mut app, &mut exec, &mut rx, fx, ended).await;

    // What the run asks is its record: no command line anywhere.
    let store = jury::store::Store::open(&db).unwrap();
    let run = store.runs().unwrap().remove(0);
    let record = run.spec.record.as_deref().expect("a typed record").clone();
    assert_eq!(record.judge, asked);
    assert_eq!(record.structured, Some(ToolMode::JsonSchema));
    assert_eq!(record.model, "jury-demo-judge");
    let batch = record.batch.as_ref().expect("batch settings");
    assert_eq!((batch.way, batch.poll_secs), (BatchWay::Api, 3600));
    assert_eq!(
        record.servers,
        [server.base_url().trim_end_matches('/').to_string()]
    );
    assert_eq!(
        store.batch_jobs(run.id).unwrap()[0].tool_mode,
        ToolMode::JsonSchema
    );
    drop(store);

    // Other choices now: R b still waits for that batch, read as recorded.
    app.choices.structured = Some(ToolMode::Tools);
    app.choices.batch_poll = Duration::from_millis(20);
    let fx = key(&mut app, 'R');
    drive(&mut app, &mut exec, &mut rx, fx, planned).await;
    let fx = key(&mut app, 'b');
    drive(&mut app, &mut exec, &mut rx, fx, ended).await;
    assert_eq!(api.created().len(), 1, "not sent again");
    assert_eq!(paths(&server, "/files"), 1);
    assert_eq!(paths(&server, "/chat/completions"), 0);
    let store = jury::store::Store::open(&db).unwrap();
    let runs = store.runs().unwrap();
    assert_eq!(runs.len(), 1, "the same run, taken up again");
    assert_eq!(runs[0].status, RunStatus::Done, "{:?}", runs[0].note);
    assert_eq!(store.verdicts_for_run(run.id).unwrap().len(), 50);
    assert_eq!(
        runs[0].spec.record.as_deref(),
        Some(&record),
        "taking a run up again does not rewrite what it asked"
    );
}
