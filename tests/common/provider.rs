//! The provider client driven directly against the in-process fake server:
//! one call, a client on the server with fast retries, and what the
//! stream frames said (shared by the core and reliability crates).

use jury::provider::{
    ChatCall, Client, Completion, Message, ProviderConfig, ProviderError, StreamFrame, ToolSpec,
};
use jury::testserver::TestServer;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

pub fn call() -> ChatCall {
    ChatCall {
        messages: vec![
            Message::system("You are a judge."),
            Message::user("Evaluate this item."),
        ],
        tool: ToolSpec {
            name: "get_evaluations".into(),
            description: "Return the evaluations".into(),
            parameters: json!({"type": "object", "properties": {"resultItems": {"type": "array"}}}),
        },
        max_tokens: None,
    }
}

pub fn cfg(server: &TestServer, stream: bool) -> ProviderConfig {
    let mut c = ProviderConfig::new(server.base_url(), "test-model");
    c.stream = stream;
    c.max_retries = 3;
    c.backoff_base = Duration::from_millis(2);
    c.backoff_cap = Duration::from_millis(20);
    c.idle_timeout = Duration::from_secs(5);
    c.request_timeout = Duration::from_secs(10);
    c
}

pub async fn run_with(
    client: &Client,
    cancel: &CancellationToken,
) -> (Result<Completion, ProviderError>, Vec<StreamFrame>) {
    let frames = Arc::new(Mutex::new(Vec::new()));
    let f2 = frames.clone();
    let mut on_frame = move |f: StreamFrame| {
        if let Ok(mut v) = f2.lock() {
            v.push(f);
        }
    };
    let r = client.complete(&call(), cancel, &mut on_frame).await;
    let frames = frames.lock().map(|v| v.clone()).unwrap_or_default();
    (r, frames)
}

pub async fn run(client: &Client) -> (Result<Completion, ProviderError>, Vec<StreamFrame>) {
    run_with(client, &CancellationToken::new()).await
}

pub fn client(server: &TestServer, stream: bool) -> Client {
    Client::new(cfg(server, stream)).expect("client")
}

pub fn retrying(frames: &[StreamFrame]) -> Vec<(u32, Duration, String)> {
    frames
        .iter()
        .filter_map(|f| match f {
            StreamFrame::Retrying {
                attempt,
                delay,
                reason,
            } => Some((*attempt, *delay, reason.clone())),
            _ => None,
        })
        .collect()
}

/// Fragments of tool call `index` since the last Retrying frame.
pub fn streamed_args(frames: &[StreamFrame], index: usize) -> String {
    let start = frames
        .iter()
        .rposition(|f| matches!(f, StreamFrame::Retrying { .. }))
        .map_or(0, |i| i + 1);
    frames[start..]
        .iter()
        .filter_map(|f| match f {
            StreamFrame::ToolArgs {
                index: i, fragment, ..
            } if *i == index => Some(fragment.as_str()),
            _ => None,
        })
        .collect()
}
