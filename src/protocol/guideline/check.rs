//! One check entry of an answer against the rule (see the module above):
//! a verdict, kept and flagged when it contradicts the rule.

use super::GuidelineCheck;
use crate::domain::{ComboKey, Degree, Scale};
use crate::protocol::ParsedVerdict;
use serde_json::{Value, json};

/// What the rule says `applied` must be for a degree and missing-part kind.
pub fn expected_applied(degree: Degree, missing: Option<&str>) -> Option<bool> {
    match degree {
        Degree::Fully => Some(true),
        Degree::No => Some(false),
        Degree::Partially => match missing {
            Some("functional") => Some(false),
            Some("behavioral") => Some(true),
            _ => None,
        },
    }
}

fn get_str<'a>(o: &'a Value, names: &[&str]) -> Option<&'a str> {
    names.iter().find_map(|n| o.get(*n).and_then(Value::as_str))
}

impl GuidelineCheck {
    /// One check entry → a verdict, or why it is not valid.
    pub(super) fn check_entry(&self, key: &ComboKey, c: &Value) -> Result<ParsedVerdict, String> {
        let seg_lines = segments(c)?;
        let deg = degree_of(c)?;
        let degree = crate::domain::Value::Degree(deg);
        let applied = applied_of(c)?;
        let (missing_kind, missing_why, incomplete) = missing_part(c, deg)?;
        let relevant_kind = (deg == Degree::Partially)
            .then_some(missing_kind.as_deref())
            .flatten();
        let expected = expected_applied(deg, relevant_kind);
        let flag = match expected {
            Some(e) if e != applied => Some(match (deg, relevant_kind) {
                (Degree::Partially, Some(k)) => format!(
                    "a missing {k} part means applied={e}, but the judge said applied={applied}"
                ),
                _ => format!(
                    "degree '{}' means applied={e}, but the judge said applied={applied}",
                    degree
                ),
            }),
            _ => None,
        };
        let mut text = String::new();
        if let Some(f) = &flag {
            text.push_str(&format!("[inconsistent: {f}] "));
        }
        // The rule cannot be checked without the missing part's kind.
        if let Some(i) = &incomplete {
            text.push_str(&format!("[incomplete: {i}] "));
        }
        let flag = flag.or(incomplete);
        text.push_str(&format!(
            "{} ({degree}). {}",
            if applied { "Applied" } else { "Not applied" },
            seg_lines.join(" · ")
        ));
        if let Some(k) = relevant_kind {
            text.push_str(&format!(" — missing part is {k}: {missing_why}"));
        }
        let mut raw = c.clone();
        raw["consistency"] = json!({
            "expected_applied": expected,
            "stated_applied": applied,
            "flag": flag,
        });
        Ok(ParsedVerdict {
            key: key.clone(),
            value: degree,
            text,
            evaluated_selection: Some(format!("applied={applied}")),
            selection_mismatch: flag.is_some(),
            raw: raw.to_string(),
        })
    }
}

/// The action segments, each as `segment: rationale`.
fn segments(c: &Value) -> Result<Vec<String>, String> {
    let segments = c
        .get("guideline_applied_rationale")
        .and_then(Value::as_array)
        .filter(|a| !a.is_empty())
        .ok_or("no action segments (guideline_applied_rationale)")?;
    let mut seg_lines = Vec::new();
    for (i, s) in segments.iter().enumerate() {
        let seg = get_str(s, &["action_segment"]).unwrap_or("").trim();
        let why = get_str(s, &["action_applied_rationale"])
            .unwrap_or("")
            .trim();
        if seg.is_empty() || why.is_empty() {
            return Err(format!(
                "action segment {} lacks its text or rationale",
                i + 1
            ));
        }
        seg_lines.push(format!("{seg}: {why}"));
    }
    Ok(seg_lines)
}

fn degree_of(c: &Value) -> Result<Degree, String> {
    match c
        .get("guideline_applied_degree")
        .map(|d| Scale::Degree.from_json(d))
    {
        Some(Ok(crate::domain::Value::Degree(d))) => Ok(d),
        Some(Ok(_)) | None => Err("no guideline_applied_degree".into()),
        Some(Err(e)) => Err(e.to_string()),
    }
}

fn applied_of(c: &Value) -> Result<bool, String> {
    match c.get("guideline_applied") {
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => Ok(true),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => Ok(false),
        Some(other) => Err(format!(
            "guideline_applied must be true or false, found {other}"
        )),
        None => Err("no guideline_applied".into()),
    }
}

/// The missing part's kind (`functional` / `behavioral`), its rationale,
/// and, when the guideline was partially applied and either is absent, what
/// is incomplete. An absent kind or rationale keeps the verdict (the degree
/// is the judge's answer) and flags it: the JSON schema can only describe
/// them as optional, so a judge held to the schema by a grammar (llama.cpp,
/// vLLM) may leave them out. A kind that is neither is an invalid entry.
fn missing_part(
    c: &Value,
    deg: Degree,
) -> Result<(Option<String>, String, Option<String>), String> {
    let missing_kind = get_str(c, &["is_missing_part_functional_or_behavioral"])
        .map(|s| s.trim().to_ascii_lowercase())
        .filter(|s| !s.is_empty())
        .map(|s| {
            if s == "behavioural" {
                "behavioral".to_string()
            } else {
                s
            }
        });
    let missing_why = get_str(
        c,
        &[
            "is_missing_part_functional_or_behavioral_rationale",
            "is_missing_part_functional_or_behavioral_rational",
        ],
    )
    .unwrap_or("")
    .trim()
    .to_string();
    let mut incomplete = None;
    if deg == Degree::Partially {
        match missing_kind.as_deref() {
            Some("functional" | "behavioral") => {}
            Some(other) => {
                return Err(format!(
                    "is_missing_part_functional_or_behavioral must be functional or behavioral, found '{other}'"
                ));
            }
            None => {
                incomplete = Some(
                    "partially applied but the missing part is not called functional or behavioral"
                        .to_string(),
                );
            }
        }
        if incomplete.is_none() && missing_why.is_empty() {
            incomplete = Some("partially applied but no rationale for the missing part".into());
        }
    }
    Ok((missing_kind, missing_why, incomplete))
}
