//! The rubric, proposition and guideline prompts of a set: each protocol
//! has a folder of its own in the set's folder (`rubric/`, `proposition/`,
//! `guideline/`), and any file missing there is the embedded default.

use super::PromptError;
use serde_json::Value;
use std::path::Path;

/// `dir/folder/name` when the set's folder has that file, else `embedded`.
pub(super) fn read_or_embedded(
    dir: Option<&Path>,
    folder: &str,
    name: &str,
    embedded: &str,
) -> Result<String, PromptError> {
    match dir
        .map(|d| d.join(folder).join(name))
        .filter(|p| p.exists())
    {
        Some(path) => crate::readfile::read_to_string(&path).map_err(|e| PromptError::File {
            path,
            message: e.to_string(),
        }),
        None => Ok(embedded.to_string()),
    }
}

/// A result schema's text as JSON.
pub(super) fn schema(
    folder: &'static str,
    name: &'static str,
    text: &str,
) -> Result<Value, PromptError> {
    serde_json::from_str(text).map_err(|e| PromptError::FileSchema {
        folder,
        name,
        message: e.to_string(),
    })
}
