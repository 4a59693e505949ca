//! Servers and their capabilities: tools refused falls back to a JSON schema
//! (and is remembered), prose answers to JSON content, no structured mode at
//! all, an Azure-style query kept, many requests at once.

use super::*;

fn capability_server_reply(r: &RecordedRequest) -> Reply {
    if r.uses_tools() {
        Reply::status(
            400,
            r#"{"error":{"message":"tools not supported","type":"invalid_request_error"}}"#,
        )
    } else if r.response_format() == Some("json_schema") {
        Reply::content(ARGS)
    } else {
        Reply::status(500, "unexpected")
    }
}

#[tokio::test]
async fn tools_rejected_falls_back_to_json_schema_and_remembers() {
    let server = TestServer::start(capability_server_reply)
        .await
        .expect("server");
    let client = client(&server, true);
    let (r, frames) = run(&client).await;
    let c = r.expect("completion");
    assert_eq!(c.tool_mode, ToolMode::JsonSchema);
    assert_eq!(c.attempts, 2);
    assert_eq!(c.answer_text(), ARGS);
    assert_eq!(c.content, ARGS);
    assert!(retrying(&frames)[0].2.contains("tool calls"));
    assert_eq!(client.tool_mode(), ToolMode::JsonSchema);
    // The next call goes straight to JSON schema.
    let (r, _) = run(&client).await;
    assert_eq!(r.expect("completion").attempts, 1);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(reqs[2].response_format(), Some("json_schema"));
    assert_eq!(
        reqs[2].body["response_format"]["json_schema"]["name"],
        "get_evaluations"
    );
}

#[tokio::test]
async fn prose_answers_fall_back_to_json_content() {
    let server = TestServer::start(|r| match r.response_format() {
        Some("json_object") => Reply::content(format!("```json\n{ARGS}\n```")),
        _ => Reply::content("I think the classification is mostly right."),
    })
    .await
    .expect("server");
    let (r, _) = run(&client(&server, true)).await;
    let c = r.expect("completion");
    assert_eq!(c.tool_mode, ToolMode::JsonContent);
    assert_eq!(c.attempts, 3);
    assert_eq!(c.answer_text(), ARGS);
    let last = server.requests()[2].last_user_message().unwrap_or_default();
    assert!(
        last.contains("JSON") && last.contains("resultItems"),
        "{last}"
    );
}

#[tokio::test]
async fn no_structured_mode_at_all_is_a_capability_error() {
    let server = TestServer::start(|_| {
        Reply::status(
            400,
            r#"{"error":{"message":"neither tools nor response_format are supported"}}"#,
        )
    })
    .await
    .expect("server");
    let (r, _) = run(&client(&server, true)).await;
    let e = r.expect_err("capability");
    assert!(matches!(e, ProviderError::Capability(_)), "{e:?}");
    assert!(e.is_fatal_for_run());
    assert_eq!(server.request_count(), 3);
}

#[tokio::test]
async fn azure_style_query_is_kept() {
    let server = TestServer::start(|_| Reply::tool("get_evaluations", "{}"))
        .await
        .expect("server");
    let mut c = cfg(&server, false);
    c.base_url = format!(
        "{}/chat/completions?api-version=2024-06-01",
        server.base_url()
    );
    let client = Client::new(c).expect("client");
    run(&client).await.0.expect("completion");
    assert_eq!(
        server.requests()[0].path,
        "/v1/chat/completions?api-version=2024-06-01"
    );
    assert!(matches!(
        Client::new(ProviderConfig::new("nonsense", "m")),
        Err(ProviderError::Config(_))
    ));
}

/// Under paused time: all 48 calls are on the wire at once; every request
/// arrives before the first answer (200 ms after its request) goes out.
#[tokio::test(start_paused = true)]
async fn many_concurrent_requests() {
    let arrivals = Arc::new(Mutex::new(Vec::new()));
    let seen = arrivals.clone();
    let server = TestServer::start(move |_| {
        if let Ok(mut a) = seen.lock() {
            a.push(Instant::now());
        }
        Reply::tool("get_evaluations", ARGS).delayed(Duration::from_millis(200))
    })
    .await
    .expect("server");
    let client = Arc::new(client(&server, true));
    let mut tasks = Vec::new();
    for _ in 0..48 {
        let client = client.clone();
        tasks.push(tokio::spawn(async move { run(&client).await.0 }));
    }
    for t in tasks {
        let c = t.await.expect("join").expect("completion");
        assert_eq!(c.answer_text(), ARGS);
    }
    assert_eq!(server.request_count(), 48);
    let arrivals = arrivals.lock().map(|a| a.clone()).unwrap_or_default();
    let first = arrivals.iter().min().copied().expect("arrivals");
    let last = arrivals.iter().max().copied().expect("arrivals");
    assert!(
        last < first + Duration::from_millis(200),
        "a request waited for another's answer: {:?} apart",
        last - first
    );
}
