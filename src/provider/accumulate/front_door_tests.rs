//! Both front doors of the accumulator (payload text, parsed Value) read
//! every chunk alike, and odd chunks as they always read.

use super::*;

/// Every chunk fed as text (read in place) and as a parsed Value gives
/// the same frames and the same answer.
#[test]
fn text_and_value_read_chunks_alike() {
    let streams: &[&[&str]] = &[
        &[
            r#"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_evaluations","arguments":""}}]},"finish_reason":null}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\": \"\u00e9\\n\""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}"#,
        ],
        &[
            r#"{"choices":[{"delta":{"content":"Hel"}}]}"#,
            r#"{"choices":[{"delta":{"content":"lo","refusal":null}}]}"#,
            r#"{"choices":[{"delta":{"refusal":"no"},"finish_reason":"stop"}]}"#,
        ],
        &[
            // Deviations: object arguments, legacy function_call, a
            // number id, a float index, usage as floats, an error.
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":{"k":1}}}]}}]}"#,
            r#"{"choices":[{"delta":{"function_call":{"name":"g","arguments":"{}"}}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":1.5,"id":7,"function":null}]}}]}"#,
            r#"{"choices":null,"usage":{"prompt_tokens":1.0,"completion_tokens":2}}"#,
            r#"{"choices":[{"message":{"content":"whole"},"finish_reason":"stop"}]}"#,
        ],
        &[r#"{"error":{"message":"overloaded","code":"server_error"}}"#],
        &[r#"[1,2]"#],
    ];
    for stream in streams {
        let (mut fast, mut general) = (Accumulator::new(), Accumulator::new());
        for data in *stream {
            let a = fast.push_data(data);
            let v: Value = serde_json::from_str(data).unwrap();
            let b = general.push_chunk(&v);
            assert_eq!(a, b, "{data}");
        }
        assert_eq!(
            fast.finish(true).ok(),
            general.finish(true).ok(),
            "{stream:?}"
        );
    }
}

/// Chunks that bend the format read exactly as they always have, through
/// both front doors (text and parsed Value).
#[test]
fn odd_chunks_read_as_always() {
    use crate::provider::ToolCall;
    let ta = |index, id: Option<&str>, name: Option<&str>, fragment: &str| StreamFrame::ToolArgs {
        index,
        id: id.map(str::to_string),
        name: name.map(str::to_string),
        fragment: fragment.to_string(),
    };
    let call = |id: Option<&str>, name: &str, arguments: &str| ToolCall {
        id: id.map(str::to_string),
        name: name.to_string(),
        arguments: arguments.to_string(),
    };
    type Case<'a> = (
        &'a [&'a str],
        Vec<StreamFrame>,
        Vec<ToolCall>,
        &'a str,
        Option<Usage>,
        Option<FinishReason>,
    );
    let cases: Vec<Case> = vec![
        (
            &[
                r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":{"k":1}}}]}}]}"#,
                r#"{"choices":[{"delta":{"function_call":{"name":"g","arguments":"{}"}}}]}"#,
                r#"{"choices":[{"delta":{"tool_calls":[{"index":1.5,"id":7,"function":null}]}}]}"#,
                r#"{"choices":null,"usage":{"prompt_tokens":1.0,"completion_tokens":2}}"#,
                r#"{"choices":[{"message":{"content":"whole"},"finish_reason":"stop"}]}"#,
            ],
            vec![
                ta(0, Some("x"), Some("f"), "{\"k\":1}"),
                ta(0, None, None, "{}"),
                StreamFrame::Content("whole".into()),
            ],
            vec![call(Some("x"), "f", "{\"k\":1}{}")],
            "whole",
            Some(Usage {
                prompt_tokens: 0,
                completion_tokens: 2,
                cached_tokens: 0,
            }),
            Some(FinishReason::Stop),
        ),
        (
            &[
                r#"{"choices":[{"delta":null,"message":{"content":"hidden"}}]}"#,
                r#"{"choices":["x",{"delta":{"content":"second"}}]}"#,
                r#"{"choices":[{"delta":{"content":"a","content":"b"}}]}"#,
                r#"{"choices":[{"delta":{"tool_calls":["junk",{"index":-1,"function":{"name":"h","arguments":[1,true,null,{"z":0.5}]}}]}}]}"#,
                r#"{"usage":{"prompt_tokens":5,"completion_tokens":null,"prompt_tokens_details":"x"},"timings":{"cache_n":3}}"#,
                r#"{"choices":[{"delta":{"refusal":7,"content":""},"finish_reason":5}]}"#,
                r#"{"choices":[{"delta":"text","finish_reason":"length"}],"error":null}"#,
            ],
            vec![
                StreamFrame::Content("b".into()),
                ta(0, None, None, ""),
                ta(1, None, Some("h"), "[1,true,null,{\"z\":0.5}]"),
            ],
            vec![
                call(None, "", ""),
                call(None, "h", "[1,true,null,{\"z\":0.5}]"),
            ],
            "b",
            Some(Usage {
                prompt_tokens: 5,
                completion_tokens: 0,
                cached_tokens: 3,
            }),
            Some(FinishReason::Length),
        ),
    ];
    for (stream, frames, calls, content, usage, finish) in cases {
        let (mut text, mut value) = (Accumulator::new(), Accumulator::new());
        let (mut by_text, mut by_value) = (Vec::new(), Vec::new());
        for data in stream {
            by_text.extend(text.push_data(data).expect(data));
            let v: Value = serde_json::from_str(data).unwrap();
            by_value.extend(value.push_chunk(&v).expect(data));
        }
        assert_eq!(by_text, frames, "{stream:?}");
        assert_eq!(by_value, frames, "{stream:?}");
        for acc in [text, value] {
            let c = acc.finish(true).expect("complete");
            assert_eq!(c.tool_calls, calls, "{stream:?}");
            assert_eq!(c.content, content);
            assert_eq!(c.usage, usage);
            assert_eq!(c.finish_reason, finish);
            assert_eq!(c.refusal, None);
        }
    }
}
