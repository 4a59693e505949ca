//! Rubric scoring (support-bot-eval-harness-design.md): examples {id, ticket,
//! response}, scored 1–5 on each dimension (relevance and tone by default, plus
//! user-defined ones), one request per example and dimension, with reasoning.

use crate::domain::{ComboKey, Item, Protocol, Scale};
use crate::prompt::RubricPrompts;
use crate::protocol::{JudgeProtocol, ParseOutcome, ParsedVerdict, ProtocolError, Unit};
use crate::provider::{ChatCall, Message, ToolSpec};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// The item kind rubric examples are stored as.
pub const KIND: &str = "rubric-example";
/// The perspective id rubric verdicts and labels use.
pub const PERSPECTIVE: &str = "rubric";
pub const TOOL_NAME: &str = "record_score";

/// One scoring dimension and its 1–5 rubric.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Dimension {
    pub name: String,
    pub rubric: String,
}

impl Dimension {
    /// relevance and tone, as the reference defines them.
    pub fn defaults() -> Vec<Dimension> {
        vec![
            Dimension {
                name: "relevance".into(),
                rubric: crate::prompt::rubric::RELEVANCE.trim().into(),
            },
            Dimension {
                name: "tone".into(),
                rubric: crate::prompt::rubric::TONE.trim().into(),
            },
        ]
    }

    /// `name=path/to/rubric.txt` (a user-defined dimension).
    pub fn from_arg(arg: &str) -> Result<Dimension, String> {
        let (name, path) = arg
            .split_once('=')
            .ok_or_else(|| format!("--dimension '{arg}': expected NAME=RUBRIC_FILE"))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(format!("--dimension '{arg}': the name is empty"));
        }
        let rubric = crate::readfile::read_to_string(Path::new(path.trim()))
            .map_err(|e| format!("--dimension {name}: {}: {e}", path.trim()))?;
        if rubric.trim().is_empty() {
            return Err(format!("--dimension {name}: {} is empty", path.trim()));
        }
        Ok(Dimension {
            name: name.to_string(),
            rubric: rubric.trim().to_string(),
        })
    }
}

/// The hash a rubric run records: the prompts and its dimensions' rubrics.
pub fn prompt_hash(prompts: &RubricPrompts, dimensions: &[Dimension]) -> String {
    prompts.hash(
        dimensions
            .iter()
            .map(|d| (d.name.as_str(), d.rubric.as_str())),
    )
}

pub struct Rubric {
    pub prompts: RubricPrompts,
    pub dimensions: Vec<Dimension>,
    pub items: Arc<crate::protocol::ItemBook>,
}

/// The ticket and response of an example.
pub fn example_parts(item: &Item) -> (String, String) {
    let get = |k: &str| {
        item.payload
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    (get("ticket"), get("response"))
}

impl JudgeProtocol for Rubric {
    fn protocol(&self) -> Protocol {
        Protocol::Rubric
    }

    fn scale(&self) -> Scale {
        Scale::Likert
    }

    fn units(&self, item_ids: &[String]) -> Vec<Unit> {
        item_ids
            .iter()
            .filter(|id| self.items.get(id).is_some_and(|i| i.kind == KIND))
            .flat_map(|id| {
                self.dimensions.iter().map(move |d| Unit {
                    key: ComboKey::new(id, &d.name, PERSPECTIVE),
                    asked_selection: String::new(),
                })
            })
            .collect()
    }

    /// One example and one dimension per request, as the reference does.
    fn batches(&self, units: Vec<Unit>, _batch_size: usize) -> Vec<Vec<Unit>> {
        units.into_iter().map(|u| vec![u]).collect()
    }

    fn build_call(&self, batch: &[Unit], boundary: &str) -> Result<ChatCall, ProtocolError> {
        let unit = batch.first().ok_or(ProtocolError::EmptyBatch)?;
        let item = self
            .items
            .get(&unit.key.item_id)
            .ok_or_else(|| ProtocolError::NoExample(unit.key.item_id.clone()))?;
        let item = &item;
        let dim = self
            .dimensions
            .iter()
            .find(|d| d.name == unit.key.classification_id)
            .ok_or_else(|| ProtocolError::UnknownDimension(unit.key.classification_id.clone()))?;
        let (ticket, response) = example_parts(item);
        let delimit = |t: &str| super::awag::request::delimit(t, boundary);
        let user = self
            .prompts
            .user
            .replace("{dimension}", &dim.name)
            .replace("{rubric}", &dim.rubric)
            .replace("{ticket}", &delimit(&ticket))
            .replace("{response}", &delimit(&response));
        Ok(ChatCall {
            messages: vec![
                Message::system(
                    self.prompts
                        .system
                        .replace("{boundary}", boundary)
                        .trim_end(),
                ),
                Message::user(user.trim_end()),
            ],
            tool: ToolSpec {
                name: TOOL_NAME.into(),
                description: format!(
                    "Record the 1–5 score for the dimension '{}' and the reasoning.",
                    dim.name
                ),
                parameters: self.prompts.schema.clone(),
            },
            max_tokens: None,
        })
    }

    fn parse(&self, batch: &[Unit], answer: &str) -> ParseOutcome {
        let mut out = ParseOutcome::default();
        let Some(unit) = batch.first() else {
            return out;
        };
        let missing = |why: String| vec![(unit.key.clone(), why)];
        let doc: Value = match serde_json::from_str(answer.trim()) {
            Ok(v) => v,
            Err(e) => {
                out.malformed = true;
                out.missing = missing(format!("the answer is not valid JSON ({e})"));
                return out;
            }
        };
        let score = match doc.get("score").map(|s| Scale::Likert.from_json(s)) {
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                out.missing = missing(e.to_string());
                return out;
            }
            None => {
                out.missing = missing("no score".into());
                return out;
            }
        };
        let reasoning = doc
            .get("reasoning")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim()
            .to_string();
        if reasoning.is_empty() {
            out.missing = missing("empty reasoning".into());
            return out;
        }
        out.verdicts.push(ParsedVerdict {
            key: unit.key.clone(),
            value: score,
            text: reasoning,
            evaluated_selection: None,
            selection_mismatch: false,
            raw: doc.to_string(),
        });
        out
    }

    fn partial_texts(&self, batch: &[Unit], partial: &Value) -> Vec<(ComboKey, String)> {
        match (
            batch.first(),
            partial.get("reasoning").and_then(Value::as_str),
        ) {
            (Some(u), Some(t)) => vec![(u.key.clone(), t.to_string())],
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn rubric() -> Rubric {
        let mut items = HashMap::new();
        items.insert(
            "t1".to_string(),
            Item {
                id: "t1".into(),
                kind: KIND.into(),
                payload: serde_json::json!({"ticket": "Jenkins OOM", "response": "Raise the heap."}),
                ..Item::default()
            },
        );
        Rubric {
            prompts: RubricPrompts::load(None).unwrap(),
            dimensions: Dimension::defaults(),
            items: Arc::new(items.into()),
        }
    }

    /// Runs record it: the same texts and dimensions keep their hash.
    #[test]
    fn the_default_hash_stays_as_runs_recorded_it() {
        let prompts = RubricPrompts::load(None).unwrap();
        let mut dims = Dimension::defaults();
        assert_eq!(prompt_hash(&prompts, &dims), "bbedfab79b7f6fc1");
        dims.truncate(1);
        assert_eq!(prompt_hash(&prompts, &dims), "82c67bf4b66b2a53");
    }

    #[test]
    fn one_request_per_example_and_dimension() {
        let r = rubric();
        let units = r.units(&["t1".into(), "missing".into()]);
        assert_eq!(units.len(), 2);
        let batches = r.batches(units, 10);
        assert_eq!(batches.len(), 2);
        let call = r.build_call(&batches[1], "B0UND").unwrap();
        assert!(call.messages[1].content.contains("Dimension: tone"));
        assert!(
            call.messages[1]
                .content
                .contains("<<<ITEM-CONTENT B0UND>>>\nRaise the heap.")
        );
        assert_eq!(call.tool.parameters["properties"]["score"]["maximum"], 5);
    }

    #[test]
    fn scores_are_validated() {
        let r = rubric();
        let b = &r.batches(r.units(&["t1".into()]), 1)[0];
        assert_eq!(
            r.parse(b, r#"{"score": 4, "reasoning": "Good."}"#)
                .verdicts
                .len(),
            1
        );
        assert!(
            r.parse(b, r#"{"score": 6, "reasoning": "x"}"#).missing[0]
                .1
                .contains("likert")
        );
        assert_eq!(
            r.parse(b, r#"{"score": 3, "reasoning": " "}"#).missing[0].1,
            "empty reasoning"
        );
        assert!(r.parse(b, "{\"score\": 3,").malformed);
    }
}
