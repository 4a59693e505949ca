//! The provider client against the in-process fake OpenAI server.

use jury::provider::{Client, FinishReason, ProviderConfig, ProviderError, Secret, ToolMode};
use jury::testserver::{RecordedRequest, Reply, TestServer};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
// Waits run on tokio's paused clock (`start_paused`), read with its Instant.
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

const ARGS: &str = r#"{"resultItems":[{"id":{"itemId":"it-1","perspectiveId":"p1","classificationId":"c1"},"evaluatedSelection":"none","evaluationLikert":4,"evaluationText":"Größtenteils richtig — 😀 漢字 \"quoted\" \\ done"}]}"#;

use crate::common::provider::*;

#[tokio::test]
async fn streamed_tool_call_reassembles_utf8_exactly() {
    let server = TestServer::start(|_| Reply::ToolCall {
        name: "get_evaluations".into(),
        arguments: ARGS.into(),
        chunk: 1,
        finish: None,
        usage: Some((11, 22)),
    })
    .await
    .expect("server");
    let client = client(&server, true);
    // Twice: the server alternates LF and CRLF line ends.
    for _ in 0..2 {
        let (r, frames) = run(&client).await;
        let c = r.expect("completion");
        assert_eq!(c.answer_text(), ARGS);
        assert_eq!(c.tool_calls.len(), 1);
        assert_eq!(c.tool_calls[0].name, "get_evaluations");
        assert_eq!(c.tool_calls[0].id.as_deref(), Some("call_0"));
        assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
        assert_eq!(
            c.usage.map(|u| (u.prompt_tokens, u.completion_tokens)),
            Some((11, 22))
        );
        assert_eq!(
            (c.attempts, c.http_status, c.tool_mode),
            (1, 200, ToolMode::Tools)
        );
        assert_eq!(streamed_args(&frames, 0), ARGS);
    }
    let reqs = server.requests();
    let r = &reqs[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/v1/chat/completions");
    assert!(r.wants_stream() && r.uses_tools());
    assert_eq!(r.body["stream_options"]["include_usage"], true);
    assert_eq!(r.body["tool_choice"]["function"]["name"], "get_evaluations");
    assert_eq!(
        r.header("authorization"),
        None,
        "no key, no Authorization header"
    );
    assert_eq!(
        r.last_user_message().as_deref(),
        Some("Evaluate this item.")
    );
}

#[tokio::test]
async fn non_streamed_tool_call() {
    let server = TestServer::start(|_| Reply::tool("get_evaluations", ARGS))
        .await
        .expect("server");
    let mut c = cfg(&server, false);
    c.api_key = Some(Secret::new("sk-test"));
    let client = Client::new(c).expect("client");
    let (r, _) = run(&client).await;
    let c = r.expect("completion");
    assert_eq!(c.answer_text(), ARGS);
    assert_eq!(c.usage.map(|u| u.prompt_tokens), Some(10));
    let req = &server.requests()[0];
    assert!(!req.wants_stream());
    assert!(req.body.get("stream_options").is_none());
    assert_eq!(req.header("Authorization"), Some("Bearer sk-test"));
}

#[tokio::test]
async fn interleaved_calls_and_ollama_style_calls() {
    let calls = vec![
        (
            "get_evaluations".to_string(),
            r#"{"a":"één","n":1}"#.to_string(),
        ),
        (
            "get_evaluations".to_string(),
            r#"{"b":"twee 😀","n":2}"#.to_string(),
        ),
    ];
    for (interleave, ollama_style) in [(true, false), (false, false), (false, true)] {
        let calls2 = calls.clone();
        let server = TestServer::start(move |_| Reply::ToolCalls {
            calls: calls2.clone(),
            chunk: 3,
            interleave,
            ollama_style,
        })
        .await
        .expect("server");
        for stream in [true, false] {
            let (r, frames) = run(&client(&server, stream)).await;
            let c = r.expect("completion");
            assert_eq!(
                c.tool_calls.len(),
                2,
                "interleave={interleave} ollama={ollama_style}"
            );
            assert_eq!(c.tool_calls[0].arguments, calls[0].1);
            assert_eq!(c.tool_calls[1].arguments, calls[1].1);
            assert_ne!(c.tool_calls[0].id, c.tool_calls[1].id);
            assert_eq!(streamed_args(&frames, 1), calls[1].1);
        }
    }
}

#[tokio::test]
async fn rate_limited_with_retry_after_zero_then_success() {
    let server = TestServer::start(|r| match r.seq {
        0 => Reply::Status {
            code: 429,
            headers: vec![("retry-after".into(), "0".into())],
            body: r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#.into(),
        },
        _ => Reply::tool("get_evaluations", "{}"),
    })
    .await
    .expect("server");
    let (r, frames) = run(&client(&server, true)).await;
    let c = r.expect("completion");
    assert_eq!(c.attempts, 2);
    assert_eq!(server.request_count(), 2);
    let retries = retrying(&frames);
    assert_eq!(retries.len(), 1);
    assert_eq!(retries[0].0, 2);
    assert_eq!(retries[0].1, Duration::ZERO);
    assert!(retries[0].2.contains("429"), "{}", retries[0].2);
}

/// Under paused time: the retry goes out only once tokio's clock has moved
/// past the announced date.
#[tokio::test(start_paused = true)]
async fn retry_after_http_date_is_honoured() {
    let server = TestServer::start(|r| match r.seq {
        0 => {
            let when = chrono::Utc::now() + chrono::Duration::seconds(2);
            Reply::Status {
                code: 503,
                headers: vec![(
                    "Retry-After".into(),
                    when.format("%a, %d %b %Y %H:%M:%S GMT").to_string(),
                )],
                body: String::new(),
            }
        }
        _ => Reply::tool("get_evaluations", "{}"),
    })
    .await
    .expect("server");
    let start = Instant::now();
    let (r, frames) = run(&client(&server, true)).await;
    assert_eq!(r.expect("completion").attempts, 2);
    let delay = retrying(&frames)[0].1;
    assert!(
        delay > Duration::from_millis(900) && delay <= Duration::from_secs(2),
        "{delay:?}"
    );
    assert!(start.elapsed() >= delay);
}

#[tokio::test]
async fn garbage_retry_after_uses_normal_backoff() {
    let server = TestServer::start(|r| match r.seq {
        0 => Reply::Status {
            code: 429,
            headers: vec![("retry-after".into(), "soon-ish".into())],
            body: "{}".into(),
        },
        _ => Reply::tool("get_evaluations", "{}"),
    })
    .await
    .expect("server");
    let (r, frames) = run(&client(&server, true)).await;
    assert_eq!(r.expect("completion").attempts, 2);
    let delay = retrying(&frames)[0].1;
    assert!(delay <= Duration::from_millis(2), "{delay:?}");
}

#[tokio::test]
async fn retry_after_beyond_cap_is_a_clear_error() {
    let server = TestServer::start(|_| Reply::Status {
        code: 429,
        headers: vec![("retry-after".into(), "86400".into())],
        body: "{}".into(),
    })
    .await
    .expect("server");
    let (r, _) = run(&client(&server, true)).await;
    assert_eq!(
        r.expect_err("too long"),
        ProviderError::RetryAfterTooLong {
            wait: Duration::from_secs(86400),
            cap: Duration::from_secs(120)
        }
    );
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn server_error_then_success() {
    let server = TestServer::start(|r| match r.seq {
        0 => Reply::status(500, r#"{"error":{"message":"The server had an error"}}"#),
        _ => Reply::tool("get_evaluations", ARGS),
    })
    .await
    .expect("server");
    for stream in [true, false] {
        let server_seq_before = server.request_count();
        let (r, frames) = run(&client(&server, stream)).await;
        if server_seq_before == 0 {
            let c = r.expect("completion");
            assert_eq!(c.attempts, 2);
            assert_eq!(retrying(&frames).len(), 1);
        } else {
            assert_eq!(r.expect("completion").attempts, 1);
        }
    }
}

#[tokio::test]
async fn insufficient_quota_stops_at_once() {
    let server = TestServer::start(|_| {
        Reply::status(
            429,
            r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#,
        )
    })
    .await
    .expect("server");
    let (r, frames) = run(&client(&server, true)).await;
    let e = r.expect_err("quota");
    assert!(
        matches!(e, ProviderError::InsufficientQuota { .. }),
        "{e:?}"
    );
    assert!(e.is_fatal_for_run());
    assert!(e.to_string().contains("exceeded your current quota"));
    assert_eq!(server.request_count(), 1);
    assert!(retrying(&frames).is_empty());
}

#[tokio::test]
async fn unauthorized_fails_fast_with_key_redacted() {
    let server = TestServer::start(|r: &RecordedRequest| {
        let auth = r.header("authorization").unwrap_or("").to_string();
        let key = auth.trim_start_matches("Bearer ").to_string();
        Reply::status(
            401,
            json!({"error": {"message": format!("Incorrect API key provided: {key}. Header was: {auth}"),
                             "type": "invalid_request_error", "code": "invalid_api_key"}})
            .to_string(),
        )
    })
    .await
    .expect("server");
    let mut c = cfg(&server, true);
    c.api_key = Some(Secret::new("sk-CANARY-123"));
    let client = Client::new(c).expect("client");
    let (r, _) = run(&client).await;
    let e = r.expect_err("401");
    assert_eq!(server.request_count(), 1);
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-CANARY-123")
    );
    assert!(
        matches!(e, ProviderError::Rejected { status: 401, .. }),
        "{e:?}"
    );
    let (display, debug) = (e.to_string(), format!("{e:?}"));
    for text in [&display, &debug] {
        assert!(!text.contains("sk-CANARY-123"), "{text}");
        assert!(!text.contains("CANARY"), "{text}");
    }
    assert!(display.contains("Incorrect API key provided"), "{display}");
    assert!(display.contains("<redacted>"), "{display}");
    assert!(!format!("{client:?}").contains("CANARY"));
}

#[tokio::test]
async fn other_client_errors_fail_fast() {
    for code in [400u16, 403, 404, 422] {
        let server = TestServer::start(move |_| {
            Reply::status(
                code,
                format!("plain text \u{1b}[31mproblem\u{7} {}", "x".repeat(2000)),
            )
        })
        .await
        .expect("server");
        let (r, _) = run(&client(&server, true)).await;
        match r.expect_err("fails") {
            ProviderError::Rejected { status, message } => {
                assert_eq!(status, code);
                assert!(message.chars().count() <= 301, "{}", message.len());
                assert!(!message.chars().any(char::is_control), "{message:?}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(server.request_count(), 1);
    }
}

#[tokio::test]
async fn html_bad_gateway_gives_short_clear_message() {
    let page = format!(
        "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1>{}</body></html>",
        "<p>filler</p>".repeat(500)
    );
    let server = TestServer::start(move |_| Reply::status(502, page.clone()))
        .await
        .expect("server");
    let (r, frames) = run(&client(&server, true)).await;
    assert_eq!(server.request_count(), 4);
    assert_eq!(retrying(&frames).len(), 3);
    match r.expect_err("502") {
        ProviderError::RetriesExhausted { attempts, last } => {
            assert_eq!(attempts, 4);
            assert!(last.contains("502") && last.contains("HTML page"), "{last}");
            assert!(last.contains("Bad Gateway"), "{last}");
            assert!(!last.contains("<p>") && last.len() < 300, "{last}");
        }
        other => panic!("{other:?}"),
    }
}

/// A stream cut after text arrived comes back at once with that text (the
/// engine keeps the complete entries and asks again only for the rest); a
/// cut before any text is retried here.
#[tokio::test]
async fn truncated_stream_returns_its_text_and_an_empty_cut_is_retried() {
    let server = TestServer::start(|r| match r.seq {
        0 => Reply::Raw(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 40\r\n\r\n: still thinking\n\n"
                .to_vec(),
        ),
        _ => Reply::tool("get_evaluations", ARGS),
    })
    .await
    .expect("server");
    let (r, frames) = run(&client(&server, true)).await;
    let c = r.expect("completion");
    assert_eq!(c.attempts, 2);
    assert_eq!(c.answer_text(), ARGS);
    assert_eq!(
        streamed_args(&frames, 0),
        ARGS,
        "frames after Retrying are the fresh answer"
    );

    let server = TestServer::start(|_| Reply::Truncated {
        arguments: ARGS.into(),
        cut_at: 40,
    })
    .await
    .expect("server");
    for stream in [true, false] {
        let before = server.request_count();
        let (r, _) = run(&client(&server, stream)).await;
        let e = r.expect_err("truncated");
        match e {
            ProviderError::Truncated { partial, .. } if stream => {
                assert_eq!(server.request_count() - before, 1, "not resent whole");
                assert_eq!(partial, ARGS.chars().take(40).collect::<String>());
            }
            // Not streaming: a body cut short is a broken connection.
            ProviderError::Truncated { .. } | ProviderError::RetriesExhausted { .. } if !stream => {
            }
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test]
async fn error_event_after_200_is_retried() {
    let server = TestServer::start(|r| match r.seq {
        0 => Reply::ErrorEvent {
            message: "The model is overloaded".into(),
        },
        _ => Reply::tool("get_evaluations", ARGS),
    })
    .await
    .expect("server");
    let (r, frames) = run(&client(&server, true)).await;
    assert_eq!(r.expect("completion").attempts, 2);
    assert!(retrying(&frames)[0].2.contains("overloaded"));

    let server = TestServer::start(|_| Reply::ErrorEvent {
        message: "The model is overloaded".into(),
    })
    .await
    .expect("server");
    let (r, _) = run(&client(&server, true)).await;
    assert!(
        matches!(r, Err(ProviderError::RetriesExhausted { attempts: 4, .. })),
        "{r:?}"
    );
}

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
async fn content_only_json_answer_is_accepted_in_tools_mode() {
    let server = TestServer::start(|_| Reply::Content {
        text: ARGS.into(),
        chunk: 5,
        finish: Some("tool".into()),
    })
    .await
    .expect("server");
    for stream in [true, false] {
        let (r, _) = run(&client(&server, stream)).await;
        let c = r.expect("completion");
        assert_eq!(c.tool_mode, ToolMode::Tools);
        assert_eq!(c.attempts, 1);
        assert_eq!(c.answer_text(), ARGS);
        assert_eq!(c.finish_reason, Some(FinishReason::Other("tool".into())));
        let v: Value = serde_json::from_str(c.answer_text()).expect("json");
        assert!(v.get("resultItems").is_some());
    }
}

#[tokio::test]
async fn refusal_and_length_are_their_own_outcomes() {
    let server = TestServer::start(|r| match r.seq % 2 {
        0 => Reply::Refusal {
            text: "I can't help with that.".into(),
        },
        _ => Reply::Content {
            text: "{\"resultItems\":[".into(),
            chunk: 4,
            finish: Some("length".into()),
        },
    })
    .await
    .expect("server");
    let client = client(&server, true);
    let (r, _) = run(&client).await;
    let c = r.expect("refusal completion");
    assert_eq!(c.refusal.as_deref(), Some("I can't help with that."));
    assert_eq!(c.attempts, 1);
    let (r, _) = run(&client).await;
    let c = r.expect("length completion");
    assert_eq!(c.finish_reason, Some(FinishReason::Length));
    assert_eq!(c.attempts, 1);
    // Text (even cut off) where a tool call was forced: tool_choice was
    // ignored, so the client asks for json_schema from now on.
    assert_eq!(c.path, jury::provider::AnswerPath::IgnoredToolChoice);
    assert_eq!(client.tool_mode(), ToolMode::JsonSchema);
}

#[tokio::test]
async fn no_usage_chunk_means_unknown_usage() {
    let server = TestServer::start(|_| Reply::ToolCall {
        name: "get_evaluations".into(),
        arguments: "{}".into(),
        chunk: 0,
        finish: None,
        usage: None,
    })
    .await
    .expect("server");
    for stream in [true, false] {
        let (r, _) = run(&client(&server, stream)).await;
        assert_eq!(r.expect("completion").usage, None);
    }
}

/// Under paused time: the cancel (100 ms) ends the call before the server's
/// answer (10 s) is written.
#[tokio::test(start_paused = true)]
async fn cancel_during_delay_returns_quickly() {
    let server = TestServer::start(|_| {
        Reply::tool("get_evaluations", "{}").delayed(Duration::from_secs(10))
    })
    .await
    .expect("server");
    let client = client(&server, true);
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        c2.cancel();
    });
    let (r, _) = run_with(&client, &cancel).await;
    assert_eq!(r, Err(ProviderError::Cancelled));
    assert_eq!(server.request_count(), 1);
    assert!(
        server.answer_times().is_empty(),
        "the call waited for the delayed answer"
    );
}

/// Under paused time: the cancel (200 ms) ends the 30 s Retry-After wait; no
/// second request is sent.
#[tokio::test(start_paused = true)]
async fn cancel_during_backoff_sleep() {
    let server = TestServer::start(|_| Reply::Status {
        code: 503,
        headers: vec![("retry-after".into(), "30".into())],
        body: String::new(),
    })
    .await
    .expect("server");
    let client = client(&server, true);
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        c2.cancel();
    });
    let (r, frames) = run_with(&client, &cancel).await;
    assert_eq!(r, Err(ProviderError::Cancelled));
    assert_eq!(retrying(&frames).len(), 1);
    assert_eq!(server.request_count(), 1, "the wait was not sat out");
}

/// Under paused time: the 300 ms idle timeout fires on tokio's clock, before
/// the 3 s delayed answer.
#[tokio::test(start_paused = true)]
async fn idle_timeout_and_dropped_connections_are_retried() {
    let server = TestServer::start(|r| match r.seq {
        0 => Reply::tool("get_evaluations", "{}").delayed(Duration::from_secs(3)),
        1 => Reply::Raw(Vec::new()),
        // Cut inside its first event: no text arrived, so it is retried here.
        2 => Reply::Raw(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {\"choices\":[{\"delta\":{\"content\":\"par".to_vec()),
        _ => Reply::tool("get_evaluations", "{\"ok\":true}"),
    })
    .await
    .expect("server");
    let mut c = cfg(&server, true);
    c.idle_timeout = Duration::from_millis(300);
    let client = Client::new(c).expect("client");
    let (r, frames) = run(&client).await;
    let c = r.expect("completion");
    // The connection closed with no answer at all is sent again at once,
    // without spending an attempt (a dead kept-alive connection looks so).
    assert_eq!(server.request_count(), 4);
    assert_eq!(c.attempts, 3, "{:?}", retrying(&frames));
    assert_eq!(retrying(&frames).len(), 2);
    assert_eq!(c.answer_text(), "{\"ok\":true}");
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
