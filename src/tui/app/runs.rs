//! The run tracker: the runs this session started (progress, notes), the
//! judge texts streaming in, and what a new run needs (endpoint, prompts).

use crate::domain::{ComboKey, Mode};
use crate::engine::Progress;
use crate::protocol::{JudgeSpec, SpecRefusal};
use crate::sanitize;
use std::collections::HashMap;
use std::sync::Arc;

/// How much of a judge text is kept for display.
pub(crate) const MAX_VERDICT_CHARS: usize = 4_000;

/// Text of one combination as it streams in.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stream {
    pub tag: u64,
    /// Sanitised for display.
    pub text: String,
    /// The raw text already sanitised into `text` (the engine sends the whole
    /// text so far; only the new suffix is sanitised).
    pub raw: String,
    pub raw_chars: usize,
    pub truncated: bool,
}

impl Stream {
    pub(crate) fn new(tag: u64) -> Stream {
        Stream {
            tag,
            ..Default::default()
        }
    }

    /// Takes the whole text so far; sanitises only what is new when it
    /// extends what was seen, else starts over.
    pub(crate) fn set(&mut self, full: &str) {
        if !full.starts_with(self.raw.as_str()) {
            let tag = self.tag;
            *self = Stream::new(tag);
        }
        if self.truncated {
            return;
        }
        let suffix = &full[self.raw.len()..];
        let room = MAX_VERDICT_CHARS - self.raw_chars;
        let n = suffix.chars().take(room + 1).count();
        self.text.push_str(&sanitize::for_display(suffix, room));
        self.truncated = n > room;
        self.raw_chars += n.min(room);
        self.raw.push_str(suffix);
    }
}

/// A run this session started.
#[derive(Debug, Clone, PartialEq)]
pub struct ActiveRun {
    pub tag: u64,
    pub run_id: Option<i64>,
    pub protocol: crate::domain::Protocol,
    /// The AwAg mode; other protocols have none.
    pub mode: Option<Mode>,
    pub items: usize,
    pub progress: Progress,
    pub finished: bool,
    /// Asked to stop (it finishes as cancelled, keeping its verdicts).
    pub cancelled: bool,
    pub note: Option<String>,
    /// How it ended, once it has.
    pub ended: Option<crate::domain::RunStatus>,
    /// Sent as a batch: where the batch stands on the server, as the last
    /// look found it (`None` until the first look, and for streamed runs).
    pub batch: Option<crate::engine::BatchProgress>,
}

impl ActiveRun {
    /// How it ended, in the words the end message and the status bar's
    /// "last run" both use: `run 7 done: 8/10 verdicts, 2 failed`.
    pub fn outcome(&self) -> Option<String> {
        let status = self.ended?;
        let p = &self.progress;
        Some(crate::tui::strings::msg::run_outcome(
            &crate::tui::strings::popup::run_name(self.run_id, self.tag),
            status.as_str(),
            p.verdicts,
            p.total.max(p.done()),
            p.failed,
        ))
    }

    /// Combinations not yet judged or failed; `None` before the engine has
    /// planned the run.
    pub fn left(&self) -> Option<u64> {
        let p = &self.progress;
        (p.total > 0 || self.run_id.is_some()).then(|| p.total.saturating_sub(p.done()))
    }
}

/// What a judge run should cover (turned into the engine's `RunRequest`).
#[derive(Debug, Clone, PartialEq)]
pub struct RunPlan {
    /// The judge and what it asks, built once from the workbench's choices
    /// by its protocol's constructor (the one `jury run` uses): AwAg for
    /// content items; rubric examples and conversations with their own
    /// protocol (default dimensions / their guidelines); a claim's settings.
    pub spec: JudgeSpec,
    /// How structured answers are asked for; `None` is auto.
    pub structured: Option<crate::provider::ToolMode>,
    pub item_ids: Vec<String>,
    /// Skip combinations already judged with the same settings (`jury run
    /// --resume`'s rule); false only when the user chose to re-judge.
    pub resume: bool,
    /// Sent as one Batch API batch whose status is read this often (half
    /// the price, answers within a day); `None`: streamed requests.
    pub batch: Option<std::time::Duration>,
}

impl RunPlan {
    pub fn protocol(&self) -> crate::domain::Protocol {
        self.spec.protocol()
    }

    /// The AwAg mode; other protocols have none.
    pub fn mode(&self) -> Option<Mode> {
        self.spec.mode()
    }

    /// The persona id its verdicts are recorded under.
    pub fn persona_id(&self) -> &str {
        self.spec.persona_id()
    }

    /// The spec a workbench run of `protocol` asks, from the choices: AwAg
    /// in `mode`, as `persona`, from `perspectives`; the other protocols with
    /// their defaults (rubric: relevance and tone; guideline: each
    /// conversation's own guidelines), for no one. A proposition asks a
    /// claim, which the choices do not hold: its spec is built from the
    /// claim's settings ([`JudgeSpec::proposition`]).
    pub fn spec_for(
        protocol: crate::domain::Protocol,
        mode: Mode,
        persona: &str,
        perspectives: Vec<String>,
    ) -> Result<JudgeSpec, SpecRefusal> {
        use crate::domain::{PersonaRef, Protocol};
        match protocol {
            Protocol::Awag => JudgeSpec::awag(mode, persona, perspectives),
            Protocol::Rubric => JudgeSpec::rubric(Vec::new(), true, PersonaRef::None),
            Protocol::Guideline => Ok(JudgeSpec::guideline(PersonaRef::None)),
            Protocol::Proposition => Err(SpecRefusal::NoClaim),
        }
    }

    /// The claim a proposition run asks (None for the other protocols).
    pub fn claim(&self) -> Option<&crate::protocol::proposition::Settings> {
        match &self.spec {
            JudgeSpec::Proposition { settings, .. } => Some(settings),
            _ => None,
        }
    }
}

/// What a run would send, counted by the engine's own planning.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RunCount {
    pub items: usize,
    /// Combinations it would judge (a request holds several).
    pub combos: u64,
    pub requests: usize,
    /// Combinations left out because they are already judged.
    pub skipped: u64,
    /// The most it can cost from the price table; `None`: the model has no price.
    pub cost_usd: Option<f64>,
    /// The same sent as one batch, at the batch price.
    pub batch_cost_usd: Option<f64>,
}

/// A run `R` would start: judging what is missing, or everything again.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedRun {
    pub plan: RunPlan,
    pub missing: RunCount,
    pub all: RunCount,
}

pub struct RunTracker {
    pub active: Vec<ActiveRun>,
    pub streams: HashMap<ComboKey, Stream>,
    pub next_tag: u64,
    pub spinner: u8,
    /// Every run marked running in the store, this session's or not (the
    /// store watcher's last word).
    pub running: Vec<crate::store::RunningRun>,
    pub model: String,
    /// Why judging is impossible (no endpoint configured), if it is.
    pub endpoint_error: Option<String>,
    /// The prompt set runs use (for the prompt view).
    pub prompts: Arc<crate::prompt::PromptSet>,
    /// Model and parameters for the prompt view's request body (no key).
    pub preview_cfg: crate::provider::ProviderConfig,
    /// The few-shot loop (`L`) of this session, once one was started.
    pub fewshot: Option<super::FewShotLoop>,
    /// The run that ended last (its tag): the status bar's "last run".
    pub last_ended: Option<u64>,
}

impl RunTracker {
    pub fn new(model: &str) -> RunTracker {
        RunTracker {
            active: Vec::new(),
            streams: HashMap::new(),
            next_tag: 1,
            spinner: 0,
            running: Vec::new(),
            model: model.to_string(),
            endpoint_error: None,
            prompts: Arc::new(crate::prompt::PromptSet::embedded()),
            preview_cfg: crate::provider::ProviderConfig::new(
                "http://127.0.0.1/v1".to_string(),
                model.to_string(),
            ),
            fewshot: None,
            last_ended: None,
        }
    }

    /// The run that ended last, if any did.
    pub fn last_ended(&self) -> Option<&ActiveRun> {
        let tag = self.last_ended?;
        self.active.iter().find(|r| r.tag == tag)
    }

    pub fn running(&self) -> bool {
        self.active.iter().any(|r| !r.finished)
    }

    /// Session cost: the sum of this session's runs.
    pub fn cost(&self) -> Option<f64> {
        let costs: Vec<f64> = self
            .active
            .iter()
            .filter_map(|r| r.progress.cost_usd)
            .collect();
        (!costs.is_empty()).then(|| costs.iter().sum())
    }

    /// A new tag for a run to start.
    pub fn take_tag(&mut self) -> u64 {
        let tag = self.next_tag;
        self.next_tag += 1;
        tag
    }
}
