//! The guideline prompt texts and their hash.

use serde_json::Value;
use std::path::Path;

const SYSTEM: &str = include_str!("../../../prompts/guideline/system.txt");
const EXAMPLES: &str = include_str!("../../../prompts/guideline/examples.txt");
const USER: &str = include_str!("../../../prompts/guideline/user.txt");
const SCHEMA: &str = include_str!("../../../prompts/guideline/schema_result.json");

#[derive(Debug, Clone)]
pub struct GuidelinePrompts {
    pub system: String,
    pub examples: String,
    pub user: String,
    pub schema: Value,
}

impl GuidelinePrompts {
    pub fn load(dir: Option<&Path>) -> Result<GuidelinePrompts, String> {
        let read = |name: &str, fallback: &str| -> Result<String, String> {
            match dir
                .map(|d| d.join("guideline").join(name))
                .filter(|p| p.exists())
            {
                Some(p) => {
                    crate::readfile::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))
                }
                None => Ok(fallback.to_string()),
            }
        };
        Ok(GuidelinePrompts {
            system: read("system.txt", SYSTEM)?,
            examples: read("examples.txt", EXAMPLES)?,
            user: read("user.txt", USER)?,
            schema: serde_json::from_str(&read("schema_result.json", SCHEMA)?)
                .map_err(|e| format!("guideline schema_result.json: {e}"))?,
        })
    }

    pub fn hash(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for part in [
            self.system.as_str(),
            self.examples.as_str(),
            self.user.as_str(),
            &self.schema.to_string(),
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        h.finalize()
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}
