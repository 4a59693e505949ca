//! The proposition protocol's prompts: a system message per way of judging
//! (true/false or 0–9) with its schema, the user message, and the
//! double-check turn.

use super::PromptError;
use super::folder::{read_or_embedded, schema};
use serde_json::Value;
use std::path::Path;

/// The proposition prompts' folder in a set.
pub const FOLDER: &str = "proposition";

const CHECK_SYSTEM: &str = include_str!("../../prompts/proposition/check_system.txt");
const SCORE_SYSTEM: &str = include_str!("../../prompts/proposition/score_system.txt");
const USER: &str = include_str!("../../prompts/proposition/user.txt");
const DOUBLE_CHECK: &str = include_str!("../../prompts/proposition/double_check.txt");
const CHECK_SCHEMA: &str = include_str!("../../prompts/proposition/schema_check.json");
const SCORE_SCHEMA: &str = include_str!("../../prompts/proposition/schema_score.json");

#[derive(Debug, Clone)]
pub struct PropositionPrompts {
    pub check_system: String,
    pub score_system: String,
    pub user: String,
    pub double_check: String,
    pub check_schema: Value,
    pub score_schema: Value,
}

impl PropositionPrompts {
    /// The set in `dir` (`None`: the embedded texts).
    pub fn load(dir: Option<&Path>) -> Result<PropositionPrompts, PromptError> {
        let read = |name, embedded| read_or_embedded(dir, FOLDER, name, embedded);
        let json = |name, embedded| schema(FOLDER, name, &read(name, embedded)?);
        Ok(PropositionPrompts {
            check_system: read("check_system.txt", CHECK_SYSTEM)?,
            score_system: read("score_system.txt", SCORE_SYSTEM)?,
            user: read("user.txt", USER)?,
            double_check: read("double_check.txt", DOUBLE_CHECK)?,
            check_schema: json("schema_check.json", CHECK_SCHEMA)?,
            score_schema: json("schema_score.json", SCORE_SCHEMA)?,
        })
    }
}
