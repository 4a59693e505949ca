//! Runs: plan the combinations, send requests with bounded concurrency, validate
//! answers, commit verdicts and failures, retry what is missing, report events.
//! The CLI's progress bar and the TUI's panes are two consumers of the same
//! [`EngineEvent`] stream.

mod events;
pub mod plan;
pub mod price;
mod run;
mod writer;

pub use events::{EngineEvent, Progress};
pub use run::{Plan, plan as make_plan, usage_or_unknown};
pub use writer::NO_VERDICT_NOTE;

use crate::domain::{Mode, Protocol, RunStatus};
use crate::prompt::PromptSet;
use crate::provider::{ProviderConfig, ProviderError};
use crate::store::{Store, StoreError};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What to judge and how.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub protocol: Protocol,
    pub mode: Mode,
    pub persona_id: String,
    pub perspective_ids: Vec<String>,
    /// `None`: every item in the store.
    pub item_ids: Option<Vec<String>>,
    /// Items per request (Mode 1) or entries per request (Modes 2/3).
    pub batch_size: usize,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Skip combinations this persona/mode/perspective/model/prompt set already has.
    pub resume: bool,
    pub limit: Option<usize>,
    /// `(percent, seed)`.
    pub subset: Option<(f64, u64)>,
    /// Requests per batch in all, counting retries of missing entries.
    pub max_attempts: u32,
    /// Stop sending once this many dollars are spent (estimated).
    pub budget_usd: Option<f64>,
    /// Protocol-specific settings (rubric `dimensions`, `prompts_dir`...).
    pub options: serde_json::Value,
    /// Shuffle the items with this seed before they are cut into requests,
    /// so repeat runs put each item at other places (position bias, mode 1).
    pub shuffle_seed: Option<u64>,
    /// Send `TextDelta` events while answers stream in (the workbench shows
    /// them). A headless run has no one to show them to and skips the
    /// incremental parsing they need.
    pub stream_texts: bool,
}

impl RunRequest {
    pub fn new(mode: Mode, persona_id: &str, perspective_ids: Vec<String>) -> Self {
        RunRequest {
            protocol: Protocol::Awag,
            mode,
            persona_id: persona_id.to_string(),
            perspective_ids,
            item_ids: None,
            batch_size: match mode {
                Mode::One => 5,
                Mode::Two | Mode::Three => 10,
            },
            concurrency: 4,
            resume: false,
            limit: None,
            subset: None,
            max_attempts: 3,
            budget_usd: None,
            options: serde_json::Value::Null,
            shuffle_seed: None,
            stream_texts: true,
        }
    }
}

#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub db_path: PathBuf,
    pub provider: ProviderConfig,
    pub prompts: Arc<PromptSet>,
}

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Provider(ProviderError),
    #[error("{0}")]
    Setup(String),
}

/// How a run ended.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub run_id: i64,
    pub status: RunStatus,
    pub progress: Progress,
    pub note: Option<String>,
}

pub struct RunHandle {
    pub events: mpsc::UnboundedReceiver<EngineEvent>,
    pub cancel: CancellationToken,
    pub join: tokio::task::JoinHandle<Result<RunOutcome, EngineError>>,
}

/// Starts a run on the current tokio runtime. Planning reads the store on a
/// blocking thread; the run opens its own connection and commits as it goes.
pub fn spawn_run(cfg: EngineConfig, req: RunRequest) -> RunHandle {
    start(cfg, req, None)
}

/// Starts a run whose plan the caller already made (with [`make_plan`] and
/// the same configuration and request), as the CLI does to show a dry run
/// or say there is nothing to do before anything is sent.
pub fn spawn_planned(cfg: EngineConfig, req: RunRequest, plan: Plan) -> RunHandle {
    start(cfg, req, Some(plan))
}

fn start(cfg: EngineConfig, req: RunRequest, plan: Option<Plan>) -> RunHandle {
    let (tx, rx) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let token = cancel.clone();
    let join = tokio::spawn(async move {
        let plan = match plan {
            Some(p) => p,
            None => {
                let (cfg2, req2) = (cfg.clone(), req.clone());
                tokio::task::spawn_blocking(move || {
                    let store = Store::open(&cfg2.db_path)?;
                    run::plan(&cfg2, &req2, &store)
                })
                .await
                .map_err(|e| EngineError::Setup(format!("planning stopped: {e}")))??
            }
        };
        run::execute(cfg, req, plan, tx, token).await
    });
    RunHandle {
        events: rx,
        cancel,
        join,
    }
}
