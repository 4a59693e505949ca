//! Propositions (tinytroupe-proposition.txt): a claim about an item, a
//! conversation or what a persona sees, judged either as `check` (true/false
//! with justification and confidence) or `score` (0–9 on banded meanings).
//! Optional: a double-check turn ("are you sure?") whose first and revised
//! answers are both recorded, and a precondition (a filter over item fields)
//! that makes the claim trivially true, without a request, when it does not hold.

mod claim;
pub mod precondition;
mod settings;

pub use claim::{field_values, render_claim, window};
pub use settings::{Scoring, Settings};

use crate::domain::{ComboKey, Item, Persona, Protocol, Scale};
use crate::prompt::PropositionPrompts;
use crate::protocol::guideline;
use crate::protocol::{JudgeProtocol, ParseOutcome, ParsedVerdict, ProtocolError, Unit};
use crate::provider::{ChatCall, Message, ToolSpec};
use claim::or_dash;
use serde_json::{Value, json};
use std::sync::Arc;

/// The perspective id proposition verdicts and labels use.
pub const PERSPECTIVE: &str = "proposition";
pub const TOOL_CHECK: &str = "record_proposition_check";
pub const TOOL_SCORE: &str = "record_proposition_score";

pub struct Proposition {
    pub prompts: PropositionPrompts,
    pub settings: Settings,
    /// The persona whose view the claim is judged from (their specification is
    /// shown as context, and items in another persona's inbox are left out).
    pub persona: Option<Persona>,
    pub items: Arc<crate::protocol::ItemBook>,
}

impl Proposition {
    pub fn new(
        prompts: PropositionPrompts,
        settings: Settings,
        persona: Option<Persona>,
        items: Arc<crate::protocol::ItemBook>,
    ) -> Result<Proposition, ProtocolError> {
        if let Some(p) = &settings.precondition {
            precondition::parse(p).map_err(ProtocolError::Precondition)?;
        }
        Ok(Proposition {
            prompts,
            settings,
            persona,
            items,
        })
    }

    fn item(&self, unit: &Unit) -> Result<Item, ProtocolError> {
        self.items
            .get(&unit.key.item_id)
            .ok_or_else(|| ProtocolError::NoItem(unit.key.item_id.clone()))
    }

    /// The context the claim is judged against.
    pub fn context(&self, item: &Item) -> String {
        if item.kind == guideline::KIND {
            let events = guideline::events(item);
            let total = events.len();
            let (shown, note) = window(&events, self.settings.first_n, self.settings.last_n);
            let mut out = format!("Conversation '{}' ({total} events", item.id);
            if let Some(n) = note {
                out.push_str(&format!("; {n}"));
            }
            out.push_str(")\n");
            out.push_str(&shown);
            return out;
        }
        let mut lines = vec![format!("Item '{}'", item.id)];
        if let Some(s) = &item.sent_text {
            lines.push(format!("Sent: {s}"));
        }
        let src = [
            item.source.kind.as_str(),
            item.source.originator.as_str(),
            item.source.channel.as_str(),
        ];
        if src.iter().any(|s| !s.is_empty()) {
            lines.push(format!(
                "Source: type {}, from {}, channel {}",
                or_dash(src[0]),
                or_dash(src[1]),
                or_dash(src[2])
            ));
        }
        if !item.tags.is_empty() {
            lines.push(format!("Tags: {}", item.tags.join(", ")));
        }
        if !item.title.is_empty() {
            lines.push(format!("Title: {}", item.title));
        }
        lines.push(String::new());
        lines.push(item.text.clone());
        lines.join("\n")
    }

    fn tool(&self) -> ToolSpec {
        let (schema, what) = match self.settings.scoring {
            Scoring::Check => (&self.prompts.check_schema, "true or false"),
            Scoring::Score => (&self.prompts.score_schema, "a score from 0 to 9"),
        };
        ToolSpec {
            name: self.settings.scoring.tool().into(),
            description: format!(
                "Record whether the claim holds ({what}), with the justification and your confidence."
            ),
            parameters: schema.clone(),
        }
    }

    fn parse_one(
        &self,
        unit: &Unit,
        answer: &str,
    ) -> Result<(ParsedVerdict, Value), (String, bool)> {
        let doc: Value = serde_json::from_str(answer.trim())
            .map_err(|e| (format!("the answer is not valid JSON ({e})"), true))?;
        let value = match doc.get("value") {
            Some(v) => self
                .settings
                .scoring
                .scale()
                .from_json(v)
                .map_err(|e| (e.to_string(), false))?,
            None => return Err(("no value".into(), false)),
        };
        let justification = doc
            .get("justification")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_string();
        if justification.is_empty() {
            return Err(("empty justification".into(), false));
        }
        match doc.get("confidence").and_then(Value::as_f64) {
            Some(c) if (0.0..=1.0).contains(&c) => {}
            Some(c) => return Err((format!("confidence {c} is outside 0–1"), false)),
            None => return Err(("no confidence (a number from 0 to 1)".into(), false)),
        }
        Ok((
            ParsedVerdict {
                key: unit.key.clone(),
                value,
                text: justification,
                evaluated_selection: None,
                selection_mismatch: false,
                raw: doc.to_string(),
            },
            doc,
        ))
    }
}

impl JudgeProtocol for Proposition {
    fn protocol(&self) -> Protocol {
        Protocol::Proposition
    }

    fn scale(&self) -> Scale {
        self.settings.scoring.scale()
    }

    /// Content items and conversations (not rubric examples); with a persona,
    /// items in another persona's inbox are left out.
    fn units(&self, item_ids: &[String]) -> Vec<Unit> {
        item_ids
            .iter()
            .filter(|id| {
                self.items.get(id).is_some_and(|i| {
                    (i.kind.is_empty() || i.kind == guideline::KIND)
                        && match (
                            &self.persona,
                            i.tags.iter().find_map(|t| t.strip_prefix("inbox:")),
                        ) {
                            (Some(p), Some(owner)) => owner == p.id.as_str(),
                            _ => true,
                        }
                })
            })
            .map(|id| Unit {
                key: ComboKey::new(id, &self.settings.claim_id, PERSPECTIVE),
                asked_selection: String::new(),
            })
            .collect()
    }

    fn batches(&self, units: Vec<Unit>, _batch_size: usize) -> Vec<Vec<Unit>> {
        units.into_iter().map(|u| vec![u]).collect()
    }

    /// A precondition that does not hold makes the claim trivially true (9 when scoring).
    fn settle(&self, units: &[Unit]) -> Vec<ParsedVerdict> {
        let Some(expr) = &self.settings.precondition else {
            return Vec::new();
        };
        let Ok(filter) = precondition::parse(expr) else {
            return Vec::new();
        };
        let value = match self.settings.scoring {
            Scoring::Check => crate::domain::Value::Bool(true),
            Scoring::Score => crate::domain::Value::Score(9),
        };
        units
            .iter()
            .filter_map(|u| {
                let item = self.items.get(&u.key.item_id)?;
                if filter.holds(&item) {
                    return None;
                }
                let text = format!(
                    "Trivially true: the precondition `{expr}` does not hold for this item, so the claim was not put to the judge."
                );
                Some(ParsedVerdict {
                    key: u.key.clone(),
                    value,
                    text: text.clone(),
                    evaluated_selection: None,
                    selection_mismatch: false,
                    raw: json!({
                        "value": value.to_json(),
                        "justification": text,
                        "confidence": 1.0,
                        "precondition": expr,
                        "precondition_holds": false,
                    })
                    .to_string(),
                })
            })
            .collect()
    }

    fn build_call(&self, batch: &[Unit], boundary: &str) -> Result<ChatCall, ProtocolError> {
        let unit = batch.first().ok_or(ProtocolError::EmptyBatch)?;
        let item = &self.item(unit)?;
        let claim = render_claim(&self.settings.claim, item, self.persona.as_ref())?;
        let delimit = |t: &str| super::awag::request::delimit(t, boundary);
        // The persona's id and name come from imported files too: inside the markers.
        let persona = match &self.persona {
            Some(p) => format!(
                "The claim is judged from the point of view of the person specified below; the specification says who they are, not what happened:\n{}",
                delimit(
                    &serde_json::to_string_pretty(
                        &serde_json::json!({"id": p.id, "name": p.name, "definition": p.definition})
                    )
                    .unwrap_or_default()
                )
            ),
            None => "No persona is involved.".to_string(),
        };
        let user = self
            .prompts
            .user
            .replace("{claim}", &delimit(&claim))
            .replace("{persona}", &persona)
            .replace("{context}", &delimit(&self.context(item)));
        let system = match self.settings.scoring {
            Scoring::Check => &self.prompts.check_system,
            Scoring::Score => &self.prompts.score_system,
        };
        Ok(ChatCall {
            messages: vec![
                Message::system(system.replace("{boundary}", boundary).trim_end()),
                Message::user(user.trim_end()),
            ],
            tool: self.tool(),
            max_tokens: None,
        })
    }

    fn parse(&self, batch: &[Unit], answer: &str) -> ParseOutcome {
        let mut out = ParseOutcome::default();
        let Some(unit) = batch.first() else {
            return out;
        };
        match self.parse_one(unit, answer) {
            Ok((v, _)) => out.verdicts.push(v),
            Err((why, malformed)) => {
                out.malformed = malformed;
                out.missing = vec![(unit.key.clone(), why)];
            }
        }
        out
    }

    /// `--double-check`: the first answer goes back as the assistant's turn,
    /// followed by "are you sure?".
    fn follow_up(
        &self,
        _batch: &[Unit],
        call: &ChatCall,
        answer: &str,
        first: &ParseOutcome,
    ) -> Option<ChatCall> {
        if !self.settings.double_check || first.verdicts.is_empty() {
            return None;
        }
        let mut messages = call.messages.clone();
        messages.push(Message {
            role: "assistant".into(),
            content: answer.trim().to_string(),
        });
        messages.push(Message::user(self.prompts.double_check.trim_end()));
        Some(ChatCall {
            messages,
            tool: call.tool.clone(),
            max_tokens: None,
        })
    }

    /// The revised answer is the verdict; the first stays in `raw`
    /// (`{"first", "revised", "flipped"}`), and a flip is named in the text.
    fn parse_follow_up(&self, batch: &[Unit], first: &ParseOutcome, answer: &str) -> ParseOutcome {
        let mut out = ParseOutcome::default();
        let (Some(unit), Some(v1)) = (batch.first(), first.verdicts.first()) else {
            return first.clone();
        };
        match self.parse_one(unit, answer) {
            Ok((mut v2, revised)) => {
                let flipped = v1.value != v2.value;
                let first_raw: Value = serde_json::from_str(&v1.raw).unwrap_or(Value::Null);
                v2.raw =
                    json!({"first": first_raw, "revised": revised, "flipped": flipped}).to_string();
                v2.text = if flipped {
                    format!(
                        "[revised on double-check: {} → {}] {}",
                        v1.value, v2.value, v2.text
                    )
                } else {
                    format!("[double-checked: kept {}] {}", v2.value, v2.text)
                };
                out.verdicts.push(v2);
            }
            Err((why, malformed)) => {
                out.malformed = malformed;
                out.missing = vec![(
                    unit.key.clone(),
                    format!(
                        "the double-check answer: {why} (first answer: {})",
                        v1.value
                    ),
                )];
            }
        }
        out
    }

    fn partial_texts(&self, batch: &[Unit], partial: &Value) -> Vec<(ComboKey, String)> {
        match (
            batch.first(),
            partial.get("justification").and_then(Value::as_str),
        ) {
            (Some(u), Some(t)) => vec![(u.key.clone(), t.to_string())],
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Source;

    fn email() -> Item {
        Item {
            id: "m1".into(),
            title: "Server down".into(),
            text: "The build server is down again.".into(),
            source: Source {
                kind: "email".into(),
                originator: "ops@example.com".into(),
                channel: "inbox".into(),
            },
            tags: vec!["urgent".into(), "inbox:ana".into()],
            payload: json!({"ticket": {"priority": "p1"}}),
            ..Item::default()
        }
    }

    #[test]
    fn preconditions_parse_and_evaluate() {
        let i = email();
        let holds = |s: &str| precondition::parse(s).unwrap().holds(&i);
        assert!(holds("source.type == email"));
        assert!(holds("source.type == EMAIL and tags contains urgent"));
        assert!(!holds("source.type == rss"));
        assert!(holds("source.type == rss or tags contains urgent"));
        assert!(holds("title contains \"server down\""));
        assert!(holds("title contains server down"));
        assert!(!holds("tags contains urg"));
        assert!(holds("tags != spam"));
        assert!(holds("payload.ticket.priority == p1"));
        assert!(!holds("payload.missing == x"));
        assert!(holds("payload.missing != x"));
        assert!(precondition::parse("colour == red").is_err());
        assert!(precondition::parse("title = x").is_err());
        assert!(precondition::parse("title ==").is_err());
        assert!(precondition::parse("title == 'x").is_err());
        assert!(precondition::parse("title == a and").is_err());
    }

    /// Runs record it: the same texts and settings keep their hash.
    #[test]
    fn the_hash_stays_as_runs_recorded_it() {
        let prompts = PropositionPrompts::load(None).unwrap();
        let settings = |scoring, double_check, precondition: Option<&str>| Settings {
            claim: "It is {{title}}".into(),
            claim_id: "c".into(),
            scoring,
            double_check,
            precondition: precondition.map(String::from),
            first_n: Some(2),
            last_n: None,
        };
        assert_eq!(
            settings(Scoring::Check, false, None).prompt_hash(&prompts),
            "6d5e6bd935ecd5a7"
        );
        assert_eq!(
            settings(Scoring::Score, true, Some("title == x")).prompt_hash(&prompts),
            "991e52615e81fe87"
        );
    }

    #[test]
    fn claim_variables_are_filled() {
        let i = email();
        assert_eq!(
            render_claim("'{{title}}' from {{ source.originator }} is about {{payload.ticket.priority}} ({{tags}})", &i, None).unwrap(),
            "'Server down' from ops@example.com is about p1 (urgent, inbox:ana)"
        );
        assert!(
            render_claim("{{nope}}", &i, None)
                .unwrap_err()
                .to_string()
                .contains("nope")
        );
    }
}
