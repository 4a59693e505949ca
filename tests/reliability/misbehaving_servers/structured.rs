//! Structured paths (§13.1–13.3): servers that ignore `tool_choice`, refuse
//! `max_tokens`, need `--jinja` or wrap their answers.

use super::*;

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
