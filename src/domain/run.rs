use super::{Mode, Protocol};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What a run asks: protocol and mode, persona, perspectives, model and prompt set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    pub protocol: Protocol,
    pub mode: Option<Mode>,
    pub persona_id: String,
    pub perspective_ids: Vec<String>,
    pub model: String,
    /// Hash of the prompt set and schemas used (prompt versions, docs/design.md §7).
    pub prompt_hash: String,
    /// The judge and the settings the run asked with, typed; `None` for a
    /// run built in memory, or recorded before runs had records and not
    /// convertible (its [`Run::record_note`] says why).
    pub record: Option<Box<super::RunRecord>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Queued,
    Running,
    Done,
    Failed,
    Cancelled,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Queued => "queued",
            RunStatus::Running => "running",
            RunStatus::Done => "done",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
        }
    }
    pub fn parse(s: &str) -> RunStatus {
        match s {
            "queued" => RunStatus::Queued,
            "running" => RunStatus::Running,
            "done" => RunStatus::Done,
            "cancelled" => RunStatus::Cancelled,
            _ => RunStatus::Failed,
        }
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A run as stored, with its counters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    pub id: i64,
    pub spec: RunSpec,
    pub status: RunStatus,
    pub created_at: String,
    pub finished_at: Option<String>,
    /// Combinations planned.
    pub total: u64,
    pub verdicts: u64,
    pub failures: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Of `prompt_tokens`, those the server answered from its prompt cache.
    pub cached_tokens: u64,
    /// HTTP requests sent, every attempt counted (retries, fallbacks, failures).
    pub requests: u64,
    /// Requests whose usage the server never reported: the token counts
    /// leave them out (unknown, not zero).
    pub usage_unknown: u64,
    /// Estimated cost in US dollars, when a price is known for the model.
    pub cost_usd: Option<f64>,
    /// Why the run stopped early, if it did.
    pub note: Option<String>,
    /// The structured path the run used and how answers really came back
    /// (e.g. `json_schema; 12 response_format`), when recorded.
    pub structured: Option<String>,
    /// Why a run recorded before runs had records has none (its old
    /// settings could not be read); `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_note: Option<String>,
}

/// A stored timestamp as the runs tables show it: `2026-11-24 04:00` (UTC),
/// or the text itself when it does not read as one.
pub fn utc_minute(s: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(s) {
        Ok(t) => t
            .with_timezone(&chrono::Utc)
            .format("%Y-%m-%d %H:%M")
            .to_string(),
        Err(_) => s.to_string(),
    }
}

impl Run {
    /// The prompt version as people know it: the folder the prompts came
    /// from with the start of the hash that identifies them,
    /// `prompts-v2 (34eb1475)`; `embedded (…)` for the built-in set; the
    /// hash alone when the run did not record where its prompts came from.
    /// Untrusted (a folder name): callers flatten it for display.
    pub fn prompt_version(&self) -> String {
        let hash: String = self.spec.prompt_hash.chars().take(8).collect();
        let origin = self.spec.record.as_ref().map(|r| match r.prompts_dir() {
            Some(d) => d.to_string_lossy().into_owned(),
            None => "embedded".to_string(),
        });
        let folder = origin.as_deref().map(|o| {
            let p = std::path::Path::new(o.trim_end_matches(['/', '\\']));
            // The AwAg prompts sit in the set's `awag/` folder: the set is
            // named by the folder above it.
            let p = match p.file_name().and_then(|f| f.to_str()) {
                Some("awag" | "rubric" | "proposition" | "guideline") => p.parent().unwrap_or(p),
                _ => p,
            };
            p.file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| o.to_string())
        });
        match folder {
            Some(f) if !f.is_empty() => format!("{f} ({hash})"),
            _ => hash,
        }
    }
}
