//! `jury demo-judge` is product code (`jury::demo_judge`), served by its own
//! small HTTP server rather than the test server: runs against it in every
//! AwAg mode, streamed and not, finish with the same verdicts the test
//! server's rendering of the same judge gives.

use crate::common;

use common::{config, request, run, store_with};
use jury::demo_judge::DemoJudge;
use jury::domain::{Mode, RunStatus};
use jury::store::Store;
use jury::testserver::{TestServer, demo_judge};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// `(combination, value, evaluated selection)` per verdict, sorted.
fn verdicts(db: &Path, run_id: i64) -> Vec<(String, String, Option<String>)> {
    let store = Store::open(db).expect("store");
    let mut out: Vec<_> = store
        .verdicts_for_run(run_id)
        .expect("verdicts")
        .into_iter()
        .map(|v| {
            (
                format!("{:?}", v.key),
                format!("{:?}", v.value),
                v.evaluated_selection,
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_against_the_demo_judge_match_the_test_servers_rendering() {
    let demo = DemoJudge::start(0, Duration::ZERO)
        .await
        .expect("demo judge");
    let reference = TestServer::start(|r| demo_judge::reply(r, Duration::ZERO))
        .await
        .expect("test server");
    for mode in [Mode::One, Mode::Two, Mode::Three] {
        for stream in [true, false] {
            let (_d1, db1) = store_with(4, 3);
            let (_d2, db2) = store_with(4, 3);
            let mut cfg = config(&db1, demo.base_url());
            cfg.provider.stream = stream;
            let (got, _) = run(cfg, request(mode, 3, 2)).await;
            let mut cfg = config(&db2, reference.base_url());
            cfg.provider.stream = stream;
            let (want, _) = run(cfg, request(mode, 3, 2)).await;
            assert_eq!(
                got.status,
                RunStatus::Done,
                "{mode:?} stream={stream}: {got:?}"
            );
            assert_eq!(want.status, RunStatus::Done, "{mode:?} stream={stream}");
            let (got, want) = (verdicts(&db1, got.run_id), verdicts(&db2, want.run_id));
            assert_eq!(
                got.len(),
                12,
                "{mode:?} stream={stream}: every combination judged"
            );
            assert_eq!(got, want, "{mode:?} stream={stream}");
        }
    }
}

#[tokio::test]
async fn the_demo_judge_lists_its_model_and_rejects_what_it_cannot_read() {
    let demo = DemoJudge::start(0, Duration::from_secs(3600))
        .await
        .expect("demo judge");
    let http = reqwest::Client::new();
    // The model list is answered at once, whatever the latency.
    let models: Value = http
        .get(format!("{}/models", demo.base_url()))
        .send()
        .await
        .expect("models")
        .json()
        .await
        .expect("json");
    assert_eq!(models["data"][0]["id"], jury::demo_judge::MODEL);
    drop(demo);

    let demo = DemoJudge::start(0, Duration::ZERO)
        .await
        .expect("demo judge");
    let r = http
        .post(format!("{}/chat/completions", demo.base_url()))
        .json(
            &serde_json::json!({"model": "m", "messages": [{"role": "user", "content": "hello"}]}),
        )
        .send()
        .await
        .expect("post");
    assert_eq!(r.status().as_u16(), 400);
    let body: Value = r.json().await.expect("json");
    let msg = body["error"]["message"].as_str().expect("message");
    assert!(msg.contains("not JSON"), "{msg}");
}

/// `addr` of a demo judge's base URL (`http://127.0.0.1:PORT/v1`).
fn addr_of(demo: &DemoJudge) -> String {
    demo.base_url()
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_string()
}

/// Everything the server sends until it closes, or `None` when it keeps
/// the connection open for an hour (of tokio's clock).
async fn read_until_closed(sock: &mut tokio::net::TcpStream) -> Option<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut got = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(3600), sock.read_to_end(&mut got)).await;
    match read {
        Ok(_) => Some(got),
        Err(_) => None,
    }
}

/// Trailers after the last chunk are capped like a head: 32 MB of them is
/// refused after the first few kilobytes, the connection closed (was: all
/// read, with a rescan of the whole buffer per read, 17 s of CPU).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trailers_after_the_last_chunk_are_capped() {
    use tokio::io::AsyncWriteExt;
    let demo = DemoJudge::start(0, Duration::ZERO)
        .await
        .expect("demo judge");
    let mut sock = tokio::net::TcpStream::connect(addr_of(&demo))
        .await
        .expect("connect");
    sock.write_all(
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n",
    )
    .await
    .expect("head");
    let block = vec![b'a'; 64 * 1024];
    let mut sent = 0usize;
    while sent < 32 * 1024 * 1024 {
        if sock.write_all(&block).await.is_err() {
            break;
        }
        sent += block.len();
    }
    assert!(sent < 16 * 1024 * 1024, "{sent} bytes of trailer accepted");
}

/// A head or a body that never finishes, and a kept-alive connection that
/// sends nothing more, are closed by the server's own timeouts. Under paused
/// time (was: kept forever).
#[tokio::test(start_paused = true)]
async fn slow_and_idle_connections_are_closed() {
    use tokio::io::AsyncWriteExt;
    let demo = DemoJudge::start(0, Duration::ZERO)
        .await
        .expect("demo judge");
    for partial in [
        &b""[..],
        b"GET /v1/models HTTP/1.1\r\nHo",
        b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"model\"",
        b"POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"mod",
    ] {
        let mut sock = tokio::net::TcpStream::connect(addr_of(&demo))
            .await
            .expect("connect");
        sock.write_all(partial).await.expect("write");
        let got = read_until_closed(&mut sock).await;
        assert!(
            got.is_some(),
            "kept open after {:?}",
            String::from_utf8_lossy(partial)
        );
    }
}

/// Past the limit of open connections a new one gets a 503 at once, and is
/// served again once others have closed (was: no limit).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_connections_are_limited() {
    use tokio::io::AsyncWriteExt;
    let demo = DemoJudge::start(0, Duration::ZERO)
        .await
        .expect("demo judge");
    let addr = addr_of(&demo);
    let mut held = Vec::new();
    for _ in 0..jury::demo_judge::http::MAX_CONNECTIONS {
        held.push(
            tokio::net::TcpStream::connect(&addr)
                .await
                .expect("connect"),
        );
    }
    let models = b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    let mut sock = tokio::net::TcpStream::connect(&addr)
        .await
        .expect("connect");
    let _ = sock.write_all(models).await;
    let got = read_until_closed(&mut sock).await.expect("an answer");
    let got = String::from_utf8_lossy(&got);
    assert!(got.starts_with("HTTP/1.1 503"), "{got}");
    drop(held);
    // The closed connections free their places (the server notices at once).
    let mut answered = String::new();
    for _ in 0..50 {
        let mut sock = tokio::net::TcpStream::connect(&addr)
            .await
            .expect("connect");
        sock.write_all(models).await.expect("write");
        answered = String::from_utf8_lossy(&read_until_closed(&mut sock).await.expect("answer"))
            .into_owned();
        if answered.starts_with("HTTP/1.1 200") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(answered.starts_with("HTTP/1.1 200"), "{answered}");
}

/// The demo judge reports usage on the content paths too (a JSON-schema
/// answer, streamed or not), so an offline run shows what it would cost
/// rather than "tokens unknown".
#[tokio::test]
async fn content_answers_report_their_usage() {
    let demo = DemoJudge::start(0, Duration::ZERO)
        .await
        .expect("demo judge");
    for stream in [true, false] {
        let (_d, db) = store_with(2, 2);
        let mut cfg = config(&db, demo.base_url());
        cfg.provider.stream = stream;
        let mut req = request(Mode::Two, 4, 1);
        req.structured = Some(jury::provider::ToolMode::JsonSchema);
        let (out, _) = run(cfg, req).await;
        assert_eq!(out.status, RunStatus::Done, "stream={stream}: {out:?}");
        let r = jury::store::Store::open(&db)
            .unwrap()
            .run(out.run_id)
            .unwrap()
            .unwrap();
        assert!(
            r.prompt_tokens > 0 && r.completion_tokens > 0 && r.usage_unknown == 0,
            "stream={stream}: {r:?}"
        );
    }
}
