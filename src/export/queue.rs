//! What `jury export --format label-studio|argilla` sends to people: the
//! combinations no person labelled that have a verdict (or, with
//! `--needs-person`, only the escalation queue, as `jury trust
//! --needs-person` lists it), each with what a person needs to answer it
//! (the item's content, the classification and the scale to answer on).
//! The tools' own formats are written by [`super::label_studio`] and
//! [`super::argilla`]; their exported annotations come back as labels
//! through `jury import`.
//!
//! The judge's value is left out on purpose: people answer blind, so the
//! labels measure the judge rather than echo it.

use crate::domain::{ComboKey, Scale};
use crate::store::{Store, StoreError};
use std::collections::{BTreeMap, HashMap, HashSet};

/// One combination to label.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub persona_id: String,
    pub key: ComboKey,
    /// The scale the label is on: the verdicts' there.
    pub scale: Scale,
    pub title: String,
    /// The item's content as modes 2 and 3 show it (time, title, text).
    pub text: String,
    /// The classification's description and the classifier's selection.
    pub classification: String,
    pub selected: String,
    /// The perspective's text (its id when the store has none).
    pub perspective: String,
}

/// The keys the tasks carry so their annotations find their combination
/// again on import (Label Studio's `data`, Argilla's `metadata`).
pub const ID_KEYS: [&str; 4] = [
    "item_id",
    "classification_id",
    "perspective_id",
    "persona_id",
];

/// The task's jury ids, by [`ID_KEYS`].
pub fn ids(t: &Task) -> [(&'static str, &str); 4] {
    [
        (ID_KEYS[0], t.key.item_id.as_str()),
        (ID_KEYS[1], t.key.classification_id.as_str()),
        (ID_KEYS[2], t.key.perspective_id.as_str()),
        (ID_KEYS[3], t.persona_id.as_str()),
    ]
}

/// The combinations to send, in item, classification, perspective and
/// persona order: with `needs_person` the escalation queue, else every
/// judged combination no person labelled.
pub fn tasks(store: &Store, needs_person: bool) -> Result<Vec<Task>, StoreError> {
    // The scale of each judged combination (its first verdict's).
    let mut scale_of: BTreeMap<(ComboKey, String), Scale> = BTreeMap::new();
    store.for_each_verdict(|v| {
        scale_of
            .entry((v.key, v.persona_id))
            .or_insert(v.value.scale());
    })?;
    let wanted: HashSet<(ComboKey, String)> = if needs_person {
        let (queue, _) = crate::report::trust::escalation_queue(store)?;
        queue
            .into_iter()
            .map(|e| ((*e.key).clone(), e.persona.to_string()))
            .collect()
    } else {
        let mut labelled = HashSet::new();
        store.for_each_label(|l| {
            labelled.insert((l.key, l.persona_id));
        })?;
        scale_of
            .keys()
            .filter(|k| !labelled.contains(*k))
            .cloned()
            .collect()
    };
    let perspectives: HashMap<String, String> = store
        .perspectives()?
        .into_iter()
        .map(|p| (p.id, p.text))
        .collect();
    let mut items = HashMap::new();
    let mut out = Vec::new();
    for ((key, persona_id), scale) in scale_of {
        if !wanted.contains(&(key.clone(), persona_id.clone())) {
            continue;
        }
        if !items.contains_key(&key.item_id) {
            items.insert(key.item_id.clone(), store.item(&key.item_id)?);
        }
        let Some(item) = &items[&key.item_id] else {
            continue;
        };
        let c = item.classification(&key.classification_id);
        out.push(Task {
            scale,
            title: item.title.clone(),
            text: item.content_text(),
            classification: c.map_or_else(
                || key.classification_id.clone(),
                |c| {
                    if c.description.is_empty() {
                        c.id.clone()
                    } else {
                        c.description.clone()
                    }
                },
            ),
            selected: c.map_or("", |c| c.selected_text()).to_string(),
            perspective: perspectives
                .get(&key.perspective_id)
                .cloned()
                .unwrap_or_else(|| key.perspective_id.clone()),
            persona_id,
            key,
        });
    }
    Ok(out)
}

/// The scales the tasks are on, in a fixed order (each gets its own
/// question in the tool).
pub fn scales(tasks: &[Task]) -> Vec<Scale> {
    let mut s: Vec<Scale> = tasks.iter().map(|t| t.scale).collect();
    s.sort_by_key(|s| s.as_str());
    s.dedup();
    s
}
