//! The session as it is kept (see `update::session`, which captures,
//! restores and keeps it) and when it was last kept.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionState {
    /// The persona picked (judges items without an owner when `by_owner`).
    pub persona: Option<String>,
    /// Each item judged as its owner ("each item's owner" in the picker);
    /// `None` in sessions kept before owners existed.
    pub by_owner: Option<bool>,
    /// A perspective id, or `update::session::ALL_PERSPECTIVES`.
    pub perspective: Option<String>,
    pub mode: Option<u8>,
    pub filter: Option<String>,
    pub search: String,
    pub order: Option<String>,
    pub blind: bool,
    pub compare_axis: Option<String>,
    /// The agreement view's side of the held-out split (`test`, `train`;
    /// `None`: all pairs).
    pub split: Option<String>,
    /// The selected item's id.
    pub item: Option<String>,
}

/// When the session was last kept, and whether keys have changed it since.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionTracker {
    pub kept: Option<SessionState>,
    /// A key came since the last keep (the loop ticks until it is kept).
    pub touched: bool,
    pub idle_ticks: u32,
}

impl SessionTracker {
    pub fn wants_tick(&self) -> bool {
        self.touched
    }
}
