//! The files a few-shot set adds to a prompt set (`jury fewshot` writes
//! them, runs read them): one element of worked examples per AwAg mode and
//! the manifest saying where each example came from.

use super::PromptError;
use crate::domain::Mode;
use std::path::Path;

/// Elements a set may hold besides the AwAg ones: the few-shot examples
/// `jury fewshot` writes (one per mode, sent after the worked example, with
/// `{boundary}` replaced like in `system_common.txt`). A set without them
/// hashes as before.
pub const OPTIONAL_ELEMENTS: &[&str] = &[
    "user_fewshot_mode1.txt",
    "user_fewshot_mode2.txt",
    "user_fewshot_mode3.txt",
];

/// The manifest `jury fewshot` writes beside a set's elements: where each
/// example came from.
pub const FEWSHOT_MANIFEST: &str = "fewshot.json";

/// The element holding a mode's few-shot examples.
pub fn fewshot_file_name(mode: Mode) -> &'static str {
    OPTIONAL_ELEMENTS[usize::from(mode.number()) - 1]
}

/// The example pairs a few-shot manifest names (no manifest: none).
pub(super) fn read_manifest(dir: &Path) -> Result<Vec<(String, String)>, PromptError> {
    let path = dir.join(FEWSHOT_MANIFEST);
    let text = match crate::readfile::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(PromptError::Read {
                path,
                message: e.to_string(),
            });
        }
    };
    let bad = |message: String| PromptError::Manifest {
        path: path.clone(),
        message,
    };
    let doc: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let mut out = Vec::new();
    for (mode, examples) in doc["examples"]
        .as_object()
        .ok_or_else(|| bad("no `examples` object".into()))?
    {
        for (i, e) in examples.as_array().into_iter().flatten().enumerate() {
            match (e["itemId"].as_str(), e["classificationId"].as_str()) {
                (Some(item), Some(cls)) => out.push((item.to_string(), cls.to_string())),
                _ => {
                    return Err(bad(format!(
                        "examples.{mode}[{i}]: `itemId` and `classificationId` are needed"
                    )));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}
