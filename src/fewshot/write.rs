//! Writes a few-shot prompt set: a copy of a base set, one few-shot element
//! per mode that has examples, and the manifest. The directory appears whole
//! or not at all: it is written beside its target under a temporary name and
//! renamed when complete.

use super::render::{example_block, fewshot_text};
use super::{Example, FewShotError};
use crate::domain::Mode;
use crate::prompt::guideline::{FOLDER as GUIDELINE_FOLDER, USER_FILE, path_in_set};
use crate::prompt::{FEWSHOT_MANIFEST, GuidelinePrompts, PromptSet, fewshot_file_name};
use crate::store::Store;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;

/// What was written: examples per mode, and the guideline protocol's.
#[derive(Debug, Clone)]
pub struct Written {
    pub examples: BTreeMap<Mode, Vec<Example>>,
    pub guideline: Vec<Example>,
}

/// Why a set could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    Choose(#[from] FewShotError),
    #[error(
        "{0} exists and is not empty: choose a new directory (a prompt set is never written over another)"
    )]
    Exists(String),
    #[error(
        "no `train` label can serve as an example (AwAg labels on the train side of the split); label some items first"
    )]
    Nothing,
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

/// Chooses up to `k` examples per mode and writes the set to `out`.
pub fn write_set(
    store: &Store,
    base: &PromptSet,
    k: usize,
    out: &Path,
) -> Result<Written, WriteError> {
    let shown = out.display().to_string();
    if std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_some()) {
        return Err(WriteError::Exists(shown));
    }
    let mut examples = super::choose(store, k)?;
    let perspectives = store.perspectives()?;
    let mut files: Vec<(String, String)> = base
        .elements()
        .filter(|(n, _)| !crate::prompt::OPTIONAL_ELEMENTS.contains(n))
        .map(|(n, t)| (n.to_string(), t.to_string()))
        .collect();
    for (mode, chosen) in examples.iter_mut() {
        let mut blocks = Vec::new();
        let mut kept = Vec::new();
        for e in chosen.drain(..) {
            let (Some(item), Some(persona)) =
                (store.item(&e.item_id)?, store.persona(&e.persona_id)?)
            else {
                continue;
            };
            let Some(perspective) = perspectives.iter().find(|p| p.id == e.perspective_id) else {
                continue;
            };
            if let Some(b) =
                example_block(*mode, blocks.len() + 1, &e, &item, &persona, perspective)
            {
                blocks.push(b);
                kept.push(e);
            }
        }
        *chosen = kept;
        if !blocks.is_empty() {
            files.push((fewshot_file_name(*mode).to_string(), fewshot_text(&blocks)));
        }
    }
    let base_dir = super::guideline::base_dir(base);
    let guideline = guideline_examples(store, k, base_dir.as_deref(), &mut files)?;
    // The guideline files are written with the examples, when there are some.
    let subs: &[&str] = if guideline.is_empty() {
        &[
            crate::prompt::rubric::FOLDER,
            crate::prompt::proposition::FOLDER,
            GUIDELINE_FOLDER,
        ]
    } else {
        super::guideline::NO_EXAMPLES
    };
    let unchanged = super::guideline::unchanged_files(base_dir.as_deref(), subs).map_err(|e| {
        WriteError::Io {
            path: base.origin.clone(),
            message: e.to_string(),
        }
    })?;
    files.extend(unchanged);
    if examples.values().all(Vec::is_empty) && guideline.is_empty() {
        return Err(WriteError::Nothing);
    }
    let split = store.split()?;
    let manifest = json!({
        "from": "labels",
        "k": k,
        "base": base.origin,
        "baseHash": base.hash(),
        "split": split.as_ref().map(|s| json!({"holdout": s.rule.holdout, "seed": s.rule.seed, "createdAt": s.created_at, "by": "item"})),
        "examples": examples
            .iter()
            .map(|(m, es)| (format!("mode{}", m.number()), json!(es)))
            .chain((!guideline.is_empty()).then(|| ("guideline".to_string(), json!(guideline))))
            .collect::<serde_json::Map<_, _>>(),
        "noExamples": super::guideline::NO_EXAMPLES,
    });
    files.push((
        FEWSHOT_MANIFEST.to_string(),
        serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n",
    ));
    write_dir(out, &files)?;
    Ok(Written {
        examples,
        guideline,
    })
}

/// Chooses the guideline examples and adds the guideline files with them to
/// `files` (nothing when no `train` label can serve).
fn guideline_examples(
    store: &Store,
    k: usize,
    base_dir: Option<&Path>,
    files: &mut Vec<(String, String)>,
) -> Result<Vec<Example>, WriteError> {
    let mut kept = Vec::new();
    let mut blocks = Vec::new();
    let chosen = super::choose_guideline(store, k)?;
    if chosen.is_empty() {
        return Ok(kept);
    }
    let template = GuidelinePrompts::load(base_dir)
        .map(|p| p.user)
        .map_err(|e| WriteError::Io {
            path: path_in_set(USER_FILE),
            message: e.to_string(),
        })?;
    for e in chosen {
        let Some(item) = store.item(&e.item_id)? else {
            continue;
        };
        if let Some(b) = super::guideline::guideline_block(blocks.len() + 1, &e, &item, &template) {
            blocks.push(b);
            kept.push(e);
        }
    }
    if !blocks.is_empty() {
        let more =
            super::guideline::guideline_files(base_dir, &blocks).map_err(|e| WriteError::Io {
                path: GUIDELINE_FOLDER.into(),
                message: e.to_string(),
            })?;
        files.extend(more);
    }
    Ok(kept)
}

/// Writes `files` into a temporary directory beside `out`, then renames it
/// to `out` (an empty `out` is replaced).
fn write_dir(out: &Path, files: &[(String, String)]) -> Result<(), WriteError> {
    let io = |path: &Path, e: std::io::Error| WriteError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "prompts".into());
    let tmp = parent.join(format!(".{name}.jury-tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| io(&tmp, e))?;
    let result = (|| {
        for (n, text) in files {
            let p = tmp.join(n);
            if let Some(dir) = p.parent() {
                std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
            }
            std::fs::write(&p, text).map_err(|e| io(&p, e))?;
        }
        if out.exists() {
            // Checked empty above; an empty directory is replaced.
            std::fs::remove_dir(out).map_err(|e| io(out, e))?;
        }
        std::fs::rename(&tmp, out).map_err(|e| io(out, e))
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result
}
