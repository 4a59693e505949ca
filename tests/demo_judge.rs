//! `jury demo-judge` is product code (`jury::demo_judge`), served by its own
//! small HTTP server rather than the test server: runs against it in every
//! AwAg mode, streamed and not, finish with the same verdicts the test
//! server's rendering of the same judge gives.

mod common;

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
