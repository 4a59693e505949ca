//! The demo judge's [`Answer`] in the OpenAI chat-completions wire format:
//! one JSON body, or with `stream: true` server-sent events over a chunked
//! response (a role event, the tool arguments in fragments, the finish
//! reason, usage, `[DONE]`).

use super::http::{Request, head, http_chunk};
use super::judge::{Answer, MODEL};
use serde_json::{Value, json};

/// Characters of tool arguments per streamed fragment.
const FRAGMENT: usize = 24;

/// The whole response to `req`.
pub fn response(answer: &Answer, req: &Request) -> Vec<u8> {
    match answer {
        Answer::Models => {
            let data = [json!({"id": MODEL, "object": "model", "created": 0, "owned_by": "jury"})];
            json_response(200, &json!({"object": "list", "data": data}))
        }
        Answer::Invalid(msg) => json_response(
            400,
            &json!({"error": {"message": msg, "type": "invalid_request_error"}}),
        ),
        Answer::Tool {
            name,
            arguments,
            usage,
        } if req.wants_stream() => {
            let mut events = vec![
                chunk(json!({"role": "assistant", "content": null}), None),
                chunk(tool_delta(Some(name), ""), None),
            ];
            let chars: Vec<char> = arguments.chars().collect();
            for piece in chars.chunks(FRAGMENT) {
                let piece: String = piece.iter().collect();
                events.push(chunk(tool_delta(None, &piece), None));
            }
            events.push(chunk(json!({}), Some("tool_calls")));
            events.push(completion("chat.completion.chunk", json!([]), Some(*usage)));
            sse_response(&events)
        }
        Answer::Tool {
            name,
            arguments,
            usage,
        } => {
            let message = json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_0", "type": "function", "function": {"name": name, "arguments": arguments}}
            ]});
            json_response(200, &message_body(message, "tool_calls", Some(*usage)))
        }
        Answer::Content { text, usage } if super::logprobs::wanted(&req.body) => {
            let tokens = super::logprobs::tokens(text);
            if req.wants_stream() {
                let mut events = vec![chunk(json!({"role": "assistant", "content": null}), None)];
                for t in &tokens {
                    let mut e = chunk(json!({"content": t.token}), None);
                    e["choices"][0]["logprobs"] = super::logprobs::to_json(std::slice::from_ref(t));
                    events.push(e);
                }
                events.push(chunk(json!({}), Some("stop")));
                events.push(completion("chat.completion.chunk", json!([]), Some(*usage)));
                sse_response(&events)
            } else {
                let message = json!({"role": "assistant", "content": text});
                let mut body = message_body(message, "stop", Some(*usage));
                body["choices"][0]["logprobs"] = super::logprobs::to_json(&tokens);
                json_response(200, &body)
            }
        }
        Answer::Content { text, usage } if req.wants_stream() => sse_response(&[
            chunk(json!({"role": "assistant", "content": null}), None),
            chunk(json!({"content": text}), None),
            chunk(json!({}), Some("stop")),
            completion("chat.completion.chunk", json!([]), Some(*usage)),
        ]),
        Answer::Content { text, usage } => {
            let message = json!({"role": "assistant", "content": text});
            json_response(200, &message_body(message, "stop", Some(*usage)))
        }
    }
}

fn completion(object: &str, choices: Value, usage: Option<(u64, u64)>) -> Value {
    let mut v = json!({
        "id": "chatcmpl-demo",
        "object": object,
        "created": 0,
        "model": MODEL,
        "choices": choices,
    });
    if let Some((p, c)) = usage {
        v["usage"] = json!({"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c});
    }
    v
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    let choice = json!([{"index": 0, "delta": delta, "finish_reason": finish}]);
    completion("chat.completion.chunk", choice, None)
}

fn message_body(message: Value, finish: &str, usage: Option<(u64, u64)>) -> Value {
    let choice = json!([{"index": 0, "message": message, "finish_reason": finish}]);
    completion("chat.completion", choice, usage)
}

fn tool_delta(name: Option<&str>, arguments: &str) -> Value {
    let mut call = json!({"index": 0, "function": {"arguments": arguments}});
    if let Some(n) = name {
        call["id"] = json!("call_0");
        call["type"] = json!("function");
        call["function"]["name"] = json!(n);
    }
    json!({"tool_calls": [call]})
}

fn json_response(code: u16, body: &Value) -> Vec<u8> {
    let body = body.to_string().into_bytes();
    let mut out = head(code, &[], "application/json", Some(body.len()));
    out.extend_from_slice(&body);
    out
}

fn sse_response(events: &[Value]) -> Vec<u8> {
    let mut out = head(200, &[], "text/event-stream", None);
    for e in events {
        out.extend(http_chunk(format!("data: {e}\n\n").as_bytes()));
    }
    out.extend(http_chunk(b"data: [DONE]\n\n"));
    out.extend_from_slice(b"0\r\n\r\n");
    out
}
