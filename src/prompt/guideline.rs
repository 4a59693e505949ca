//! The guideline protocol's prompts: the system message, the worked
//! examples (the place a few-shot set adds people's checks), the user
//! message and the checks schema.

use super::PromptError;
use super::folder::{read_or_embedded, schema};
use serde_json::Value;
use std::path::Path;

/// The guideline prompts' folder in a set.
pub const FOLDER: &str = "guideline";
pub const SYSTEM_FILE: &str = "system.txt";
/// The worked examples, sent as a user message before the request.
pub const EXAMPLES_FILE: &str = "examples.txt";
pub const USER_FILE: &str = "user.txt";
pub const SCHEMA_FILE: &str = "schema_result.json";

const SYSTEM: &str = include_str!("../../prompts/guideline/system.txt");
const EXAMPLES: &str = include_str!("../../prompts/guideline/examples.txt");
const USER: &str = include_str!("../../prompts/guideline/user.txt");
const SCHEMA: &str = include_str!("../../prompts/guideline/schema_result.json");

/// A guideline file's path inside a set (`guideline/examples.txt`).
pub fn path_in_set(file: &str) -> String {
    format!("{FOLDER}/{file}")
}

#[derive(Debug, Clone)]
pub struct GuidelinePrompts {
    pub system: String,
    pub examples: String,
    pub user: String,
    pub schema: Value,
}

impl GuidelinePrompts {
    /// The set in `dir` (`None`: the embedded texts).
    pub fn load(dir: Option<&Path>) -> Result<GuidelinePrompts, PromptError> {
        let read = |name, embedded| read_or_embedded(dir, FOLDER, name, embedded);
        Ok(GuidelinePrompts {
            system: read(SYSTEM_FILE, SYSTEM)?,
            examples: read(EXAMPLES_FILE, EXAMPLES)?,
            user: read(USER_FILE, USER)?,
            schema: schema(FOLDER, SCHEMA_FILE, &read(SCHEMA_FILE, SCHEMA)?)?,
        })
    }

    /// The hash a run records.
    pub fn hash(&self) -> String {
        let schema = self.schema.to_string();
        super::hash_texts([
            self.system.as_str(),
            self.examples.as_str(),
            self.user.as_str(),
            schema.as_str(),
        ])
    }
}
