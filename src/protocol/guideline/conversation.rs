//! A conversation as stored in an item's payload: its events, its
//! condition→action guidelines, and the events as the judge reads them.

use crate::domain::Item;
use serde_json::{Value, json};

/// One conversation event as stored in an item's payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// `customer`, `ai_agent`, `tool` (or another participant role).
    pub source: String,
    /// `message` or `tool`.
    pub kind: String,
    pub content: String,
}

/// A condition → action guideline.
#[derive(Debug, Clone, PartialEq)]
pub struct Guideline {
    pub id: String,
    pub condition: String,
    pub action: String,
}

fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The events of a conversation item.
pub fn events(item: &Item) -> Vec<Event> {
    item.payload["events"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| Event {
                    source: e["source"].as_str().unwrap_or("").to_string(),
                    kind: e["kind"].as_str().unwrap_or("message").to_string(),
                    content: content_text(&e["content"]),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The guidelines of a conversation item.
pub fn guidelines(item: &Item) -> Vec<Guideline> {
    item.payload["guidelines"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|g| Guideline {
                    id: g["id"].as_str().unwrap_or("").to_string(),
                    condition: g["condition"].as_str().unwrap_or("").to_string(),
                    action: g["action"].as_str().unwrap_or("").to_string(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Numbered lines, `n. customer: text` / `n. [tool] text` (numbering from `from`).
pub fn render_events(events: &[Event], from: usize) -> String {
    events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            if e.kind == "tool" || e.source == "tool" {
                format!("{}. [tool, {}] {}", from + i, e.source, e.content)
            } else {
                format!("{}. {}: {}", from + i, e.source, e.content)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Normalises one imported event: `{source, kind, content}` or the reference's
/// `{event_source, event_kind, data: {message}}`; `user` reads as `customer`.
pub fn normalise_event(v: &Value) -> Result<Value, String> {
    let o = v
        .as_object()
        .ok_or_else(|| "an event must be an object".to_string())?;
    let source = o
        .get("source")
        .or_else(|| o.get("event_source"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| "'source' is missing (customer, ai_agent or tool)".to_string())?;
    let source = match source {
        "user" | "customer" => "customer",
        "agent" | "ai_agent" | "assistant" => "ai_agent",
        other => other,
    };
    let kind = o
        .get("kind")
        .or_else(|| o.get("event_kind"))
        .and_then(Value::as_str)
        .unwrap_or(if source == "tool" { "tool" } else { "message" });
    if !matches!(kind, "message" | "tool" | "status") {
        return Err(format!("'kind' must be message or tool, found '{kind}'"));
    }
    let content = match o.get("content") {
        Some(c) => c.clone(),
        None => match o.get("data") {
            Some(Value::Object(d)) => d
                .get("message")
                .cloned()
                .unwrap_or(Value::Object(d.clone())),
            Some(other) => other.clone(),
            None => Value::Null,
        },
    };
    if kind == "message" && content_text(&content).trim().is_empty() {
        return Err("a message event has no 'content'".into());
    }
    Ok(json!({"source": source, "kind": kind, "content": content}))
}
