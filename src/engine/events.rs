//! What the engine tells its consumers (the CLI's progress bar, the TUI's panes).
//! Every event carries its run id so a consumer can drop events of runs it no
//! longer cares about.

use crate::domain::{ComboKey, Failure, RunStatus, Usage, Verdict};
use std::time::Duration;

#[derive(Debug, Clone, PartialEq)]
pub enum EngineEvent {
    /// The run exists in the store; `total` combinations will be asked for.
    RunStarted {
        run_id: i64,
        total: u64,
        /// Combinations skipped because `--resume` found them already judged.
        skipped: u64,
    },
    /// A request went out for these combinations.
    RequestStarted { run_id: i64, keys: Vec<ComboKey> },
    /// The evaluation text of one combination so far, while it streams (the
    /// whole text, not the increment, so a consumer can simply replace it).
    TextDelta {
        run_id: i64,
        key: ComboKey,
        text: String,
    },
    /// A request failed in a way that will be retried; partial text is void.
    Retrying {
        run_id: i64,
        keys: Vec<ComboKey>,
        delay: Duration,
        reason: String,
    },
    /// A verdict was validated and committed to the store.
    Verdict { run_id: i64, verdict: Box<Verdict> },
    /// A failure was committed to the store.
    Failure { run_id: i64, failure: Box<Failure> },
    /// The store's write lock is held by another process: what arrived is
    /// kept in memory and written once the lock is free (`waited` so far).
    StoreWaiting { run_id: i64, waited: Duration },
    /// Combinations left out because another live run has claimed them
    /// (it is judging them now); `runs` are those runs.
    ClaimedElsewhere {
        run_id: i64,
        skipped: u64,
        runs: Vec<i64>,
    },
    /// Something about the run as a whole, said once (the server sent no
    /// token probabilities although they were asked for).
    Notice { run_id: i64, text: String },
    /// A batch this run sent changed status on the server (the run waits
    /// for it: answers come when it is over).
    BatchStatus { run_id: i64, batch: BatchProgress },
    /// Counters after each request.
    Progress(Progress),
    /// The run ended; its final status is in the store.
    RunFinished {
        run_id: i64,
        status: RunStatus,
        progress: Progress,
        /// Why it stopped early, when it did (quota, cancelled, fatal error).
        note: Option<String>,
    },
}

/// A batch's place on the server, as its last look found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchProgress {
    pub id: String,
    /// validating, in_progress, finalizing, completed, failed, expired…
    pub status: String,
    pub answered: u64,
    pub failed: u64,
    pub total: u64,
}

impl std::fmt::Display for BatchProgress {
    /// `batch_… in_progress: 3/10 answered, 1 failed`
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "batch {} {}: {}/{} answered, {} failed",
            self.id, self.status, self.answered, self.total, self.failed
        )
    }
}

/// Counters of one run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Progress {
    pub run_id: i64,
    pub total: u64,
    pub verdicts: u64,
    /// Combinations that ended without a verdict (after all retries).
    pub failed: u64,
    pub requests: u64,
    pub usage: Usage,
    /// Requests whose usage was never reported.
    pub usage_unknown: u64,
    pub cost_usd: Option<f64>,
    pub elapsed: Duration,
}

impl Progress {
    pub fn done(&self) -> u64 {
        self.verdicts + self.failed
    }
}
