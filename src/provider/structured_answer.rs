//! Reading the structured answer out of whatever the server sent, and telling
//! a server that cannot do a structured path from one that failed once.
//!
//! Real servers answer a forced tool call in several ways: a real `tool_calls`
//! delta; JSON in the content because `tool_choice` was ignored (llama.cpp
//! with an object `tool_choice` or a template that is not tool-aware); a
//! Hermes-style `{"name": …, "arguments": {…}}` wrapper in the content; or
//! something that is JSON but not the answer at all (an echo of the request).
//! Only the first is a tool call; the others are recorded as what they are.

use super::{AnswerPath, ChatCall, Completion, FinishReason, ToolCall, ToolMode};
use serde_json::Value;

/// The JSON object in a content answer: the whole text, or inside a ```json
/// fence, or from the first `{` to the last `}`.
pub fn extract_json(content: &str) -> Option<String> {
    extract_json_value(content).map(|(s, _)| s)
}

/// [`extract_json`] with the value it parsed: the answer's JSON is read
/// once, not once to find it and again to check its shape.
fn extract_json_value(content: &str) -> Option<(String, Value)> {
    let t = content.trim();
    if t.is_empty() {
        return None;
    }
    let ok = |s: &str| {
        serde_json::from_str::<Value>(s)
            .ok()
            .filter(|v| v.is_object() || v.is_array())
            .map(|v| (s.to_string(), v))
    };
    if let Some(s) = ok(t) {
        return Some(s);
    }
    if let Some(start) = t.find("```") {
        let after = &t[start + 3..];
        let after = after.find('\n').map_or(after, |nl| &after[nl + 1..]);
        if let Some(end) = after.find("```")
            && let Some(s) = ok(after[..end].trim())
        {
            return Some(s);
        }
    }
    let (a, b) = (t.find('{')?, t.rfind('}')?);
    if a < b { ok(&t[a..=b]) } else { None }
}

/// The top-level keys the tool's schema requires (`resultItems`, ...).
fn required_keys(call: &ChatCall) -> Vec<&str> {
    call.tool
        .parameters
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The arguments inside a Hermes-style wrapper `{"name": …, "arguments"|
/// "parameters": {...}}` (arguments may be double-encoded), or `None` when
/// `v` is not one. Small models misname the function (`"name": "relevance"`,
/// `"evaluate_k001"`), so any name is accepted when the object is nothing
/// but the wrapper.
pub fn unwrap_call(v: &Value, tool: &str) -> Option<Value> {
    let o = v.as_object()?;
    let name = o.get("name").and_then(Value::as_str)?;
    if name != tool && o.len() != 2 {
        return None;
    }
    match o.get("arguments").or_else(|| o.get("parameters"))? {
        args @ Value::Object(_) => Some(args.clone()),
        Value::String(s) => serde_json::from_str::<Value>(s)
            .ok()
            .filter(Value::is_object),
        _ => None,
    }
}

/// The answer's JSON if it has the shape the tool asks for: an object with
/// every required top-level key, possibly inside a Hermes wrapper.
/// `Err` says why JSON of another shape is not the answer.
pub fn answer_json(text: &str, call: &ChatCall) -> Result<String, String> {
    let Some((json, v)) = extract_json_value(text) else {
        return Err("the answer was not JSON".into());
    };
    let (json, v) = match unwrap_call(&v, &call.tool.name) {
        Some(inner) => (inner.to_string(), inner),
        None => (json, v),
    };
    let required = required_keys(call);
    let missing: Vec<&str> = required
        .iter()
        .copied()
        .filter(|k| v.get(*k).is_none())
        .collect();
    if !v.is_object() || !missing.is_empty() {
        let looks_like_request = v.get("messages").is_some() || v.get("persona").is_some();
        return Err(format!(
            "the answer was JSON of another shape{} (missing {})",
            if looks_like_request {
                ", an echo of the request"
            } else {
                ""
            },
            if missing.is_empty() {
                "an object".to_string()
            } else {
                missing.join(", ")
            }
        ));
    }
    Ok(json)
}

/// Decide whether an answer counts in `mode` and how it came. `Err` is a
/// capability problem (move to the next path). A JSON answer in the content
/// becomes a synthetic tool call so that [`Completion::answer_text`] is the
/// bare JSON.
pub fn check_answer(mode: ToolMode, c: &mut Completion, call: &ChatCall) -> Result<(), String> {
    if c.refusal.is_some()
        || matches!(
            c.finish_reason,
            Some(FinishReason::Length | FinishReason::ContentFilter)
        )
    {
        c.path = if !c.tool_calls.is_empty() {
            AnswerPath::ToolCall
        } else if mode == ToolMode::Tools
            && (c.content.trim_start().starts_with(['{', '['])
                || c.content.trim_start().starts_with("```"))
        {
            // Cut off (or filtered) while writing JSON in the content
            // although a tool call was forced: the server ignored
            // tool_choice all the same. (A prose preamble cut before a real
            // call says nothing of the kind.)
            AnswerPath::IgnoredToolChoice
        } else {
            AnswerPath::Text
        };
        return Ok(()); // its own outcome, judged by the caller
    }
    if let Some(first) = c.tool_calls.first_mut() {
        // A real tool call; a wrapper inside its arguments is unwrapped too.
        if let Ok(json) = answer_json(&first.arguments, call) {
            first.arguments = json;
        }
        c.path = AnswerPath::ToolCall;
        return Ok(());
    }
    match answer_json(&c.content, call) {
        Ok(json) => {
            c.tool_calls.push(ToolCall {
                id: None,
                name: call.tool.name.clone(),
                arguments: json,
            });
            c.path = match mode {
                ToolMode::Tools => AnswerPath::IgnoredToolChoice,
                ToolMode::JsonSchema | ToolMode::JsonContent => AnswerPath::ResponseFormat,
            };
            Ok(())
        }
        Err(why) => match mode {
            ToolMode::Tools if c.content.trim().is_empty() => {
                Err("the answer had neither a tool call nor text".to_string())
            }
            ToolMode::Tools if extract_json(&c.content).is_none() => {
                Err("the server answered in plain text instead of calling the tool".to_string())
            }
            // JSON of another shape instead of a forced tool call: the
            // server did not make the call (an echo, a stray object).
            ToolMode::Tools => Err(why),
            _ if c.content.trim().is_empty() => Err("the answer was empty".to_string()),
            // Under a response format the server did its part: JSON of
            // another shape is the model's answer, which the protocol's
            // parser records as malformed and asks for again. It says
            // nothing about what the server can do.
            _ => match extract_json(&c.content) {
                Some(json) => {
                    c.tool_calls.push(ToolCall {
                        id: None,
                        name: call.tool.name.clone(),
                        arguments: json,
                    });
                    c.path = AnswerPath::ResponseFormat;
                    Ok(())
                }
                // Not JSON although a schema was asked for: that server does
                // not constrain its output (the next path is worth a try).
                None if mode == ToolMode::JsonSchema => Err(why),
                // Non-JSON text in the last path: the caller records it as
                // a failure with the raw text.
                None => {
                    c.path = AnswerPath::Text;
                    Ok(())
                }
            },
        },
    }
}

/// The next path to try after `m`.
pub fn next_mode(m: ToolMode) -> Option<ToolMode> {
    match m {
        ToolMode::Tools => Some(ToolMode::JsonSchema),
        ToolMode::JsonSchema => Some(ToolMode::JsonContent),
        ToolMode::JsonContent => None,
    }
}

pub fn mode_name(m: ToolMode) -> &'static str {
    match m {
        ToolMode::Tools => "tool calls",
        ToolMode::JsonSchema => "JSON schema response format",
        ToolMode::JsonContent => "JSON in the answer text",
    }
}

/// Does a 400/422 body say the server cannot do `mode`?
pub fn rejects_mode(mode: ToolMode, body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    match mode {
        ToolMode::Tools => b.contains("tool") || b.contains("function"),
        ToolMode::JsonSchema => {
            b.contains("response_format") || b.contains("json_schema") || b.contains("schema")
        }
        ToolMode::JsonContent => b.contains("response_format") || b.contains("json_object"),
    }
}

/// Does a 5xx body say the server cannot take tools at all? llama.cpp
/// without `--jinja` answers `500 tools param requires --jinja flag`: a
/// capability answer, not a fault that waiting fixes.
pub fn server_cannot_take(mode: ToolMode, body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    match mode {
        ToolMode::Tools => {
            b.contains("--jinja")
                || b.contains("tools param")
                || (b.contains("tool")
                    && (b.contains("not supported") || b.contains("unsupported")))
        }
        ToolMode::JsonSchema | ToolMode::JsonContent => {
            b.contains("response_format")
                && (b.contains("not supported") || b.contains("unsupported"))
        }
    }
}

/// Does a 400 say `max_tokens` is not taken and `max_completion_tokens` is
/// (OpenAI's o-series and gpt-5 models)?
pub fn wants_max_completion_tokens(body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    b.contains("max_completion_tokens") && b.contains("max_tokens")
}

/// Does an error body say the prompt is longer than the model's context?
/// (llama.cpp `exceed_context_size_error`, OpenAI `context_length_exceeded`,
/// vLLM "maximum context length".)
pub fn is_context_overflow(body: &str) -> bool {
    let b = body.to_ascii_lowercase();
    b.contains("exceed_context_size")
        || b.contains("context_length_exceeded")
        || b.contains("maximum context length")
        || b.contains("exceeds the available context size")
        || b.contains("context window")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{Message, ToolSpec};
    use serde_json::json;

    fn call() -> ChatCall {
        ChatCall {
            messages: vec![Message::user("x")],
            tool: ToolSpec {
                name: "get_evaluations".into(),
                description: "d".into(),
                parameters: json!({"type":"object","required":["resultItems"],
                    "properties":{"resultItems":{"type":"array"}}}),
            },
            max_tokens: None,
        }
    }

    #[test]
    fn json_extraction() {
        assert_eq!(extract_json(" {\"a\":1} ").as_deref(), Some("{\"a\":1}"));
        assert_eq!(
            extract_json("```json\n{\"a\":1}\n```").as_deref(),
            Some("{\"a\":1}")
        );
        assert_eq!(
            extract_json("Here: {\"a\":1} done").as_deref(),
            Some("{\"a\":1}")
        );
        assert_eq!(extract_json("no json"), None);
        assert_eq!(extract_json("42"), None);
        assert_eq!(extract_json("} {"), None);
    }

    #[test]
    fn shapes() {
        let c = call();
        assert_eq!(
            answer_json("{\"resultItems\":[]}", &c).as_deref(),
            Ok("{\"resultItems\":[]}")
        );
        // Hermes wrapper, object and double-encoded arguments.
        let wrapped = json!({"name":"get_evaluations","arguments":{"resultItems":[1]}});
        assert_eq!(
            answer_json(&wrapped.to_string(), &c).as_deref(),
            Ok("{\"resultItems\":[1]}")
        );
        // Misnamed by a small model, inside a fence.
        let misnamed = json!({"name":"evaluate_k001","arguments":{"resultItems":[2]}});
        assert_eq!(
            answer_json(&format!("```json\n{misnamed}\n```"), &c).as_deref(),
            Ok("{\"resultItems\":[2]}")
        );
        let enc = json!({"name":"get_evaluations","arguments":"{\"resultItems\":[]}"});
        assert_eq!(
            answer_json(&enc.to_string(), &c).as_deref(),
            Ok("{\"resultItems\":[]}")
        );
        // An echo of the request is JSON but not the answer.
        let echo = json!({"persona":{"id":"p"},"items":[]});
        let e = answer_json(&echo.to_string(), &c).unwrap_err();
        assert!(e.contains("echo") && e.contains("resultItems"), "{e}");
        assert!(answer_json("plain words", &c).is_err());
    }

    #[test]
    fn capability_and_context_bodies() {
        assert!(server_cannot_take(
            ToolMode::Tools,
            r#"{"error":{"code":500,"message":"tools param requires --jinja flag"}}"#
        ));
        assert!(!server_cannot_take(ToolMode::Tools, "upstream timed out"));
        assert!(is_context_overflow(
            r#"{"error":{"type":"exceed_context_size_error","message":"the request exceeds the available context size"}}"#
        ));
        assert!(is_context_overflow(
            r#"{"error":{"code":"context_length_exceeded"}}"#
        ));
        assert!(!is_context_overflow(r#"{"error":{"message":"bad key"}}"#));
    }
}
