//! Runs: plan the combinations, send requests with bounded concurrency, validate
//! answers, commit verdicts and failures, retry what is missing, report events.
//! The CLI's progress bar and the TUI's panes are two consumers of the same
//! [`EngineEvent`] stream.

mod budget;
mod error;
mod events;
pub mod item_selection;
pub mod price;
mod run;
mod structured_path;
mod writer;

pub use error::{EngineError, SettingError};
pub use events::{BatchProgress, EngineEvent, Progress};
pub use run::batch_api::file as batch_file;
pub use run::batch_api::{BatchMode, BatchOrder, Interrupt, OnInterrupt, Reopen, Retry};
pub use run::{Plan, plan as make_plan, usage_or_unknown};
pub use writer::NO_VERDICT_NOTE;

use crate::domain::{Mode, RunStatus};
use crate::prompt::PromptSet;
use crate::protocol::JudgeSpec;
use crate::provider::ProviderConfig;
use crate::store::Store;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What to judge and how.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// Which judge, asked what (built and checked by its protocol's
    /// constructor, e.g. [`JudgeSpec::awag`]), with the prompts of
    /// [`EngineConfig::prompts`].
    pub spec: JudgeSpec,
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
    /// Requests per batch that keep no new verdict before it gives up;
    /// requests that keep new entries are free (at most this plus the
    /// batch's size in all). Also bounds the batch's time: this many
    /// request timeouts.
    pub max_attempts: u32,
    /// Never send a request whose worst case could take the run's estimated
    /// spending past this many dollars.
    pub budget_usd: Option<f64>,
    /// `max_tokens` of each request; None: sized to the batch
    /// ([`DEFAULT_TOKENS_PER_ENTRY`] per entry plus [`BASE_ANSWER_TOKENS`]).
    pub max_tokens: Option<u32>,
    /// Answer tokens allowed per entry when `max_tokens` is not set.
    pub tokens_per_entry: u32,
    /// How structured answers are asked for: `None` is `auto` (the path the
    /// endpoint and model answered a probe with, probed once and remembered).
    pub structured: Option<crate::provider::ToolMode>,
    /// Shuffle the items with this seed before they are cut into requests,
    /// so repeat runs put each item at other places (position bias, mode 1).
    pub shuffle_seed: Option<u64>,
    /// Send `TextDelta` events while answers stream in (the workbench shows
    /// them). A headless run has no one to show them to and skips the
    /// incremental parsing they need.
    pub stream_texts: bool,
    /// With several servers: how long one taken out of the run stays out
    /// the first time (twice that the next time, and so on).
    pub server_time_out: std::time::Duration,
    /// A batch run: what an interruption does to the batches it waits for
    /// (shared with whoever interrupts it, who may choose on the spot).
    pub batch_interrupt: Interrupt,
    /// A batch run: what becomes of the lines its batches leave unanswered.
    pub batch_retry: Retry,
}

impl RunRequest {
    /// An AwAg run of this persona and these perspectives in `mode`.
    pub fn new(mode: Mode, persona_id: &str, perspective_ids: Vec<String>) -> Self {
        RunRequest::for_spec(JudgeSpec::Awag {
            mode,
            persona: persona_id.to_string(),
            perspectives: perspective_ids,
        })
    }

    /// The request a run's `record` was made with, as far as it keeps it
    /// (a run taken up again: its judge and settings, not a command line).
    pub fn of_record(record: &crate::domain::RunRecord) -> Self {
        let mut req = RunRequest::for_spec(record.judge.clone());
        req.batch_size = record.batch_size.max(1);
        req.concurrency = record.concurrency.max(1);
        req.max_attempts = record.max_attempts.max(1);
        req.structured = record.structured;
        if let Some(b) = &record.batch {
            req.batch_interrupt = Interrupt::new(b.on_interrupt);
            req.batch_retry = b.retry;
        }
        req
    }

    /// A run of `spec` with the default run settings.
    pub fn for_spec(spec: JudgeSpec) -> Self {
        RunRequest {
            batch_size: match spec.mode() {
                Some(Mode::One) => 5,
                _ => 10,
            },
            spec,
            item_ids: None,
            concurrency: 4,
            resume: false,
            limit: None,
            subset: None,
            max_attempts: 3,
            budget_usd: None,
            max_tokens: None,
            tokens_per_entry: DEFAULT_TOKENS_PER_ENTRY,
            structured: None,
            shuffle_seed: None,
            stream_texts: true,
            server_time_out: run::SERVER_TIME_OUT,
            batch_interrupt: Interrupt::default(),
            batch_retry: Retry::default(),
        }
    }
}

/// Answer tokens allowed per entry of a request by default: an evaluation
/// text of a few sentences and its JSON fit in well under this; a model that
/// loops stops here instead of streaming for minutes.
pub const DEFAULT_TOKENS_PER_ENTRY: u32 = 300;
/// Answer tokens allowed per request on top of the entries (the wrapper).
pub const BASE_ANSWER_TOKENS: u32 = 200;

impl RunRequest {
    /// `max_tokens` for a request of `entries` units.
    pub fn max_tokens_for(&self, entries: usize) -> u32 {
        self.max_tokens.unwrap_or_else(|| {
            BASE_ANSWER_TOKENS.saturating_add(
                self.tokens_per_entry
                    .saturating_mul(u32::try_from(entries).unwrap_or(u32::MAX)),
            )
        })
    }

    /// Settings no run can be made with, refused before anything is sent.
    pub fn validate(&self, provider: &ProviderConfig) -> Result<(), EngineError> {
        let bad = |e: SettingError| Err(EngineError::Setting(e));
        if self.max_attempts == 0 {
            return bad(SettingError::NoAttempts);
        }
        if let Some(b) = self.budget_usd
            && !(b.is_finite() && b > 0.0)
        {
            return bad(SettingError::Budget(b));
        }
        if let Some(t) = provider.temperature
            && !(t.is_finite() && t >= 0.0)
        {
            return bad(SettingError::Temperature(t));
        }
        if self.max_tokens == Some(0) || self.tokens_per_entry == 0 {
            return bad(SettingError::NoTokens);
        }
        if self.batch_size == 0 || self.concurrency == 0 {
            return bad(SettingError::NoBatch);
        }
        // A broken prices.toml stops the run here, naming the file and entry.
        price::check_user_table().map_err(EngineError::Prices)?;
        if let Some(budget) = self.budget_usd
            && price::price_for(&provider.model).is_none()
        {
            return bad(SettingError::Unpriced {
                budget,
                model: provider.model.clone(),
            });
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub db_path: PathBuf,
    pub provider: ProviderConfig,
    /// The prompts of every protocol: the one place a run's prompts come from.
    pub prompts: Arc<PromptSet>,
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
    start(cfg, req, None, CancellationToken::new())
}

/// Starts a run whose plan the caller already made (with [`make_plan`] and
/// the same configuration and request), as the CLI does to show a dry run
/// or say there is nothing to do before anything is sent.
pub fn spawn_planned(cfg: EngineConfig, req: RunRequest, plan: Plan) -> RunHandle {
    start(cfg, req, Some(plan), CancellationToken::new())
}

/// As [`spawn_planned`], stopped by `cancel`: a token the caller made before
/// it planned (the workbench hands it out when the run is asked for).
pub fn spawn_planned_with(
    cfg: EngineConfig,
    req: RunRequest,
    plan: Plan,
    cancel: CancellationToken,
) -> RunHandle {
    start(cfg, req, Some(plan), cancel)
}

/// Starts a run whose requests leave as a batch, as `order` says.
pub fn spawn_batch(cfg: EngineConfig, req: RunRequest, plan: Plan, order: BatchOrder) -> RunHandle {
    spawn_batch_with(cfg, req, plan, order, CancellationToken::new())
}

/// As [`spawn_batch`], stopped by `cancel` (a batch already sent keeps
/// running on the server; the run stops waiting for it).
pub fn spawn_batch_with(
    cfg: EngineConfig,
    req: RunRequest,
    plan: Plan,
    order: BatchOrder,
    cancel: CancellationToken,
) -> RunHandle {
    let (tx, rx) = mpsc::unbounded_channel();
    let token = cancel.clone();
    let join =
        tokio::spawn(
            async move { run::execute_with(cfg, req, plan, Some(order), tx, token).await },
        );
    RunHandle {
        events: rx,
        cancel,
        join,
    }
}

/// Takes up `run_id`, made earlier as a batch run, again: its answers read
/// as `what` says, its judge planned from the run's record.
pub fn spawn_reopen(cfg: EngineConfig, req: RunRequest, run_id: i64, what: Reopen) -> RunHandle {
    spawn_reopen_with(cfg, req, run_id, what, CancellationToken::new())
}

/// As [`spawn_reopen`], stopped by `cancel`.
pub fn spawn_reopen_with(
    cfg: EngineConfig,
    req: RunRequest,
    run_id: i64,
    what: Reopen,
    cancel: CancellationToken,
) -> RunHandle {
    let (tx, rx) = mpsc::unbounded_channel();
    let token = cancel.clone();
    let join =
        tokio::spawn(
            async move { run::batch_api::reopen(cfg, req, run_id, what, tx, token).await },
        );
    RunHandle {
        events: rx,
        cancel,
        join,
    }
}

fn start(
    cfg: EngineConfig,
    req: RunRequest,
    plan: Option<Plan>,
    cancel: CancellationToken,
) -> RunHandle {
    let (tx, rx) = mpsc::unbounded_channel();
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
                .map_err(EngineError::PlanningStopped)??
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
