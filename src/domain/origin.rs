//! Where a run's verdicts came from when `jury import` made it from another
//! tool's or store's file (issue #34): the run's origin, typed, kept with
//! the run (`runs.params`, a JSON field runs no longer use for their own
//! settings: no migration) rather than on each verdict.

use serde::{Deserialize, Serialize};

/// Where an imported run's verdicts came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportOrigin {
    /// The source as the file names it (`judge`, else `model`).
    pub judge: String,
    /// The file as given to `jury import`.
    pub file: String,
    /// Its SHA-256 (hex): the same bytes are imported once.
    pub sha256: String,
    /// The run the rows carried (`run_id`), when they did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_run_id: Option<i64>,
}

impl ImportOrigin {
    /// The run's note: what `jury runs` and the workbench show.
    pub fn note(&self) -> String {
        format!("imported from {} (judge {})", self.file, self.judge)
    }

    /// The file's name without its folders (`theirs.csv`), as the verdict
    /// pane shows it.
    pub fn file_name(&self) -> &str {
        std::path::Path::new(&self.file)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(&self.file)
    }
}
