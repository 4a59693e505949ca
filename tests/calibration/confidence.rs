//! A verdict's confidence from token probabilities (against the test server:
//! streamed and not, a value split over tokens, a server that sends none),
//! through `jury run --confidence`, the store and the exports, and `jury
//! trust` end to end on stores built through the binary.
#![cfg(feature = "tui")]

use crate::common;
use common::{ServerRt, Workspace, text};
use jury::domain::{Agreement, ComboKey, Scale, Value as V};
use jury::provider::logprobs::{TokenLogprob, confidences};
use jury::provider::{ChatCall, Client, Message, ProviderConfig, ToolMode, ToolSpec};
use jury::testserver::{Reply, TestServer};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use tokio_util::sync::CancellationToken;

mod logprobs;
mod repeats;
mod runs;
mod trust;
pub(crate) use trust::{import_labels, opposite};

fn call() -> ChatCall {
    ChatCall {
        messages: vec![Message::user("judge")],
        tool: ToolSpec {
            name: "get_evaluations".into(),
            description: "Return the evaluations".into(),
            parameters: json!({"type": "object", "properties": {"resultItems": {"type": "array"}}}),
        },
        max_tokens: None,
    }
}

pub(crate) fn run_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "run",
        "--persona",
        "tester",
        "--perspective",
        "classification",
        "--mode",
        "3",
    ];
    a.extend_from_slice(extra);
    a
}

pub(crate) fn verdict_rows(ws: &Workspace) -> Vec<Value> {
    ws.export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
        .collect()
}
