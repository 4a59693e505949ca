//! Prompt sets: one plain file per prompt element plus the result schemas.
//! The default set is embedded in the binary; a user copies `prompts/awag/`,
//! edits it and selects it with `--prompts DIR`. Every run records the set's hash.

use crate::domain::Mode;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The AwAg prompt elements (S8.3), by file name.
pub const ELEMENTS: &[&str] = &[
    "system_common.txt",
    "system_extra_mode1.txt",
    "system_extra_mode23.txt",
    "user_likert.txt",
    "user_prefix_mode1.txt",
    "user_prefix_mode2.txt",
    "user_prefix_mode3.txt",
    "user_example_mode2.txt",
    "user_example_mode3.txt",
    "schema_result_mode1.json",
    "schema_result_mode2.json",
    "schema_result_mode3.json",
];

/// Elements a set may hold besides [`ELEMENTS`]: the few-shot examples
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

const EMBEDDED: &[(&str, &str)] = &[
    (
        "system_common.txt",
        include_str!("../../prompts/awag/system_common.txt"),
    ),
    (
        "system_extra_mode1.txt",
        include_str!("../../prompts/awag/system_extra_mode1.txt"),
    ),
    (
        "system_extra_mode23.txt",
        include_str!("../../prompts/awag/system_extra_mode23.txt"),
    ),
    (
        "user_likert.txt",
        include_str!("../../prompts/awag/user_likert.txt"),
    ),
    (
        "user_prefix_mode1.txt",
        include_str!("../../prompts/awag/user_prefix_mode1.txt"),
    ),
    (
        "user_prefix_mode2.txt",
        include_str!("../../prompts/awag/user_prefix_mode2.txt"),
    ),
    (
        "user_prefix_mode3.txt",
        include_str!("../../prompts/awag/user_prefix_mode3.txt"),
    ),
    (
        "user_example_mode2.txt",
        include_str!("../../prompts/awag/user_example_mode2.txt"),
    ),
    (
        "user_example_mode3.txt",
        include_str!("../../prompts/awag/user_example_mode3.txt"),
    ),
    (
        "schema_result_mode1.json",
        include_str!("../../prompts/awag/schema_result_mode1.json"),
    ),
    (
        "schema_result_mode2.json",
        include_str!("../../prompts/awag/schema_result_mode2.json"),
    ),
    (
        "schema_result_mode3.json",
        include_str!("../../prompts/awag/schema_result_mode3.json"),
    ),
];

#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("{}: cannot read prompt element: {message}", path.display())]
    Read { path: PathBuf, message: String },
    #[error("{}: the result schema is not valid JSON: {message}", path.display())]
    Schema { path: PathBuf, message: String },
    #[error("{}: the few-shot manifest: {message}", path.display())]
    Manifest { path: PathBuf, message: String },
}

/// A loaded prompt set.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptSet {
    /// Where it came from: `embedded` or the directory.
    pub origin: String,
    texts: Vec<(String, String)>,
    schemas: [serde_json::Value; 3],
    hash: String,
    /// The (item, classification) pairs its few-shot examples show, from
    /// its manifest (empty for a set without examples).
    examples: Vec<(String, String)>,
}

/// The example pairs a few-shot manifest names (no manifest: none).
fn read_manifest(dir: &Path) -> Result<Vec<(String, String)>, PromptError> {
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

impl PromptSet {
    /// The default set compiled into jury.
    pub fn embedded() -> PromptSet {
        let texts = EMBEDDED
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect();
        // The embedded schemas are checked by a unit test, so this cannot fail at run time.
        Self::from_texts("embedded".into(), texts, Path::new("prompts/awag"))
            .expect("embedded prompt set is valid")
    }

    /// `None` gives the embedded set; a directory must hold every element
    /// (a directory containing an `awag/` folder is accepted too).
    pub fn load(dir: Option<&Path>) -> Result<PromptSet, PromptError> {
        let Some(dir) = dir else {
            return Ok(Self::embedded());
        };
        let dir = if dir.join("awag").join(ELEMENTS[0]).exists() {
            dir.join("awag")
        } else {
            dir.to_path_buf()
        };
        let mut texts = Vec::new();
        for name in ELEMENTS {
            let path = dir.join(name);
            let text = crate::readfile::read_to_string(&path).map_err(|e| PromptError::Read {
                path: path.clone(),
                message: e.to_string(),
            })?;
            texts.push((name.to_string(), text));
        }
        for name in OPTIONAL_ELEMENTS {
            let path = dir.join(name);
            match crate::readfile::read_to_string(&path) {
                Ok(text) => texts.push((name.to_string(), text)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(PromptError::Read {
                        path,
                        message: e.to_string(),
                    });
                }
            }
        }
        let mut set = Self::from_texts(dir.display().to_string(), texts, &dir)?;
        set.examples = read_manifest(&dir)?;
        Ok(set)
    }

    fn from_texts(
        origin: String,
        texts: Vec<(String, String)>,
        dir: &Path,
    ) -> Result<PromptSet, PromptError> {
        let mut hasher = Sha256::new();
        for (name, text) in &texts {
            hasher.update(name.as_bytes());
            hasher.update([0]);
            hasher.update(text.as_bytes());
            hasher.update([0]);
        }
        let hash: String = hasher
            .finalize()
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect();
        let schema = |n: &str| -> Result<serde_json::Value, PromptError> {
            let text = texts
                .iter()
                .find(|(k, _)| k == n)
                .map(|(_, t)| t.as_str())
                .unwrap_or("");
            serde_json::from_str(text).map_err(|e| PromptError::Schema {
                path: dir.join(n),
                message: e.to_string(),
            })
        };
        let schemas = [
            schema("schema_result_mode1.json")?,
            schema("schema_result_mode2.json")?,
            schema("schema_result_mode3.json")?,
        ];
        Ok(PromptSet {
            origin,
            texts,
            schemas,
            hash,
            examples: Vec::new(),
        })
    }

    /// One element's text, trimmed of trailing whitespace.
    pub fn text(&self, name: &str) -> &str {
        self.texts
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, t)| t.trim_end())
            .unwrap_or("")
    }

    /// A short, stable hash of every element (prompt versions, DESIGN §7).
    pub fn hash(&self) -> &str {
        &self.hash
    }

    /// Every element with its text as loaded (what `jury fewshot` copies).
    pub fn elements(&self) -> impl Iterator<Item = (&str, &str)> {
        self.texts.iter().map(|(n, t)| (n.as_str(), t.as_str()))
    }

    /// The (item, classification) pairs this set's few-shot examples show.
    pub fn example_pairs(&self) -> &[(String, String)] {
        &self.examples
    }

    /// The `get_evaluations` parameters for a mode.
    pub fn result_schema(&self, mode: Mode) -> &serde_json::Value {
        &self.schemas[mode.number() as usize - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_set_loads_and_hashes_stably() {
        let a = PromptSet::embedded();
        let b = PromptSet::load(Some(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/prompts"
        ))))
        .unwrap();
        assert_eq!(a.hash(), b.hash());
        assert!(a.text("system_common.txt").contains("{boundary}"));
        for m in Mode::ALL {
            assert_eq!(a.result_schema(m)["type"], "object");
        }
    }

    /// A grammar-constrained judge (llama.cpp's json_schema path) takes the
    /// shortest answer the schema allows: a 0.5B model answered mode 1 with
    /// empty `evaluations`/`perspectives` arrays until they had to hold one.
    #[test]
    fn mode_1_arrays_must_hold_an_entry() {
        let set = PromptSet::embedded();
        let s = set.result_schema(Mode::One);
        let ri = &s["properties"]["resultItems"];
        let ev = &ri["items"]["properties"]["evaluations"];
        let pe = &ev["items"]["properties"]["perspectives"];
        for (name, a) in [
            ("resultItems", ri),
            ("evaluations", ev),
            ("perspectives", pe),
        ] {
            assert_eq!(a["minItems"], 1, "{name}");
        }
    }

    #[test]
    fn editing_an_element_changes_the_hash() {
        let dir = tempfile::tempdir().unwrap();
        for (n, t) in EMBEDDED {
            std::fs::write(dir.path().join(n), t).unwrap();
        }
        let same = PromptSet::load(Some(dir.path())).unwrap();
        assert_eq!(same.hash(), PromptSet::embedded().hash());
        std::fs::write(dir.path().join("user_likert.txt"), "Rate 1-5.").unwrap();
        let edited = PromptSet::load(Some(dir.path())).unwrap();
        assert_ne!(edited.hash(), same.hash());
        std::fs::remove_file(dir.path().join("user_likert.txt")).unwrap();
        let err = PromptSet::load(Some(dir.path())).unwrap_err().to_string();
        assert!(err.contains("user_likert.txt"), "{err}");
    }
}
