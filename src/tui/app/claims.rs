//! The proposition claims the workbench can judge: what a claim row asks.
//!
//! A label or verdict names a claim only by id; what the judge is asked (the
//! claim text, check or score, precondition, window, double-check) comes
//! from the runs that judged it before (their recorded options) and from
//! `claims.toml` in the config directory, which wins. Both are checked by
//! [`JudgeSpec::proposition`], the constructor `jury run --protocol
//! proposition` uses, so the workbench refuses what the CLI refuses.

use crate::domain::{PersonaRef, Protocol, Run};
use crate::protocol::proposition::{Scoring, Settings};
use crate::protocol::spec::JudgeSpec;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Claim id → what judging it asks.
pub type Claims = BTreeMap<String, Settings>;

/// One `[[claim]]` of `claims.toml`: `jury run --protocol proposition`'s
/// flags by the same names.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaimEntry {
    id: String,
    claim: String,
    scoring: Option<String>,
    precondition: Option<String>,
    first_n: Option<usize>,
    last_n: Option<usize>,
    #[serde(default)]
    double_check: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaimFile {
    #[serde(default)]
    claim: Vec<ClaimEntry>,
}

impl ClaimEntry {
    /// The settings this claim asks with, as the constructor checks them. A
    /// scoring that does not read is named after the claim and precondition,
    /// in the order `jury run` names them.
    fn settings(self) -> Result<Settings, String> {
        let scoring = self.scoring.unwrap_or_default();
        let parsed = Scoring::parse(&scoring);
        let asked = Settings {
            claim: self.claim,
            claim_id: self.id,
            scoring: parsed.clone().unwrap_or(Scoring::Check),
            double_check: self.double_check,
            precondition: self.precondition,
            first_n: self.first_n,
            last_n: self.last_n,
        };
        let spec = JudgeSpec::proposition(asked, PersonaRef::None).map_err(|e| e.to_string())?;
        let JudgeSpec::Proposition { mut settings, .. } = spec else {
            return Err("not a proposition".into());
        };
        settings.scoring = parsed.map_err(|_| {
            format!(
                "scoring must be check or score, got '{}'",
                scoring.trim().to_ascii_lowercase()
            )
        })?;
        Ok(settings)
    }
}

/// The claims earlier proposition runs asked, the newest run's settings per
/// claim id (runs come oldest first), from each run's record. A run
/// without one (recorded before runs had records and not converted) is
/// left out: it cannot be asked again as it was.
pub fn from_runs(runs: &[Run]) -> Claims {
    let mut out = Claims::new();
    for r in runs
        .iter()
        .filter(|r| r.spec.protocol == Protocol::Proposition)
    {
        let Some(crate::protocol::JudgeSpec::Proposition { settings, .. }) =
            r.spec.record.as_deref().map(|rec| &rec.judge)
        else {
            continue;
        };
        // Checked by its constructor when the run was made.
        out.insert(settings.claim_id.clone(), settings.clone());
    }
    out
}

/// Reads `claims.toml` from `config_dir`; a missing file is no claims. A bad
/// file or claim is a warning naming the file (and the line or the claim),
/// and no claim of that file is used.
pub fn load(config_dir: Option<&Path>) -> (Claims, Option<String>) {
    let Some(path) = config_dir.map(|d| d.join("claims.toml")) else {
        return (Claims::new(), None);
    };
    if !path.exists() {
        return (Claims::new(), None);
    }
    match crate::readfile::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|text| parse(&text))
    {
        Ok(c) => (c, None),
        Err(e) => (Claims::new(), Some(format!("{}: {e}", path.display()))),
    }
}

/// The claims of a `claims.toml` text.
pub fn parse(text: &str) -> Result<Claims, String> {
    let file: ClaimFile = toml::from_str(text).map_err(|e| match e.span() {
        Some(span) => {
            let (line, col) = crate::config::line_col(text, span.start);
            format!("line {line}, column {col}: {}", e.message())
        }
        None => e.message().to_string(),
    })?;
    let mut out = Claims::new();
    for c in file.claim {
        let id = c.id.trim().to_string();
        if id.is_empty() {
            return Err("a [[claim]] needs an id".into());
        }
        let s = ClaimEntry {
            id: id.clone(),
            ..c
        }
        .settings()
        .map_err(|e| format!("claim '{id}': {e}"))?;
        // Two [[claim]]s under one id: which one a label is about cannot be
        // told, so neither is picked silently.
        if out.contains_key(&id) {
            return Err(format!(
                "claim '{id}' is defined twice: give each [[claim]] its own id"
            ));
        }
        out.insert(id, s);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::proposition::Scoring;

    #[test]
    fn a_claims_file_builds_what_jury_run_builds() {
        let c = parse(
            r#"
[[claim]]
id = "c-resolved"
claim = "The agent resolved the problem."
scoring = "score"
last_n = 2
double_check = true
"#,
        )
        .unwrap();
        let s = &c["c-resolved"];
        assert_eq!(s.scoring, Scoring::Score);
        assert_eq!(s.last_n, Some(2));
        assert!(s.double_check);
        // Through the CLI's constructor, from the same flags: the same settings.
        let cli = JudgeSpec::from_flags(&crate::protocol::SpecFlags {
            protocol: "proposition".into(),
            claim: Some("The agent resolved the problem.".into()),
            claim_id: Some("c-resolved".into()),
            scoring: Some("score".into()),
            last_n: Some(2),
            double_check: true,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            cli,
            JudgeSpec::Proposition {
                settings: s.clone(),
                persona: None
            }
        );
    }

    #[test]
    fn the_sample_claims_file_reads() {
        let c = parse(include_str!("../../../sample-data/proposition/claims.toml")).unwrap();
        assert_eq!(c.len(), 14);
        assert_eq!(c["c-resolved"].last_n, Some(2));
        assert!(c["c-tone"].double_check);
    }

    #[test]
    fn a_bad_claims_file_names_the_line_or_the_claim() {
        let e = parse("[[claim]]\nid = \"a\"\nclaim = \"x\"\nwhat = 1\n").unwrap_err();
        assert!(e.contains("line 4"), "{e}");
        let e = parse("[[claim]]\nid = \"a\"\nclaim = \"x\"\nscoring = \"maybe\"\n").unwrap_err();
        assert!(
            e.contains("claim 'a'") && e.contains("check or score"),
            "{e}"
        );
        let e = parse("[[claim]]\nid = \"a\"\nclaim = \"x\"\nprecondition = \"kind ==\"\n")
            .unwrap_err();
        assert!(e.contains("claim 'a'"), "{e}");
        let e =
            parse("[[claim]]\nid = \"a\"\nclaim = \"x\"\n[[claim]]\nid = \" a\"\nclaim = \"y\"\n")
                .unwrap_err();
        assert_eq!(
            e,
            "claim 'a' is defined twice: give each [[claim]] its own id"
        );
    }

    /// The workbench has no flags: a bad claim is named by its fields.
    #[test]
    fn a_bad_claim_names_no_flag() {
        for (toml, want) in [
            (
                "claim = \" \"",
                "claim 'a': the proposition protocol needs a claim",
            ),
            (
                "claim = \"x\"\nscoring = \" Maybe\"",
                "claim 'a': scoring must be check or score, got 'maybe'",
            ),
            (
                "claim = \"x\"\nprecondition = \"colour == red\"",
                "claim 'a': precondition: unknown field 'colour'",
            ),
            (
                "claim = \"\"\nscoring = \"maybe\"",
                "claim 'a': the proposition protocol needs a claim",
            ),
        ] {
            let e = parse(&format!("[[claim]]\nid = \"a\"\n{toml}\n")).unwrap_err();
            assert!(e.starts_with(want), "{e}");
            assert!(!e.contains("--"), "{e}");
        }
    }
}
