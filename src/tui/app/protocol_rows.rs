//! Verdict rows for the other judge styles (rubric, proposition, guideline).
//!
//! An AwAg row is a classification seen from a perspective; the other
//! protocols judge something else about an item — a rubric dimension of a
//! ticket's response, a claim, a guideline of a conversation. Their rows are
//! every (protocol, what is judged, persona) the item already has a verdict
//! or a label for, plus the ones the item's own input names (a rubric
//! example's default dimensions, a conversation's guidelines), so a person
//! can label them before any judge ran (blind review works the same way).

use super::LabelEntry;
use crate::domain::{ComboKey, Item, PersonaRef, Protocol, Scale, Verdict};
use std::collections::BTreeMap;

/// The dimensions a rubric run judges when none are given (see
/// `protocol::rubric`).
const DEFAULT_RUBRIC_DIMENSIONS: [&str; 2] = ["relevance", "tone"];

/// Protocols without a persona store verdicts and labels for no one.
const NO_PERSONA: &str = PersonaRef::NONE_ID;

/// One row of another protocol on the current item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtoRow {
    pub protocol: Protocol,
    /// item, what is judged (dimension, claim or guideline id), perspective.
    pub key: ComboKey,
    pub persona_id: String,
    /// The scale verdicts and labels on this row use.
    pub scale: Scale,
    /// What the row is about, when the input says (a guideline's condition
    /// and action); untrusted, sanitise before drawing.
    pub about: String,
}

/// The protocol a label belongs to: labels carry no protocol, but the other
/// protocols store theirs under a perspective named after the protocol.
pub(crate) fn label_protocol(perspective_id: &str) -> Option<Protocol> {
    match perspective_id.parse::<Protocol>() {
        Ok(Protocol::Awag) | Err(_) => None,
        Ok(p) => Some(p),
    }
}

/// The rows of `item`, ordered by protocol, then by what is judged.
pub fn protocol_rows(item: &Item, verdicts: &[Verdict], labels: &[LabelEntry]) -> Vec<ProtoRow> {
    let mut rows: BTreeMap<(Protocol, String, String, String), ProtoRow> = BTreeMap::new();
    let mut add = |protocol: Protocol, key: ComboKey, persona: &str, scale: Scale, about: &str| {
        rows.entry((
            protocol,
            key.classification_id.clone(),
            key.perspective_id.clone(),
            persona.to_string(),
        ))
        .or_insert_with(|| ProtoRow {
            protocol,
            key,
            persona_id: persona.to_string(),
            scale,
            about: about.to_string(),
        });
    };
    match item.kind.as_str() {
        crate::protocol::rubric::KIND => {
            for d in DEFAULT_RUBRIC_DIMENSIONS {
                let key = ComboKey::new(&item.id, d, Protocol::Rubric.as_str());
                add(Protocol::Rubric, key, NO_PERSONA, Scale::Likert, "");
            }
        }
        crate::protocol::guideline::KIND => {
            let guidelines = item.payload.get("guidelines").and_then(|g| g.as_array());
            for g in guidelines.into_iter().flatten() {
                let Some(id) = g.get("id").and_then(|v| v.as_str()) else {
                    continue;
                };
                let text = |f: &str| g.get(f).and_then(|v| v.as_str()).unwrap_or("");
                let about = format!("when {} → {}", text("condition"), text("action"));
                let key = ComboKey::new(&item.id, id, Protocol::Guideline.as_str());
                add(Protocol::Guideline, key, NO_PERSONA, Scale::Degree, &about);
            }
        }
        _ => {}
    }
    for v in verdicts.iter().filter(|v| v.protocol != Protocol::Awag) {
        add(
            v.protocol,
            v.key.clone(),
            &v.persona_id,
            v.value.scale(),
            "",
        );
    }
    for e in labels {
        if let Some(p) = label_protocol(&e.label.key.perspective_id) {
            add(
                p,
                e.label.key.clone(),
                &e.label.persona_id,
                e.label.value.scale(),
                "",
            );
        }
    }
    rows.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Label, Value};
    use crate::tui::app::SaveState;

    fn item(kind: &str, payload: serde_json::Value) -> Item {
        Item {
            id: "x".into(),
            kind: kind.into(),
            payload,
            ..Item::default()
        }
    }

    #[test]
    fn rubric_examples_offer_the_default_dimensions() {
        let rows = protocol_rows(&item("rubric-example", serde_json::json!({})), &[], &[]);
        let ids: Vec<&str> = rows
            .iter()
            .map(|r| r.key.classification_id.as_str())
            .collect();
        assert_eq!(ids, ["relevance", "tone"]);
        assert!(
            rows.iter()
                .all(|r| r.scale == Scale::Likert && r.persona_id == "-")
        );
    }

    #[test]
    fn conversations_offer_their_guidelines_and_labels_add_claims() {
        let it = item(
            "conversation",
            serde_json::json!({"guidelines": [
                {"id": "g-1", "condition": "a refund is asked", "action": "say how long"},
                {"condition": "no id: skipped"}
            ]}),
        );
        let label = LabelEntry {
            label: Label {
                key: ComboKey::new("x", "c-apology", "proposition"),
                persona_id: "-".into(),
                value: Value::Bool(true),
                note: String::new(),
                who: "ann".into(),
                created_at: String::new(),
                replaced_judge_value: None,
                blind: false,
                tags: Vec::new(),
            },
            state: SaveState::Saved,
        };
        let rows = protocol_rows(&it, &[], &[label]);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].protocol, Protocol::Proposition);
        assert_eq!(rows[0].scale, Scale::Bool);
        assert_eq!(rows[1].key.classification_id, "g-1");
        assert_eq!(rows[1].scale, Scale::Degree);
        assert_eq!(rows[1].about, "when a refund is asked → say how long");
    }

    #[test]
    fn awag_items_without_protocol_data_have_no_rows() {
        assert!(protocol_rows(&item("", serde_json::Value::Null), &[], &[]).is_empty());
    }
}
