//! What the HTML page carries beyond the report's figures, read from the
//! store only when a page is written (the table, JSON and CSV never pay for
//! it): where the figures come from, and the verdicts people disagree with.

use super::Report;
use super::disagreements::{self, Disagreements};
use crate::domain::Run;
use crate::store::Store;

/// Runs listed in the provenance, the newest; the rest are counted.
pub const MAX_RUNS: usize = 300;

/// The page's extras (see the module).
#[derive(Debug, Clone, Default)]
pub struct Page {
    pub provenance: Provenance,
    pub disagreements: Disagreements,
}

/// Where a report's figures come from: enough to tell two shared pages apart
/// and to make the same one again.
#[derive(Debug, Clone, Default)]
pub struct Provenance {
    /// jury's version.
    pub version: String,
    /// When the page was made (UTC, the store's timestamp format).
    pub made_at: String,
    /// The store's path.
    pub store: String,
    /// The newest [`MAX_RUNS`] runs, newest first.
    pub runs: Vec<Run>,
    pub runs_total: usize,
    /// The workspace's held-out split, if one was made.
    pub split: Option<SplitNote>,
    /// The bootstrap seed and the resamples asked for (`None`: automatic).
    pub seed: u64,
    pub resamples: Option<usize>,
}

/// The held-out split as the provenance states it.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitNote {
    pub holdout: f64,
    pub seed: u64,
    pub created_at: String,
    /// Items fixed when it was made, `[train, test]`.
    pub items: [usize; 2],
}

impl Page {
    /// Reads what the page needs besides `report` (made with `seed` and
    /// `resamples`) from `store`.
    pub fn gather(
        store: &Store,
        report: &Report,
        seed: u64,
        resamples: Option<usize>,
    ) -> crate::store::Result<Page> {
        let mut runs = store.runs()?;
        let runs_total = runs.len();
        runs.sort_by_key(|r| std::cmp::Reverse(r.id));
        runs.truncate(MAX_RUNS);
        let split = store.split()?.map(|s| SplitNote {
            holdout: s.rule.holdout,
            seed: s.rule.seed,
            created_at: s.created_at.clone(),
            items: s.fixed_items(),
        });
        Ok(Page {
            provenance: Provenance {
                version: env!("CARGO_PKG_VERSION").to_string(),
                made_at: crate::store::now(),
                store: store.path().display().to_string(),
                runs,
                runs_total,
                split,
                seed,
                resamples,
            },
            disagreements: disagreements::gather(&report.pairs, store)?,
        })
    }
}
