//! The workbench's loop (`L`): the few-shot set written beside the store and
//! the held-out items to run it on.
//!
//! The set's folder is named by the split's seed and the set's own hash
//! (`fewshot-seed1-9703e6aa`): the same examples make the same prompt
//! version in the same folder, so a second `L` after a cancel finds the set
//! it started and, with `--resume` semantics, continues where it stopped. A
//! folder of that name holding anything else is never written over.

use super::write::{WriteError, write_set};
use crate::domain::Side;
use crate::prompt::PromptSet;
use crate::store::Store;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The few-shot set the loop runs and the items it runs on.
#[derive(Debug, Clone)]
pub struct LoopSet {
    pub dir: PathBuf,
    pub hash: String,
    /// Examples in the set (every mode).
    pub examples: usize,
    /// Whether the folder was already there with these very examples.
    pub reused: bool,
}

/// Why the loop cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error(transparent)]
    Prompt(#[from] crate::prompt::PromptError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(
        "{0} exists with other prompts in it: a few-shot set is never written over a folder it did not make; move it away"
    )]
    Taken(String),
}

/// The folder name of a loop set: the split's seed and the set's hash.
pub fn loop_dir_name(seed: u64, hash: &str) -> String {
    format!(
        "fewshot-seed{seed}-{}",
        hash.chars().take(8).collect::<String>()
    )
}

/// Chooses up to `k` examples per mode from `train` labels, writes the set
/// as a copy of `base` in `data_dir`, and returns where it is. Written under
/// a temporary name first (the name needs the hash of what was written).
pub fn write_loop_set(
    store: &Store,
    base: &PromptSet,
    k: usize,
    data_dir: &Path,
) -> Result<LoopSet, LoopError> {
    let split = store
        .split()?
        .ok_or(WriteError::Choose(super::FewShotError::NoSplit))?;
    let staging = data_dir.join(format!(".fewshot-staging-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    let written = write_set(store, base, k, &staging)?;
    let examples = written.examples.values().map(Vec::len).sum();
    let set = PromptSet::load(Some(&staging)).inspect_err(|_| {
        let _ = std::fs::remove_dir_all(&staging);
    })?;
    let hash = set.hash().to_string();
    let dir = data_dir.join(loop_dir_name(split.rule.seed, &hash));
    if dir.exists() {
        // The hash covers the AwAg elements; the manifest says every
        // example (the guideline's too).
        let manifest = |d: &Path| {
            crate::readfile::read_to_string(&d.join(crate::prompt::FEWSHOT_MANIFEST)).ok()
        };
        let same = PromptSet::load(Some(&dir)).is_ok_and(|s| s.hash() == hash)
            && manifest(&dir) == manifest(&staging);
        let _ = std::fs::remove_dir_all(&staging);
        if !same {
            return Err(LoopError::Taken(dir.display().to_string()));
        }
        return Ok(LoopSet {
            dir,
            hash,
            examples,
            reused: true,
        });
    }
    std::fs::rename(&staging, &dir).map_err(|e| {
        let _ = std::fs::remove_dir_all(&staging);
        WriteError::Io {
            path: dir.display().to_string(),
            message: e.to_string(),
        }
    })?;
    Ok(LoopSet {
        dir,
        hash,
        examples,
        reused: false,
    })
}

/// A persona and the held-out items judged as it.
pub type PersonaItems = (String, Vec<String>);

/// Who the held-out items are judged as: one persona, or each item its
/// owner (items without an owner persona: `fallback`), as the workbench's
/// "each item's owner" reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopPersona<'a> {
    One(&'a str),
    EachOwner { fallback: &'a str },
}

/// The held-out items, grouped by the persona each is judged as: items on
/// the `test` side with a label of that persona on one of the perspectives,
/// minus any item an example of `set` shows (its text is in the prompt, so
/// judging it would flatter the set). Groups are ordered by persona.
/// Returns the groups and how many items were left out for that reason.
pub fn test_items(
    store: &Store,
    persona: LoopPersona,
    perspective_ids: &[String],
    examples: &[(String, String)],
) -> Result<(Vec<PersonaItems>, usize), LoopError> {
    let split = store
        .split()?
        .ok_or(WriteError::Choose(super::FewShotError::NoSplit))?;
    // item → its owner persona, read only when each item is its owner's.
    let mut owners: std::collections::HashMap<String, String> = Default::default();
    if let LoopPersona::EachOwner { .. } = persona {
        let personas: BTreeSet<String> = store.personas()?.into_iter().map(|p| p.id).collect();
        store.for_each_item(|i| {
            if let Some(o) = i.owner.filter(|o| personas.contains(o)) {
                owners.insert(i.id, o);
            }
            true
        })?;
    }
    let persona_of = |item: &str| -> String {
        match persona {
            LoopPersona::One(p) => p.to_string(),
            LoopPersona::EachOwner { fallback } => owners
                .get(item)
                .cloned()
                .unwrap_or_else(|| fallback.to_string()),
        }
    };
    let shown: BTreeSet<&str> = examples.iter().map(|(i, _)| i.as_str()).collect();
    let mut held_out: std::collections::BTreeMap<String, String> = Default::default();
    store.for_each_label(|l| {
        if perspective_ids.contains(&l.key.perspective_id)
            && split.item_side(&l.key.item_id) == Side::Test
            && !held_out.contains_key(&l.key.item_id)
            && l.persona_id == persona_of(&l.key.item_id)
        {
            held_out.insert(l.key.item_id, l.persona_id);
        }
    })?;
    let before = held_out.len();
    held_out.retain(|i, _| !shown.contains(i.as_str()));
    let left_out = before - held_out.len();
    let mut groups: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (item, persona) in held_out {
        groups.entry(persona).or_default().push(item);
    }
    Ok((groups.into_iter().collect(), left_out))
}
