//! The provider's contract with the rest of jury: what goes in (a [`ChatCall`]),
//! what streams out ([`StreamFrame`]) and what comes back ([`Completion`] or
//! [`ProviderError`]).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

/// An API key that never prints itself: Debug and Display are redacted, so it
/// cannot leak through logs, errors or panics by accident.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Self {
        Secret(s.into())
    }
    /// The only way to read the key: used when building the Authorization header.
    pub fn expose(&self) -> &str {
        &self.0
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// Where and how to reach an OpenAI-compatible chat-completions endpoint.
#[derive(Debug, Clone)]
pub struct ProviderConfig {
    /// e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`; the client
    /// appends `/chat/completions` unless the URL already ends with it (Azure-style
    /// URLs with a query string keep their query).
    pub base_url: String,
    pub api_key: Option<Secret>,
    pub model: String,
    /// Stream with SSE (the default) or ask for one JSON answer.
    pub stream: bool,
    /// Retries after the first attempt for retryable faults (official clients: 2).
    pub max_retries: u32,
    /// Backoff base and cap: delay = min(base·2ⁿ, cap) minus up to 25 % jitter.
    pub backoff_base: Duration,
    pub backoff_cap: Duration,
    /// Longest Retry-After honoured; longer asks are an error.
    pub retry_after_cap: Duration,
    /// Whole-request timeout and the idle timeout between stream chunks.
    pub request_timeout: Duration,
    pub idle_timeout: Duration,
    pub temperature: Option<f64>,
    /// Largest answer read; a longer one is cut and recorded as a failure
    /// (memory stays bounded whatever the server sends).
    pub max_answer_bytes: usize,
    /// The structured path requests start with.
    pub tool_mode: ToolMode,
    /// Whether the client may move on to the next path when the server shows
    /// it cannot do this one (`--structured auto`); a path the user chose is kept.
    pub fallback: bool,
    /// Ask for each content token's probability and its top alternatives
    /// (`logprobs: true, top_logprobs`), for the verdicts' confidence.
    pub logprobs: bool,
    /// The servers a run spreads its requests over (`--base-url` given more
    /// than once, or with `#N`); empty: `base_url` alone, at the run's
    /// concurrency. The key, model and timeouts are the same for all.
    pub servers: Vec<super::ServerSpec>,
    /// A server that cannot be connected to is given up on at once instead
    /// of retried: a run with other servers moves its requests to them.
    pub failover: bool,
}

/// Defaults of the timeouts and caps, named for `--help` and the README.
pub const DEFAULT_REQUEST_TIMEOUT_SECS: u64 = 600;
pub const DEFAULT_IDLE_TIMEOUT_SECS: u64 = 120;
pub const DEFAULT_MAX_ANSWER_BYTES: usize = 8 * 1024 * 1024;

impl ProviderConfig {
    /// The key sent to `base_url` as a bearer token: none when the URL
    /// carries a credential of its own (`https://user:KEY@proxy/v1`,
    /// `?api-key=`). That server is sent its own credential (the URL's
    /// user and password as Basic auth, its query as it stands), and
    /// `OPENAI_API_KEY`, meant for another server, is not handed to it.
    pub fn sent_key(&self) -> Option<&Secret> {
        if super::secrets::url_has_credential(&self.base_url) {
            return None;
        }
        self.api_key.as_ref().filter(|k| !k.is_empty())
    }

    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        ProviderConfig {
            base_url: base_url.into(),
            api_key: None,
            model: model.into(),
            stream: true,
            max_retries: 4,
            backoff_base: Duration::from_millis(500),
            backoff_cap: Duration::from_secs(8),
            retry_after_cap: Duration::from_secs(120),
            request_timeout: Duration::from_secs(DEFAULT_REQUEST_TIMEOUT_SECS),
            idle_timeout: Duration::from_secs(DEFAULT_IDLE_TIMEOUT_SECS),
            temperature: None,
            max_answer_bytes: DEFAULT_MAX_ANSWER_BYTES,
            tool_mode: ToolMode::Tools,
            fallback: true,
            logprobs: false,
            servers: Vec::new(),
            failover: false,
        }
    }
}

/// The function the judge must call; `parameters` is the result JSON Schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

impl Message {
    pub fn system(content: impl Into<String>) -> Self {
        Message {
            role: "system".into(),
            content: content.into(),
        }
    }
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: "user".into(),
            content: content.into(),
        }
    }
}

/// What a protocol asks the provider to do: messages plus a forced tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatCall {
    pub messages: Vec<Message>,
    pub tool: ToolSpec,
    /// Most tokens the answer may take (`max_tokens`): sized to the batch by
    /// the engine, so a looping model stops and a budget has a worst case.
    pub max_tokens: Option<u32>,
}

/// How the structured answer is requested. The client starts with `Tools` and
/// falls back when the server shows it cannot do tool calls. Ordered: a run
/// only ever moves forward along it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolMode {
    /// `tools` + `tool_choice` forcing the function.
    Tools,
    /// `response_format: {type: json_schema, json_schema: {...}}`.
    JsonSchema,
    /// A system note asking for the JSON object in the content.
    JsonContent,
}

/// One typed frame of a streamed answer, delivered as it arrives.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamFrame {
    /// A fragment of assistant content text.
    Content(String),
    /// A fragment of a tool call's arguments. `id`/`name` are set on the first
    /// fragment of a call only.
    ToolArgs {
        index: usize,
        id: Option<String>,
        name: Option<String>,
        fragment: String,
    },
    /// The attempt failed and will be retried; consumers drop partial text.
    Retrying {
        attempt: u32,
        delay: Duration,
        reason: String,
    },
}

/// Which path really carried the structured answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerPath {
    /// A real `tool_calls` delta.
    ToolCall,
    /// JSON in the content under `response_format` (json_schema or json_object).
    ResponseFormat,
    /// JSON in the content although a tool call was forced: the server
    /// ignored `tool_choice` (llama.cpp without a tool-aware template, or
    /// with an object `tool_choice`).
    IgnoredToolChoice,
    /// Text that is not JSON (recorded as a failure by the caller), or an
    /// outcome of its own (refusal, length, content filter).
    Text,
}

impl AnswerPath {
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerPath::ToolCall => "tool_call",
            AnswerPath::ResponseFormat => "response_format",
            AnswerPath::IgnoredToolChoice => "content_ignoring_tool_choice",
            AnswerPath::Text => "text",
        }
    }
}

impl ToolMode {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolMode::Tools => "tools",
            ToolMode::JsonSchema => "json_schema",
            ToolMode::JsonContent => "json",
        }
    }

    pub fn parse(s: &str) -> Option<ToolMode> {
        match s {
            "tools" => Some(ToolMode::Tools),
            "json_schema" => Some(ToolMode::JsonSchema),
            "json" | "json_content" => Some(ToolMode::JsonContent),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: Option<String>,
    pub name: String,
    /// The concatenated argument fragments, unparsed.
    pub arguments: String,
}

/// How the answer ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    Stop,
    ToolCalls,
    Length,
    ContentFilter,
    /// Servers invent others (llama.cpp: `tool`); kept verbatim.
    Other(String),
}

impl FinishReason {
    pub fn parse(s: &str) -> FinishReason {
        match s {
            "stop" => FinishReason::Stop,
            "tool_calls" | "function_call" => FinishReason::ToolCalls,
            "length" => FinishReason::Length,
            "content_filter" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_string()),
        }
    }
    pub fn as_str(&self) -> &str {
        match self {
            FinishReason::Stop => "stop",
            FinishReason::ToolCalls => "tool_calls",
            FinishReason::Length => "length",
            FinishReason::ContentFilter => "content_filter",
            FinishReason::Other(s) => s,
        }
    }
}

/// A complete answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub tool_calls: Vec<ToolCall>,
    pub content: String,
    /// `refusal` text when the model declined.
    pub refusal: Option<String>,
    pub finish_reason: Option<FinishReason>,
    /// `None` when the server sent no usage (unknown, not zero).
    pub usage: Option<crate::domain::Usage>,
    pub http_status: u16,
    /// How the structured answer was asked for (after any fallback).
    pub tool_mode: ToolMode,
    /// How it really came back.
    pub path: AnswerPath,
    /// Attempts made, 1 when the first one succeeded.
    pub attempts: u32,
    pub latency: Duration,
    /// The content's tokens with their probabilities; None when the server
    /// sent none (not asked, or a server that ignores `logprobs`).
    pub logprobs: Option<Vec<super::logprobs::TokenLogprob>>,
}

impl Completion {
    /// The structured answer text: the forced tool call's arguments, or the
    /// content when the answer came through a fallback mode.
    pub fn answer_text(&self) -> &str {
        match self.tool_calls.first() {
            Some(call) if !call.arguments.trim().is_empty() => &call.arguments,
            _ => &self.content,
        }
    }
}
