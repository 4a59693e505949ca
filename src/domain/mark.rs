//! "Come back later": a row a person marked `unsure` or `skip`, with a note
//! and no label. A mark is never a label: nothing that counts labels
//! (progress, agreement, reports, trust, exports' label columns) reads it.

use super::ComboKey;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkKind {
    /// Not sure what the label should be.
    Unsure,
    /// Left for later without a judgement.
    Skip,
}

impl MarkKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MarkKind::Unsure => "unsure",
            MarkKind::Skip => "skip",
        }
    }

    pub fn parse(s: &str) -> Option<MarkKind> {
        match s {
            "unsure" => Some(MarkKind::Unsure),
            "skip" => Some(MarkKind::Skip),
            _ => None,
        }
    }
}

/// A person's current mark on a row (combination and persona).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowMark {
    pub key: ComboKey,
    pub persona_id: String,
    pub who: String,
    pub mark: MarkKind,
    pub note: String,
    pub created_at: String,
}

/// Tags as the store keeps them: sorted, comma-separated.
pub fn join_tags(tags: &[String]) -> String {
    let mut t: Vec<&str> = tags.iter().map(String::as_str).collect();
    t.sort_unstable();
    t.dedup();
    t.join(",")
}

/// The stored form back as a list ('' is none).
pub fn split_tags(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}
