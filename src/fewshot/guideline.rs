//! Guideline few-shot examples: the guideline protocol's prompt has a place
//! for worked examples (`guideline/examples.txt`, a user message before the
//! request), so a few-shot set adds people's checks there, each example in
//! the request's own shape (the conversation, the guideline asked about,
//! the agent's name, all between the markers) and the answer's (`checks`).
//! Rubric and proposition prompts have no such place (their references
//! give the judge the rubric or the claim and the material only): a set
//! carries their prompts unchanged.

use super::Example;
use super::render::{BOUNDARY, answer_text, fewshot_text, pretty};
use crate::domain::Item;
use crate::prompt::guideline::{
    EXAMPLES_FILE, FOLDER, SCHEMA_FILE, SYSTEM_FILE, USER_FILE, path_in_set,
};
use crate::prompt::{GuidelinePrompts, PromptError, PromptSet};
use crate::protocol::awag::request::delimit;
use crate::protocol::guideline::{guidelines, user_text};
use serde_json::json;
use std::path::{Path, PathBuf};

/// The protocols whose prompts take no worked examples (their folders in a set).
pub const NO_EXAMPLES: &[&str] = &[
    crate::prompt::rubric::FOLDER,
    crate::prompt::proposition::FOLDER,
];

/// The folder the other protocols' prompts of `base` come from (`None`: the
/// embedded ones). A set loaded from `X/awag` has them in `X`.
pub fn base_dir(base: &PromptSet) -> Option<PathBuf> {
    if base.origin == "embedded" {
        return None;
    }
    let dir = PathBuf::from(&base.origin);
    match dir.parent() {
        Some(p) if dir.ends_with("awag") && !dir.join(FOLDER).exists() => Some(p.to_path_buf()),
        _ => Some(dir),
    }
}

/// One example: the request as a run sends it for this guideline alone, and
/// the check the person's label gives; `None` when the conversation no
/// longer has the guideline or the label is not `no`/`fully`.
pub fn guideline_block(n: usize, e: &Example, item: &Item, template: &str) -> Option<String> {
    let g = guidelines(item)
        .into_iter()
        .find(|g| g.id == e.classification_id)?;
    let degree = e.value.as_str()?;
    let applied = match degree {
        "fully" => true,
        "no" => false,
        _ => return None,
    };
    let asked = [json!({"guideline_id": g.id, "condition": g.condition, "action": g.action})];
    // The placeholder is the run's marker token: data must not carry it.
    let escape = |t: String| t.replace(BOUNDARY, "{\\u0062oundary}");
    let request = user_text(template, item, &asked, &[g.id.as_str()], BOUNDARY, &escape);
    let answer = json!({"checks": [{
        "guideline_id": g.id,
        "action": g.action,
        "guideline_applied_rationale": [{
            "action_segment": g.action,
            "action_applied_rationale": answer_text(e),
        }],
        "guideline_applied_degree": degree,
        "guideline_applied": applied,
    }]});
    Some(format!(
        "Example {n}, the request:\n{}\n\nExample {n}, the checks a person gave:\n{}",
        request.trim_end(),
        delimit(&pretty(&answer), BOUNDARY)
    ))
}

/// The guideline files of a set with `blocks` as examples: the base's
/// prompts, its examples followed by the people's.
pub fn guideline_files(
    base: Option<&Path>,
    blocks: &[String],
) -> Result<Vec<(String, String)>, PromptError> {
    let p = GuidelinePrompts::load(base)?;
    let examples = format!("{}\n\n{}", p.examples.trim_end(), fewshot_text(blocks));
    Ok(vec![
        (path_in_set(SYSTEM_FILE), p.system),
        (path_in_set(EXAMPLES_FILE), examples),
        (path_in_set(USER_FILE), p.user),
        (
            path_in_set(SCHEMA_FILE),
            serde_json::to_string_pretty(&p.schema).unwrap_or_default() + "\n",
        ),
    ])
}

/// The other protocols' files of the base folder in `subs`, copied as they
/// are (a set used with `--prompts` must not lose the user's own).
pub fn unchanged_files(
    base: Option<&Path>,
    subs: &[&str],
) -> Result<Vec<(String, String)>, PromptError> {
    let mut out = Vec::new();
    let Some(base) = base else {
        return Ok(out);
    };
    for sub in subs {
        let Ok(entries) = std::fs::read_dir(base.join(sub)) else {
            continue;
        };
        let mut names: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        names.sort();
        for p in names {
            let text = crate::readfile::read_to_string(&p).map_err(|e| PromptError::File {
                message: e.to_string(),
                path: p.clone(),
            })?;
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.push((format!("{sub}/{name}"), text));
        }
    }
    Ok(out)
}
