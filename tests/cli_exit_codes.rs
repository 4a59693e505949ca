//! `jury run` exit codes: 0 when every verdict is in, 2 when failures were
//! recorded, 1 when a fault fatal for the whole run stopped it.
#![cfg(feature = "tui")]

mod common;
use common::*;
use jury::testserver::Reply;

fn run(ws: &Workspace, srv: &ServerRt) -> std::process::Output {
    ws.run_with(
        &srv.url(),
        &[
            "run",
            "--mode",
            "2",
            "--persona",
            "kenton",
            "--perspective",
            "classification",
            "--limit",
            "3",
            "--concurrency",
            "1",
        ],
    )
}

#[test]
fn a_refused_key_is_a_fatal_error_that_names_the_endpoint() {
    let ws = Workspace::new();
    ws.import_sample();
    let srv = ServerRt::start(|_| {
        Reply::Status {
        code: 401,
        headers: vec![],
        body: r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#.into(),
    }
    });
    let out = run(&ws, &srv);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&srv.url()), "{err}");
    assert!(err.contains("--resume"), "{err}");
    // One request at a time: the first 401 stops the run, nothing is retried.
    let c = srv.completions();
    assert_eq!(c.len(), 1);
}

#[test]
fn a_complete_run_exits_0_and_one_with_failures_exits_2() {
    let ws = Workspace::new();
    ws.import_sample();
    let demo = ServerRt::demo();
    assert_eq!(run(&ws, &demo).status.code(), Some(0));
    // A server that always answers with a broken tool call: failures recorded.
    let ws = Workspace::new();
    ws.import_sample();
    let broken = ServerRt::start(|_| Reply::Content {
        text: "I cannot produce JSON today.".into(),
        chunk: 0,
        finish: None,
    });
    let out = run(&ws, &broken);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}
