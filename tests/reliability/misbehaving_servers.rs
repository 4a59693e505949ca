//! Runs that say honestly what happened, and the provider side of a real
//! judge: the engine and the binary against servers on 127.0.0.1 that fail
//! the way real ones do — refused connections, answers cut off half-way,
//! keep-alive-only streams, Retry-After past the cap, 400s, runaway bodies,
//! redirects, servers that echo the key, ignore `tool_choice`, need
//! `--jinja`, overflow the context or close kept-alive connections.
#![cfg(feature = "tui")]

use crate::common;

use common::{
    ServerRt, Workspace, asked_keys, config, correct_args, generated_workspace, request, run,
    store_with, text,
};
use jury::domain::{FailureKind, Mode, RunStatus};
use jury::provider::ToolMode;
use jury::store::Store;
use jury::testserver::{RecordedRequest, Reply, TestServer, demo_judge};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

fn status(code: u16, headers: &[(&str, &str)], body: Value) -> Reply {
    Reply::Status {
        code,
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        body: body.to_string(),
    }
}

/// A streamed answer of the demo judge's arguments cut off (connection
/// closed, no `[DONE]`) at `share` of their length.
fn cut(req: &RecordedRequest, share: f64) -> Reply {
    let args = correct_args(req);
    let n = args.chars().count();
    Reply::Truncated {
        cut_at: (n as f64 * share) as usize,
        arguments: args,
    }
}

fn entries_asked(reqs: &[RecordedRequest]) -> usize {
    reqs.iter()
        .filter(|r| r.method == "POST")
        .map(|r| asked_keys(r).len())
        .sum()
}

// ---- 2. salvage from cut-off answers ----------------------------------------

/// 30 % of answers cut at half length: every entry complete before the cut
/// is kept, only the rest is asked for again (whole-batch retry measured 1.55).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cut_off_answers_keep_complete_entries_and_ask_only_for_the_rest() {
    let (_dir, db) = store_with(100, 3);
    let server = TestServer::start(|r| {
        if r.seq % 10 < 3 {
            cut(r, 0.5)
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    })
    .await
    .unwrap();
    let (outcome, _) = run(config(&db, server.base_url()), request(Mode::Two, 10, 4)).await;
    assert_eq!(outcome.status, RunStatus::Done, "{:?}", outcome.note);
    // A batch cut at every one of its 3 attempts may still lack a few.
    assert!(outcome.progress.verdicts >= 290, "{:?}", outcome.progress);
    assert_eq!(outcome.progress.verdicts + outcome.progress.failed, 300);
    let asked = entries_asked(&server.requests());
    let ratio = asked as f64 / 300.0;
    assert!(
        ratio <= 1.3,
        "entries requested / needed = {ratio:.3} ({asked} for 300)"
    );
    let store = Store::open(&db).unwrap();
    let failures = store.failures(Some(outcome.run_id)).unwrap();
    assert!(!failures.is_empty());
    for f in &failures {
        assert_eq!(f.kind, FailureKind::Truncated);
        assert!(
            f.reason.contains("arrived complete and were kept"),
            "{}",
            f.reason
        );
        // The record lists only what is asked for again, never a kept entry.
        assert!(f.keys.len() < 10, "{:?}", f.keys);
    }
}

/// Every attempt cut: what arrived complete is still kept (was: nothing).
/// Attempts that keep new entries are free; the ones that keep nothing (a
/// lone entry cut before its end) use up the allowance, and the total is
/// bounded by the allowance plus the batch's size.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_every_attempt_is_cut_the_complete_entries_are_still_kept() {
    let (_dir, db) = store_with(4, 3);
    let server = TestServer::start(|r| cut(r, 0.7)).await.unwrap();
    let (outcome, _) = run(config(&db, server.base_url()), request(Mode::Two, 12, 1)).await;
    let reqs = server.requests();
    assert!(reqs.len() <= 12 + 3, "{} requests", reqs.len());
    assert!(outcome.progress.verdicts >= 10, "{:?}", outcome.progress);
    // Each retry asks only for what is still missing.
    for pair in reqs.windows(2) {
        let (before, after): (HashSet<_>, HashSet<_>) = (
            asked_keys(&pair[0]).into_iter().collect(),
            asked_keys(&pair[1]).into_iter().collect(),
        );
        assert!(after.is_subset(&before));
    }
    // The last three kept nothing (the same entry, asked three times).
    let last: Vec<HashSet<_>> = reqs[reqs.len() - 3..]
        .iter()
        .map(|r| asked_keys(r).into_iter().collect())
        .collect();
    assert!(last[0] == last[1] && last[1] == last[2], "{last:?}");
    let judged: HashSet<_> = Store::open(&db)
        .unwrap()
        .verdicts_for_run(outcome.run_id)
        .unwrap()
        .into_iter()
        .map(|v| v.key)
        .collect();
    assert_eq!(judged.len() as u64, outcome.progress.verdicts);
    assert_eq!(judged.len() + last[2].len(), 12);
}

/// Answers cut half-way whenever more than two entries are asked for: every
/// attempt delivers new entries, so the batch goes on past `max_attempts`
/// until all are judged (was: three attempts, then 2 of 10 without a verdict).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attempts_that_deliver_new_entries_do_not_use_up_the_allowance() {
    let (_dir, db) = store_with(10, 1);
    let server = TestServer::start(|r| {
        if asked_keys(r).len() > 2 {
            cut(r, 0.5)
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    })
    .await
    .unwrap();
    let (outcome, _) = run(config(&db, server.base_url()), request(Mode::Two, 10, 1)).await;
    let reqs = server.requests();
    assert_eq!(outcome.status, RunStatus::Done, "{:?}", outcome.note);
    assert_eq!(
        (outcome.progress.verdicts, outcome.progress.failed),
        (10, 0),
        "{} requests",
        reqs.len()
    );
    assert!(reqs.len() > 3 && reqs.len() <= 10 + 3, "{}", reqs.len());
}

/// `finish_reason: length` keeps the complete entries and asks for the rest
/// in smaller requests; `max_tokens` is sized to the batch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_length_cut_keeps_complete_entries_and_asks_again_in_smaller_batches() {
    let (_dir, db) = store_with(4, 2);
    let server = TestServer::start(|r| {
        let args = correct_args(r);
        let half: String = args.chars().take(args.chars().count() * 6 / 10).collect();
        if asked_keys(r).len() > 2 {
            Reply::ToolCall {
                name: "get_evaluations".into(),
                arguments: half,
                chunk: 30,
                finish: Some("length".into()),
                usage: Some((100, 50)),
            }
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    })
    .await
    .unwrap();
    let (outcome, _) = run(config(&db, server.base_url()), request(Mode::Two, 8, 1)).await;
    assert_eq!(outcome.progress.verdicts, 8, "{:?}", outcome.note);
    let reqs = server.requests();
    assert_eq!(reqs[0].body["max_tokens"], json!(200 + 300 * 8));
    let sizes: Vec<usize> = reqs.iter().map(|r| asked_keys(r).len()).collect();
    assert_eq!(sizes[0], 8);
    assert!(sizes[1..].iter().all(|n| *n < 8), "{sizes:?}");
    let store = Store::open(&db).unwrap();
    let failures = store.failures(Some(outcome.run_id)).unwrap();
    assert_eq!(failures[0].kind, FailureKind::Length);
    assert!(
        failures[0].reason.contains("max_tokens 2600"),
        "{}",
        failures[0].reason
    );
}

// ---- 13.5 context overflow -----------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_context_overflow_splits_the_batch_and_is_never_resent_as_is() {
    let (_dir, db) = store_with(4, 2);
    let overflow = json!({"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error"}});
    let o2 = overflow.clone();
    let server = TestServer::start(move |r| {
        if asked_keys(r).len() > 2 {
            status(400, &[], o2.clone())
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    })
    .await
    .unwrap();
    let (outcome, _) = run(config(&db, server.base_url()), request(Mode::Two, 8, 1)).await;
    assert_eq!(outcome.status, RunStatus::Done);
    assert_eq!(outcome.progress.verdicts, 8);
    let asked: Vec<Vec<_>> = server.requests().iter().map(asked_keys).collect();
    let sizes: Vec<usize> = asked.iter().map(Vec::len).collect();
    assert_eq!(sizes, vec![8, 4, 2, 2, 4, 2, 2], "halves until it fits");
    let distinct: HashSet<_> = asked.iter().collect();
    assert_eq!(distinct.len(), asked.len(), "no request was sent twice");

    // One entry that cannot fit is a failure that says so.
    let (_dir2, db2) = store_with(1, 1);
    let server = TestServer::start(move |_| status(400, &[], overflow.clone()))
        .await
        .unwrap();
    let (outcome, _) = run(config(&db2, server.base_url()), request(Mode::Two, 8, 1)).await;
    assert_eq!(server.request_count(), 1);
    assert_eq!(outcome.progress.verdicts, 0);
    let f = Store::open(&db2)
        .unwrap()
        .failures(Some(outcome.run_id))
        .unwrap();
    assert!(f[0].reason.contains("does not fit"), "{}", f[0].reason);
}

// ---- 13.1–13.3 structured paths --------------------------------------------------

/// llama.cpp with an object `tool_choice`: treated as `auto`, the model writes
/// JSON in the content. The answer is kept, recorded as such, and the run
/// (and the next one) asks for the json_schema response format instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ignored_tool_choice_moves_the_run_to_json_schema_and_is_remembered() {
    let (_dir, db) = store_with(6, 2);
    let server = TestServer::start(|r| Reply::content(correct_args(r)))
        .await
        .unwrap();
    let cfg = config(&db, server.base_url());
    let (outcome, _) = run(cfg.clone(), request(Mode::Two, 4, 1)).await;
    assert_eq!(outcome.progress.verdicts, 12);
    let reqs = server.requests();
    assert!(reqs[0].uses_tools());
    for r in &reqs[1..] {
        assert!(
            !r.uses_tools(),
            "after the first answer no request forces a tool"
        );
        assert_eq!(r.response_format(), Some("json_schema"));
    }
    let store = Store::open(&db).unwrap();
    let run1 = store.run(outcome.run_id).unwrap().unwrap();
    let s = run1.structured.unwrap_or_default();
    assert!(s.starts_with("json_schema"), "{s}");
    assert!(s.contains("content_ignoring_tool_choice"), "{s}");
    assert!(s.contains("response_format"), "{s}");
    drop(store);
    // The next run against the same endpoint and model starts there.
    server.forget_requests();
    let mut req = request(Mode::Three, 4, 1);
    req.resume = true;
    let (outcome2, _) = run(cfg, req).await;
    assert_eq!(outcome2.progress.verdicts, 12);
    assert!(server.requests().iter().all(|r| !r.uses_tools()));
}

/// The same server with a model that loops when nothing constrains it: the
/// forced tool call comes back as text cut by `max_tokens`. That too shows
/// the server ignored `tool_choice`: the rest goes by json_schema.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_looping_answer_to_an_ignored_tool_choice_also_moves_to_json_schema() {
    let (_dir, db) = store_with(4, 2);
    let server = TestServer::start(|r| {
        if r.uses_tools() {
            Reply::Content {
                text: "{\"name\": \"get_evaluations\", \"arguments\": {\"resultItems\": ["
                    .to_string()
                    + &"{\"a\": 1}, ".repeat(50),
                chunk: 16,
                finish: Some("length".into()),
            }
        } else {
            Reply::content(correct_args(r))
        }
    })
    .await
    .unwrap();
    let (outcome, _) = run(config(&db, server.base_url()), request(Mode::Two, 8, 1)).await;
    assert_eq!(outcome.progress.verdicts, 8, "{:?}", outcome.note);
    let reqs = server.requests();
    assert!(reqs[0].uses_tools());
    assert!(
        reqs[1..]
            .iter()
            .all(|r| r.response_format() == Some("json_schema"))
    );
}

/// OpenAI's reasoning models refuse `max_tokens`: the limit is sent as
/// `max_completion_tokens` from then on, without a failure.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_refuses_max_tokens_gets_max_completion_tokens() {
    let (_dir, db) = store_with(4, 2);
    let server = TestServer::start(|r| {
        if r.body.get("max_tokens").is_some() {
            status(
                400,
                &[],
                json!({"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}),
            )
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    })
    .await
    .unwrap();
    let (outcome, _) = run(config(&db, server.base_url()), request(Mode::Two, 4, 1)).await;
    assert_eq!(outcome.progress.verdicts, 8, "{:?}", outcome.note);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3, "one refusal, then two batches");
    assert_eq!(reqs[1].body["max_completion_tokens"], json!(200 + 300 * 4));
    assert!(
        Store::open(&db)
            .unwrap()
            .failures(Some(outcome.run_id))
            .unwrap()
            .is_empty()
    );
}

/// `--structured tools` keeps tool calls for the whole run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chosen_structured_path_is_kept() {
    let (_dir, db) = store_with(4, 2);
    let server = TestServer::start(|r| demo_judge::reply(r, Duration::ZERO))
        .await
        .unwrap();
    let mut req = request(Mode::Two, 2, 2);
    req.structured = Some(ToolMode::JsonSchema);
    let (outcome, _) = run(config(&db, server.base_url()), req).await;
    assert_eq!(outcome.progress.verdicts, 8);
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.response_format() == Some("json_schema"))
    );
}

/// llama.cpp without `--jinja`: `500 tools param requires --jinja flag` is a
/// capability answer, not a fault to retry five times.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_needs_jinja_falls_back_at_once() {
    let (_dir, db) = store_with(4, 2);
    let server = TestServer::start(|r| {
        if r.uses_tools() {
            status(
                500,
                &[],
                json!({"error": {"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}}),
            )
        } else {
            Reply::content(correct_args(r))
        }
    })
    .await
    .unwrap();
    let (outcome, _) = run(config(&db, server.base_url()), request(Mode::Two, 8, 1)).await;
    assert_eq!(outcome.progress.verdicts, 8);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "one refused tool call, then json_schema");
    assert_eq!(reqs[1].response_format(), Some("json_schema"));
}

/// JSON of the wrong shape in the content: a Hermes-style wrapper is
/// unwrapped; an echo of the request falls back instead of burning attempts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrapped_answers_are_unwrapped_and_echoes_fall_back() {
    let (_dir, db) = store_with(3, 2);
    let server = TestServer::start(|r| {
        let args: Value = serde_json::from_str(&correct_args(r)).unwrap();
        Reply::content(json!({"name": "get_evaluations", "arguments": args}).to_string())
    })
    .await
    .unwrap();
    let (outcome, _) = run(config(&db, server.base_url()), request(Mode::Two, 6, 1)).await;
    assert_eq!(outcome.progress.verdicts, 6);

    let (_dir2, db2) = store_with(3, 2);
    let server = TestServer::start(|r| {
        if r.uses_tools() {
            // The model repeats the request it was given.
            Reply::content(r.last_user_message().unwrap())
        } else {
            Reply::content(correct_args(r))
        }
    })
    .await
    .unwrap();
    let (outcome, _) = run(config(&db2, server.base_url()), request(Mode::Two, 6, 1)).await;
    assert_eq!(outcome.progress.verdicts, 6);
    assert_eq!(server.request_count(), 2);
    let f = Store::open(&db2)
        .unwrap()
        .failures(Some(outcome.run_id))
        .unwrap();
    assert!(f.is_empty(), "{f:?}");
}

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

// ---- through the binary -------------------------------------------------------------

fn run_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "run",
        "--mode",
        "2",
        "--persona",
        "tester",
        "--perspective",
        "classification",
    ];
    v.extend_from_slice(extra);
    v
}

fn out_text(o: &std::process::Output) -> String {
    format!("{}{}", text(&o.stdout), text(&o.stderr))
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

/// Retry-After past the cap pauses the run (exit 1, resumable) instead
/// of a storm of requests; a 400 is never resent; bad numbers are refused.
#[test]
fn retry_after_past_the_cap_pauses_and_a_400_is_never_resent() {
    let ws = generated_workspace(10, 3);
    let srv = ServerRt::start(|_| {
        status(
            429,
            &[("retry-after", "86400")],
            json!({"error": {"message": "slow down", "type": "rate_limit"}}),
        )
    });
    let out = ws.run_with(&srv.url(), &run_args(&["--concurrency", "4"]));
    let all = out_text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("--resume"), "{all}");
    assert!(srv.completions().len() <= 4, "{}", srv.completions().len());
    // Resumed against a server that answers, the run completes.
    let good = ServerRt::demo();
    let out = ws.run_with(&good.url(), &run_args(&["--resume"]));
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out));

    let ws = generated_workspace(10, 3);
    let srv = ServerRt::start(|_| {
        status(
            400,
            &[("x-should-retry", "true")],
            json!({"error": {"message": "unsupported value", "type": "invalid_request_error"}}),
        )
    });
    let out = ws.run_with(&srv.url(), &run_args(&["--batch-size", "10"]));
    assert_eq!(out.status.code(), Some(2), "{}", out_text(&out));
    assert_eq!(
        srv.completions().len(),
        3,
        "one request per batch, none resent"
    );

    for bad in [
        &["--max-attempts", "0"][..],
        &["--budget", "NaN"],
        &["--budget=-1"],
        &["--temperature=-0.5"],
        &["--temperature", "inf"],
        &["--idle-timeout", "0"],
    ] {
        let out = ws.run_with(&srv.url(), &run_args(bad));
        let all = out_text(&out);
        assert_eq!(out.status.code(), Some(1), "{bad:?}: {all}");
        let flag = bad[0].split('=').next().unwrap();
        assert!(all.contains(flag), "{bad:?}: {all}");
    }
    assert_eq!(
        srv.completions().len(),
        3,
        "refused before anything was sent"
    );
}

/// A 200 MB answer is cut at the cap (8 MB by default), recorded once,
/// and the process stays far from 600 MB.
#[test]
fn an_oversized_answer_is_cut_recorded_once_and_memory_stays_bounded() {
    let ws = generated_workspace(2, 2);
    let srv = ServerRt::start(|_| Reply::Flood {
        bytes: 200 * 1024 * 1024,
    });
    let child = ws
        .cmd()
        .env("OPENAI_BASE_URL", srv.url())
        .args(run_args(&["--batch-size", "4"]))
        .output()
        .unwrap();
    assert_eq!(child.status.code(), Some(2), "{}", out_text(&child));
    let f = ws.store().failures(None).unwrap();
    assert_eq!(f.len(), 1, "one record for the request");
    assert!(f[0].reason.contains("cap"), "{}", f[0].reason);
    assert!(f[0].raw_response.len() <= 8 * 1024 * 1024);
    assert_eq!(
        srv.completions().len(),
        1,
        "a runaway answer is not asked again"
    );
    // Peak resident memory of the children this process waited for: the other
    // tests of the crate share the process, so this bounds this run's child too.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let peak_mb = ru.ru_maxrss / 1024;
    assert!(peak_mb < 600, "peak RSS {peak_mb} MB");
}

/// A POST is not followed to another origin; the error names both URLs.
/// A same-origin 307 is followed.
#[test]
fn redirects_to_another_origin_are_refused_naming_both_urls() {
    let ws = generated_workspace(2, 2);
    let elsewhere = ServerRt::demo();
    let target = format!("{}/chat/completions", elsewhere.url());
    let t2 = target.clone();
    let srv = ServerRt::start(move |_| status(307, &[("location", &t2)], json!({})));
    let out = ws.run_with(&srv.url(), &run_args(&[]));
    let all = out_text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains(&target), "{all}");
    assert!(
        all.contains(&format!("{}/chat/completions", srv.url())),
        "{all}"
    );
    assert!(
        elsewhere.completions().is_empty(),
        "nothing reached the other origin"
    );

    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let srv = ServerRt::start(move |r| {
        if r.path.starts_with("/v1/") {
            h.fetch_add(1, Ordering::SeqCst);
            status(307, &[("location", "/v2/chat/completions")], json!({}))
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    });
    let out = ws.run_with(&srv.url(), &run_args(&[]));
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out));
    assert!(hits.load(Ordering::SeqCst) >= 1);
}

/// A key the server echoes inside a 200 answer is redacted before
/// anything is stored, exported or printed.
#[test]
fn an_echoed_key_is_redacted_before_anything_is_stored() {
    const KEY: &str = "sk-CANARY-7f3a9c1e55";
    let ws = generated_workspace(3, 2);
    let srv = ServerRt::start(|r| {
        let key = r
            .header("authorization")
            .unwrap_or("")
            .trim_start_matches("Bearer ")
            .to_string();
        let mut v: Value = serde_json::from_str(&correct_args(r)).unwrap();
        match r.seq % 4 {
            0 => {
                // Inside a valid verdict's text.
                v["resultItems"][0]["evaluationText"] = json!(format!("your key is {key}"));
                Reply::tool("get_evaluations", v.to_string())
            }
            1 => Reply::Refusal {
                text: format!("I will not, {key}"),
            },
            2 => Reply::Truncated {
                arguments: format!("{{\"resultItems\": [{{\"evaluationText\": \"{key} {key}"),
                cut_at: 200,
            },
            _ => Reply::content(format!("plain words around {key} and no JSON")),
        }
    });
    let run = |extra: &[&str]| {
        ws.cmd()
            .env("OPENAI_BASE_URL", srv.url())
            .env("OPENAI_API_KEY", KEY)
            .args(run_args(extra))
            .output()
            .unwrap()
    };
    let out = run(&["--batch-size", "2", "--concurrency", "1"]);
    assert!(!out_text(&out).contains("CANARY"), "{}", out_text(&out));
    for fmt in ["jsonl", "csv", "awag"] {
        let e = ws.ok(&["export", "--format", fmt]);
        assert!(!e.contains("CANARY"), "{fmt}: {e}");
    }
    let f = ws.ok(&["failures"]);
    assert!(!f.contains("CANARY"), "{f}");
    drop(ws.store());
    for entry in std::fs::read_dir(ws.dir.path()).unwrap() {
        let p = entry.unwrap().path();
        if p.is_file() {
            let bytes = std::fs::read(&p).unwrap();
            assert!(
                !bytes.windows(6).any(|w| w == b"CANARY"),
                "{} holds the key",
                p.display()
            );
        }
    }
    assert!(srv.completions().len() >= 4);
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

/// An item longer than the cap is sent cut, with a visible mark —
/// never megabytes to the judge; `jury prompt` shows the same.
#[test]
fn a_huge_item_is_sent_cut_with_a_mark() {
    let ws = Workspace::new();
    let mut item = common::item_json(0, 1);
    item["summary"] = json!("word ".repeat(400_000)); // 2 MB
    let items = ws.write("items.jsonl", format!("{item}\n"));
    let meta = ws.write(
        "meta.json",
        json!([common::persona_json(), common::perspective_json()]).to_string(),
    );
    ws.ok(&["import", meta.to_str().unwrap(), items.to_str().unwrap()]);
    let srv = ServerRt::demo();
    let out = ws.run_with(&srv.url(), &run_args(&[]));
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out));
    let reqs = srv.completions();
    assert_eq!(reqs.len(), 1);
    let body = reqs[0].body.to_string();
    assert!(body.len() < 200_000, "{} bytes sent", body.len());
    assert!(body.contains("more were left out"), "no mark");
    let shown = ws.ok(&[
        "prompt",
        "--mode",
        "2",
        "--persona",
        "tester",
        "--perspective",
        "classification",
        "--item",
        "g-000000",
    ]);
    assert!(shown.contains("more were left out") && shown.len() < 400_000);
}

/// A run whose every combination got its verdict after a
/// failure on the way exits 0 and prints the failure count.
#[test]
fn all_verdicts_after_a_salvaged_failure_exit_0_and_say_so() {
    let ws = generated_workspace(2, 2);
    let srv = ServerRt::start(|r| {
        if r.seq == 0 {
            cut(r, 0.6)
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    });
    let out = ws.run_with(&srv.url(), &run_args(&["--concurrency", "1"]));
    let all = out_text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains("4/4 verdicts") && all.contains("1 failure record(s)"),
        "{all}"
    );
    assert!(all.contains("jury failures 1"), "{all}");
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

/// Another process holds the store's write lock past the busy timeout while
/// answers arrive (a long `jury import`, a writer holding its lock): the
/// run's writer waits for the lock, says it is waiting, and keeps every
/// verdict; the run ends done, not "store refused a write".
#[test]
fn a_held_write_lock_is_waited_out_and_no_verdict_is_dropped() {
    use std::sync::atomic::AtomicBool;
    let (_dir, db) = store_with(6, 2);
    // The judge answers only once the lock is held, so every answer meets it.
    let held = Arc::new(AtomicBool::new(false));
    let gate = held.clone();
    let srv = ServerRt::start(move |r| {
        for _ in 0..6000 {
            if gate.load(Ordering::SeqCst) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        demo_judge::reply(r, Duration::ZERO)
    });
    let cfg = config(&db, srv.url());
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let (outcome, waited) = rt.block_on(async {
        let mut h = jury::engine::spawn_run(cfg, request(Mode::Two, 2, 4));
        let mut lock: Option<rusqlite::Connection> = None;
        let mut waited = false;
        while let Some(e) = h.events.recv().await {
            match e {
                jury::engine::EngineEvent::RunStarted { .. } => {
                    let conn = rusqlite::Connection::open(&db).expect("open");
                    conn.execute_batch("BEGIN IMMEDIATE")
                        .expect("take the lock");
                    lock = Some(conn);
                    held.store(true, Ordering::SeqCst);
                }
                jury::engine::EngineEvent::StoreWaiting { .. } => {
                    waited = true;
                    if let Some(conn) = lock.take() {
                        conn.execute_batch("COMMIT").expect("release the lock");
                    }
                }
                _ => {}
            }
        }
        let outcome = h.join.await.expect("join").expect("run");
        (outcome, waited)
    });
    assert!(waited, "the writer never said it was waiting for the lock");
    assert_eq!(outcome.status, RunStatus::Done, "{:?}", outcome.note);
    assert_eq!(outcome.progress.verdicts, 12);
    let store = Store::open(&db).unwrap();
    assert_eq!(store.verdicts_for_run(outcome.run_id).unwrap().len(), 12);
    let run = store.run(outcome.run_id).unwrap().unwrap();
    assert_eq!(run.status, RunStatus::Done);
    assert_eq!(run.requests, 6, "every request's usage was kept too");
}

// ---- duplicate ids ------------------------------------------------------------------

/// An item or a perspective named twice is one combination: it is asked for
/// once, the run ends complete (exit 0), the repeat is named, and a resumed
/// run finds nothing left (was: sent twice, "5 without a verdict", exit 2).
#[test]
fn an_id_named_twice_in_the_flags_is_judged_once_and_said() {
    let ws = generated_workspace(3, 2);
    let srv = ServerRt::demo();
    let out = ws.run_with(
        &srv.url(),
        &run_args(&[
            "--items",
            "g-000001,g-000000,g-000001",
            "--perspective",
            "classification",
        ]),
    );
    let all = out_text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("--items names g-000001 twice"), "{all}");
    assert!(
        all.contains("--perspective names classification twice"),
        "{all}"
    );
    let asked: Vec<_> = srv.completions().iter().flat_map(asked_keys).collect();
    let unique: HashSet<_> = asked.iter().cloned().collect();
    assert_eq!(asked.len(), 4, "{asked:?}");
    assert_eq!(unique.len(), 4, "{asked:?}");
    let verdicts = ws
        .export_rows()
        .iter()
        .filter(|r| r["kind"] == "verdict")
        .count();
    assert_eq!(verdicts, 4);
    let again = ws.run_with(
        &srv.url(),
        &run_args(&["--items", "g-000001,g-000000", "--resume"]),
    );
    assert_eq!(again.status.code(), Some(0), "{}", out_text(&again));
    assert_eq!(srv.completions().len(), 1, "nothing left to ask");
}

/// Whatever built the request (the workbench, a claims file), a plan never
/// holds one combination twice: it is sent once, first place kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_naming_a_combination_twice_sends_it_once() {
    let (_dir, db) = store_with(3, 2);
    let server = TestServer::start(|r| demo_judge::reply(r, Duration::ZERO))
        .await
        .unwrap();
    let mut req = jury::engine::RunRequest::new(
        Mode::Two,
        "tester",
        vec!["classification".into(), "classification".into()],
    );
    req.item_ids = Some(vec![
        "g-000002".into(),
        "g-000000".into(),
        "g-000002".into(),
    ]);
    req.batch_size = 10;
    let (outcome, _) = run(config(&db, server.base_url()), req).await;
    assert_eq!(outcome.status, RunStatus::Done, "{:?}", outcome.note);
    assert_eq!(outcome.progress.total, 4, "{:?}", outcome.progress);
    assert_eq!(outcome.progress.verdicts, 4, "{:?}", outcome.progress);
    assert_eq!(outcome.progress.failed, 0);
    let asked: Vec<_> = server.requests().iter().flat_map(asked_keys).collect();
    assert_eq!(asked.len(), 4, "{asked:?}");
    assert_eq!(
        asked[0].item_id, "g-000002",
        "first appearance keeps its place"
    );
}
