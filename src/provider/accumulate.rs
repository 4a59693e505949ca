//! Assembles chat-completions chunks into [`StreamFrame`]s and a final
//! [`Completion`], and reads non-streamed answers into the same shape.
//!
//! Tool-call fragments concatenate per `index`. Ollama sends each call whole,
//! possibly all at index 0 with different ids: a delta with a new id at an index
//! whose call already has arguments (or a name, when the new delta brings one)
//! starts a new call. Frames carry the position of the call in the final list,
//! not the wire index, so such calls stay apart for consumers too.
//!
//! One reading of the wire format ([`super::chunk`]) with two front doors:
//! payload text ([`Accumulator::push_data`], the streaming path) and a parsed
//! [`Value`] ([`Accumulator::push_chunk`], [`parse_response`]).

use super::chunk::{self, Chunk};
use super::{Completion, FinishReason, ProviderError, StreamFrame, ToolCall, ToolMode};
use crate::domain::Usage;
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;

/// Why an answer that simply stopped (no `[DONE]`, no finish reason) failed.
pub const SERVER_CUT: &str =
    "the server cut the answer off before it finished (no [DONE], no finish reason)";

/// A chunk or answer that reports a failure instead of an answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ChunkError {
    /// `{"error": {...}}` after HTTP 200. `code` is the error's `code` or `type`.
    Server {
        message: String,
        code: Option<String>,
    },
    /// Not JSON, or not a chat-completions chunk at all.
    Malformed(String),
}

impl std::fmt::Display for ChunkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChunkError::Server { message, code } => match code {
                Some(c) => write!(
                    f,
                    "the server reported an error mid-answer ({c}): {message}"
                ),
                None => write!(f, "the server reported an error mid-answer: {message}"),
            },
            ChunkError::Malformed(m) => write!(f, "malformed answer: {m}"),
        }
    }
}

#[derive(Debug, Default)]
struct CallBuf {
    id: Option<String>,
    name: Option<String>,
    arguments: String,
}

/// What arrived of an answer cut off before its end.
#[derive(Debug, Clone, PartialEq)]
pub struct Partial {
    /// The answer text so far (first call's arguments, else the content).
    pub text: String,
    /// The content's tokens so far with their probabilities, when the
    /// server sent any.
    pub logprobs: Option<Vec<super::logprobs::TokenLogprob>>,
}

/// Collects one streamed answer.
#[derive(Debug, Default)]
pub struct Accumulator {
    content: String,
    refusal: Option<String>,
    calls: Vec<CallBuf>,
    /// Wire index → position in `calls` of the call currently open there.
    open: HashMap<u64, usize>,
    finish_reason: Option<FinishReason>,
    usage: Option<Usage>,
    chunks: usize,
    /// How much of the answer is more than whitespace: its non-whitespace
    /// characters, calls and finish reason. Growth is progress; a stream
    /// that only adds whitespace or empty chunks is idle.
    substance: usize,
    /// Content tokens with their probabilities, when the server sent any.
    logprobs: Option<Vec<super::logprobs::TokenLogprob>>,
    /// The tokens passed the cap: none are kept after it (a gap would leave
    /// tokens that no longer spell the answer).
    logprobs_capped: bool,
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// `{"error": ...}` (object or string; `null` is none) → ChunkError::Server.
fn server_error(e: &Value) -> Option<ChunkError> {
    if e.is_null() {
        return None;
    }
    let message = match e {
        Value::String(s) => s.clone(),
        _ => str_field(e, "message")
            .map(str::to_string)
            .unwrap_or_else(|| e.to_string()),
    };
    let code = match e.get("code") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => str_field(e, "type").map(str::to_string),
    };
    Some(ChunkError::Server { message, code })
}

/// The characters of `s` that are more than whitespace.
fn substance(s: &str) -> usize {
    s.chars().filter(|c| !c.is_whitespace()).count()
}

impl Accumulator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feed one SSE `data` payload (not `[DONE]`): read straight from the
    /// text, borrowing what needs no unescaping.
    pub fn push_data(&mut self, data: &str) -> Result<Vec<StreamFrame>, ChunkError> {
        // Only an object is a chunk (serde would read an array as a struct's
        // fields in order). Text the direct reading refuses (a duplicated
        // key) goes through a Value, as it always did: the last one wins.
        if data.trim_start().starts_with('{')
            && let Ok(chunk) = serde_json::from_str::<Chunk<'_>>(data)
        {
            return self.apply(chunk);
        }
        let v: Value = serde_json::from_str(data)
            .map_err(|e| ChunkError::Malformed(format!("a stream chunk is not JSON ({e})")))?;
        self.push_chunk(&v)
    }

    /// Feed one decoded chunk.
    pub fn push_chunk(&mut self, v: &Value) -> Result<Vec<StreamFrame>, ChunkError> {
        if !v.is_object() {
            return Err(ChunkError::Malformed(
                "a stream chunk is not an object".into(),
            ));
        }
        let chunk = Chunk::deserialize(v)
            .map_err(|e| ChunkError::Malformed(format!("a stream chunk is unreadable ({e})")))?;
        self.apply(chunk)
    }

    /// What one chunk adds: usage, the finish reason, text, tool-call fragments.
    fn apply(&mut self, chunk: Chunk<'_>) -> Result<Vec<StreamFrame>, ChunkError> {
        if let Some(e) = chunk.error.as_ref().and_then(server_error) {
            return Err(e);
        }
        self.chunks += 1;
        if self.chunks == 1 {
            // The answer has begun (a first chunk often holds only the role).
            self.substance += 1;
        }
        if let Some(u) = chunk.usage.0.and_then(|u| u.read(chunk.timings.0.as_ref())) {
            self.usage = Some(u);
        }
        let mut frames = Vec::new();
        let Some(choice) = chunk.choices.0 else {
            return Ok(frames); // the usage chunk, or a keep-alive
        };
        let choice = choice.0.unwrap_or_default();
        if let Some(tokens) = choice
            .logprobs
            .as_ref()
            .and_then(super::logprobs::read_choice_logprobs)
        {
            let kept = self.logprobs.get_or_insert_with(Vec::new);
            // Bounded like the answer: past the cap the tokens no longer
            // spell the answer, and no confidence is read from them, from
            // this chunk on (a later, smaller chunk must not fill the gap).
            if self.logprobs_capped || kept.len() + tokens.len() > super::logprobs::MAX_TOKENS {
                self.logprobs_capped = true;
            } else {
                kept.extend(tokens);
            }
        }
        if let Some(fr) = &choice.finish_reason.0 {
            if self.finish_reason.is_none() {
                self.substance += 1;
            }
            self.finish_reason = Some(FinishReason::parse(fr));
        }
        let Some(delta) = choice.delta.or(choice.message) else {
            return Ok(frames);
        };
        let delta = delta.0.unwrap_or_default();
        if let Some(text) = delta.content.0.filter(|t| !t.is_empty()) {
            self.substance += substance(&text);
            self.content.push_str(&text);
            frames.push(StreamFrame::Content(text.into_owned()));
        }
        if let Some(text) = delta.refusal.0.filter(|t| !t.is_empty()) {
            self.substance += substance(&text);
            self.refusal.get_or_insert_with(String::new).push_str(&text);
        }
        if let Some(calls) = delta.tool_calls.0 {
            for (n, tc) in calls.into_iter().enumerate() {
                let tc = tc.0.unwrap_or_default();
                let index = tc.index.0.unwrap_or(n as u64);
                let f = tc.function.0.unwrap_or_default();
                frames.extend(self.call_delta(index, tc.id, f));
            }
        } else if let Some(f) = delta.function_call.0 {
            // The legacy single `function_call` shape.
            frames.extend(self.call_delta(0, chunk::Str(None), f));
        }
        Ok(frames)
    }

    fn call_delta(
        &mut self,
        index: u64,
        id: chunk::Str<'_>,
        f: chunk::Function<'_>,
    ) -> Option<StreamFrame> {
        let id = id.0.filter(|s| !s.is_empty());
        let name = f.name.0.filter(|s| !s.is_empty());
        self.tool_delta(
            index,
            id.as_deref(),
            name.as_deref(),
            f.arguments.0.into_owned(),
        )
    }

    fn tool_delta(
        &mut self,
        index: u64,
        id: Option<&str>,
        name: Option<&str>,
        fragment: String,
    ) -> Option<StreamFrame> {
        let pos = match self.open.get(&index) {
            Some(&p) => {
                let cur = &self.calls[p];
                let new_id = id.is_some_and(|i| cur.id.as_deref().is_some_and(|c| c != i));
                let starts_new =
                    new_id && (!cur.arguments.is_empty() || (cur.name.is_some() && name.is_some()));
                if starts_new { None } else { Some(p) }
            }
            None => None,
        };
        let (pos, first) = match pos {
            Some(p) => (p, false),
            None => {
                self.calls.push(CallBuf::default());
                let p = self.calls.len() - 1;
                self.open.insert(index, p);
                (p, true)
            }
        };
        let call = &mut self.calls[pos];
        let mut new_id = None;
        if call.id.is_none()
            && let Some(i) = id
        {
            call.id = Some(i.to_string());
            new_id = call.id.clone();
        }
        let mut new_name = None;
        if call.name.is_none()
            && let Some(n) = name
        {
            call.name = Some(n.to_string());
            new_name = call.name.clone();
        }
        call.arguments.push_str(&fragment);
        self.substance += substance(&fragment)
            + usize::from(first)
            + usize::from(new_id.is_some())
            + usize::from(new_name.is_some());
        if first || new_id.is_some() || new_name.is_some() || !fragment.is_empty() {
            Some(StreamFrame::ToolArgs {
                index: pos,
                id: new_id,
                name: new_name,
                fragment,
            })
        } else {
            None
        }
    }

    /// The answer text so far (first call's arguments, else the content).
    pub fn partial_text(&self) -> String {
        match self.calls.first() {
            Some(c) if !c.arguments.is_empty() => c.arguments.clone(),
            _ => self.content.clone(),
        }
    }

    /// What arrived so far, for an answer cut off here.
    pub fn into_partial(self) -> Partial {
        Partial {
            text: self.partial_text(),
            logprobs: self.logprobs,
        }
    }

    /// How much of the answer so far is more than whitespace (grows with
    /// every fragment that brings a visible character, a call or the finish).
    pub fn substance(&self) -> usize {
        self.substance
    }

    /// The usage reported so far (None: not yet, or never).
    pub fn usage(&self) -> Option<Usage> {
        self.usage
    }

    /// Whether any chunk with an answer arrived.
    pub fn saw_chunks(&self) -> bool {
        self.chunks > 0
    }

    /// The stream ended. Without `[DONE]` and without a finish reason the
    /// answer is truncated. The returned completion has placeholder
    /// `http_status` 200, `tool_mode` Tools, `attempts` 1 and zero latency
    /// for the caller to fill in.
    pub fn finish(self, saw_done: bool) -> Result<Completion, ProviderError> {
        if !saw_done && self.finish_reason.is_none() {
            let Partial { text, logprobs } = self.into_partial();
            return Err(ProviderError::Truncated {
                partial: text,
                logprobs,
                http_status: 200,
                cause: SERVER_CUT.into(),
            });
        }
        Ok(self.into_completion())
    }

    fn into_completion(self) -> Completion {
        Completion {
            tool_calls: self
                .calls
                .into_iter()
                .map(|c| ToolCall {
                    id: c.id,
                    name: c.name.unwrap_or_default(),
                    arguments: c.arguments,
                })
                .collect(),
            content: self.content,
            refusal: self.refusal,
            finish_reason: self.finish_reason,
            usage: self.usage,
            http_status: 200,
            tool_mode: ToolMode::Tools,
            path: super::AnswerPath::Text,
            attempts: 1,
            latency: Duration::ZERO,
            logprobs: self.logprobs,
        }
    }
}

/// Parse a non-streamed chat-completions answer (`choices[0].message`).
/// Placeholders as in [`Accumulator::finish`].
pub fn parse_response(v: &Value) -> Result<Completion, ChunkError> {
    if let Some(e) = v.get("error").and_then(server_error) {
        return Err(e);
    }
    let Some(choice) = v
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
    else {
        return Err(ChunkError::Malformed("the answer has no choices".into()));
    };
    if choice.get("message").is_none() {
        return Err(ChunkError::Malformed("the answer has no message".into()));
    }
    let mut acc = Accumulator::new();
    acc.push_chunk(v)?;
    Ok(acc.into_completion())
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod front_door_tests;

#[cfg(test)]
mod logprobs_tests;
