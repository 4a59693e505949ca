//! Pairing what the store holds into comparisons: judge vs human, human vs
//! human, mode vs mode, persona vs persona, model vs model, prompt version vs
//! prompt version and run vs run (test-retest). Values on different scales are
//! compared on the agreement reading (Likert ≥4 AGREE, ≤2 DISAGREE, 3 undecided
//! and counted apart).

mod builder;
mod pairing;
mod reference;

pub use builder::{Builder, Confident, LabelReading, PARALLEL_READ_MIN, Readings};

/// The right side of every judge-vs-reference pair.
pub const REFERENCE: &str = "reference";

use crate::domain::{ComboKey, Mode, Protocol, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Which comparison a set of pairs belongs to (the JSON contract's keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Comparison {
    JudgeVsHuman,
    HumanVsHuman,
    ModeVsMode,
    PersonaVsPersona,
    ModelVsModel,
    PromptVsPrompt,
    RunVsRun,
    /// Each standing verdict against the combination's reference label: the
    /// adjudicated one where an adjudicator gave it, else the people's
    /// majority (a tie is left out). Made once the store holds an
    /// adjudication (before, judge vs human says the same person by person).
    JudgeVsReference,
}

impl Comparison {
    pub const ALL: [Comparison; 8] = [
        Comparison::JudgeVsHuman,
        Comparison::HumanVsHuman,
        Comparison::ModeVsMode,
        Comparison::PersonaVsPersona,
        Comparison::ModelVsModel,
        Comparison::PromptVsPrompt,
        Comparison::RunVsRun,
        Comparison::JudgeVsReference,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Comparison::JudgeVsHuman => "judge_vs_human",
            Comparison::HumanVsHuman => "human_vs_human",
            Comparison::ModeVsMode => "mode_vs_mode",
            Comparison::PersonaVsPersona => "persona_vs_persona",
            Comparison::ModelVsModel => "model_vs_model",
            Comparison::PromptVsPrompt => "prompt_vs_prompt",
            Comparison::RunVsRun => "run_vs_run",
            Comparison::JudgeVsReference => "judge_vs_reference",
        }
    }
}

/// What a pair is about, for grouping (`--by`). Shared, not copied: a
/// report over a million verdicts holds millions of pairs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PairContext {
    pub key: Arc<ComboKey>,
    /// The judge's protocol (human-vs-human pairs: the protocol the
    /// labels' perspective names, AwAg otherwise).
    pub protocol: Protocol,
    pub persona: Arc<str>,
    pub mode: Option<Mode>,
    pub model: Arc<str>,
    /// The run of the verdict on the pair's left side (`None` for two
    /// people): a drill-down shows the very verdict a figure counted.
    pub run: Option<i64>,
}

/// One compared pair: who/what is on each side, and their values.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub ctx: PairContext,
    /// e.g. "awag mode 2 · gpt-4o-mini" vs "alice".
    pub left: Arc<str>,
    pub right: Arc<str>,
    pub a: Value,
    pub b: Value,
}

/// One judge configuration: what must match for two verdicts to come from
/// "the same judge".
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Judge {
    protocol: Protocol,
    mode: Option<Mode>,
    model: u32,
    prompt: u32,
}

/// A verdict reduced to ids (24 bytes): what pairing needs.
#[derive(Debug, Clone, Copy)]
struct Judged {
    judge: u32,
    combo: u32,
    persona: u32,
    run_id: i64,
    value: Value,
    /// Place in its request, 0 (first) to 1 (last); None for single-item requests.
    rel: Option<f32>,
    /// The stored confidence, if any, and where it came from.
    conf: Option<f64>,
    conf_source: crate::domain::ConfidenceSource,
}

/// One judge's verdicts placed in multi-item requests, for the position-bias
/// figures: every placed verdict, and the combinations judged at more than
/// one place (each as its verdicts in run order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PositionSeries {
    pub judge: Arc<str>,
    pub placed: Vec<(f32, Value)>,
    pub repeats: Vec<Vec<(f32, Value)>>,
}

/// Every comparison's pairs.
pub type PairsByComparison = BTreeMap<Comparison, Vec<Pair>>;

#[cfg(test)]
mod confidence_tests;
