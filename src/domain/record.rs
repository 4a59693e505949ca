//! A run's record: the judge it asked (the typed [`JudgeSpec`]) and the
//! settings it asked with, stored with the run as one serde value (JSON in
//! `runs.record`). Everything that takes a run up again (`jury run
//! --resume`, `jury batch import`, the workbench's `R`/`b`) and every
//! export reads this value; nothing parses a command line or looks a
//! setting up by key name.

use crate::config::ConfidenceChoice;
use crate::engine::{OnInterrupt, Retry};
use crate::protocol::JudgeSpec;
use crate::provider::ToolMode;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The record's layout version. A store written by a later jury with a
/// higher version is read as far as it goes (unknown fields are ignored);
/// bump it when a field changes meaning.
pub const RECORD_VERSION: u32 = 1;

/// What a run asked and how.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub version: u32,
    /// The judge: protocol and everything it asks.
    pub judge: JudgeSpec,
    pub model: String,
    pub prompts: PromptsUsed,
    /// The structured path asked for; `None` is `auto`.
    pub structured: Option<ToolMode>,
    pub confidence: ConfidenceChoice,
    pub temperature: Option<f64>,
    /// Items (mode 1) or entries per request.
    pub batch_size: usize,
    pub concurrency: usize,
    pub max_attempts: u32,
    /// Items the run covered when it was planned.
    pub items: usize,
    pub shuffle_seed: Option<u64>,
    /// Sent as a batch (Batch API or a file for another engine): how.
    pub batch: Option<BatchSettings>,
    /// The servers asked, each without credentials, query or fragment.
    pub servers: Vec<String>,
    /// What a store migration could not recover of a run recorded before
    /// runs had records (the settings it left at their defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub converted: Option<String>,
}

/// The prompt set a run asked with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptsUsed {
    /// The folder given (`--prompts`, config); `None`: the embedded set.
    pub dir: Option<PathBuf>,
    /// The hash of the texts and schemas sent (the run's prompt version).
    pub hash: String,
}

/// How a batch run's requests leave and what becomes of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchSettings {
    pub way: BatchWay,
    /// Seconds between looks at the batch's status (Batch API).
    pub poll_secs: u64,
    pub on_interrupt: OnInterrupt,
    pub retry: Retry,
}

/// Where a batch run's requests go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchWay {
    /// Through the OpenAI Batch API.
    Api,
    /// Written to a file for another engine (`jury batch export`).
    File,
}

impl RunRecord {
    /// The prompt folder the run's prompts came from, when not embedded.
    pub fn prompts_dir(&self) -> Option<&std::path::Path> {
        self.prompts.dir.as_deref()
    }
}
