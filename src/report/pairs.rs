//! Pairing what the store holds into comparisons: judge vs human, human vs
//! human, mode vs mode, persona vs persona, model vs model, prompt version vs
//! prompt version and run vs run (test-retest). Values on different scales are
//! compared on the agreement reading (Likert ≥4 AGREE, ≤2 DISAGREE, 3 undecided
//! and counted apart).

use crate::domain::{ComboKey, Label, Mode, Run, Value, Verdict};
use std::collections::{BTreeMap, HashMap};

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
}

impl Comparison {
    pub const ALL: [Comparison; 7] = [
        Comparison::JudgeVsHuman,
        Comparison::HumanVsHuman,
        Comparison::ModeVsMode,
        Comparison::PersonaVsPersona,
        Comparison::ModelVsModel,
        Comparison::PromptVsPrompt,
        Comparison::RunVsRun,
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
        }
    }
}

/// What a pair is about, for grouping (`--by`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PairContext {
    pub key: ComboKey,
    pub persona: String,
    pub mode: Option<Mode>,
    pub model: String,
}

/// One compared pair: who/what is on each side, and their values.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub ctx: PairContext,
    /// e.g. "mode 2 · gpt-4o-mini" vs "alice".
    pub left: String,
    pub right: String,
    pub a: Value,
    pub b: Value,
}

/// A verdict with what identifies its judge.
#[derive(Debug, Clone)]
struct Judged {
    v: Verdict,
    prompt_hash: String,
}

/// Pairs for every comparison, from all verdicts, labels and runs.
pub fn build(
    verdicts: Vec<Verdict>,
    labels: &[Label],
    runs: &[Run],
) -> BTreeMap<Comparison, Vec<Pair>> {
    let prompt_of: HashMap<i64, String> = runs
        .iter()
        .map(|r| (r.id, r.spec.prompt_hash.clone()))
        .collect();
    // The latest verdict per (judge configuration, combination) stands for that judge.
    let mut latest: HashMap<(String, Option<Mode>, String, String, ComboKey, String), Judged> =
        HashMap::new();
    let mut all_by_key: HashMap<(ComboKey, String), Vec<Judged>> = HashMap::new();
    for v in verdicts {
        let prompt_hash = prompt_of.get(&v.run_id).cloned().unwrap_or_default();
        let j = Judged { v, prompt_hash };
        all_by_key
            .entry((j.v.key.clone(), j.v.persona_id.clone()))
            .or_default()
            .push(j.clone());
        latest.insert(
            (
                j.v.protocol.as_str().to_string(),
                j.v.mode,
                j.v.model.clone(),
                j.prompt_hash.clone(),
                j.v.key.clone(),
                j.v.persona_id.clone(),
            ),
            j,
        );
    }
    let mut out: BTreeMap<Comparison, Vec<Pair>> = BTreeMap::new();
    let judge_name = |j: &Judged| match j.v.mode {
        Some(m) => format!("{} mode {} · {}", j.v.protocol, m, j.v.model),
        None => format!("{} · {}", j.v.protocol, j.v.model),
    };
    let ctx = |j: &Judged| PairContext {
        key: j.v.key.clone(),
        persona: j.v.persona_id.clone(),
        mode: j.v.mode,
        model: j.v.model.clone(),
    };

    // Judge vs human: every standing verdict against every label on the same
    // combination and persona.
    let mut labels_by_key: HashMap<(ComboKey, String), Vec<&Label>> = HashMap::new();
    for l in labels {
        labels_by_key
            .entry((l.key.clone(), l.persona_id.clone()))
            .or_default()
            .push(l);
    }
    let mut standing: Vec<&Judged> = latest.values().collect();
    standing.sort_by(|a, b| (&a.v.key, a.v.run_id).cmp(&(&b.v.key, b.v.run_id)));
    for j in &standing {
        for l in labels_by_key
            .get(&(j.v.key.clone(), j.v.persona_id.clone()))
            .into_iter()
            .flatten()
        {
            // Prefer a label on the verdict's own scale when the person gave both.
            let same_scale_exists = labels_by_key[&(j.v.key.clone(), j.v.persona_id.clone())]
                .iter()
                .any(|o| o.who == l.who && o.value.scale() == j.v.value.scale());
            if same_scale_exists && l.value.scale() != j.v.value.scale() {
                continue;
            }
            out.entry(Comparison::JudgeVsHuman).or_default().push(Pair {
                ctx: ctx(j),
                left: judge_name(j),
                right: l.who.clone(),
                a: j.v.value,
                b: l.value,
            });
        }
    }

    // Human vs human: two people, same combination, persona and scale.
    let mut keys: Vec<&(ComboKey, String)> = labels_by_key.keys().collect();
    keys.sort();
    for k in keys {
        let ls = &labels_by_key[k];
        for (i, a) in ls.iter().enumerate() {
            for b in &ls[i + 1..] {
                if a.who != b.who && a.value.scale() == b.value.scale() {
                    let (a, b) = if a.who <= b.who { (a, b) } else { (b, a) };
                    out.entry(Comparison::HumanVsHuman).or_default().push(Pair {
                        ctx: PairContext {
                            key: k.0.clone(),
                            persona: k.1.clone(),
                            mode: None,
                            model: String::new(),
                        },
                        left: a.who.clone(),
                        right: b.who.clone(),
                        a: a.value,
                        b: b.value,
                    });
                }
            }
        }
    }

    // Judge vs judge: standing verdicts on the same combination that differ in
    // exactly one respect. Grouped by combination first: pairing is then linear
    // in the number of verdicts, not quadratic.
    let mut by_combo: BTreeMap<&ComboKey, Vec<&Judged>> = BTreeMap::new();
    for j in &standing {
        by_combo.entry(&j.v.key).or_default().push(j);
    }
    for same in by_combo.values() {
        for (i, a) in same.iter().enumerate() {
            for b in &same[i + 1..] {
                if a.v.protocol != b.v.protocol {
                    continue;
                }
                let same_persona = a.v.persona_id == b.v.persona_id;
                let same_mode = a.v.mode == b.v.mode;
                let same_model = a.v.model == b.v.model;
                let same_prompt = a.prompt_hash == b.prompt_hash;
                let which = match (same_persona, same_mode, same_model, same_prompt) {
                    (true, false, true, _) => Comparison::ModeVsMode,
                    (false, true, true, true) => Comparison::PersonaVsPersona,
                    (true, true, false, true) => Comparison::ModelVsModel,
                    (true, true, true, false) => Comparison::PromptVsPrompt,
                    _ => continue,
                };
                let (a, b) = order(a, b, which);
                let (la, lb) = match which {
                    Comparison::PersonaVsPersona => {
                        (a.v.persona_id.clone(), b.v.persona_id.clone())
                    }
                    Comparison::PromptVsPrompt => (
                        format!("prompts {}", a.prompt_hash),
                        format!("prompts {}", b.prompt_hash),
                    ),
                    _ => (judge_name(a), judge_name(b)),
                };
                out.entry(which).or_default().push(Pair {
                    ctx: ctx(a),
                    left: la,
                    right: lb,
                    a: a.v.value,
                    b: b.v.value,
                });
            }
        }
    }

    // Run vs run (test-retest): the same judge configuration run twice.
    let mut groups: Vec<&(ComboKey, String)> = all_by_key.keys().collect();
    groups.sort();
    for g in groups {
        let js = &all_by_key[g];
        for (i, a) in js.iter().enumerate() {
            for b in &js[i + 1..] {
                if a.v.run_id != b.v.run_id
                    && a.v.protocol == b.v.protocol
                    && a.v.mode == b.v.mode
                    && a.v.model == b.v.model
                    && a.prompt_hash == b.prompt_hash
                {
                    out.entry(Comparison::RunVsRun).or_default().push(Pair {
                        ctx: ctx(a),
                        left: format!("run {}", a.v.run_id),
                        right: format!("run {}", b.v.run_id),
                        a: a.v.value,
                        b: b.v.value,
                    });
                }
            }
        }
    }
    out
}

/// A stable order inside a pair (lower mode / name first) so labels read the same every time.
fn order<'a>(a: &'a Judged, b: &'a Judged, which: Comparison) -> (&'a Judged, &'a Judged) {
    let swap = match which {
        Comparison::ModeVsMode => a.v.mode > b.v.mode,
        Comparison::PersonaVsPersona => a.v.persona_id > b.v.persona_id,
        Comparison::ModelVsModel => a.v.model > b.v.model,
        Comparison::PromptVsPrompt => a.prompt_hash > b.prompt_hash,
        _ => false,
    };
    if swap { (b, a) } else { (a, b) }
}
