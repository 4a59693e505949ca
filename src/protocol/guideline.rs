//! Guideline checks (guideline-applied-check-prompt.txt): a conversation of
//! events and condition→action guidelines; per guideline the judge splits the
//! action into segments (each with a rationale), says how far it was applied
//! (no / partially / fully), whether a missing part is functional or
//! behavioural, and whether the guideline counts as applied.
//!
//! The rule: a missing functional part means not applied; a missing
//! behavioural part alone still counts as applied; fully is applied, no is not.
//! An answer that contradicts the rule (functional part missing but
//! applied=true...) is KEPT: the degree and the segments are valid
//! observations, and the contradiction is itself a calibration signal that a
//! retry would hide. It is flagged: the text starts with `[inconsistent: ...]`,
//! `raw` carries `"consistency": {"expected_applied", "stated_applied", "flag"}`,
//! `evaluated_selection` holds the stated `applied=true|false` and
//! `selection_mismatch` is set, so the TUI and exports mark it like any other
//! kept-but-flagged verdict.

use crate::domain::{ComboKey, Degree, Item, Mode, Protocol, Scale};
use crate::protocol::{JudgeProtocol, ParseOutcome, ParsedVerdict, Unit};
use crate::provider::{ChatCall, Message, ToolSpec};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

/// The item kind conversations are stored as.
pub const KIND: &str = "conversation";
/// The perspective id guideline verdicts and labels use.
pub const PERSPECTIVE: &str = "guideline";
pub const TOOL_NAME: &str = "record_guideline_checks";

const SYSTEM: &str = include_str!("../../prompts/guideline/system.txt");
const EXAMPLES: &str = include_str!("../../prompts/guideline/examples.txt");
const USER: &str = include_str!("../../prompts/guideline/user.txt");
const SCHEMA: &str = include_str!("../../prompts/guideline/schema_result.json");

/// One conversation event as stored in an item's payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// `customer`, `ai_agent`, `tool` (or another participant role).
    pub source: String,
    /// `message` or `tool`.
    pub kind: String,
    pub content: String,
}

/// A condition → action guideline.
#[derive(Debug, Clone, PartialEq)]
pub struct Guideline {
    pub id: String,
    pub condition: String,
    pub action: String,
}

fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The events of a conversation item.
pub fn events(item: &Item) -> Vec<Event> {
    item.payload["events"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| Event {
                    source: e["source"].as_str().unwrap_or("").to_string(),
                    kind: e["kind"].as_str().unwrap_or("message").to_string(),
                    content: content_text(&e["content"]),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The guidelines of a conversation item.
pub fn guidelines(item: &Item) -> Vec<Guideline> {
    item.payload["guidelines"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|g| Guideline {
                    id: g["id"].as_str().unwrap_or("").to_string(),
                    condition: g["condition"].as_str().unwrap_or("").to_string(),
                    action: g["action"].as_str().unwrap_or("").to_string(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Numbered lines, `n. customer: text` / `n. [tool] text` (numbering from `from`).
pub fn render_events(events: &[Event], from: usize) -> String {
    events
        .iter()
        .enumerate()
        .map(|(i, e)| {
            if e.kind == "tool" || e.source == "tool" {
                format!("{}. [tool, {}] {}", from + i, e.source, e.content)
            } else {
                format!("{}. {}: {}", from + i, e.source, e.content)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Normalises one imported event: `{source, kind, content}` or the reference's
/// `{event_source, event_kind, data: {message}}`; `user` reads as `customer`.
pub fn normalise_event(v: &Value) -> Result<Value, String> {
    let o = v
        .as_object()
        .ok_or_else(|| "an event must be an object".to_string())?;
    let source = o
        .get("source")
        .or_else(|| o.get("event_source"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| "'source' is missing (customer, ai_agent or tool)".to_string())?;
    let source = match source {
        "user" | "customer" => "customer",
        "agent" | "ai_agent" | "assistant" => "ai_agent",
        other => other,
    };
    let kind = o
        .get("kind")
        .or_else(|| o.get("event_kind"))
        .and_then(Value::as_str)
        .unwrap_or(if source == "tool" { "tool" } else { "message" });
    if !matches!(kind, "message" | "tool" | "status") {
        return Err(format!("'kind' must be message or tool, found '{kind}'"));
    }
    let content = match o.get("content") {
        Some(c) => c.clone(),
        None => match o.get("data") {
            Some(Value::Object(d)) => d
                .get("message")
                .cloned()
                .unwrap_or(Value::Object(d.clone())),
            Some(other) => other.clone(),
            None => Value::Null,
        },
    };
    if kind == "message" && content_text(&content).trim().is_empty() {
        return Err("a message event has no 'content'".into());
    }
    Ok(json!({"source": source, "kind": kind, "content": content}))
}

/// The prompt texts (embedded; a prompt directory with a `guideline/` folder overrides them).
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
                Some(p) => std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display())),
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

pub struct GuidelineCheck {
    pub prompts: GuidelinePrompts,
    pub items: Arc<HashMap<String, Item>>,
}

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
    fn check_entry(&self, key: &ComboKey, c: &Value) -> Result<ParsedVerdict, String> {
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
        let degree = match c
            .get("guideline_applied_degree")
            .map(|d| Scale::Degree.from_json(d))
        {
            Some(Ok(v @ crate::domain::Value::Degree(_))) => v,
            Some(Ok(_)) | None => return Err("no guideline_applied_degree".into()),
            Some(Err(e)) => return Err(e.to_string()),
        };
        let crate::domain::Value::Degree(deg) = degree else {
            unreachable!()
        };
        let applied = match c.get("guideline_applied") {
            Some(Value::Bool(b)) => *b,
            Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => true,
            Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => false,
            Some(other) => {
                return Err(format!(
                    "guideline_applied must be true or false, found {other}"
                ));
            }
            None => return Err("no guideline_applied".into()),
        };
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
        if deg == Degree::Partially {
            match missing_kind.as_deref() {
                Some("functional" | "behavioral") => {}
                Some(other) => {
                    return Err(format!(
                        "is_missing_part_functional_or_behavioral must be functional or behavioral, found '{other}'"
                    ));
                }
                None => {
                    return Err(
                        "partially applied but the missing part is not called functional or behavioral".into(),
                    );
                }
            }
            if missing_why.is_empty() {
                return Err("partially applied but no rationale for the missing part".into());
            }
        }
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

impl JudgeProtocol for GuidelineCheck {
    fn protocol(&self) -> Protocol {
        Protocol::Guideline
    }

    fn mode(&self) -> Option<Mode> {
        None
    }

    fn scale(&self) -> Scale {
        Scale::Degree
    }

    fn units(&self, item_ids: &[String]) -> Vec<Unit> {
        item_ids
            .iter()
            .filter_map(|id| self.items.get(id).filter(|i| i.kind == KIND))
            .flat_map(|item| {
                guidelines(item).into_iter().map(move |g| Unit {
                    key: ComboKey::new(&item.id, &g.id, PERSPECTIVE),
                    asked_selection: String::new(),
                })
            })
            .collect()
    }

    /// One conversation per request, at most `batch_size` guidelines in it.
    fn batches(&self, units: &[Unit], batch_size: usize) -> Vec<Vec<Unit>> {
        let mut out: Vec<Vec<Unit>> = Vec::new();
        for u in units {
            match out.last_mut() {
                Some(b) if b[0].key.item_id == u.key.item_id && b.len() < batch_size.max(1) => {
                    b.push(u.clone())
                }
                _ => out.push(vec![u.clone()]),
            }
        }
        out
    }

    fn build_call(&self, batch: &[Unit], boundary: &str) -> Result<ChatCall, String> {
        let first = batch.first().ok_or("empty batch")?;
        let item = self
            .items
            .get(&first.key.item_id)
            .ok_or_else(|| format!("conversation '{}' is not in the store", first.key.item_id))?;
        let all = guidelines(item);
        let mut asked = Vec::new();
        for u in batch {
            let g = all
                .iter()
                .find(|g| g.id == u.key.classification_id)
                .ok_or_else(|| {
                    format!(
                        "conversation '{}' has no guideline '{}'",
                        item.id, u.key.classification_id
                    )
                })?;
            asked.push(json!({"guideline_id": g.id, "condition": g.condition, "action": g.action}));
        }
        // Tool results stay JSON (not JSON-in-a-string) so the judge reads them as data.
        let evs: Vec<Value> = item.payload["events"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| json!({"event_source": e["source"], "event_kind": e["kind"], "content": e["content"]}))
            .collect();
        let delimit = |t: &str| super::awag::request::delimit(t, boundary);
        let agent = item.payload["agent"]["name"]
            .as_str()
            .unwrap_or("the agent");
        // The agent's name and the guideline ids come from the imported
        // conversation: like everything else from it, inside the markers.
        let user = self
            .prompts
            .user
            .replace("{agent}", &delimit(agent))
            .replace(
                "{events}",
                &delimit(&serde_json::to_string_pretty(&evs).unwrap_or_default()),
            )
            .replace(
                "{guidelines}",
                &delimit(&serde_json::to_string_pretty(&asked).unwrap_or_default()),
            )
            .replace("{count}", &batch.len().to_string())
            .replace(
                "{ids}",
                &delimit(
                    &batch
                        .iter()
                        .map(|u| u.key.classification_id.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
            );
        Ok(ChatCall {
            messages: vec![
                Message::system(
                    self.prompts
                        .system
                        .replace("{boundary}", boundary)
                        .trim_end(),
                ),
                Message::user(self.prompts.examples.trim_end()),
                Message::user(user.trim_end()),
            ],
            tool: ToolSpec {
                name: TOOL_NAME.into(),
                description: format!(
                    "Record, for each of the {} guideline(s), the action segments, the degree applied and whether it counts as applied.",
                    batch.len()
                ),
                parameters: self.prompts.schema.clone(),
            },
            max_tokens: None,
        })
    }

    fn parse(&self, batch: &[Unit], answer: &str) -> ParseOutcome {
        let mut out = ParseOutcome::default();
        let all_missing = |why: &str| -> Vec<(ComboKey, String)> {
            batch
                .iter()
                .map(|u| (u.key.clone(), why.to_string()))
                .collect()
        };
        let doc: Value = match serde_json::from_str(answer.trim()) {
            Ok(v) => v,
            Err(e) => {
                out.malformed = true;
                out.missing = all_missing(&format!("the answer is not valid JSON ({e})"));
                return out;
            }
        };
        let Some(checks) = doc.get("checks").and_then(Value::as_array) else {
            out.missing = all_missing("the answer has no 'checks' list");
            return out;
        };
        let by_id: HashMap<&str, &Unit> = batch
            .iter()
            .map(|u| (u.key.classification_id.as_str(), u))
            .collect();
        let mut seen: HashSet<String> = HashSet::new();
        let mut errors: HashMap<String, String> = HashMap::new();
        for (i, c) in checks.iter().enumerate() {
            let id = match c.get("guideline_id") {
                Some(Value::String(s)) => s.trim().to_string(),
                Some(Value::Number(n)) => n.to_string(),
                _ => {
                    out.notes
                        .push(format!("check {} has no guideline_id", i + 1));
                    continue;
                }
            };
            let Some(unit) = by_id.get(id.as_str()) else {
                out.notes
                    .push(format!("check for unknown guideline '{id}'"));
                continue;
            };
            if !seen.insert(id.clone()) {
                out.notes.push(format!(
                    "guideline '{id}' answered more than once (the first is kept)"
                ));
                continue;
            }
            match self.check_entry(&unit.key, c) {
                Ok(v) => out.verdicts.push(v),
                Err(why) => {
                    errors.insert(id, why);
                }
            }
        }
        for u in batch {
            let id = &u.key.classification_id;
            if let Some(why) = errors.remove(id) {
                out.missing.push((u.key.clone(), why));
            } else if !seen.contains(id) {
                out.missing
                    .push((u.key.clone(), "not in the answer".into()));
            }
        }
        out
    }

    fn partial_texts(&self, batch: &[Unit], partial: &Value) -> Vec<(ComboKey, String)> {
        let mut out = Vec::new();
        for c in partial["checks"].as_array().into_iter().flatten() {
            let Some(id) = c["guideline_id"].as_str() else {
                continue;
            };
            let Some(u) = batch.iter().find(|u| u.key.classification_id == id) else {
                continue;
            };
            let text: Vec<String> = c["guideline_applied_rationale"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|s| {
                    let seg = s["action_segment"].as_str()?;
                    Some(format!(
                        "{seg}: {}",
                        s["action_applied_rationale"].as_str().unwrap_or("")
                    ))
                })
                .collect();
            if !text.is_empty() {
                out.push((u.key.clone(), text.join(" · ")));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv() -> GuidelineCheck {
        let mut items = HashMap::new();
        items.insert(
            "c1".to_string(),
            Item {
                id: "c1".into(),
                kind: KIND.into(),
                payload: json!({
                    "events": [
                        {"source": "customer", "kind": "message", "content": "My parcel arrived crushed."},
                        {"source": "ai_agent", "kind": "message", "content": "Sorry! I have issued a refund."}
                    ],
                    "guidelines": [
                        {"id": "g1", "condition": "damaged item", "action": "apologise and offer a refund"},
                        {"id": "g2", "condition": "any", "action": "ask for a photo"}
                    ]
                }),
                ..Item::default()
            },
        );
        GuidelineCheck {
            prompts: GuidelinePrompts::load(None).unwrap(),
            items: Arc::new(items),
        }
    }

    fn check(id: &str, degree: &str, kind: Option<&str>, applied: bool) -> Value {
        let mut c = json!({
            "guideline_id": id,
            "action": "x",
            "guideline_applied_rationale": [{"action_segment": "DO x", "action_applied_rationale": "x was DONE"}],
            "guideline_applied_degree": degree,
            "guideline_applied": applied
        });
        if let Some(k) = kind {
            c["is_missing_part_functional_or_behavioral"] = json!(k);
            c["is_missing_part_functional_or_behavioral_rationale"] = json!("because");
        }
        c
    }

    #[test]
    fn rule_is_checked_and_contradictions_flagged() {
        let g = conv();
        let units = g.units(&["c1".into()]);
        assert_eq!(units.len(), 2);
        assert_eq!(g.batches(&units, 10).len(), 1);
        assert_eq!(g.batches(&units, 1).len(), 2);
        let ans = json!({"checks": [
            check("g1", "partially", Some("functional"), true),
            check("g2", "partially", Some("behavioral"), true),
        ]});
        let out = g.parse(&units, &ans.to_string());
        assert_eq!(out.verdicts.len(), 2);
        assert!(out.verdicts[0].selection_mismatch);
        assert!(
            out.verdicts[0]
                .text
                .starts_with("[inconsistent: a missing functional part")
        );
        assert!(!out.verdicts[1].selection_mismatch);
        let raw: Value = serde_json::from_str(&out.verdicts[0].raw).unwrap();
        assert_eq!(raw["consistency"]["expected_applied"], false);

        let ans = json!({"checks": [check("g1", "fully", None, false), check("g2", "sometimes", None, true)]});
        let out = g.parse(&units, &ans.to_string());
        assert!(out.verdicts[0].selection_mismatch);
        assert!(out.missing[0].1.contains("degree"));

        let ans = json!({"checks": [check("g1", "partially", None, false)]});
        let out = g.parse(&units, &ans.to_string());
        assert!(out.verdicts.is_empty());
        assert_eq!(out.missing.len(), 2);
        assert!(out.missing[0].1.contains("functional or behavioral"));
        assert_eq!(out.missing[1].1, "not in the answer");
    }
}
