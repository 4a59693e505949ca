//! Every attempt counts (§8) and a budget is never crossed (§7).

use super::*;

// ---- 8. every attempt counts -------------------------------------------------------

/// A full SSE answer with usage including cached prompt tokens.
fn with_cached_usage(r: &RecordedRequest) -> Reply {
    let args = correct_args(r);
    let chunk = json!({"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [{"index": 0,
        "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
        "function": {"name": "get_evaluations", "arguments": args}}]}, "finish_reason": null}]});
    let fin = json!({"id": "c", "object": "chat.completion.chunk", "model": "m",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]});
    let usage = json!({"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 100,
                  "prompt_tokens_details": {"cached_tokens": 800}}});
    let body = format!("data: {chunk}\n\ndata: {fin}\n\ndata: {usage}\n\ndata: [DONE]\n\n");
    Reply::Raw(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

/// A priced model on a server that answers 500 once, then with 800 of 1000
/// prompt tokens cached; the run's expected cost is [`CACHED_RUN_COST`].
async fn busy_then_cached(db: &std::path::Path) -> (TestServer, jury::engine::EngineConfig) {
    let server = TestServer::start(|r| {
        if r.seq == 0 {
            status(500, &[], json!({"error": {"message": "busy"}}))
        } else {
            with_cached_usage(r)
        }
    })
    .await
    .unwrap();
    let mut cfg = config(db, server.base_url());
    cfg.provider.model = "gpt-4o-mini".into();
    (server, cfg)
}

/// 200 fresh at $0.15/M + 800 cached at $0.075/M + 100 out at $0.60/M.
const CACHED_RUN_COST: f64 = (200.0 * 0.15 + 800.0 * 0.075 + 100.0 * 0.60) / 1e6;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_and_retried_attempts_count_and_cached_tokens_are_priced() {
    let (_dir, db) = store_with(2, 2);
    let (_server, cfg) = busy_then_cached(&db).await; // kept alive for the run
    let (outcome, _) = run(cfg, request(Mode::Two, 4, 1)).await;
    assert_eq!(outcome.progress.verdicts, 4);
    assert_eq!(outcome.progress.requests, 2, "the 500 is a request too");
    assert_eq!(
        outcome.progress.usage_unknown, 1,
        "its usage is unknown, not 0"
    );
    let run = Store::open(&db)
        .unwrap()
        .run(outcome.run_id)
        .unwrap()
        .unwrap();
    assert_eq!(run.requests, 2);
    assert_eq!(run.usage_unknown, 1);
    assert_eq!((run.prompt_tokens, run.cached_tokens), (1000, 800));
    let want = CACHED_RUN_COST;
    let got = run.cost_usd.unwrap();
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    assert_eq!(outcome.progress.cost_usd, Some(got), "one spent figure");
}

// ---- 7. budget ----------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budget_is_never_crossed_even_in_the_worst_case() {
    let (_dir, db) = store_with(30, 3);
    let server = TestServer::start(|r| demo_judge::reply(r, Duration::ZERO))
        .await
        .unwrap();
    let mut cfg = config(&db, server.base_url());
    cfg.provider.model = "gpt-4o-mini".into();
    let mut req = request(Mode::Two, 10, 4);
    req.budget_usd = Some(0.01);
    let (outcome, _) = run(cfg, req).await;
    assert_eq!(outcome.status, RunStatus::Failed);
    let note = outcome.note.clone().unwrap_or_default();
    assert!(note.contains("budget of $0.0100"), "{note}");
    let spent = outcome.progress.cost_usd.unwrap_or(0.0);
    assert!(spent <= 0.01, "spent {spent}");
    // Each request admitted had its worst case (every body byte a prompt
    // token at $0.15/M, every allowed answer token at $0.60/M) reserved; the
    // run stopped because the next one's worst case no longer fitted.
    let reqs = server.requests();
    assert!(!reqs.is_empty() && reqs.len() < 9, "{}", reqs.len());
    for r in &reqs {
        let bytes = r.body.to_string().len() as f64;
        let max = r.body["max_tokens"].as_f64().unwrap();
        assert!((bytes * 0.15 + max * 0.60) / 1e6 <= 0.01);
    }
    let next: f64 = note
        .split("could cost up to $")
        .nth(1)
        .and_then(|t| t.split(';').next())
        .and_then(|t| t.parse().ok())
        .expect("the note names the next request's worst case");
    assert!(spent + next > 0.01 - 0.0001, "{note}");
    assert!(
        note.contains(&format!("${spent:.4} spent")),
        "{note} vs {spent}"
    );
}

/// A failed attempt under a budget is a request with unknown usage: it
/// neither stops the run nor is charged as if it had answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budget_survives_a_server_error() {
    let (_dir, db) = store_with(2, 2);
    let (_server, cfg) = busy_then_cached(&db).await; // kept alive for the run
    let mut req = request(Mode::Two, 4, 1);
    req.budget_usd = Some(1.0);
    let (outcome, _) = run(cfg, req).await;
    assert_eq!(outcome.status, RunStatus::Done, "{:?}", outcome.note);
    assert_eq!(outcome.progress.verdicts, 4);
    assert_eq!(outcome.progress.requests, 2);
    assert!((outcome.progress.cost_usd.unwrap() - CACHED_RUN_COST).abs() < 1e-12);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budget_needs_a_price_and_a_server_that_reports_usage() {
    let (_dir, db) = store_with(4, 2);
    let server = TestServer::start(|r| demo_judge::reply(r, Duration::ZERO))
        .await
        .unwrap();
    let mut req = request(Mode::Two, 2, 1);
    req.budget_usd = Some(1.0);
    // "test-model" has no price.
    let h = jury::engine::spawn_run(config(&db, server.base_url()), req.clone());
    let err = h.join.await.unwrap().unwrap_err().to_string();
    assert!(
        err.contains("prices.toml") && err.contains("test-model"),
        "{err}"
    );
    assert_eq!(server.request_count(), 0);

    // A priced model on a server that reports no usage: one request, charged
    // at its worst case, then the run stops saying why.
    let server = TestServer::start(|r| Reply::ToolCall {
        name: "get_evaluations".into(),
        arguments: correct_args(r),
        chunk: 0,
        finish: None,
        usage: None,
    })
    .await
    .unwrap();
    let mut cfg = config(&db, server.base_url());
    cfg.provider.model = "gpt-4o-mini".into();
    let (outcome, _) = run(cfg, req).await;
    assert_eq!(server.request_count(), 1);
    assert_eq!(outcome.status, RunStatus::Failed);
    assert!(
        outcome
            .note
            .unwrap_or_default()
            .contains("does not report token usage")
    );
    assert!(outcome.progress.cost_usd.unwrap_or(0.0) > 0.0);
}
