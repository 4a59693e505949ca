//! Argilla 2 records as its SDK exports them (`rg.Dataset.records.to_json`:
//! each record's `id`, `fields`, `metadata`, `responses`...) read back as
//! labels: each response to a question named after a scale (as `jury export
//! --format argilla` sets them up) is one label about the combination the
//! record's `metadata` names in jury's ids, by the response's `username`
//! when the file has it, else its `user_id`; a `note` response is its note.
//! A response without a value (a discarded one) is left out. Argilla's
//! export carries no time: such a label is dated when imported, and an
//! undated label never replaces a stored one, so a second import adds
//! nothing.

use super::parse::Accept;
use super::{Batch, ImportError, Location};
use crate::domain::Scale;
use serde_json::{Map, Value, json};

/// A record of Argilla's export: `fields` and `responses`.
pub(super) fn is_record(obj: &Map<String, Value>) -> bool {
    obj.get("fields").is_some_and(Value::is_object)
        && obj.get("responses").is_some_and(Value::is_object)
}

/// Who gave a response.
fn responder(r: &Map<String, Value>) -> Option<String> {
    ["username", "user_id"]
        .iter()
        .filter_map(|k| r.get(*k).and_then(Value::as_str))
        .find(|s| !s.trim().is_empty())
        .map(str::to_string)
}

/// Takes the labels of one exported record (`at` is the record's place).
pub(super) fn read_record(
    accept: &mut Accept<'_>,
    at: &Location,
    obj: &Map<String, Value>,
    batch: &mut Batch<'_>,
) -> Result<(), ImportError> {
    let Some(ids) = super::log_ids::exported_ids(
        accept,
        at,
        obj,
        "metadata",
        (
            "record",
            "label records jury exported (jury export --format argilla)",
        ),
        batch,
    )?
    else {
        return Ok(());
    };
    let Some(responses) = obj.get("responses").and_then(Value::as_object) else {
        return Ok(());
    };
    // Each person's note, by who gave it.
    let mut notes = std::collections::HashMap::new();
    for r in responses
        .get("note")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let (Some(r), Some(Value::String(t))) = (r.as_object(), r.get("value"))
            && let Some(who) = responder(r)
        {
            notes.insert(who, t.clone());
        }
    }
    for (question, list) in responses {
        if question == "note" {
            continue;
        }
        // A question jury did not write is refused, not passed over (as
        // Label Studio's controls): skipped, its answers vanished unsaid.
        let Some(scale) = Scale::parse_name(question) else {
            let e = accept.error(
                &at.within(&format!(".responses.{}", crate::sanitize::one_line(question, 60))),
                "responses",
                format!(
                    "'{}' is no question jury asks: the questions are named likert, agreement, score09, bool or degree, and note, as the dataset settings jury's README gives",
                    crate::sanitize::one_line(question, 60)
                ),
            );
            accept.refuse(e, batch)?;
            continue;
        };
        for (j, r) in list.as_array().into_iter().flatten().enumerate() {
            let here = at.within(&format!(".responses.{question}[{j}]"));
            let Some(r) = r.as_object() else { continue };
            let value = match r.get("value") {
                None | Some(Value::Null) => continue,
                Some(v) => v.clone(),
            };
            let Some(who) = responder(r) else {
                let e = accept.error(&here, "user_id", "names no one".into());
                accept.refuse(e, batch)?;
                continue;
            };
            let mut row = super::log_ids::row_of(&ids);
            // Argilla's labels are strings: "4" is Likert 4.
            row.insert("value".into(), value);
            row.insert("scale".into(), json!(scale.as_str()));
            row.insert(
                "note".into(),
                json!(notes.get(&who).cloned().unwrap_or_default()),
            );
            row.insert("who".into(), json!(who));
            accept.take(here, Ok(Value::Object(row)), batch)?;
        }
    }
    Ok(())
}
