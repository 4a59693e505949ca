//! The chat-completions request body as borrowed, typed fields.
//!
//! Every request of a run carries the same long system prompt, worked examples
//! and result schema (15–20 KB). Building a `serde_json::Value` first copied all
//! of it into a fresh tree per request and freed it again; serialising these
//! borrowed fields writes the bytes directly. [`WireBody::to_value`] gives the
//! same document as a `Value` for the places that show or store a request, so
//! there is one definition of the body and its key order.

use super::{ChatCall, ProviderConfig, ToolMode};
use serde::Serialize;
use std::borrow::Cow;

#[derive(Serialize)]
pub struct WireBody<'a> {
    model: &'a str,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<[WireTool<'a>; 1]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<ToolChoice<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<ResponseFormat<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    /// OpenAI's reasoning models refuse `max_tokens` and take this instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    /// Token probabilities (`top_logprobs` needs `logprobs: true` on
    /// llama.cpp's server).
    #[serde(skip_serializing_if = "Option::is_none")]
    logprobs: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_logprobs: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
}

#[derive(Serialize)]
struct WireMessage<'a> {
    role: &'a str,
    content: Cow<'a, str>,
}

#[derive(Serialize)]
struct WireTool<'a> {
    r#type: &'static str,
    function: WireFunction<'a>,
}

#[derive(Serialize)]
struct WireFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a serde_json::Value,
}

#[derive(Serialize)]
struct ToolChoice<'a> {
    r#type: &'static str,
    function: ToolName<'a>,
}

#[derive(Serialize)]
struct ToolName<'a> {
    name: &'a str,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ResponseFormat<'a> {
    JsonSchema { json_schema: JsonSchema<'a> },
    JsonObject,
}

#[derive(Serialize)]
struct JsonSchema<'a> {
    name: &'a str,
    schema: &'a serde_json::Value,
    strict: bool,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

impl<'a> WireBody<'a> {
    pub fn new(cfg: &'a ProviderConfig, call: &'a ChatCall, mode: ToolMode) -> Self {
        let tool = &call.tool;
        let mut messages: Vec<WireMessage<'a>> = call
            .messages
            .iter()
            .map(|m| WireMessage {
                role: &m.role,
                content: Cow::Borrowed(&m.content),
            })
            .collect();
        let (mut tools, mut tool_choice, mut response_format) = (None, None, None);
        match mode {
            ToolMode::Tools => {
                tools = Some([WireTool {
                    r#type: "function",
                    function: WireFunction {
                        name: &tool.name,
                        description: &tool.description,
                        parameters: &tool.parameters,
                    },
                }]);
                tool_choice = Some(ToolChoice {
                    r#type: "function",
                    function: ToolName { name: &tool.name },
                });
            }
            ToolMode::JsonSchema => {
                response_format = Some(ResponseFormat::JsonSchema {
                    json_schema: JsonSchema {
                        name: &tool.name,
                        schema: &tool.parameters,
                        strict: false,
                    },
                });
            }
            ToolMode::JsonContent => {
                response_format = Some(ResponseFormat::JsonObject);
                let schema = serde_json::to_string_pretty(&tool.parameters)
                    .unwrap_or_else(|_| tool.parameters.to_string());
                messages.push(WireMessage {
                    role: "user",
                    content: Cow::Owned(format!(
                        "Answer with a single JSON object and nothing else: no prose, no code fences. \
                         The object is the argument of the function `{}` ({}) and must match this JSON Schema:\n{}",
                        tool.name, tool.description, schema
                    )),
                });
            }
        }
        WireBody {
            model: &cfg.model,
            messages,
            tools,
            tool_choice,
            response_format,
            temperature: cfg.temperature,
            max_tokens: call.max_tokens,
            max_completion_tokens: None,
            // Tool-call arguments carry no probabilities: asked for on the
            // content paths only.
            logprobs: (cfg.logprobs && mode != ToolMode::Tools).then_some(true),
            top_logprobs: (cfg.logprobs && mode != ToolMode::Tools)
                .then_some(super::logprobs::TOP_LOGPROBS),
            stream: cfg.stream.then_some(true),
            stream_options: cfg.stream.then_some(StreamOptions {
                include_usage: true,
            }),
        }
    }

    /// Ask for the answer limit as `max_completion_tokens` (servers that
    /// refuse `max_tokens`).
    pub fn completion_tokens_named(mut self, yes: bool) -> Self {
        if yes {
            self.max_completion_tokens = self.max_tokens.take();
        }
        self
    }

    /// The body as it goes on the wire.
    pub fn to_bytes(&self) -> Vec<u8> {
        // Serialising borrowed strings, numbers and `Value`s cannot fail.
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The same document as a `Value` (for `jury prompt`, failure records).
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{Message, ToolSpec, request_body};
    use serde_json::json;

    fn call() -> ChatCall {
        ChatCall {
            messages: vec![Message::system("sys"), Message::user("judge this")],
            tool: ToolSpec {
                name: "get_evaluations".into(),
                description: "Return the evaluations".into(),
                parameters: json!({"type":"object","properties":{"a":{"type":"integer"}}}),
            },
            max_tokens: None,
        }
    }

    /// What goes on the wire is the document `request_body` shows and stores,
    /// byte for byte, with its keys in this order, for every mode and setting.
    #[test]
    fn wire_bytes_are_the_shown_body() {
        let expect = [
            (
                ToolMode::Tools,
                vec!["model", "messages", "tools", "tool_choice"],
            ),
            (
                ToolMode::JsonSchema,
                vec!["model", "messages", "response_format"],
            ),
            (
                ToolMode::JsonContent,
                vec!["model", "messages", "response_format"],
            ),
        ];
        for stream in [true, false] {
            for temperature in [None, Some(0.25), Some(f64::NAN)] {
                for (mode, keys) in &expect {
                    let mut cfg = ProviderConfig::new("http://h/v1", "m \"q\"");
                    cfg.stream = stream;
                    cfg.temperature = temperature;
                    let mut c = call();
                    c.messages[1].content = "ünïcode \u{1b}[2J \"quote\" \\ \n line".into();
                    let wire = WireBody::new(&cfg, &c, *mode).to_bytes();
                    let shown = request_body(&cfg, &c, *mode);
                    assert_eq!(String::from_utf8(wire).unwrap(), shown.to_string());
                    let mut want = keys.clone();
                    if temperature.is_some() {
                        want.push("temperature");
                    }
                    if stream {
                        want.extend(["stream", "stream_options"]);
                    }
                    let got: Vec<&str> = shown
                        .as_object()
                        .map(|o| o.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    assert_eq!(got, want, "{mode:?} stream {stream} {temperature:?}");
                }
            }
        }
    }

    #[test]
    fn bodies_per_mode() {
        let mut cfg = ProviderConfig::new("http://h/v1", "m");
        cfg.temperature = Some(0.0);
        let b = request_body(&cfg, &call(), ToolMode::Tools);
        assert_eq!(b["model"], "m");
        assert_eq!(b["stream"], true);
        assert_eq!(b["stream_options"]["include_usage"], true);
        assert_eq!(b["temperature"], 0.0);
        assert_eq!(b["tools"][0]["function"]["name"], "get_evaluations");
        assert_eq!(b["tool_choice"]["function"]["name"], "get_evaluations");
        assert_eq!(b["messages"].as_array().map(Vec::len), Some(2));
        cfg.stream = false;
        cfg.temperature = None;
        let b = request_body(&cfg, &call(), ToolMode::JsonSchema);
        assert!(
            b.get("stream").is_none() && b.get("temperature").is_none() && b.get("tools").is_none()
        );
        assert_eq!(b["response_format"]["type"], "json_schema");
        assert_eq!(b["response_format"]["json_schema"]["strict"], false);
        assert_eq!(
            b["response_format"]["json_schema"]["schema"]["type"],
            "object"
        );
        let b = request_body(&cfg, &call(), ToolMode::JsonContent);
        assert_eq!(b["response_format"]["type"], "json_object");
        let msgs = b["messages"].as_array().cloned().unwrap_or_default();
        assert_eq!(msgs.len(), 3);
        let last = msgs[2]["content"].as_str().unwrap_or("");
        assert!(last.contains("JSON") && last.contains("\"properties\""));
    }
}
