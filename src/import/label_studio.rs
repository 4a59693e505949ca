//! Label Studio's JSON export (a list of tasks, each with its `data` and
//! `annotations`) read back as labels: each annotation that was not
//! cancelled gives one label per `choices` result whose control is named
//! after a scale (as `jury export --format label-studio` writes the
//! config), about the combination the task's `data` names in jury's ids,
//! by the annotator (`completed_by`: an object with `email`, or a user id),
//! dated by the annotation's last update, with the `note` text area as its
//! note. Anything else in the file (other controls, predictions) is left.

use super::parse::Accept;
use super::{Batch, ImportError, Location};
use crate::domain::Scale;
use serde_json::{Map, Value, json};

/// What a task that is not jury's lacks.
const FROM_JURY: &str = "label tasks jury exported (jury export --format label-studio)";

/// A task of Label Studio's export: `data` and `annotations`.
pub(super) fn is_task(obj: &Map<String, Value>) -> bool {
    obj.get("data").is_some_and(Value::is_object)
        && obj.get("annotations").is_some_and(Value::is_array)
}

/// Who made an annotation: the email of an expanded `completed_by`, else
/// the user id Label Studio gives.
fn annotator(a: &Map<String, Value>) -> Option<String> {
    match a.get("completed_by")? {
        Value::Object(u) => u
            .get("email")
            .and_then(Value::as_str)
            .filter(|e| !e.trim().is_empty())
            .map(str::to_string)
            .or_else(|| u.get("id").map(|id| format!("label-studio user {id}"))),
        Value::Number(n) => Some(format!("label-studio user {n}")),
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        _ => None,
    }
}

/// The text of a `textarea` result (its lines joined).
fn text_of(r: &Value) -> Option<String> {
    let lines = r.get("value")?.get("text")?.as_array()?;
    let lines: Vec<&str> = lines.iter().filter_map(Value::as_str).collect();
    Some(lines.join("\n"))
}

/// Takes the labels of one exported task (`at` is the task's place).
pub(super) fn read_task(
    accept: &mut Accept<'_>,
    at: &Location,
    obj: &Map<String, Value>,
    batch: &mut Batch<'_>,
) -> Result<(), ImportError> {
    let Some(ids) =
        super::log_ids::exported_ids(accept, at, obj, "data", ("task", FROM_JURY), batch)?
    else {
        return Ok(());
    };
    let empty = Vec::new();
    let annotations = obj
        .get("annotations")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    for (j, a) in annotations.iter().enumerate() {
        let Some(a) = a.as_object() else { continue };
        if a.get("was_cancelled").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        let here = at.within(&format!(".annotations[{j}]"));
        let Some(who) = annotator(a) else {
            let e = accept.error(&here, "completed_by", "names no annotator".into());
            accept.refuse(e, batch)?;
            continue;
        };
        let results = a.get("result").and_then(Value::as_array).unwrap_or(&empty);
        let note = results
            .iter()
            .filter(|r| {
                r.get("from_name").and_then(Value::as_str)
                    == Some(crate::export::label_studio::NOTE)
            })
            .find_map(text_of)
            .unwrap_or_default();
        for (k, r) in results.iter().enumerate() {
            if r.get("type").and_then(Value::as_str) != Some("choices") {
                continue;
            }
            let from = r.get("from_name").and_then(Value::as_str).unwrap_or("");
            // A choice under a control jury did not write is refused, not
            // passed over: skipped, a project with its own config would
            // import with every label missing and nothing said.
            let Some(scale) = Scale::parse_name(from) else {
                let e = accept.error(
                    &at.within(&format!(".annotations[{j}].result[{k}]")),
                    "from_name",
                    format!(
                        "names no scale ('{}'): the choices must be named likert, agreement, score09, bool or degree, as the labeling config jury export --format label-studio writes",
                        crate::sanitize::one_line(from, 60)
                    ),
                );
                accept.refuse(e, batch)?;
                continue;
            };
            let choices = r.get("value").and_then(|v| v.get("choices"));
            let value = match choices.and_then(Value::as_array).map(Vec::as_slice) {
                Some([Value::String(c)]) => c.clone(),
                _ => {
                    let e = accept.error(
                        &at.within(&format!(".annotations[{j}].result[{k}]")),
                        "value.choices",
                        "must hold exactly one choice".into(),
                    );
                    accept.refuse(e, batch)?;
                    continue;
                }
            };
            let mut row = super::log_ids::row_of(&ids);
            row.insert("value".into(), json!(value));
            row.insert("scale".into(), json!(scale.as_str()));
            row.insert("who".into(), json!(who));
            row.insert("note".into(), json!(note));
            if let Some(t) = a.get("updated_at").or_else(|| a.get("created_at")) {
                row.insert("created_at".into(), t.clone());
            }
            let at = at.within(&format!(".annotations[{j}].result[{k}]"));
            accept.take(at, Ok(Value::Object(row)), batch)?;
        }
    }
    Ok(())
}
