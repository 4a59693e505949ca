//! What a proposition run asks (its settings) and the prompt texts it asks with.

use super::{TOOL_CHECK, TOOL_SCORE};
use crate::domain::Scale;
use serde_json::{Value, json};
use std::path::Path;

const CHECK_SYSTEM: &str = include_str!("../../../prompts/proposition/check_system.txt");
const SCORE_SYSTEM: &str = include_str!("../../../prompts/proposition/score_system.txt");
const USER: &str = include_str!("../../../prompts/proposition/user.txt");
const DOUBLE_CHECK: &str = include_str!("../../../prompts/proposition/double_check.txt");
const CHECK_SCHEMA: &str = include_str!("../../../prompts/proposition/schema_check.json");
const SCORE_SCHEMA: &str = include_str!("../../../prompts/proposition/schema_score.json");

/// How the claim is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scoring {
    /// true / false.
    Check,
    /// 0–9.
    Score,
}

impl Scoring {
    pub fn parse(s: &str) -> Result<Scoring, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "check" | "" => Ok(Scoring::Check),
            "score" => Ok(Scoring::Score),
            other => Err(format!("--scoring must be check or score, got '{other}'")),
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Scoring::Check => "check",
            Scoring::Score => "score",
        }
    }
    pub fn scale(self) -> Scale {
        match self {
            Scoring::Check => Scale::Bool,
            Scoring::Score => Scale::Score09,
        }
    }
    pub(super) fn tool(self) -> &'static str {
        match self {
            Scoring::Check => TOOL_CHECK,
            Scoring::Score => TOOL_SCORE,
        }
    }
}

/// What a proposition run asks (checked by `JudgeSpec::proposition`;
/// recorded with the run as [`Settings::to_options`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub claim: String,
    pub claim_id: String,
    pub scoring: Scoring,
    pub double_check: bool,
    pub precondition: Option<String>,
    pub first_n: Option<usize>,
    pub last_n: Option<usize>,
}

impl Settings {
    /// A stable id for a claim given without `--claim-id`.
    pub fn default_claim_id(claim: &str) -> String {
        use sha2::{Digest, Sha256};
        let h = Sha256::digest(claim.trim().as_bytes());
        format!(
            "claim-{}",
            h.iter()
                .take(4)
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        )
    }

    pub fn to_options(&self) -> Value {
        json!({
            "claim": self.claim,
            "claim_id": self.claim_id,
            "scoring": self.scoring.as_str(),
            "double_check": self.double_check,
            "precondition": self.precondition,
            "first_n": self.first_n,
            "last_n": self.last_n,
        })
    }
}

/// The prompt texts (embedded; a prompt directory with a `proposition/` folder overrides them).
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
    pub fn load(dir: Option<&Path>) -> Result<PropositionPrompts, String> {
        let read = |name: &str, fallback: &str| -> Result<String, String> {
            match dir
                .map(|d| d.join("proposition").join(name))
                .filter(|p| p.exists())
            {
                Some(p) => {
                    crate::readfile::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))
                }
                None => Ok(fallback.to_string()),
            }
        };
        let schema = |name: &str, fallback: &str| -> Result<Value, String> {
            serde_json::from_str(&read(name, fallback)?)
                .map_err(|e| format!("proposition {name}: {e}"))
        };
        Ok(PropositionPrompts {
            check_system: read("check_system.txt", CHECK_SYSTEM)?,
            score_system: read("score_system.txt", SCORE_SYSTEM)?,
            user: read("user.txt", USER)?,
            double_check: read("double_check.txt", DOUBLE_CHECK)?,
            check_schema: schema("schema_check.json", CHECK_SCHEMA)?,
            score_schema: schema("schema_score.json", SCORE_SCHEMA)?,
        })
    }

    /// Hash of the texts and the settings that change what is asked.
    pub fn hash(&self, s: &Settings) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        let (system, schema) = match s.scoring {
            Scoring::Check => (&self.check_system, &self.check_schema),
            Scoring::Score => (&self.score_system, &self.score_schema),
        };
        let dc = if s.double_check {
            self.double_check.as_str()
        } else {
            ""
        };
        for part in [
            system.as_str(),
            self.user.as_str(),
            &schema.to_string(),
            dc,
            &s.claim,
            s.precondition.as_deref().unwrap_or(""),
            &format!("{:?}/{:?}", s.first_n, s.last_n),
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
