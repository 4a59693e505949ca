//! What a proposition run asks (its settings), and the hash it records of
//! them with the prompt texts it asks with.

use super::{TOOL_CHECK, TOOL_SCORE};
use crate::domain::Scale;
use crate::prompt::PropositionPrompts;

/// How the claim is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
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
/// recorded with the run in its record).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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

    /// The hash a run records: the texts it sends and the settings that
    /// change what is asked.
    pub fn prompt_hash(&self, prompts: &PropositionPrompts) -> String {
        let (system, schema) = match self.scoring {
            Scoring::Check => (&prompts.check_system, &prompts.check_schema),
            Scoring::Score => (&prompts.score_system, &prompts.score_schema),
        };
        let dc = if self.double_check {
            prompts.double_check.as_str()
        } else {
            ""
        };
        let schema = schema.to_string();
        let window = format!("{:?}/{:?}", self.first_n, self.last_n);
        crate::prompt::hash_texts([
            system.as_str(),
            prompts.user.as_str(),
            schema.as_str(),
            dc,
            &self.claim,
            self.precondition.as_deref().unwrap_or(""),
            &window,
        ])
    }
}
