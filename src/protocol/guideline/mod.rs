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

mod check;
mod conversation;

pub use check::expected_applied;
pub use conversation::{Event, Guideline, events, guidelines, normalise_event, render_events};

use crate::domain::{ComboKey, Item, Protocol, Scale};
use crate::prompt::GuidelinePrompts;
use crate::protocol::{JudgeProtocol, ParseOutcome, ProtocolError, Unit};
use crate::provider::{ChatCall, Message, ToolSpec};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The item kind conversations are stored as.
pub const KIND: &str = "conversation";
/// The perspective id guideline verdicts and labels use.
pub const PERSPECTIVE: &str = "guideline";
pub const TOOL_NAME: &str = "record_guideline_checks";

pub struct GuidelineCheck {
    pub prompts: GuidelinePrompts,
    pub items: Arc<crate::protocol::ItemBook>,
}

/// The request's user message: the conversation, the guidelines asked
/// about (`asked`, as JSON), the agent's name and ids, each between the
/// markers. `data` is applied to each piece of data before it is delimited
/// (few-shot examples use it to keep the placeholder out of the data).
pub fn user_text(
    template: &str,
    item: &Item,
    asked: &[Value],
    ids: &[&str],
    boundary: &str,
    data: &dyn Fn(String) -> String,
) -> String {
    // Tool results stay JSON (not JSON-in-a-string) so the judge reads them as data.
    let evs: Vec<Value> = item.payload["events"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| json!({"event_source": e["source"], "event_kind": e["kind"], "content": e["content"]}))
        .collect();
    let delimit = |t: String| super::awag::request::delimit(&data(t), boundary);
    let agent = item.payload["agent"]["name"]
        .as_str()
        .unwrap_or("the agent");
    // The agent's name and the guideline ids come from the imported
    // conversation: like everything else from it, inside the markers.
    template
        .replace("{agent}", &delimit(agent.to_string()))
        .replace(
            "{events}",
            &delimit(serde_json::to_string_pretty(&evs).unwrap_or_default()),
        )
        .replace(
            "{guidelines}",
            &delimit(serde_json::to_string_pretty(&asked).unwrap_or_default()),
        )
        .replace("{count}", &ids.len().to_string())
        .replace("{ids}", &delimit(ids.join(", ")))
}

impl JudgeProtocol for GuidelineCheck {
    fn protocol(&self) -> Protocol {
        Protocol::Guideline
    }

    fn scale(&self) -> Scale {
        Scale::Degree
    }

    fn units(&self, item_ids: &[String]) -> Vec<Unit> {
        let mut out = Vec::new();
        for item in item_ids
            .iter()
            .filter_map(|id| self.items.get(id).filter(|i| i.kind == KIND))
        {
            out.extend(guidelines(&item).into_iter().map(|g| Unit {
                key: ComboKey::new(&item.id, &g.id, PERSPECTIVE),
                asked_selection: String::new(),
            }));
        }
        out
    }

    /// One conversation per request, at most `batch_size` guidelines in it.
    fn batches(&self, units: Vec<Unit>, batch_size: usize) -> Vec<Vec<Unit>> {
        let mut out: Vec<Vec<Unit>> = Vec::new();
        for u in units {
            match out.last_mut() {
                Some(b) if b[0].key.item_id == u.key.item_id && b.len() < batch_size.max(1) => {
                    b.push(u)
                }
                _ => out.push(vec![u]),
            }
        }
        out
    }

    fn build_call(&self, batch: &[Unit], boundary: &str) -> Result<ChatCall, ProtocolError> {
        let first = batch.first().ok_or(ProtocolError::EmptyBatch)?;
        let item = self
            .items
            .get(&first.key.item_id)
            .ok_or_else(|| ProtocolError::NoConversation(first.key.item_id.clone()))?;
        let item = &item;
        let all = guidelines(item);
        let mut asked = Vec::new();
        for u in batch {
            let g = all
                .iter()
                .find(|g| g.id == u.key.classification_id)
                .ok_or_else(|| ProtocolError::NoGuideline {
                    conversation: item.id.clone(),
                    guideline: u.key.classification_id.clone(),
                })?;
            asked.push(json!({"guideline_id": g.id, "condition": g.condition, "action": g.action}));
        }
        let ids: Vec<&str> = batch
            .iter()
            .map(|u| u.key.classification_id.as_str())
            .collect();
        let user = user_text(&self.prompts.user, item, &asked, &ids, boundary, &|t| t);
        Ok(ChatCall {
            messages: vec![
                Message::system(
                    self.prompts
                        .system
                        .replace("{boundary}", boundary)
                        .trim_end(),
                ),
                // Few-shot examples (`jury fewshot`) hold conversations
                // between the markers: the placeholder there is the run's too.
                Message::user(
                    self.prompts
                        .examples
                        .replace("{boundary}", boundary)
                        .trim_end(),
                ),
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
            items: Arc::new(items.into()),
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
        assert_eq!(g.batches(units.clone(), 10).len(), 1);
        assert_eq!(g.batches(units.clone(), 1).len(), 2);
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

        // Partially applied without saying what is missing (a judge held to
        // the schema by a grammar may leave the optional field out): the
        // degree is kept, flagged as incomplete.
        let ans = json!({"checks": [check("g1", "partially", None, false)]});
        let out = g.parse(&units, &ans.to_string());
        assert_eq!(out.verdicts.len(), 1);
        assert!(out.verdicts[0].selection_mismatch);
        assert!(
            out.verdicts[0]
                .text
                .starts_with("[incomplete: partially applied but the missing part is not called functional or behavioral]"),
            "{}",
            out.verdicts[0].text
        );
        assert_eq!(out.missing.len(), 1);
        assert_eq!(out.missing[0].1, "not in the answer");
        // A kind that is neither: not a valid entry.
        let ans = json!({"checks": [check("g1", "partially", Some("sideways"), false)]});
        let out = g.parse(&units, &ans.to_string());
        assert!(out.verdicts.is_empty());
        assert!(out.missing[0].1.contains("functional or behavioral"));
    }
}
