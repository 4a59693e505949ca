//! What can stop a run before or while it goes.

use crate::config::ConfigError;
use crate::protocol::ProtocolError;
use crate::provider::ProviderError;
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Provider(ProviderError),
    /// A run setting no run can be made with, refused before anything is sent.
    #[error(transparent)]
    Setting(#[from] SettingError),
    /// `prices.toml` cannot be read or has a bad entry.
    #[error(transparent)]
    Prices(ConfigError),
    /// The judge cannot be built (what its spec names, its prompt files)
    /// or a request cannot be written.
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    /// The items asked for are not all in the store, or the subset is out
    /// of range.
    #[error("{0}")]
    Selection(String),
    /// Planning on its blocking thread ended without a plan.
    #[error("planning stopped: {0}")]
    PlanningStopped(tokio::task::JoinError),
    #[error("cannot start the store writer: {0}")]
    WriterStart(std::io::Error),
    /// The store writer ended without saying how the run ended.
    #[error("the store writer stopped: {0}")]
    WriterStopped(tokio::task::JoinError),
    #[error("the store writer panicked")]
    WriterPanicked,
    /// A run made as a batch cannot be taken up again.
    #[error(transparent)]
    Batch(#[from] super::run::batch_api::BatchError),
    /// The store refused a write, and the run stopped.
    #[error("{0}")]
    WriteRefused(String),
}

/// A run setting no run can be made with.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingError {
    #[error("--max-attempts must be at least 1 (it counts the first request)")]
    NoAttempts,
    #[error("--budget must be a positive number of dollars, not {0}")]
    Budget(f64),
    #[error("--temperature must be a finite number of at least 0, not {0}")]
    Temperature(f64),
    #[error("--max-tokens must be at least 1")]
    NoTokens,
    #[error("--batch-size and --concurrency must be at least 1")]
    NoBatch,
    #[error(
        "--budget ${budget} needs a price for the model '{model}', and jury has none: {}",
        super::price::HOW_TO_PRICE
    )]
    Unpriced { budget: f64, model: String },
}
