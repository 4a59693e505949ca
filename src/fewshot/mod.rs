//! Few-shot prompt sets from people's corrections (issue "Close the loop"):
//! worked examples chosen from `train` labels only, written into a copy of a
//! prompt set, with a manifest saying where each example came from.
//!
//! Choice, per AwAg mode: the labels of the items on the `train` side of
//! the workspace's split (made by item, so no held-out item's text is ever
//! an example) whose value the mode can show (Likert 1–5 for modes 1 and 2; AGREE /
//! DISAGREE for mode 3, where a Likert label of 4–5 reads as AGREE and 1–2 as
//! DISAGREE), one per (item, classification). Labels where the judge said
//! something else come first (they are what the judge gets wrong), then the
//! rest in the split's hash order; the k examples are taken round-robin over
//! (classification, value) so every classification and every value is shown
//! before any is shown twice.

pub mod guideline;
mod render;
pub mod workbench;
mod write;

pub use render::example_block;
pub use write::{WriteError, Written, write_set};

use crate::domain::{Label, Mode, Scale, Side, Value};
use crate::store::{Split, Store};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet};

/// One chosen example: the person's label and what it shows.
#[derive(Debug, Clone, Serialize)]
pub struct Example {
    #[serde(rename = "itemId")]
    pub item_id: String,
    #[serde(rename = "classificationId")]
    pub classification_id: String,
    #[serde(rename = "perspectiveId")]
    pub perspective_id: String,
    #[serde(rename = "personaId")]
    pub persona_id: String,
    pub who: String,
    #[serde(rename = "createdAt")]
    pub created_at: String,
    /// The value the example's answer gives (in the mode's own scale).
    pub value: serde_json::Value,
    /// The person's note, the example answer's text when there is one.
    #[serde(skip)]
    pub note: String,
    /// The judge's value in this mode when it differed from the person's.
    #[serde(rename = "judgeSaid", skip_serializing_if = "Option::is_none")]
    pub judge_said: Option<serde_json::Value>,
    /// Always `train` (a `test` label is never an example).
    pub split: &'static str,
}

/// Why no few-shot set can be made.
#[derive(Debug, thiserror::Error)]
pub enum FewShotError {
    #[error(
        "this workspace has no held-out split: examples may only come from `train` labels, so make one first (`jury split --holdout 0.3 --seed 1`)"
    )]
    NoSplit,
    #[error(
        "the stored split was made by (item, classification) pair: {count} item(s) have pairs on both sides (e.g. {example}), \
         so an example could show an item that is also scored as held-out. `jury split --replace --holdout {holdout} --seed {seed}` remakes it by item"
    )]
    PairLevelSplit {
        count: usize,
        example: String,
        holdout: f64,
        seed: u64,
    },
    #[error("--k must be at least 1")]
    NoK,
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

/// The value a label shows in `mode`, if it can show one there.
fn value_in(mode: Mode, v: Value) -> Option<Value> {
    match (mode, v) {
        (Mode::One | Mode::Two, Value::Likert(_)) => Some(v),
        (Mode::Three, Value::Agreement(_)) => Some(v),
        (Mode::Three, Value::Likert(n)) if n >= 4 => {
            Some(Value::Agreement(crate::domain::Agreement::Agree))
        }
        (Mode::Three, Value::Likert(n)) if n <= 2 => {
            Some(Value::Agreement(crate::domain::Agreement::Disagree))
        }
        _ => None,
    }
}

/// Whether a label is on an AwAg perspective (the other protocols' labels
/// have their own perspectives and shapes).
fn is_awag(l: &Label) -> bool {
    crate::domain::Protocol::of_perspective(&l.key.perspective_id) == crate::domain::Protocol::Awag
}

/// (item, classification, perspective, persona).
type LabelKey = (String, String, String, String);
/// The judge's latest value per label key and mode (`None`: other protocols).
type Judged = HashMap<(String, String, String, String, Option<Mode>), Value>;

/// Up to `k` examples per mode from the `train` labels of `store`.
pub fn choose(store: &Store, k: usize) -> Result<BTreeMap<Mode, Vec<Example>>, FewShotError> {
    if k == 0 {
        return Err(FewShotError::NoK);
    }
    let split = item_level_split(store)?;
    let labels = train_labels(store, &split, is_awag)?;
    let judged = judged_values(store, &labels)?;
    let mut out = BTreeMap::new();
    for mode in Mode::ALL {
        let fit = |v: Value| value_in(mode, v);
        let chosen = choose_for(&fit, Some(mode), &labels, &judged, &split, k);
        out.insert(mode, chosen);
    }
    Ok(out)
}

/// Up to `k` guideline examples from the `train` labels on the guideline
/// perspective. Only `no` and `fully` can be shown: the answer shape needs
/// `guideline_applied`, which for `partially` depends on whether the missing
/// part is functional, and a label does not say.
pub fn choose_guideline(store: &Store, k: usize) -> Result<Vec<Example>, FewShotError> {
    if k == 0 {
        return Err(FewShotError::NoK);
    }
    let split = item_level_split(store)?;
    let labels = train_labels(store, &split, |l| {
        crate::domain::Protocol::of_perspective(&l.key.perspective_id)
            == crate::domain::Protocol::Guideline
    })?;
    let judged = judged_values(store, &labels)?;
    let fit = |v: Value| match v {
        Value::Degree(crate::domain::Degree::No | crate::domain::Degree::Fully) => Some(v),
        _ => None,
    };
    Ok(choose_for(&fit, None, &labels, &judged, &split, k))
}

/// The workspace's split, refused when it was made by pair (it leaks).
fn item_level_split(store: &Store) -> Result<Split, FewShotError> {
    let split = store.split()?.ok_or(FewShotError::NoSplit)?;
    if let Some(first) = split.mixed_items().first() {
        return Err(FewShotError::PairLevelSplit {
            count: split.mixed_items().len(),
            example: first.clone(),
            holdout: split.rule.holdout,
            seed: split.rule.seed,
        });
    }
    Ok(split)
}

/// The newest `train` label per (item, classification, perspective, persona)
/// among those `keep` takes.
fn train_labels(
    store: &Store,
    split: &Split,
    keep: impl Fn(&Label) -> bool,
) -> Result<BTreeMap<LabelKey, Label>, FewShotError> {
    let mut labels: BTreeMap<LabelKey, Label> = BTreeMap::new();
    store.for_each_label(|l| {
        // By item: no text of a held-out item may be an example.
        if !keep(&l) || split.item_side(&l.key.item_id) != Side::Train {
            return;
        }
        let key = (
            l.key.item_id.clone(),
            l.key.classification_id.clone(),
            l.key.perspective_id.clone(),
            l.persona_id.clone(),
        );
        match labels.get(&key) {
            Some(old) if old.created_at >= l.created_at => {}
            _ => {
                labels.insert(key, l);
            }
        }
    })?;
    Ok(labels)
}

/// The judge's latest value per (item, classification, perspective,
/// persona, mode), for the labelled items only: read through the light
/// verdict rows (no texts, no raw answers), so a store of a million
/// verdicts costs only what the candidates need.
fn judged_values(
    store: &Store,
    labels: &BTreeMap<LabelKey, Label>,
) -> Result<Judged, FewShotError> {
    let labelled: HashSet<&str> = labels.keys().map(|k| k.0.as_str()).collect();
    // "The judge said otherwise" means the judge without examples: verdicts
    // of a few-shot version would change the choice once the loop has run
    // (the same labels must give the same examples, the same prompt version).
    let shown = store.prompt_examples()?;
    let with_examples: HashSet<i64> = store
        .runs()?
        .into_iter()
        .filter(|r| shown.contains_key(&r.spec.prompt_hash))
        .map(|r| r.id)
        .collect();
    let mut judged: Judged = HashMap::new();
    store.for_each_verdict_value(|v| {
        if labelled.contains(v.item_id) && !with_examples.contains(&v.run_id) {
            judged.insert(
                (
                    v.item_id.to_string(),
                    v.classification_id.to_string(),
                    v.perspective_id.to_string(),
                    v.persona_id.to_string(),
                    v.mode,
                ),
                v.value,
            );
        }
    })?;
    Ok(judged)
}

/// A candidate: the example, whether the judge said otherwise, its place in
/// the split's hash order.
type Candidate = (Example, bool, f64);

/// Up to `k` examples among `labels` that `fit` can show (as the value it
/// gives), the judge's values looked up in `mode`.
fn choose_for(
    fit: &dyn Fn(Value) -> Option<Value>,
    mode: Option<Mode>,
    labels: &BTreeMap<LabelKey, Label>,
    judged: &Judged,
    split: &Split,
    k: usize,
) -> Vec<Example> {
    // One candidate per (item, classification): the first label in key order.
    let mut per_pair: BTreeMap<(&str, &str), Candidate> = BTreeMap::new();
    for ((item, cls, persp, persona), l) in labels {
        let Some(value) = fit(l.value) else {
            continue;
        };
        if per_pair.contains_key(&(item.as_str(), cls.as_str())) {
            continue;
        }
        let judge = judged
            .get(&(
                item.clone(),
                cls.clone(),
                persp.clone(),
                persona.clone(),
                mode,
            ))
            .copied()
            .and_then(fit)
            .filter(|j| *j != value);
        let example = Example {
            item_id: item.clone(),
            classification_id: cls.clone(),
            perspective_id: persp.clone(),
            persona_id: persona.clone(),
            who: l.who.clone(),
            created_at: l.created_at.clone(),
            value: value.to_json(),
            note: l.note.clone(),
            judge_said: judge.map(|j| j.to_json()),
            split: Side::Train.as_str(),
        };
        let disagrees = judge.is_some();
        per_pair.insert(
            (item.as_str(), cls.as_str()),
            (example, disagrees, split.rule.position(item, cls)),
        );
    }
    // Groups by (classification, value), each ordered disagreements first,
    // then by the split's hash (a fixed order that is not the file's order).
    let mut groups: BTreeMap<(String, String), Vec<Candidate>> = BTreeMap::new();
    for (_, c) in per_pair {
        let key = (c.0.classification_id.clone(), c.0.value.to_string());
        groups.entry(key).or_default().push(c);
    }
    for g in groups.values_mut() {
        g.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.total_cmp(&b.2)));
    }
    // Groups whose best candidate is a disagreement go first in each round.
    let mut order: Vec<Vec<Candidate>> = groups.into_values().collect();
    order.sort_by_key(|g| !g.first().is_some_and(|c| c.1));
    let mut chosen = Vec::new();
    let mut round = 0;
    while chosen.len() < k {
        let mut took = false;
        for g in &order {
            if chosen.len() == k {
                break;
            }
            if let Some(c) = g.get(round) {
                chosen.push(c.0.clone());
                took = true;
            }
        }
        if !took {
            break;
        }
        round += 1;
    }
    chosen
}

/// The scale examples of `mode` are given on.
pub fn scale_of(mode: Mode) -> Scale {
    match mode {
        Mode::One | Mode::Two => Scale::Likert,
        Mode::Three => Scale::Agreement,
    }
}
