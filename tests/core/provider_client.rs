//! The provider client against the in-process fake OpenAI server.

use jury::provider::{Client, FinishReason, ProviderConfig, ProviderError, Secret, ToolMode};
use jury::testserver::{RecordedRequest, Reply, TestServer};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
// Waits run on tokio's paused clock (`start_paused`), read with its Instant.
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::common::provider::*;

const ARGS: &str = r#"{"resultItems":[{"id":{"itemId":"it-1","perspectiveId":"p1","classificationId":"c1"},"evaluatedSelection":"none","evaluationLikert":4,"evaluationText":"Größtenteils richtig — 😀 漢字 \"quoted\" \\ done"}]}"#;

mod answers;
mod capability;
mod connections;
mod retries;
