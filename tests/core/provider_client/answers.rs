//! What an answer holds: tool calls streamed and not (UTF-8 split, interleaved,
//! Ollama style), a truncated stream, an error after 200, refusals and length,
//! no usage chunk.

use super::*;

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
