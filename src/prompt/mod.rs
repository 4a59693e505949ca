//! Prompt sets: one plain file per prompt element plus the result schemas,
//! for every protocol. The default set is embedded in the binary; a user
//! copies `prompts/`, edits it and selects it with `--prompts DIR`. AwAg's
//! elements sit in the folder (or its `awag/`); the other protocols read
//! their own folders in it (`rubric/`, `proposition/`, `guideline/`), each
//! file they lack being the embedded one. Every run records its prompts'
//! hash.

mod awag;
mod fewshot;
mod folder;
pub mod guideline;
pub mod proposition;
pub mod rubric;

pub use awag::ELEMENTS;
pub use fewshot::{FEWSHOT_MANIFEST, OPTIONAL_ELEMENTS, fewshot_file_name};
pub use guideline::GuidelinePrompts;
pub use proposition::PropositionPrompts;
pub use rubric::RubricPrompts;

use crate::domain::Mode;
use awag::EMBEDDED;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("{}: cannot read prompt element: {message}", path.display())]
    Read { path: PathBuf, message: String },
    #[error("{}: the result schema is not valid JSON: {message}", path.display())]
    Schema { path: PathBuf, message: String },
    #[error("{}: the few-shot manifest: {message}", path.display())]
    Manifest { path: PathBuf, message: String },
    /// A rubric, proposition or guideline file the set's folder has but
    /// that cannot be read.
    #[error("{}: {message}", path.display())]
    File { path: PathBuf, message: String },
    /// A rubric, proposition or guideline schema that is not JSON.
    #[error("{folder} {name}: {message}")]
    FileSchema {
        folder: &'static str,
        name: &'static str,
        message: String,
    },
}

/// The short, stable hash runs record of the texts they send: SHA-256 over
/// each part followed by a zero byte, its first 8 bytes in hex.
pub fn hash_texts<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hasher
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A loaded prompt set.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptSet {
    /// Where its AwAg elements came from: `embedded` or the directory.
    pub origin: String,
    /// The folder as it was given (`None`: embedded), where the other
    /// protocols' folders are.
    dir: Option<PathBuf>,
    texts: Vec<(String, String)>,
    schemas: [serde_json::Value; 3],
    hash: String,
    /// The (item, classification) pairs its few-shot examples show, from
    /// its manifest (empty for a set without examples).
    examples: Vec<(String, String)>,
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
        let Some(given) = dir else {
            return Ok(Self::embedded());
        };
        let dir = if given.join("awag").join(ELEMENTS[0]).exists() {
            given.join("awag")
        } else {
            given.to_path_buf()
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
        set.dir = Some(given.to_path_buf());
        set.examples = fewshot::read_manifest(&dir)?;
        Ok(set)
    }

    fn from_texts(
        origin: String,
        texts: Vec<(String, String)>,
        dir: &Path,
    ) -> Result<PromptSet, PromptError> {
        let hash = hash_texts(texts.iter().flat_map(|(n, t)| [n.as_str(), t.as_str()]));
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
            dir: None,
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

    /// A short, stable hash of every AwAg element (prompt versions,
    /// docs/design.md §7): what an AwAg run records, and a few-shot set's version.
    pub fn hash(&self) -> &str {
        &self.hash
    }

    /// The folder the set was loaded from, as given (`None`: embedded).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The rubric prompts: the set's `rubric/` files, the embedded ones
    /// where it has none. Read when a run asks for them, so a broken file
    /// there stops only the runs that use it.
    pub fn rubric(&self) -> Result<RubricPrompts, PromptError> {
        RubricPrompts::load(self.dir())
    }

    /// The proposition prompts, as [`PromptSet::rubric`] reads the rubric's.
    pub fn proposition(&self) -> Result<PropositionPrompts, PromptError> {
        PropositionPrompts::load(self.dir())
    }

    /// The guideline prompts, as [`PromptSet::rubric`] reads the rubric's.
    pub fn guideline(&self) -> Result<GuidelinePrompts, PromptError> {
        GuidelinePrompts::load(self.dir())
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

    /// Runs, exports and few-shot folders record these: how a set is read
    /// and hashed may change, the hashes of the same texts may not.
    #[test]
    fn the_embedded_hashes_stay_as_runs_recorded_them() {
        let set = PromptSet::embedded();
        assert_eq!(set.hash(), "4ad49c217da0e4a0");
        assert_eq!(set.guideline().unwrap().hash(), "3aa07f87ba687cb4");
        let on_disk = PromptSet::load(Some(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/prompts"
        ))))
        .unwrap();
        assert_eq!(on_disk.guideline().unwrap().hash(), "3aa07f87ba687cb4");
    }

    #[test]
    fn every_protocol_reads_its_own_folder_in_the_set() {
        let dir = tempfile::tempdir().unwrap();
        for (n, t) in EMBEDDED {
            std::fs::write(dir.path().join(n), t).unwrap();
        }
        for sub in [rubric::FOLDER, proposition::FOLDER, guideline::FOLDER] {
            std::fs::create_dir(dir.path().join(sub)).unwrap();
        }
        let write = |p: &str, t: &str| std::fs::write(dir.path().join(p), t).unwrap();
        write("rubric/system.txt", "my rubric");
        write("proposition/user.txt", "my claim");
        write("guideline/examples.txt", "my examples");
        let set = PromptSet::load(Some(dir.path())).unwrap();
        assert_eq!(set.dir(), Some(dir.path()));
        assert!(PromptSet::embedded().dir().is_none());
        let embedded = PromptSet::embedded();
        assert_eq!(set.rubric().unwrap().system, "my rubric");
        assert_eq!(set.rubric().unwrap().user, embedded.rubric().unwrap().user);
        assert_eq!(set.proposition().unwrap().user, "my claim");
        assert_eq!(set.guideline().unwrap().examples, "my examples");
        assert_ne!(
            set.guideline().unwrap().hash(),
            embedded.guideline().unwrap().hash()
        );
        // A broken file there stops only what reads it, and says which.
        write("guideline/schema_result.json", "{");
        assert!(set.rubric().is_ok());
        let err = set.guideline().unwrap_err().to_string();
        assert!(err.starts_with("guideline schema_result.json: "), "{err}");
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
