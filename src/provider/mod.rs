//! The OpenAI-compatible chat-completions client: request bodies, SSE streaming,
//! incremental tool-call assembly, retries and capability fallback.

mod body;
mod chunk;
mod error;
mod types;

pub mod accumulate;
pub mod batch;
mod batch_ids;
pub mod client;
pub mod errtext;
pub mod logprobs;
pub mod partial_json;
pub mod retry;
pub mod secrets;
pub mod servers;
pub mod spend_gate;
pub mod sse;
pub mod structured_answer;
mod transport;
pub mod url;
mod wire;

pub use client::{Client, TimeLimit, request_body};
pub use error::ProviderError;
pub use secrets::Secrets;
pub use servers::{ServerSpec, server_label};
pub use types::*;
