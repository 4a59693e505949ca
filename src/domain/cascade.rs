//! A cascade of judges run by `jury run --cascade A,B[,C]`: what each
//! stage was asked, what it cost and what it kept, as one typed, versioned
//! value. The cascade is a run of its own (no verdicts: each stage's
//! verdicts are in the runs that asked for them, which the ledger counts
//! once); this record is kept in its `runs.params`, as an imported run's
//! origin is.

use serde::{Deserialize, Serialize};

/// The record's layout version; bump it when a field changes meaning.
pub const CASCADE_RECORD_VERSION: u32 = 1;

/// The model name a cascade's own run carries: `cascade: A → B`.
pub const CASCADE_MODEL_PREFIX: &str = "cascade: ";

/// The whole cascade.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CascadeRecord {
    pub version: u32,
    /// The guarantee asked: kept verdicts agree with people at ≥ 1 − α with
    /// probability ≥ 1 − δ, each stage calibrated at δ / stages.
    pub alpha: f64,
    pub delta: f64,
    pub min_calibration: usize,
    /// Combinations in the run's scope (items × classifications ×
    /// perspectives of its persona).
    pub combinations: u64,
    pub stages: Vec<CascadeStage>,
    /// Combinations no stage keeps: they need a person (`None` until the
    /// last stage is calibrated).
    pub people: Option<u64>,
}

/// Where a stage's verdicts come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum StageSource {
    /// A model asked through the run's endpoint, or the server named with it.
    Model {
        model: String,
        server: Option<String>,
    },
    /// A source `jury import` brought in: its verdicts exist; nothing is asked.
    Imported { judge: String },
}

/// One stage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CascadeStage {
    /// As given to `--cascade`.
    pub given: String,
    pub source: StageSource,
    /// The judge as the report names it, once it has verdicts.
    pub judge: Option<String>,
    /// The runs that asked this stage's questions for this cascade.
    pub runs: Vec<i64>,
    /// Combinations its runs judged (verdicts written), those it had a
    /// verdict on already when last planned (not asked again), and those
    /// earlier stages kept (never asked).
    pub judged: u64,
    pub reused: u64,
    pub kept_before: u64,
    /// What its runs cost, as the ledger counts them; `usage_unknown`:
    /// requests whose usage the server never reported (left out of the
    /// token counts: unknown, not zero).
    pub requests: u64,
    #[serde(default)]
    pub usage_unknown: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// `None`: no price is known for the model (or nothing was asked).
    pub cost_usd: Option<f64>,
    /// Combinations of the scope this stage keeps (`None`: not calibrated yet).
    pub kept: Option<u64>,
    /// Per classification and perspective, its threshold (`None`: keeps
    /// nothing there).
    pub thresholds: Vec<StageThreshold>,
}

/// One stage's threshold in one classification and perspective.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageThreshold {
    pub classification: String,
    pub perspective: String,
    pub threshold: Option<f64>,
}

impl CascadeRecord {
    /// The cascade run's one-line note: per stage what it kept and cost.
    pub fn note(&self) -> String {
        let stages: Vec<String> = self
            .stages
            .iter()
            .map(|s| {
                let kept = s
                    .kept
                    .map_or("not calibrated".to_string(), |k| format!("kept {k}"));
                let cost = s.cost_usd.map_or(String::new(), |c| format!(", ${c:.4}"));
                format!(
                    "{}: judged {}, {kept}, {} tokens{cost}",
                    s.given,
                    s.judged,
                    s.prompt_tokens + s.completion_tokens
                )
            })
            .collect();
        let people = self
            .people
            .map_or(String::new(), |p| format!("; people {p}"));
        format!(
            "cascade of {} combinations: {}{people}",
            self.combinations,
            stages.join("; ")
        )
    }
}
