//! Streamed runs within their bounds: a stream whose chunk cannot be read
//! is paid for, so it is asked again only as the run's `--max-attempts`
//! allows (at most that plus the request's size in all; 15 were seen), and
//! of several servers one that redirects off its origin is taken out like
//! a failing one while the others finish the run.

use crate::common::{config, request, run, store_with};
use jury::domain::{Mode, RunStatus};
use jury::provider::ServerSpec;
use jury::testserver::{Reply, TestServer, demo_judge};
use std::time::Duration;

/// A 200 stream whose first chunk is not JSON.
fn unreadable_stream() -> Reply {
    let body = "data: {\"choices\": [oops\n\ndata: [DONE]\n\n";
    Reply::Raw(
        format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

#[tokio::test]
async fn a_malformed_stream_chunk_is_asked_again_within_the_documented_bound() {
    let (_dir, db) = store_with(2, 2);
    let server = TestServer::start(|_| unreadable_stream())
        .await
        .expect("start");
    let mut req = request(Mode::One, 2, 1);
    req.max_attempts = 3;
    let (outcome, _) = run(config(&db, server.base_url()), req).await;
    assert_ne!(outcome.status, RunStatus::Done);
    let sent = server.request_count();
    // Requests of two units each (one item's two classifications, or two
    // items'): the bound is --max-attempts plus the request's size.
    let bound = 3 + 2;
    let requests = (outcome.progress.total as usize).div_ceil(2);
    assert!(
        sent <= bound * requests,
        "{sent} paid requests for {requests} request(s) (bound {bound} each)"
    );
    let failures = jury::store::Store::open(&db)
        .expect("store")
        .failures(Some(outcome.run_id))
        .expect("failures");
    assert!(
        failures
            .iter()
            .any(|f| f.reason.contains("could not be read")),
        "{failures:?}"
    );
}

#[tokio::test]
async fn of_several_servers_one_that_redirects_off_origin_is_taken_out() {
    let (_dir, db) = store_with(6, 2);
    let elsewhere = TestServer::start(|r| demo_judge::reply(r, Duration::ZERO))
        .await
        .expect("start");
    let to = format!("{}/chat/completions", elsewhere.base_url());
    let redirecting = TestServer::start(move |_| Reply::Status {
        code: 307,
        headers: vec![("location".into(), to.clone())],
        body: String::new(),
    })
    .await
    .expect("start");
    let good = TestServer::start(|r| demo_judge::reply(r, Duration::ZERO))
        .await
        .expect("start");
    let mut cfg = config(&db, good.base_url());
    cfg.provider.servers = vec![
        ServerSpec {
            base_url: redirecting.base_url(),
            concurrency: Some(2),
        },
        ServerSpec {
            base_url: good.base_url(),
            concurrency: Some(2),
        },
    ];
    cfg.provider.failover = true;
    let (outcome, events) = run(cfg, request(Mode::One, 1, 4)).await;
    assert_eq!(outcome.status, RunStatus::Done, "{:?}", outcome.note);
    assert_eq!(outcome.progress.verdicts, outcome.progress.total);
    assert_eq!(
        elsewhere.request_count(),
        0,
        "the redirect was not followed"
    );
    assert!(redirecting.request_count() >= 1);
    assert!(
        events.iter().any(|e| matches!(
            e,
            jury::engine::EngineEvent::Notice { text, .. } if text.contains("out of the run")
        )),
        "the server was taken out, and the run said so"
    );
}
