//! The rubric protocol's prompts: a system and a user message around one
//! dimension's rubric, the score schema, and the two default rubrics.

use super::PromptError;
use super::folder::{read_or_embedded, schema};
use serde_json::Value;
use std::path::Path;

/// The rubric prompts' folder in a set.
pub const FOLDER: &str = "rubric";

const SYSTEM: &str = include_str!("../../prompts/rubric/system.txt");
const USER: &str = include_str!("../../prompts/rubric/user.txt");
const SCHEMA: &str = include_str!("../../prompts/rubric/schema_result.json");
/// The default dimensions' rubrics (always these: a set does not override them).
pub const RELEVANCE: &str = include_str!("../../prompts/rubric/relevance.txt");
pub const TONE: &str = include_str!("../../prompts/rubric/tone.txt");

#[derive(Debug, Clone)]
pub struct RubricPrompts {
    pub system: String,
    pub user: String,
    pub schema: Value,
}

impl RubricPrompts {
    /// The set in `dir` (`None`: the embedded texts).
    pub fn load(dir: Option<&Path>) -> Result<RubricPrompts, PromptError> {
        let read = |name, embedded| read_or_embedded(dir, FOLDER, name, embedded);
        let schema_text = read("schema_result.json", SCHEMA)?;
        Ok(RubricPrompts {
            system: read("system.txt", SYSTEM)?,
            user: read("user.txt", USER)?,
            schema: schema(FOLDER, "schema_result.json", &schema_text)?,
        })
    }

    /// The hash a run records: the texts and every dimension's name and rubric.
    pub fn hash<'a>(&self, dimensions: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
        let schema = self.schema.to_string();
        let texts = [self.system.as_str(), self.user.as_str(), schema.as_str()];
        super::hash_texts(
            texts
                .into_iter()
                .chain(dimensions.into_iter().flat_map(|(n, r)| [n, r])),
        )
    }
}
