//! Connections that fail: a refused connection, a server that goes away
//! mid-run, a keep-alive-only stream, a dead kept-alive connection (§13.6).

use super::*;

// ---- 13.6 keep-alive ------------------------------------------------------------

/// A server that closes each connection right after its answer while still
/// advertising keep-alive: the next request, written into the dead pooled
/// connection, goes again at once on a new one — no retry, no failure.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_into_a_dead_kept_alive_connection_is_resent_at_once() {
    let (_dir, db) = store_with(6, 2);
    let server = TestServer::start(|r| {
        Reply::CloseAfter(
            Duration::from_millis(150),
            Box::new(demo_judge::reply(r, Duration::ZERO)),
        )
    })
    .await
    .unwrap();
    let (outcome, events) = run(config(&db, server.base_url()), request(Mode::Two, 2, 1)).await;
    assert_eq!(outcome.status, RunStatus::Done);
    assert_eq!(outcome.progress.verdicts, 12);
    assert_eq!(server.request_count(), 6, "every batch answered once");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, jury::engine::EngineEvent::Retrying { .. })),
        "no retry was spent"
    );
    let f = Store::open(&db)
        .unwrap()
        .failures(Some(outcome.run_id))
        .unwrap();
    assert!(f.is_empty());
}

/// A refused connection stops the run within seconds, exit 1, URL named.
#[test]
fn an_unreachable_endpoint_stops_the_run_exit_1_and_names_the_url() {
    let ws = generated_workspace(20, 3);
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/v1");
    let out = ws.run_with(&url, &run_args(&["--concurrency", "4"]));
    let all = out_text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains(&format!("could not connect to {url}: connection refused")),
        "{all}"
    );
    let runs = ws.ok(&["runs", "--json"]);
    assert!(runs.contains("\"failed\""), "{runs}");
}

/// Keep-alive comments are not an answer: the idle timeout cuts it, the
/// failure says the answer went silent, and a second silence ends the batch.
#[test]
fn a_keepalive_only_stream_is_cut_by_the_idle_timeout() {
    let ws = generated_workspace(1, 1);
    let srv = ServerRt::start(|_| Reply::KeepAliveOnly {
        every: Duration::from_millis(100),
        count: 3000,
    });
    let out = ws.run_with(
        &srv.url(),
        &run_args(&["--idle-timeout", "0.6", "--max-attempts", "1"]),
    );
    assert_eq!(out.status.code(), Some(2), "{}", out_text(&out));
    assert_eq!(srv.completions().len(), 2, "cut twice, then given up");
    let f = ws.store().failures(None).unwrap();
    assert_eq!(f.len(), 1);
    assert!(f[0].reason.contains("went silent"), "{}", f[0].reason);
    assert!(ws.ok(&["run", "--help"]).contains("--idle-timeout"));
}

/// The workbench and `jury run` share one message for a down endpoint.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_names_the_url_of_an_unreachable_endpoint() {
    let (_dir, db) = store_with(3, 2);
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/v1");
    let (outcome, _) = run(config(&db, url.clone()), request(Mode::Two, 2, 2)).await;
    assert_eq!(outcome.status, RunStatus::Failed);
    assert_eq!(
        outcome.note.as_deref(),
        Some(format!("could not connect to {url}: connection refused").as_str())
    );
    assert_eq!(outcome.progress.requests, 0, "nothing reached a server");
    let _ = Workspace::new();
}

/// A server that answered and then went away (its process died: every new
/// connection refused) stops the run once one request has spent its
/// retries: exit 1, resumable, one failure recorded, instead of every
/// remaining batch spending its own retries on a dead endpoint.
#[test]
fn a_server_that_goes_away_mid_run_stops_the_run_after_one_request() {
    let ws = generated_workspace(12, 1);
    let srv =
        ServerRt::start(|r| jury::testserver::demo_judge::reply(r, Duration::from_millis(150)));
    let url = srv.url();
    let child = ws
        .cmd()
        .env("OPENAI_BASE_URL", &url)
        .args(run_args(&["--batch-size", "1", "--concurrency", "1"]))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Two answers arrive, then the server is gone.
    let mut waited = 0;
    while srv.completions().len() < 2 {
        std::thread::sleep(Duration::from_millis(20));
        waited += 1;
        assert!(waited < 3000, "the run never sent two requests");
    }
    drop(srv);
    let out = child.wait_with_output().unwrap();
    let all = out_text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(
        all.contains(&format!("could not connect to {url}")),
        "{all}"
    );
    assert!(all.contains("it had answered earlier in this run"), "{all}");
    assert!(all.contains("--resume"), "{all}");
    let failures = ws.store().failures(None).unwrap();
    assert_eq!(failures.len(), 1, "{failures:?}");
    // What arrived is kept; a server that answers again finishes the rest.
    let good = ServerRt::demo();
    let out = ws.run_with(&good.url(), &run_args(&["--resume"]));
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out));
    assert!(
        good.completions().len() <= 10,
        "{}",
        good.completions().len()
    );
}
