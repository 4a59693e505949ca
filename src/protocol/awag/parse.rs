//! Reading and validating AwAg answers (S8.1.5–S8.1.7). Unlike the reference
//! processor, one bad entry does not sink the batch: valid entries are kept and
//! every unit without a valid verdict gets its own reason.

use crate::domain::{ComboKey, Mode, Scale};
use crate::protocol::{ParseOutcome, ParsedVerdict, Unit};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// One entry as the judge wrote it, flattened to a combination.
#[derive(Debug, Clone, PartialEq)]
pub struct RawEntry {
    pub key: Option<ComboKey>,
    pub value: Option<Value>,
    pub text: Option<String>,
    pub evaluated_selection: Option<String>,
    pub raw: String,
}

fn get<'a>(o: &'a Map<String, Value>, names: &[&str]) -> Option<&'a Value> {
    names
        .iter()
        .find_map(|n| o.get(*n))
        .filter(|v| !v.is_null())
}

fn get_str(o: &Map<String, Value>, names: &[&str]) -> Option<String> {
    match get(o, names)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The list of result entries, wherever the judge put it.
pub fn result_items(doc: &Value) -> Option<&Vec<Value>> {
    match doc {
        Value::Array(a) => Some(a),
        Value::Object(o) => match get(
            o,
            &["resultItems", "result_items", "results", "evaluations"],
        ) {
            Some(Value::Array(a)) => Some(a),
            _ => {
                // A single-key wrapper around the list.
                let mut arrays = o.values().filter_map(Value::as_array);
                let first = arrays.next()?;
                arrays.next().is_none().then_some(first)
            }
        },
        _ => None,
    }
}

fn value_field(mode: Mode) -> &'static [&'static str] {
    match mode {
        Mode::One | Mode::Two => &["evaluationLikert", "evaluation_likert", "likert"],
        Mode::Three => &["evaluationAgreement", "evaluation_agreement", "agreement"],
    }
}

/// Flattens an answer into entries (Mode 1's nesting included).
pub fn entries(mode: Mode, doc: &Value) -> Vec<RawEntry> {
    let Some(items) = result_items(doc) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in items {
        let Some(o) = entry.as_object() else {
            out.push(RawEntry {
                key: None,
                value: None,
                text: None,
                evaluated_selection: None,
                raw: entry.to_string(),
            });
            continue;
        };
        match mode {
            Mode::One => {
                let item_id = get_str(o, &["itemId", "item_id"]);
                let evals = get(o, &["evaluations"]).and_then(Value::as_array);
                for ev in evals.into_iter().flatten() {
                    let Some(ev) = ev.as_object() else { continue };
                    let cid = get_str(
                        ev,
                        &[
                            "classificationName",
                            "classification_name",
                            "classificationId",
                            "classification_id",
                            "name",
                        ],
                    );
                    let persps = get(ev, &["perspectives"]).and_then(Value::as_array);
                    for p in persps.into_iter().flatten() {
                        let Some(p) = p.as_object() else { continue };
                        let pid = get_str(p, &["perspectiveId", "perspective_id", "id"]);
                        let key = match (&item_id, &cid, &pid) {
                            (Some(i), Some(c), Some(p)) => Some(ComboKey::new(i, c, p)),
                            _ => None,
                        };
                        out.push(RawEntry {
                            key,
                            value: get(p, value_field(mode)).cloned(),
                            text: get_str(p, &["evaluationText", "evaluation_text", "text"]),
                            evaluated_selection: get_str(
                                p,
                                &["evaluatedSelection", "evaluated_selection"],
                            ),
                            raw: Value::Object(p.clone()).to_string(),
                        });
                    }
                }
            }
            Mode::Two | Mode::Three => {
                let key = get(o, &["id"]).and_then(Value::as_object).and_then(|id| {
                    Some(ComboKey::new(
                        &get_str(id, &["itemId", "item_id"])?,
                        &get_str(id, &["classificationId", "classification_id"])?,
                        &get_str(id, &["perspectiveId", "perspective_id"])?,
                    ))
                });
                out.push(RawEntry {
                    key,
                    value: get(o, value_field(mode)).cloned(),
                    text: get_str(o, &["evaluationText", "evaluation_text", "text"]),
                    evaluated_selection: get_str(o, &["evaluatedSelection", "evaluated_selection"]),
                    raw: entry.to_string(),
                });
            }
        }
    }
    out
}

/// Parses `answer` and checks it against the units that were asked about.
pub fn validate(mode: Mode, batch: &[Unit], answer: &str) -> ParseOutcome {
    let scale: Scale = mode.scale();
    let mut outcome = ParseOutcome::default();
    let doc: Value = match serde_json::from_str(answer.trim()) {
        Ok(v) => v,
        Err(e) => {
            outcome.malformed = true;
            let why = format!("the answer is not valid JSON ({e})");
            outcome.missing = batch.iter().map(|u| (u.key.clone(), why.clone())).collect();
            return outcome;
        }
    };
    if result_items(&doc).is_none() {
        let why = "the answer has no resultItems list".to_string();
        outcome.missing = batch.iter().map(|u| (u.key.clone(), why.clone())).collect();
        return outcome;
    }
    let asked: HashMap<&ComboKey, &Unit> = batch.iter().map(|u| (&u.key, u)).collect();
    let mut problems: HashMap<ComboKey, String> = HashMap::new();
    let mut done: HashSet<ComboKey> = HashSet::new();
    for e in entries(mode, &doc) {
        let Some(key) = e.key.clone() else {
            outcome
                .notes
                .push(format!("an entry without complete ids: {}", short(&e.raw)));
            continue;
        };
        let Some(unit) = asked.get(&key) else {
            outcome.notes.push(format!(
                "an entry for a combination that was not asked about ({}/{}/{})",
                key.item_id, key.classification_id, key.perspective_id
            ));
            continue;
        };
        if done.contains(&key) {
            outcome.notes.push(format!(
                "a second answer for {}/{}/{} was ignored",
                key.item_id, key.classification_id, key.perspective_id
            ));
            continue;
        }
        let value = match e.value.as_ref().map(|v| scale.from_json(v)) {
            Some(Ok(v)) => v,
            Some(Err(err)) => {
                problems.insert(key, err.to_string());
                continue;
            }
            None => {
                problems.insert(key, format!("no {} value", value_field(mode)[0]));
                continue;
            }
        };
        let text = e.text.clone().unwrap_or_default();
        if text.trim().is_empty() {
            problems.insert(key, "empty evaluationText".into());
            continue;
        }
        let mismatch = e
            .evaluated_selection
            .as_deref()
            .is_some_and(|s| s.trim() != unit.asked_selection);
        problems.remove(&key);
        done.insert(key.clone());
        outcome.verdicts.push(ParsedVerdict {
            key,
            value,
            text,
            evaluated_selection: e.evaluated_selection,
            selection_mismatch: mismatch,
            raw: e.raw,
        });
    }
    for u in batch {
        if !done.contains(&u.key) {
            let why = problems
                .remove(&u.key)
                .unwrap_or_else(|| "no answer for this combination".into());
            outcome.missing.push((u.key.clone(), why));
        }
    }
    outcome
}

fn short(s: &str) -> String {
    crate::sanitize::one_line(s, 120)
}

/// Evaluation texts present in a partial (still streaming) answer.
pub fn partial_texts(mode: Mode, partial: &Value) -> Vec<(ComboKey, String)> {
    entries(mode, partial)
        .into_iter()
        .filter_map(|e| Some((e.key?, e.text?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(i: &str, c: &str, sel: &str) -> Unit {
        Unit {
            key: ComboKey::new(i, c, "classification"),
            asked_selection: sel.into(),
        }
    }

    fn entry(
        i: &str,
        c: &str,
        likert: serde_json::Value,
        sel: &str,
        text: &str,
    ) -> serde_json::Value {
        serde_json::json!({
            "id": {"itemId": i, "perspectiveId": "classification", "classificationId": c},
            "evaluatedSelection": sel, "evaluationLikert": likert, "evaluationText": text
        })
    }

    #[test]
    fn valid_entries_are_kept_and_bad_ones_reported_per_unit() {
        let batch = vec![
            unit("a", "urgency", "urgent"),
            unit("a", "work-pers", "work"),
            unit("b", "urgency", "not"),
            unit("c", "urgency", "not"),
        ];
        let answer = serde_json::json!({"resultItems": [
            entry("a", "urgency", 5.into(), "urgent", "Clearly urgent."),
            entry("a", "work-pers", 7.into(), "work", "Out of range."),
            entry("b", "urgency", 2.into(), "urgent", "Mismatched selection."),
            entry("zzz", "urgency", 3.into(), "not", "Not asked."),
            entry("a", "urgency", 1.into(), "urgent", "Duplicate."),
        ]});
        let out = validate(Mode::Two, &batch, &answer.to_string());
        assert_eq!(out.verdicts.len(), 2);
        assert_eq!(out.verdicts[0].value, crate::domain::Value::Likert(5));
        assert!(!out.verdicts[0].selection_mismatch);
        assert!(
            out.verdicts[1].selection_mismatch,
            "b was asked about 'not' but the judge evaluated 'urgent'"
        );
        let missing: Vec<_> = out
            .missing
            .iter()
            .map(|(k, w)| (k.item_id.as_str(), k.classification_id.as_str(), w.as_str()))
            .collect();
        assert_eq!(missing.len(), 2);
        assert!(missing[0].2.contains("not a valid likert"), "{missing:?}");
        assert_eq!(
            missing[1],
            ("c", "urgency", "no answer for this combination")
        );
        assert_eq!(out.notes.len(), 2, "{:?}", out.notes);
    }

    #[test]
    fn snake_case_ids_and_agreement_are_accepted_and_maybe_rejected() {
        let batch = vec![unit("a", "urgency", "urgent"), unit("a", "hobby", "not")];
        let answer = serde_json::json!([
            {"id": {"item_id": "a", "perspective_id": "classification", "classification_id": "urgency"},
             "evaluated_selection": "urgent", "evaluation_agreement": "agree", "evaluation_text": "Yes."},
            {"id": {"itemId": "a", "perspectiveId": "classification", "classificationId": "hobby"},
             "evaluatedSelection": "not", "evaluationAgreement": "MAYBE", "evaluationText": "Hm."}
        ]);
        let out = validate(Mode::Three, &batch, &answer.to_string());
        assert_eq!(out.verdicts.len(), 1);
        assert_eq!(out.missing.len(), 1);
        assert!(out.missing[0].1.contains("MAYBE"));
    }

    #[test]
    fn mode1_nesting_is_flattened() {
        let batch = vec![
            unit("a", "urgency", "urgent"),
            unit("a", "work-pers", "personal"),
        ];
        let answer = serde_json::json!({"resultItems": [{"itemId": "a", "evaluations": [
            {"classificationName": "urgency", "perspectives": [{"perspectiveId": "classification", "evaluatedSelection": "urgent", "evaluationLikert": 4, "evaluationText": "Fine."}]},
            {"classificationName": "work-pers", "perspectives": [{"perspectiveId": "classification", "evaluatedSelection": "personal", "evaluationLikert": 1, "evaluationText": ""}]}
        ]}]});
        let out = validate(Mode::One, &batch, &answer.to_string());
        assert_eq!(out.verdicts.len(), 1);
        assert_eq!(out.missing[0].1, "empty evaluationText");
    }

    #[test]
    fn malformed_answers_miss_everything() {
        let batch = vec![unit("a", "urgency", "urgent")];
        let out = validate(Mode::Two, &batch, "{\"resultItems\": [");
        assert!(out.malformed);
        assert_eq!(out.missing.len(), 1);
        let out = validate(Mode::Two, &batch, "{\"something\": 1}");
        assert!(!out.malformed);
        assert!(out.missing[0].1.contains("resultItems"));
    }
}
