//! Runs: plan the combinations, send requests with bounded concurrency, validate
//! answers, commit verdicts and failures, retry what is missing, report events.

mod events;

pub use events::{EngineEvent, Progress};
