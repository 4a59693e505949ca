//! Inspect AI eval logs in JSON (`inspect eval --log-format json`, or
//! `inspect log convert LOG --to json`): each sample's scores become
//! verdict rows ([`super::verdicts`]) of the judge `MODEL (SCORER)`, about
//! the item whose id is the sample's id. The sample's metadata names the
//! rest in jury's ids: `classification_id`, `perspective_id`, `persona_id`.
//! `--map id=PATH,persona=PATH` reads the item id or the persona from
//! elsewhere in the sample (`id=metadata.ticket`, `id=input`): items are
//! then matched by that field ([`super::log_ids`]).
//!
//! A score reads as the scorer's verdict on the classifier's selection
//! (the sample's target): `C` (correct), `true` or 1 as AGREE; `I`
//! (incorrect), `false` or 0 as DISAGREE; anything else (a partial `P`, a
//! number between) is refused with its place. Each epoch is its own run.

use super::parse::Accept;
use super::{Batch, ImportError, Location};
use serde_json::{Map, Value, json};

/// An Inspect log's top level: `eval` (with its `task`) and `samples`.
pub(super) fn is_log(obj: &Map<String, Value>) -> bool {
    obj.contains_key("samples") && obj.get("eval").and_then(|e| e.get("task")).is_some()
}

/// A score's value as a verdict on the agreement scale, if it is one.
fn agreement(v: &Value) -> Option<&'static str> {
    match v {
        Value::String(s) if s == "C" => Some("AGREE"),
        Value::String(s) if s == "I" => Some("DISAGREE"),
        Value::Bool(true) => Some("AGREE"),
        Value::Bool(false) => Some("DISAGREE"),
        Value::Number(n) if n.as_f64() == Some(1.0) => Some("AGREE"),
        Value::Number(n) if n.as_f64() == Some(0.0) => Some("DISAGREE"),
        _ => None,
    }
}

/// Takes every score of every sample as a verdict row.
pub(super) fn read_log(
    accept: &mut Accept<'_>,
    obj: &Map<String, Value>,
    batch: &mut Batch<'_>,
) -> Result<(), ImportError> {
    read_samples(accept, obj, None, batch)
}

/// [`read_log`], each sample's place given (`places[i]`: a `.eval` log's
/// entry) or else `$.samples[i]`.
pub(super) fn read_samples(
    accept: &mut Accept<'_>,
    obj: &Map<String, Value>,
    places: Option<&[String]>,
    batch: &mut Batch<'_>,
) -> Result<(), ImportError> {
    let empty = Map::new();
    let place = |i: usize| match places.and_then(|p| p.get(i)) {
        Some(p) => p.clone(),
        None => format!("$.samples[{i}]"),
    };
    let model = obj
        .get("eval")
        .and_then(|e| e.get("model"))
        .and_then(Value::as_str)
        .unwrap_or("inspect");
    let Some(samples) = obj.get("samples").and_then(Value::as_array) else {
        let e = accept.error(
            &Location::Path("$.samples".into()),
            "samples",
            "must be an array of samples (a log written with its samples)".into(),
        );
        return Err(ImportError::Invalid(e));
    };
    for (i, s) in samples.iter().enumerate() {
        let at = Location::Path(place(i));
        let metadata = s.get("metadata").and_then(Value::as_object);
        let sample = s.as_object().unwrap_or(&empty);
        let ids = match super::log_ids::ids(accept, sample, metadata, "metadata", s.get("id")) {
            Ok(ids) => ids,
            Err((field, why)) => {
                let e = accept.error(&at, &field, format!("the sample {why}"));
                accept.refuse(e, batch)?;
                continue;
            }
        };
        let scores = s.get("scores").and_then(Value::as_object);
        for (name, score) in scores.into_iter().flatten() {
            let at = Location::Path(format!("{}.scores.{name}", place(i)));
            let raw = score.get("value").unwrap_or(&Value::Null);
            let Some(value) = agreement(raw) else {
                let e = accept.error(
                    &at,
                    "value",
                    format!(
                        "score {raw} is neither C / true / 1 (the target is right: AGREE) nor I / false / 0 (DISAGREE)"
                    ),
                );
                accept.refuse(e, batch)?;
                continue;
            };
            let mut row = super::log_ids::row_of(&ids);
            row.insert("judge".into(), json!(format!("{model} ({name})")));
            row.insert("value".into(), json!(value));
            row.insert("scale".into(), json!("agreement"));
            row.insert(
                "text".into(),
                score.get("explanation").cloned().unwrap_or(json!("")),
            );
            row.insert("run_id".into(), s.get("epoch").cloned().unwrap_or(json!(1)));
            accept.take_verdict(at, &row, batch)?;
        }
    }
    Ok(())
}
