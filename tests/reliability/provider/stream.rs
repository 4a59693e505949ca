//! Rows 1–9 (the stream): split, interleaved, partial and invalid tool-call
//! arguments, refusals, early closes, length cuts, errors after 200, SSE
//! comments and a missing usage chunk.

use super::*;

/// A whole HTTP/1.1 response with a chunked body: one HTTP chunk per piece.
fn chunked_sse(pieces: &[&[u8]]) -> Vec<u8> {
    let mut out = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".to_vec();
    for p in pieces {
        out.extend_from_slice(format!("{:x}\r\n", p.len()).as_bytes());
        out.extend_from_slice(p);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

fn tool_chunk(index: usize, id: Option<&str>, name: Option<&str>, args: &str) -> String {
    let mut tc = json!({"index": index, "function": {"arguments": args}});
    if let Some(id) = id {
        tc["id"] = json!(id);
        tc["type"] = json!("function");
    }
    if let Some(n) = name {
        tc["function"]["name"] = json!(n);
    }
    format!(
        "data: {}\n\n",
        json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [tc]}, "finish_reason": null}]})
    )
}

fn finish_chunk(reason: &str) -> String {
    format!(
        "data: {}\n\n",
        json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
    )
}

/// Number of entries asked about in a Mode 2/3 request.
fn entries_asked(req: &RecordedRequest) -> usize {
    let last = req.last_user_message().unwrap_or_default();
    // The request travels between the boundary markers.
    let json = jury::protocol::awag::request::undelimit(&last).unwrap_or(&last);
    let v: Value = serde_json::from_str(json).unwrap_or(Value::Null);
    v["items"].as_array().map_or(0, Vec::len)
}

/// Row 1: arguments split inside a UTF-8 character or inside a JSON string are
/// reassembled exactly — over HTTP chunks split inside a character, through
/// the client, and at every byte offset of the raw stream.
#[tokio::test]
async fn reliability_01_split_inside_utf8_and_json_string() {
    // Character-sized fragments (every fragment boundary inside a JSON string).
    let server = TestServer::start(|_| Reply::ToolCall {
        name: "get_evaluations".into(),
        arguments: ARGS.into(),
        chunk: 1,
        finish: None,
        usage: Some((1, 2)),
    })
    .await
    .expect("server");
    let (r, frames) = run(&client(&server, true)).await;
    assert_eq!(r.expect("completion").answer_text(), ARGS);
    assert_eq!(streamed_args(&frames, 0), ARGS);

    // HTTP chunks cut in the middle of multi-byte characters and of `\"`.
    let mut stream = tool_chunk(0, Some("call_1"), Some("get_evaluations"), "");
    stream.push_str(&tool_chunk(0, None, None, ARGS));
    stream.push_str(&finish_chunk("tool_calls"));
    stream.push_str("data: [DONE]\n\n");
    let bytes = stream.into_bytes();
    let cuts: Vec<usize> = {
        let emoji = stream_pos(&bytes, "😀".as_bytes()) + 2; // inside the 4-byte emoji
        let kanji = stream_pos(&bytes, "漢".as_bytes()) + 1; // inside a 3-byte character
        let umlaut = stream_pos(&bytes, "ö".as_bytes()) + 1; // inside a 2-byte character
        let escape = stream_pos(&bytes, b"\\\\\\\"quoted") + 1; // inside an escape
        let mut c = vec![umlaut, emoji, kanji, escape];
        c.sort_unstable();
        c
    };
    let mut pieces: Vec<&[u8]> = Vec::new();
    let mut last = 0;
    for c in &cuts {
        pieces.push(&bytes[last..*c]);
        last = *c;
    }
    pieces.push(&bytes[last..]);
    let raw = chunked_sse(&pieces);
    let server = TestServer::start(move |_| Reply::Raw(raw.clone()))
        .await
        .expect("server");
    let (r, _) = run(&client(&server, true)).await;
    let c = r.expect("completion");
    assert_eq!(c.answer_text(), ARGS);
    assert_eq!(c.tool_calls.len(), 1);

    // Every byte offset, straight into the parser and accumulator.
    for cut in 0..=bytes.len() {
        let mut p = jury::provider::sse::SseParser::new();
        let mut acc = jury::provider::accumulate::Accumulator::new();
        let mut done = false;
        for part in [&bytes[..cut], &bytes[cut..]] {
            for ev in p.feed(part) {
                if ev.is_done() {
                    done = true;
                } else {
                    acc.push_data(&ev.data).expect("chunk");
                }
            }
        }
        let c = acc.finish(done).expect("complete");
        assert_eq!(c.answer_text(), ARGS, "cut at byte {cut}");
    }
}

fn stream_pos(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len())
        .position(|w| w == needle)
        .expect("needle in stream")
}

/// Row 2: two interleaved tool calls stay two; whole calls at index 0 with
/// different ids (Ollama) are not merged.
#[tokio::test]
async fn reliability_02_interleaved_and_whole_calls_at_index_0() {
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
    for (interleave, ollama_style) in [(true, false), (false, true)] {
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
            assert_eq!(streamed_args(&frames, 0), calls[0].1);
            assert_eq!(streamed_args(&frames, 1), calls[1].1);
        }
    }
}

/// Row 3: a tool call without an id, and one with empty arguments, are tolerated.
#[tokio::test]
async fn reliability_03_missing_id_and_empty_arguments_tolerated() {
    let mut no_id = tool_chunk(0, None, Some("get_evaluations"), "");
    no_id.push_str(&tool_chunk(0, None, None, r#"{"ok":true}"#));
    no_id.push_str(&finish_chunk("tool_calls"));
    no_id.push_str("data: [DONE]\n\n");
    let mut empty = tool_chunk(0, Some("call_9"), Some("get_evaluations"), "");
    empty.push_str(&finish_chunk("tool_calls"));
    empty.push_str("data: [DONE]\n\n");
    let (a, b) = (
        chunked_sse(&[no_id.as_bytes()]),
        chunked_sse(&[empty.as_bytes()]),
    );
    let server =
        TestServer::start(move |r| Reply::Raw(if r.seq == 0 { a.clone() } else { b.clone() }))
            .await
            .expect("server");
    let client = client(&server, true);
    let c = run(&client).await.0.expect("missing id tolerated");
    assert_eq!(c.tool_calls.len(), 1);
    assert_eq!(c.tool_calls[0].id, None);
    assert_eq!(c.tool_calls[0].name, "get_evaluations");
    assert_eq!(c.answer_text(), r#"{"ok":true}"#);
    let c = run(&client).await.0.expect("empty arguments tolerated");
    assert_eq!(c.tool_calls.len(), 1);
    assert_eq!(c.tool_calls[0].arguments, "");
    assert_eq!(c.answer_text(), "", "nothing invented");
    assert_eq!(server.request_count(), 2);
}

/// Row 4: arguments that are not JSON, or that violate the schema (Likert 7,
/// MAYBE), become a failure with the raw text; valid siblings are kept; only
/// the missing part is asked again.
#[tokio::test]
async fn reliability_04_invalid_arguments_keep_siblings_retry_missing() {
    // Mode 2: the second entry has Likert 7.
    for (mode, bad_field, bad_value) in [
        (Mode::Two, "evaluationLikert", json!(7)),
        (Mode::Three, "evaluationAgreement", json!("MAYBE")),
    ] {
        let fx = fixture(2);
        let bad = bad_value.clone();
        let server = TestServer::start(move |r| {
            let mut args = demo_args(r);
            if r.seq == 0 {
                args["resultItems"][1][bad_field] = bad.clone();
            }
            tool_reply(&args)
        })
        .await
        .expect("server");
        let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), req(mode, 4)).await;
        assert_eq!(out.status, RunStatus::Done, "{mode:?}");
        assert_eq!(out.progress.verdicts, 4, "{mode:?}");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 2, "{mode:?}");
        assert_eq!(entries_asked(&reqs[0]), 4);
        assert_eq!(
            entries_asked(&reqs[1]),
            1,
            "only the missing entry is asked again"
        );
        let f = failure_rows(&fx.db);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "invalid");
        assert!(
            f[0].2.contains(&bad_value.to_string()),
            "raw text kept: {}",
            f[0].2
        );
        assert_eq!(count(&fx.db, "SELECT count(*) FROM verdicts"), 4);
        assert_no_duplicate_verdicts(&fx.db);
    }

    // Not JSON at all: a malformed failure with the raw text, then a retry.
    let fx = fixture(1);
    let server = TestServer::start(|r| {
        if r.seq == 0 {
            Reply::tool("get_evaluations", "I rate these 4/5, they look fine {")
        } else {
            tool_reply(&demo_args(r))
        }
    })
    .await
    .expect("server");
    let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), req(Mode::Two, 2)).await;
    assert_eq!(out.progress.verdicts, 2);
    let f = failure_rows(&fx.db);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].0, "malformed");
    assert_eq!(f[0].2, "I rate these 4/5, they look fine {");
}

/// Row 5: `length`, `content_filter` and a refusal are their own outcomes and
/// never scored — even when the arguments happen to be valid.
#[tokio::test]
async fn reliability_05_content_filter_refusal_never_scored() {
    // A `length` cut keeps the entries complete before it (rows 28 and 42):
    // `length_keeps_only_complete_entries` below.
    for (finish, kind) in [
        (Some("content_filter"), "content_filter"),
        (None, "refusal"),
    ] {
        let fx = fixture(1);
        let server = TestServer::start(move |r| match finish {
            Some(f) => Reply::ToolCall {
                name: "get_evaluations".into(),
                arguments: demo_args(r).to_string(),
                chunk: 16,
                finish: Some(f.into()),
                usage: Some((5, 5)),
            },
            None => Reply::Refusal {
                text: "I can't help with that.".into(),
            },
        })
        .await
        .expect("server");
        let mut rq = req(Mode::Two, 1);
        rq.max_attempts = 2;
        let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), rq).await;
        assert_eq!(out.progress.verdicts, 0, "{kind}: never scored");
        assert_eq!(count(&fx.db, "SELECT count(*) FROM verdicts"), 0, "{kind}");
        let f = failure_rows(&fx.db);
        assert!(!f.is_empty(), "{kind}");
        assert!(f.iter().all(|r| r.0 == kind), "{kind}: {f:?}");
        assert_eq!(out.progress.failed, 2, "{kind}");
    }
}

/// Row 6: a stream closed before `[DONE]` is an incomplete attempt: retried,
/// and its partial text never stored as a verdict.
#[tokio::test]
async fn reliability_06_close_before_done_retried_never_stored() {
    // Client: a cut with text comes back at once, that text with it.
    let server = TestServer::start(|_| Reply::Truncated {
        arguments: ARGS.into(),
        cut_at: 40,
    })
    .await
    .expect("server");
    let (r, _) = run(&client(&server, true)).await;
    match r {
        Err(ProviderError::Truncated { partial, .. }) => {
            assert_eq!(partial, ARGS.chars().take(40).collect::<String>())
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.request_count(), 1);

    // Engine, always cut inside the first entry: failures of kind truncated
    // with the partial text, and no verdict (nothing complete arrived).
    let fx = fixture(1);
    let server = TestServer::start(|r| {
        let args = demo_args(r).to_string();
        Reply::Truncated {
            arguments: args,
            cut_at: 60,
        }
    })
    .await
    .expect("server");
    let mut rq = req(Mode::Two, 2);
    rq.max_attempts = 2;
    let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), rq).await;
    assert_eq!(out.progress.verdicts, 0);
    assert_eq!(count(&fx.db, "SELECT count(*) FROM verdicts"), 0);
    let f = failure_rows(&fx.db);
    assert_eq!(f.len(), 2, "one per engine attempt: {f:?}");
    assert!(
        f.iter()
            .all(|r| r.0 == "truncated" && r.2.starts_with("{\"resultItems\""))
    );
    assert_eq!(
        server.request_count(),
        2,
        "a cut answer is not resent whole by the client"
    );

    // Engine, cut once: the retry's answer is stored, once.
    let fx = fixture(1);
    let server = TestServer::start(|r| {
        let args = demo_args(r).to_string();
        if r.seq == 0 {
            Reply::Truncated {
                arguments: args,
                cut_at: 30,
            }
        } else {
            Reply::tool("get_evaluations", args)
        }
    })
    .await
    .expect("server");
    let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), req(Mode::Two, 2)).await;
    assert_eq!((out.status, out.progress.verdicts), (RunStatus::Done, 2));
    assert_eq!(count(&fx.db, "SELECT count(*) FROM verdicts"), 2);
    assert_no_duplicate_verdicts(&fx.db);
}

/// Rows 28/42: `finish_reason: length` keeps exactly the entries complete
/// before the cut; none is built from half an entry.
#[tokio::test]
async fn length_keeps_only_complete_entries() {
    let fx = fixture(2);
    let server = TestServer::start(|r| {
        let args = demo_args(r).to_string();
        let cut = args.len() / 2;
        let cut = (cut..args.len())
            .find(|i| args.is_char_boundary(*i))
            .unwrap_or(cut);
        Reply::ToolCall {
            name: "get_evaluations".into(),
            arguments: args[..cut].to_string(),
            chunk: 16,
            finish: Some("length".into()),
            usage: Some((5, 5)),
        }
    })
    .await
    .expect("server");
    let mut rq = req(Mode::Two, 6);
    rq.max_attempts = 1;
    let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), rq).await;
    let first = &server.requests()[0];
    let full = demo_args(first);
    let text = full.to_string();
    let cut = text.len() / 2;
    // Entries whose whole text lies before the cut.
    let complete: Vec<&Value> = full["resultItems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            text.find(&e.to_string())
                .is_some_and(|at| at + e.to_string().len() <= cut)
        })
        .collect();
    assert!(!complete.is_empty());
    assert_eq!(out.progress.verdicts as usize, complete.len());
    let f = failure_rows(&fx.db);
    assert!(f.iter().all(|r| r.0 == "length"), "{f:?}");
}

/// Row 7: HTTP 200 then an error event is a provider error, retried.
#[tokio::test]
async fn reliability_07_error_event_after_200() {
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
    match r {
        Err(ProviderError::RetriesExhausted { attempts: 4, last }) => {
            assert!(last.contains("overloaded"), "{last}")
        }
        other => panic!("{other:?}"),
    }
}

/// Row 8: `:` comments, CRLF, a lone CR and multi-line `data:` parse per the SSE spec.
#[tokio::test]
async fn reliability_08_comments_crlf_multiline_data() {
    let first = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_evaluations", "arguments": ""}}]}}]}).to_string();
    // The same JSON spread over two data: lines (joined with \n, which JSON allows).
    let (head, tail) = first.split_at(first.find("\"delta\"").expect("delta"));
    let second = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ARGS}}]}}]}).to_string();
    let stream = format!(
        ": keep-alive\r\n\r\n:another comment\r\ndata: {head}\r\ndata: {tail}\r\n\r\nevent: message\rdata:{second}\r\r: x\n{}data: [DONE]\r\n\r\n",
        finish_chunk("tool_calls").replace("\n\n", "\r\n\r\n")
    );
    let raw = chunked_sse(&[stream.as_bytes()]);
    let server = TestServer::start(move |_| Reply::Raw(raw.clone()))
        .await
        .expect("server");
    let (r, _) = run(&client(&server, true)).await;
    let c = r.expect("completion");
    assert_eq!(c.answer_text(), ARGS);
    assert_eq!(c.tool_calls[0].id.as_deref(), Some("call_1"));
    assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));

    let mut p = jury::provider::sse::SseParser::new();
    let evs = p.feed(b": c\r\ndata: a\r\ndata: b\r\n\r\n");
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0].data, "a\nb");
}

/// Row 9: no usage chunk → usage unknown (None, not zero), no panic — in the
/// client and in the run's counters.
#[tokio::test]
async fn reliability_09_no_usage_chunk_usage_unknown() {
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
        assert_eq!(
            run(&client(&server, stream))
                .await
                .0
                .expect("completion")
                .usage,
            None
        );
    }
    let fx = fixture(1);
    let server = TestServer::start(|r| Reply::ToolCall {
        name: "get_evaluations".into(),
        arguments: demo_args(r).to_string(),
        chunk: 7,
        finish: None,
        usage: None,
    })
    .await
    .expect("server");
    let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), req(Mode::Two, 2)).await;
    assert_eq!(out.progress.verdicts, 2);
    assert_eq!(out.progress.usage_unknown, 1);
    assert_eq!(out.progress.usage.prompt_tokens, 0);
}
