//! What the fake server answers, and how a [`Reply`] becomes bytes on the wire.

use super::RecordedRequest;
use crate::demo_judge::http::{head, http_chunk};
use serde_json::{Value, json};
use std::time::Duration;

mod logprobs;
use logprobs::logprobs_steps;

/// One scripted answer. Streamed (SSE over a chunked response) when the
/// request asked for `stream: true`, else one JSON body.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A tool call answer; arguments split into fragments of `chunk` characters
    /// (0: one fragment). `finish` defaults to `tool_calls`.
    ToolCall {
        name: String,
        arguments: String,
        chunk: usize,
        finish: Option<String>,
        usage: Option<(u64, u64)>,
    },
    /// Several tool calls `(name, arguments)`; `interleave` sends their fragments
    /// alternately at index 0, 1, ...; `ollama_style` sends each whole at index 0
    /// with distinct ids.
    ToolCalls {
        calls: Vec<(String, String)>,
        chunk: usize,
        interleave: bool,
        ollama_style: bool,
    },
    /// Plain content (`finish` defaults to `stop`).
    Content {
        text: String,
        chunk: usize,
        finish: Option<String>,
    },
    /// Content sent token by token, each with its log probability and top
    /// alternatives (`choices[0].logprobs.content`): one chunk per token
    /// when streamed, else one answer with every token. `tokens` spell
    /// the content. Only the first `with_probs` tokens carry their
    /// probabilities (None: all), the rest come as bare content: a server
    /// that stopped sending them. `end` says how the answer ends
    /// ([`Reply::logprobs`]: `stop`).
    Logprobs {
        tokens: Vec<crate::provider::logprobs::TokenLogprob>,
        with_probs: Option<usize>,
        end: Ending,
    },
    /// The model declines.
    Refusal { text: String },
    /// Any status with headers and a body (Content-Type: JSON unless the body
    /// looks like HTML or a `content-type` header is given).
    Status {
        code: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Stream the first `cut_at` characters of the arguments, then end the
    /// response and close the connection without `[DONE]` or a finish reason.
    /// Not streaming: a Content-Length body cut short.
    Truncated { arguments: String, cut_at: usize },
    /// HTTP 200, then `data: {"error": {...}}`.
    ErrorEvent { message: String },
    /// Exactly these bytes as the whole response, then close.
    Raw(Vec<u8>),
    /// Wait, then answer.
    Delay(Duration, Box<Reply>),
    /// The inner reply with its consecutive writes joined into one: the same
    /// bytes (every SSE event and HTTP chunk boundary kept) in one syscall,
    /// as a remote server's answer that is complete when it is sent. For
    /// benchmarks, where this fake server shares the cores with the client.
    Coalesced(Box<Reply>),
    /// The inner reply with a pause between consecutive writes (the head goes
    /// out at once): a slow stream, or with a long pause a stalled one.
    Paced(Duration, Box<Reply>),
    /// The inner reply, then a pause, then the connection closed without
    /// having announced it (`Connection: close` not sent): llama.cpp's server
    /// after a streamed answer. A request the client sends in the pause goes
    /// into a connection that dies unread.
    CloseAfter(Duration, Box<Reply>),
    /// The inner streamed reply with the end of its body (the terminating
    /// HTTP chunk) held back for this long after `[DONE]`, then sent: a
    /// server that finishes its answer but keeps the body open.
    HeldOpen(Duration, Box<Reply>),
    /// A 200 stream that sends only SSE comments (`: keepalive`), one every
    /// `every`, `count` times, then closes: alive on the wire, silent as an answer.
    KeepAliveOnly { every: Duration, count: usize },
    /// A streamed content answer of about `bytes` bytes that never ends on
    /// its own (no finish reason, no `[DONE]`): a runaway server. Written
    /// piece by piece, never held whole in memory.
    Flood { bytes: usize },
}

/// How a [`Reply::Logprobs`] answer ends.
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    /// With this finish reason (`stop`, `length`), then `[DONE]`.
    Finish(String),
    /// The body ends and the connection closes after the last token: no
    /// finish reason, no `[DONE]` (not streamed: a Content-Length body cut
    /// short).
    Closed,
    /// After the last token nothing more for this long, the body left open,
    /// then the connection closes: a server that went silent (not streamed:
    /// half the body, the pause, the close).
    Stalled(Duration),
}

impl Reply {
    /// Content token by token, each with its probabilities, ending with `stop`.
    pub fn logprobs(tokens: Vec<crate::provider::logprobs::TokenLogprob>) -> Reply {
        Reply::Logprobs {
            tokens,
            with_probs: None,
            end: Ending::Finish("stop".into()),
        }
    }
    /// A tool call in 8-character fragments with usage (10, 20).
    pub fn tool(name: impl Into<String>, arguments: impl Into<String>) -> Reply {
        Reply::ToolCall {
            name: name.into(),
            arguments: arguments.into(),
            chunk: 8,
            finish: None,
            usage: Some((10, 20)),
        }
    }
    /// Content in 8-character fragments.
    pub fn content(text: impl Into<String>) -> Reply {
        Reply::Content {
            text: text.into(),
            chunk: 8,
            finish: None,
        }
    }
    pub fn status(code: u16, body: impl Into<String>) -> Reply {
        Reply::Status {
            code,
            headers: Vec::new(),
            body: body.into(),
        }
    }
    pub fn delayed(self, d: Duration) -> Reply {
        Reply::Delay(d, Box::new(self))
    }

    /// A tool call with its arguments rewritten by `f` and split into
    /// fragments of `chunk` characters (0: one); other replies as they are.
    /// Tests and benchmarks use it to vary the demo judge's answers.
    pub fn reshaped(self, chunk: usize, f: impl FnOnce(String) -> String) -> Reply {
        match self {
            Reply::ToolCall {
                name,
                arguments,
                finish,
                usage,
                ..
            } => Reply::ToolCall {
                name,
                arguments: f(arguments),
                chunk,
                finish,
                usage,
            },
            other => other,
        }
    }
}

/// `GET /v1/models` answer listing `models`.
pub fn models_reply(models: &[&str]) -> Reply {
    let data: Vec<Value> = models
        .iter()
        .map(|m| json!({"id": m, "object": "model", "created": 0, "owned_by": "jury-testserver"}))
        .collect();
    Reply::status(200, json!({"object": "list", "data": data}).to_string())
}

/// One step of writing a reply.
#[derive(Debug)]
pub(crate) enum Step {
    Write(Vec<u8>),
    /// The same bytes written `times` times (a large body without holding it).
    Repeat(Vec<u8>, usize),
    Sleep(Duration),
    /// Close the connection after this reply.
    Close,
}

/// `s` in pieces of `n` characters (never splitting a character); n = 0: whole.
pub fn split_chars(s: &str, n: usize) -> Vec<String> {
    if n == 0 || s.is_empty() {
        return vec![s.to_string()];
    }
    let chars: Vec<char> = s.chars().collect();
    chars.chunks(n).map(|c| c.iter().collect()).collect()
}

struct Ctx {
    model: String,
    /// `model` as a JSON string literal.
    model_json: String,
    /// Stream line ending: alternate LF and CRLF between requests.
    eol: &'static str,
}

impl Ctx {
    /// One `chat.completion.chunk` as JSON text. Written out directly rather
    /// than built as a `Value`: a streamed answer has a hundred of these, and
    /// in benchmarks this server shares the cores with the client it serves.
    fn chunk(&self, delta: Value, finish: Option<&str>) -> String {
        let finish = finish.map_or_else(|| "null".to_string(), |f| json!(f).to_string());
        format!(
            r#"{{"id":"chatcmpl-test","object":"chat.completion.chunk","created":0,"model":{},"system_fingerprint":"fp_test","choices":[{{"index":0,"delta":{delta},"logprobs":null,"finish_reason":{finish}}}]}}"#,
            self.model_json
        )
    }
    fn usage(&self, usage: (u64, u64)) -> String {
        json!({
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": self.model,
            "choices": [],
            "usage": {"prompt_tokens": usage.0, "completion_tokens": usage.1, "total_tokens": usage.0 + usage.1},
        })
        .to_string()
    }
    fn role(&self) -> String {
        self.chunk(json!({"role": "assistant", "content": null}), None)
    }
    fn message(&self, message: Value, finish: &str, usage: Option<(u64, u64)>) -> Value {
        let mut v = json!({
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": self.model,
            "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish}],
        });
        if let Some(u) = usage {
            v["usage"] =
                json!({"prompt_tokens": u.0, "completion_tokens": u.1, "total_tokens": u.0 + u.1});
        }
        v
    }
}

fn tool_delta(index: usize, id: Option<&str>, name: Option<&str>, args: &str) -> Value {
    let mut f = serde_json::Map::new();
    if let Some(n) = name {
        f.insert("name".into(), json!(n));
    }
    f.insert("arguments".into(), json!(args));
    let mut t = json!({"index": index, "function": f});
    if let Some(i) = id {
        t["id"] = json!(i);
        t["type"] = json!("function");
    }
    json!({"tool_calls": [t]})
}

/// A whole streamed response: SSE events, each written as two HTTP chunks
/// split mid-event (exercising the client's reassembly).
fn sse_steps(ctx: &Ctx, events: Vec<String>, done: bool, close: bool) -> Vec<Step> {
    let eol = ctx.eol;
    // Announce a close so a client never reuses the connection.
    let conn: Vec<(String, String)> = if close {
        vec![("Connection".into(), "close".into())]
    } else {
        Vec::new()
    };
    let mut steps = vec![Step::Write(head(200, &conn, "text/event-stream", None))];
    let mut texts = vec![format!(": keep-alive{eol}{eol}")];
    for (i, data) in events.iter().enumerate() {
        if i == 0 && data.len() > 2 {
            // Spread the first event over two `data:` lines (joined with \n,
            // which JSON treats as whitespace).
            let cut = data.find(',').map_or(1, |c| c + 1);
            texts.push(format!(
                "data: {}{eol}data: {}{eol}{eol}",
                &data[..cut],
                &data[cut..]
            ));
        } else {
            texts.push(format!("data: {data}{eol}{eol}"));
        }
    }
    if done {
        texts.push(format!("data: [DONE]{eol}{eol}"));
    }
    for t in texts {
        let b = t.into_bytes();
        let mid = b.len() / 2;
        steps.push(Step::Write(http_chunk(&b[..mid])));
        steps.push(Step::Write(http_chunk(&b[mid..])));
    }
    steps.push(Step::Write(b"0\r\n\r\n".to_vec()));
    if close {
        steps.push(Step::Close);
    }
    steps
}

fn json_steps(code: u16, body: &Value) -> Vec<Step> {
    let b = body.to_string().into_bytes();
    let mut out = head(code, &[], "application/json", Some(b.len()));
    out.extend_from_slice(&b);
    vec![Step::Write(out)]
}

/// Turn `reply` into wire steps for `req`.
pub(crate) fn render(reply: &Reply, req: &RecordedRequest) -> Vec<Step> {
    let model = req
        .body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("test-model")
        .to_string();
    let ctx = Ctx {
        model_json: json!(model).to_string(),
        model,
        eol: if req.seq % 2 == 1 { "\r\n" } else { "\n" },
    };
    let stream = req.wants_stream();
    match reply {
        Reply::Delay(d, inner) => {
            let mut steps = vec![Step::Sleep(*d)];
            steps.extend(render(inner, req));
            steps
        }
        Reply::Coalesced(inner) => coalesced(render(inner, req)),
        Reply::Paced(gap, inner) => paced(*gap, render(inner, req)),
        Reply::Raw(bytes) => vec![Step::Write(bytes.clone()), Step::Close],
        Reply::Status {
            code,
            headers,
            body,
        } => status_steps(*code, headers, body),
        Reply::ToolCall {
            name,
            arguments,
            chunk,
            finish,
            usage,
        } => tool_call_steps(
            &ctx,
            stream,
            name,
            arguments,
            *chunk,
            finish.as_deref(),
            *usage,
        ),
        Reply::ToolCalls {
            calls,
            chunk,
            interleave,
            ollama_style,
        } => tool_calls_steps(&ctx, stream, calls, *chunk, *interleave, *ollama_style),
        Reply::Content {
            text,
            chunk,
            finish,
        } => {
            let finish = finish.as_deref().unwrap_or("stop");
            if stream {
                let mut evs = vec![ctx.role()];
                for frag in split_chars(text, *chunk) {
                    evs.push(ctx.chunk(json!({"content": frag}), None));
                }
                evs.push(ctx.chunk(json!({}), Some(finish)));
                sse_steps(&ctx, evs, true, false)
            } else {
                let msg = json!({"role": "assistant", "content": text});
                json_steps(200, &ctx.message(msg, finish, None))
            }
        }
        Reply::Logprobs {
            tokens,
            with_probs,
            end,
        } => logprobs_steps(&ctx, stream, tokens, *with_probs, end),
        Reply::Refusal { text } => {
            if stream {
                let evs = vec![
                    ctx.role(),
                    ctx.chunk(json!({"refusal": text}), None),
                    ctx.chunk(json!({}), Some("stop")),
                ];
                sse_steps(&ctx, evs, true, false)
            } else {
                let msg = json!({"role": "assistant", "content": null, "refusal": text});
                json_steps(200, &ctx.message(msg, "stop", None))
            }
        }
        Reply::Truncated { arguments, cut_at } => truncated_steps(&ctx, stream, arguments, *cut_at),
        Reply::CloseAfter(pause, inner) => {
            let mut steps = render(inner, req);
            steps.push(Step::Sleep(*pause));
            steps.push(Step::Close);
            steps
        }
        Reply::HeldOpen(pause, inner) => {
            let mut steps = render(inner, req);
            let end = steps
                .iter()
                .rposition(|s| matches!(s, Step::Write(b) if b.as_slice() == b"0\r\n\r\n"));
            if let Some(at) = end {
                steps.insert(at, Step::Sleep(*pause));
            }
            steps
        }
        Reply::KeepAliveOnly { every, count } => {
            let mut steps = vec![Step::Write(head(200, &[], "text/event-stream", None))];
            for _ in 0..*count {
                steps.push(Step::Write(http_chunk(b": keepalive\n\n")));
                steps.push(Step::Sleep(*every));
            }
            steps.push(Step::Close);
            steps
        }
        Reply::Flood { bytes } => {
            let piece = "la ".repeat(1000);
            let event = format!("data: {}\n\n", ctx.chunk(json!({"content": piece}), None));
            let chunk = http_chunk(event.as_bytes());
            let times = bytes / chunk.len() + 1;
            vec![
                Step::Write(head(200, &[], "text/event-stream", None)),
                Step::Write(http_chunk(format!("data: {}\n\n", ctx.role()).as_bytes())),
                Step::Repeat(chunk, times),
                Step::Close,
            ]
        }
        Reply::ErrorEvent { message } => {
            let err = json!({"error": {"message": message, "type": "server_error", "param": null, "code": null}});
            if stream {
                sse_steps(&ctx, vec![ctx.role(), err.to_string()], false, false)
            } else {
                json_steps(200, &err)
            }
        }
    }
}

/// One tool call in fragments of `chunk` characters.
#[allow(clippy::too_many_arguments)]
fn tool_call_steps(
    ctx: &Ctx,
    stream: bool,
    name: &str,
    arguments: &str,
    chunk: usize,
    finish: Option<&str>,
    usage: Option<(u64, u64)>,
) -> Vec<Step> {
    let finish = finish.unwrap_or("tool_calls");
    if stream {
        let mut evs = vec![
            ctx.role(),
            ctx.chunk(tool_delta(0, Some("call_0"), Some(name), ""), None),
        ];
        for frag in split_chars(arguments, chunk) {
            evs.push(ctx.chunk(tool_delta(0, None, None, &frag), None));
        }
        evs.push(ctx.chunk(json!({}), Some(finish)));
        if let Some(u) = usage {
            evs.push(ctx.usage(u));
        }
        sse_steps(ctx, evs, true, false)
    } else {
        let msg = json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_0", "type": "function", "function": {"name": name, "arguments": arguments}}
        ]});
        json_steps(200, &ctx.message(msg, finish, usage))
    }
}

/// Several tool calls: fragments in turn, interleaved, or Ollama-style.
fn tool_calls_steps(
    ctx: &Ctx,
    stream: bool,
    calls: &[(String, String)],
    chunk: usize,
    interleave: bool,
    ollama_style: bool,
) -> Vec<Step> {
    if stream {
        let mut evs = vec![ctx.role()];
        if ollama_style {
            for (i, (name, args)) in calls.iter().enumerate() {
                let id = format!("call_{i}");
                evs.push(ctx.chunk(tool_delta(0, Some(&id), Some(name), args), None));
            }
        } else {
            let frags: Vec<Vec<String>> =
                calls.iter().map(|(_, a)| split_chars(a, chunk)).collect();
            if interleave {
                for (i, (name, _)) in calls.iter().enumerate() {
                    let id = format!("call_{i}");
                    evs.push(ctx.chunk(tool_delta(i, Some(&id), Some(name), ""), None));
                }
                let longest = frags.iter().map(Vec::len).max().unwrap_or(0);
                for k in 0..longest {
                    for (i, f) in frags.iter().enumerate() {
                        if let Some(frag) = f.get(k) {
                            evs.push(ctx.chunk(tool_delta(i, None, None, frag), None));
                        }
                    }
                }
            } else {
                for (i, (name, _)) in calls.iter().enumerate() {
                    let id = format!("call_{i}");
                    evs.push(ctx.chunk(tool_delta(i, Some(&id), Some(name), ""), None));
                    for frag in &frags[i] {
                        evs.push(ctx.chunk(tool_delta(i, None, None, frag), None));
                    }
                }
            }
        }
        evs.push(ctx.chunk(json!({}), Some("tool_calls")));
        sse_steps(ctx, evs, true, false)
    } else {
        let tcs: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| {
                json!({"id": format!("call_{i}"), "type": "function",
                       "function": {"name": name, "arguments": args}})
            })
            .collect();
        let msg = json!({"role": "assistant", "content": null, "tool_calls": tcs});
        json_steps(200, &ctx.message(msg, "tool_calls", None))
    }
}

/// A tool call cut after `cut_at` characters, the connection closed.
fn truncated_steps(ctx: &Ctx, stream: bool, arguments: &str, cut_at: usize) -> Vec<Step> {
    let cut: String = arguments.chars().take(cut_at).collect();
    if stream {
        let mut evs = vec![
            ctx.role(),
            ctx.chunk(
                tool_delta(0, Some("call_0"), Some("get_evaluations"), ""),
                None,
            ),
        ];
        for frag in split_chars(&cut, 8) {
            evs.push(ctx.chunk(tool_delta(0, None, None, &frag), None));
        }
        sse_steps(ctx, evs, false, true)
    } else {
        let msg = json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_0", "type": "function", "function": {"name": "get_evaluations", "arguments": arguments}}
        ]});
        let body = ctx
            .message(msg, "tool_calls", None)
            .to_string()
            .into_bytes();
        let conn = [("Connection".to_string(), "close".to_string())];
        let mut out = head(200, &conn, "application/json", Some(body.len()));
        out.extend_from_slice(&body[..body.len() / 2]);
        vec![Step::Write(out), Step::Close]
    }
}

/// Consecutive writes joined into one.
fn coalesced(inner: Vec<Step>) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    for step in inner {
        match (steps.last_mut(), step) {
            (Some(Step::Write(joined)), Step::Write(more)) => joined.extend(more),
            (_, step) => steps.push(step),
        }
    }
    steps
}

/// A pause of `gap` between consecutive writes.
fn paced(gap: Duration, inner: Vec<Step>) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    for step in inner {
        if matches!(step, Step::Write(_)) && matches!(steps.last(), Some(Step::Write(_))) {
            steps.push(Step::Sleep(gap));
        }
        steps.push(step);
    }
    steps
}

/// Any status; the content type guessed from the body unless a header gives it.
fn status_steps(code: u16, headers: &[(String, String)], body: &str) -> Vec<Step> {
    let t = body.trim_start().to_ascii_lowercase();
    let ct = if t.starts_with('<') {
        "text/html; charset=utf-8"
    } else if t.starts_with('{') || t.starts_with('[') {
        "application/json"
    } else {
        "text/plain; charset=utf-8"
    };
    let mut out = head(code, headers, ct, Some(body.len()));
    out.extend_from_slice(body.as_bytes());
    vec![Step::Write(out)]
}
