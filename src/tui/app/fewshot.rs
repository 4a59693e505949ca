//! The workbench's few-shot loop (`L`): examples from `train` labels, a run
//! on the held-out `test` items, the change it made. Plain data; the steps
//! are in `update::fewshot_loop`.

use super::RunPlan;
use crate::report::prompt_change::PromptChange;
use std::path::PathBuf;

/// Which run of the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopStage {
    /// The few-shot set on the test items.
    FewShot,
    /// The workbench's own prompts on the test items (the delta's baseline).
    Baseline,
}

/// A loop run planned and waiting for the user's yes: what the confirm step
/// shows and what starting it needs.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopReady {
    pub stage: LoopStage,
    /// The run, its items the held-out ones (with `by_owner`, those of the
    /// first owner persona).
    pub plan: RunPlan,
    /// Each item's owner is the choice: the runs of the other owner
    /// personas, one per persona.
    pub more: Vec<RunPlan>,
    pub by_owner: bool,
    /// The few-shot set's folder (also for a baseline: its examples' items
    /// are left out of the test items).
    pub dir: PathBuf,
    /// The few-shot set's prompt version.
    pub hash: String,
    /// The workbench's prompt version (the baseline's).
    pub base_hash: String,
    /// Examples in the set (every mode).
    pub examples: usize,
    /// Held-out items left out because an example shows them.
    pub left_out: usize,
    /// Requests the run will send (resume: what is already judged is skipped).
    pub requests: usize,
    /// Combinations already judged with these prompts (a cancelled run's).
    pub skipped: u64,
    /// The set was already there with these very examples.
    pub reused: bool,
}

impl LoopReady {
    /// Every run of this step.
    pub fn plans(&self) -> impl Iterator<Item = &RunPlan> {
        std::iter::once(&self.plan).chain(&self.more)
    }

    /// Held-out items over every run.
    pub fn items(&self) -> usize {
        self.plans().map(|p| p.item_ids.len()).sum()
    }

    /// Who the items are judged as: the persona, or each item's owner with
    /// how many items each persona has (`kenton 8, maren 5`).
    pub fn judged_as(&self) -> (bool, String) {
        let each: Vec<String> = self
            .plans()
            .filter(|p| !p.item_ids.is_empty())
            .map(|p| format!("{} {}", p.persona_id(), p.item_ids.len()))
            .collect();
        if self.by_owner {
            (true, each.join(", "))
        } else {
            (false, self.plan.persona_id().to_string())
        }
    }

    /// The prompt version this run judges with.
    pub fn run_hash(&self) -> &str {
        match self.stage {
            LoopStage::FewShot => &self.hash,
            LoopStage::Baseline => &self.base_hash,
        }
    }
}

/// The loop of this session: its set, its running run, the change it made.
#[derive(Debug, Clone, PartialEq)]
pub struct FewShotLoop {
    pub ready: LoopReady,
    /// The loop's runs going now (one per owner persona), if any.
    pub tags: Vec<u64>,
    /// The prompt-version changes on `test` the agreement view last loaded
    /// (`None` while they are computed).
    pub changes: Option<Vec<PromptChange>>,
}

/// The change the few-shot set made on `test`, as the view shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum LoopDelta {
    /// Still computing.
    Computing,
    /// No other prompt version judged the test items: a baseline run is needed.
    NeedsBaseline,
    /// Before → after (per judge and person).
    Found(Vec<DeltaLine>),
}

/// One judge's and person's change, oriented old prompts → few-shot set.
#[derive(Debug, Clone, PartialEq)]
pub struct DeltaLine {
    pub judge: String,
    pub person: String,
    /// The change's versions as shown: `prompts 4ad49c21 → 34eb1475`, or
    /// `embedded (4ad49c21) → prompts-v2 (34eb1475)` where they have names.
    pub versions: String,
    pub n: usize,
    pub kappa_before: Option<f64>,
    /// κ after, with its interval (or why it has none).
    pub kappa_after: crate::analytics::Figure,
    /// The paired change in κ, with its interval (or why it has none).
    pub delta: crate::analytics::Figure,
}

fn prefix(h: &str) -> String {
    h.chars().take(8).collect()
}

/// The two versions as the loop's line names them: `prompts 4ad49c21 →
/// 34eb1475`, or by name where runs recorded their folders
/// (`embedded (4ad49c21) → prompts-v2 (34eb1475)`).
fn shown(from: (&str, &Option<String>), to: (&str, &Option<String>)) -> String {
    crate::report::prompt_change::versions_text(
        (&prefix(from.0), from.1.as_deref()),
        (&prefix(to.0), to.1.as_deref()),
    )
}

impl FewShotLoop {
    /// The few-shot set's change, from the changes the report found on `test`:
    /// any earlier version → the set, or, when the baseline was judged after
    /// the set (a baseline run asked for by the view), set → baseline turned
    /// around.
    pub fn delta(&self) -> LoopDelta {
        let Some(changes) = &self.changes else {
            return LoopDelta::Computing;
        };
        let (fs, base) = (prefix(&self.ready.hash), prefix(&self.ready.base_hash));
        let mut lines = Vec::new();
        // A change on no combination both versions judged is no delta: the
        // baseline run on the same held-out items is what can give one.
        for c in changes.iter().filter(|c| c.paired.n > 0) {
            let line = if prefix(&c.to) == fs {
                DeltaLine {
                    judge: c.judge.clone(),
                    person: c.person.clone(),
                    versions: shown((&c.from, &c.from_version), (&c.to, &c.to_version)),
                    n: c.paired.n,
                    kappa_before: c.paired.kappa_from.value,
                    kappa_after: c.paired.kappa_to,
                    delta: c.paired.delta_kappa,
                }
            } else if prefix(&c.from) == fs && prefix(&c.to) == base {
                DeltaLine {
                    judge: c.judge.clone(),
                    person: c.person.clone(),
                    versions: shown((&c.to, &c.to_version), (&c.from, &c.from_version)),
                    n: c.paired.n,
                    kappa_before: c.paired.kappa_to.value,
                    kappa_after: c.paired.kappa_from,
                    delta: crate::analytics::Figure {
                        value: c.paired.delta_kappa.value.map(|d| -d),
                        ci95: c.paired.delta_kappa.ci95.map(|[a, b]| [-b, -a]),
                        ..c.paired.delta_kappa
                    },
                }
            } else {
                continue;
            };
            lines.push(line);
        }
        if lines.is_empty() {
            LoopDelta::NeedsBaseline
        } else {
            LoopDelta::Found(lines)
        }
    }

    /// Whether the view should offer the baseline run.
    pub fn needs_baseline(&self) -> bool {
        self.delta() == LoopDelta::NeedsBaseline
    }
}
