//! Unit tests of the tool-call assembly (kept apart: the module itself
//! stays one screenful of logic).

use super::*;
use serde_json::json;

fn run(chunks: &[Value], done: bool) -> (Vec<StreamFrame>, Result<Completion, ProviderError>) {
    let mut acc = Accumulator::new();
    let mut frames = Vec::new();
    for c in chunks {
        frames.extend(acc.push_chunk(c).expect("chunk"));
    }
    (frames, acc.finish(done))
}

fn tc(index: u64, id: Option<&str>, name: Option<&str>, args: Option<&str>) -> Value {
    let mut f = serde_json::Map::new();
    if let Some(n) = name {
        f.insert("name".into(), json!(n));
    }
    if let Some(a) = args {
        f.insert("arguments".into(), json!(a));
    }
    let mut t = json!({"index": index, "function": f});
    if let Some(i) = id {
        t["id"] = json!(i);
        t["type"] = json!("function");
    }
    json!({"choices":[{"index":0,"delta":{"tool_calls":[t]},"finish_reason":null}]})
}

fn finish(r: &str) -> Value {
    json!({"choices":[{"index":0,"delta":{},"finish_reason":r}]})
}

#[test]
fn fragments_concatenate_per_index() {
    let (frames, c) = run(
        &[
            json!({"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}),
            tc(0, Some("a"), Some("get_evaluations"), Some("")),
            tc(1, Some("b"), Some("get_evaluations"), Some("{\"x\":")),
            tc(0, None, None, Some("{\"y\":\"h\u{e9}")),
            tc(1, None, None, Some("1}")),
            tc(0, None, None, Some("\"}")),
            finish("tool_calls"),
            json!({"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15},"future":1}),
        ],
        true,
    );
    let c = c.expect("complete");
    assert_eq!(c.tool_calls.len(), 2);
    assert_eq!(c.tool_calls[0].arguments, "{\"y\":\"h\u{e9}\"}");
    assert_eq!(c.tool_calls[1].arguments, "{\"x\":1}");
    assert_eq!(c.tool_calls[0].id.as_deref(), Some("a"));
    assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(
        c.usage,
        Some(Usage {
            prompt_tokens: 10,
            completion_tokens: 5,
            cached_tokens: 0
        })
    );
    assert_eq!(
        frames[0],
        StreamFrame::ToolArgs {
            index: 0,
            id: Some("a".into()),
            name: Some("get_evaluations".into()),
            fragment: String::new()
        }
    );
    assert_eq!(frames.len(), 5);
}

#[test]
fn ollama_whole_calls_at_index_zero_not_merged() {
    let (frames, c) = run(
        &[
            tc(0, Some("call_1"), Some("f"), Some("{\"a\":1}")),
            tc(0, Some("call_2"), Some("f"), Some("{\"a\":2}")),
            finish("stop"),
        ],
        true,
    );
    let c = c.expect("complete");
    assert_eq!(c.tool_calls.len(), 2);
    assert_eq!(c.tool_calls[1].arguments, "{\"a\":2}");
    assert!(matches!(frames[1], StreamFrame::ToolArgs { index: 1, .. }));
}

#[test]
fn same_id_repeated_is_one_call_and_missing_id_tolerated() {
    let (_, c) = run(
        &[
            tc(0, Some("x"), Some("f"), Some("{\"a\"")),
            tc(0, Some("x"), None, Some(":1}")),
            tc(1, None, Some("g"), None),
            finish("tool_calls"),
        ],
        false,
    );
    let c = c.expect("finish reason without DONE is complete");
    assert_eq!(c.tool_calls.len(), 2);
    assert_eq!(c.tool_calls[0].arguments, "{\"a\":1}");
    assert_eq!(c.tool_calls[1].id, None);
    assert_eq!(c.tool_calls[1].arguments, "");
    assert_eq!(c.usage, None);
}

/// Progress is growth by more than whitespace: whitespace fragments,
/// empty deltas and repeated role chunks leave it where it was.
#[test]
fn only_visible_growth_is_substance() {
    let mut acc = Accumulator::new();
    let mut grew = |c: Value| {
        let before = acc.substance();
        acc.push_chunk(&c).expect("chunk");
        acc.substance() > before
    };
    assert!(
        grew(json!({"choices":[{"delta":{"role":"assistant"}}]})),
        "the start"
    );
    assert!(!grew(json!({"choices":[{"delta":{"role":"assistant"}}]})));
    assert!(grew(tc(0, Some("x"), Some("f"), Some(""))), "a new call");
    assert!(!grew(tc(0, None, None, Some("   \n\t "))));
    assert!(!grew(json!({"choices":[{"delta":{}}]})));
    assert!(!grew(json!({"choices":[{"delta":{"content":"  "}}]})));
    assert!(grew(tc(0, None, None, Some(" {"))));
    assert!(grew(
        json!({"choices":[{"delta":{},"finish_reason":"tool_calls"}]})
    ));
}

#[test]
fn truncated_without_done_or_finish() {
    let (_, c) = run(
        &[tc(
            0,
            Some("x"),
            Some("f"),
            Some("{\"evaluationText\":\"hal"),
        )],
        false,
    );
    assert_eq!(
        c,
        Err(ProviderError::Truncated {
            partial: "{\"evaluationText\":\"hal".into(),
            logprobs: None,
            http_status: 200,
            cause: SERVER_CUT.into(),
        })
    );
    // [DONE] without a finish reason is accepted.
    let (_, c) = run(&[json!({"choices":[{"delta":{"content":"hi"}}]})], true);
    assert_eq!(c.expect("done").content, "hi");
}

#[test]
fn error_event_and_malformed() {
    let mut acc = Accumulator::new();
    let e = acc
        .push_data(r#"{"error":{"message":"overloaded","type":"server_error","code":null}}"#)
        .unwrap_err();
    assert_eq!(
        e,
        ChunkError::Server {
            message: "overloaded".into(),
            code: Some("server_error".into())
        }
    );
    assert!(matches!(
        acc.push_data("{not json"),
        Err(ChunkError::Malformed(_))
    ));
    assert!(matches!(
        acc.push_data("[1]"),
        Err(ChunkError::Malformed(_))
    ));
}

#[test]
fn refusal_and_content() {
    let (frames, c) = run(
        &[
            json!({"choices":[{"delta":{"refusal":"I can"}}]}),
            json!({"choices":[{"delta":{"refusal":"not."}}]}),
            json!({"choices":[{"delta":{"content":"x"},"finish_reason":"content_filter"}]}),
        ],
        false,
    );
    let c = c.expect("complete");
    assert_eq!(c.refusal.as_deref(), Some("I cannot."));
    assert_eq!(c.finish_reason, Some(FinishReason::ContentFilter));
    assert_eq!(frames, vec![StreamFrame::Content("x".into())]);
}

#[test]
fn non_streamed_answer() {
    let v = json!({
        "id":"c1","object":"chat.completion","model":"m",
        "choices":[{"index":0,"message":{"role":"assistant","content":null,
          "tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}},
                        {"type":"function","function":{"name":"f","arguments":{"a":2}}}]},
          "finish_reason":"tool_calls","logprobs":null}],
        "usage":{"prompt_tokens":3,"completion_tokens":4}
    });
    let c = parse_response(&v).expect("parse");
    assert_eq!(c.tool_calls.len(), 2);
    assert_eq!(c.tool_calls[1].arguments, "{\"a\":2}");
    assert_eq!(c.answer_text(), "{\"a\":1}");
    assert_eq!(
        c.usage,
        Some(Usage {
            prompt_tokens: 3,
            completion_tokens: 4,
            cached_tokens: 0
        })
    );
    let c = parse_response(
        &json!({"choices":[{"message":{"content":"{}","refusal":null},"finish_reason":"tool"}]}),
    )
    .expect("parse");
    assert_eq!(c.finish_reason, Some(FinishReason::Other("tool".into())));
    assert_eq!(c.usage, None);
    assert!(parse_response(&json!({"choices":[]})).is_err());
    assert!(matches!(
        parse_response(&json!({"error":{"message":"bad","code":"x"}})),
        Err(ChunkError::Server { .. })
    ));
}

#[test]
fn sse_bytes_split_anywhere_give_the_same_completion() {
    use crate::provider::sse::SseParser;
    let args = "{\"t\":\"h\u{e9} \u{1F600} \\\"q\\\" \u{4e16}\"}";
    let mut events = vec![tc(0, Some("c"), Some("f"), Some(""))];
    for ch in args.chars() {
        events.push(tc(0, None, None, Some(&ch.to_string())));
    }
    events.push(finish("tool_calls"));
    let mut stream = String::from(": keep-alive\r\n\r\n");
    for e in &events {
        stream.push_str(&format!("data: {e}\r\n\r\n"));
    }
    stream.push_str("data: [DONE]\r\n\r\n");
    let bytes = stream.as_bytes();
    let assemble = |parts: &[&[u8]]| {
        let mut p = SseParser::new();
        let mut acc = Accumulator::new();
        let mut done = false;
        let mut evs = Vec::new();
        for part in parts {
            evs.extend(p.feed(part));
        }
        evs.extend(p.finish());
        for ev in evs {
            if ev.is_done() {
                done = true;
            } else {
                acc.push_data(&ev.data).expect("chunk");
            }
        }
        acc.finish(done).expect("complete")
    };
    let whole = assemble(&[bytes]);
    assert_eq!(whole.answer_text(), args);
    for i in 0..=bytes.len() {
        assert_eq!(assemble(&[&bytes[..i], &bytes[i..]]), whole, "split at {i}");
    }
}
