//! promptfoo results (`promptfoo eval -o results.json`): each test's grader
//! results (`gradingResult.componentResults`, one per assertion) become
//! verdict rows ([`super::verdicts`]) of the judge `promptfoo TYPE (GRADER)`
//! (GRADER: `defaultTest.options.provider` of the config, when it names
//! one), about the item the test's `vars` name in jury's ids: `item_id`,
//! `classification_id`, `perspective_id`, `persona_id`. A passed assertion
//! reads as AGREE (the rubric, holding the classifier's selection, is
//! met), a failed one as DISAGREE, its `reason` as the text; each prompt is
//! its own run. `--map id=PATH,persona=PATH` reads the item id or the
//! persona from elsewhere in the test (`id=vars.ticket`; [`super::log_ids`]).

use super::parse::Accept;
use super::{Batch, ImportError, Location};
use serde_json::{Map, Value, json};

/// promptfoo's output file: `evalId` and `results.results`.
pub(super) fn is_results(obj: &Map<String, Value>) -> bool {
    obj.contains_key("evalId")
        && obj
            .get("results")
            .and_then(|r| r.get("results"))
            .is_some_and(Value::is_array)
}

/// The grader the config names for every test, if any.
fn grader(obj: &Map<String, Value>) -> Option<String> {
    let p = obj
        .get("config")?
        .get("defaultTest")?
        .get("options")?
        .get("provider")?;
    match p {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o.get("id").and_then(Value::as_str).map(str::to_string),
        _ => None,
    }
}

/// Takes every grader result of every test as a verdict row.
pub(super) fn read_results(
    accept: &mut Accept<'_>,
    obj: &Map<String, Value>,
    batch: &mut Batch<'_>,
) -> Result<(), ImportError> {
    let grader = grader(obj);
    let empty = Vec::new();
    let results = obj
        .get("results")
        .and_then(|r| r.get("results"))
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let no_fields = Map::new();
    let empty_ = &no_fields;
    for (i, r) in results.iter().enumerate() {
        let at = Location::Path(format!("$.results.results[{i}]"));
        let vars = r.get("vars").and_then(Value::as_object);
        let test = r.as_object().unwrap_or(empty_);
        let ids = match super::log_ids::ids(accept, test, vars, "vars", None) {
            Ok(ids) => ids,
            Err((field, why)) => {
                let e = accept.error(&at, &field, format!("the test {why}"));
                accept.refuse(e, batch)?;
                continue;
            }
        };
        let prompt = r.get("promptIdx").and_then(Value::as_i64).unwrap_or(0);
        let components = r
            .get("gradingResult")
            .and_then(|g| g.get("componentResults"))
            .and_then(Value::as_array);
        for (k, c) in components.into_iter().flatten().enumerate() {
            let at = Location::Path(format!(
                "$.results.results[{i}].gradingResult.componentResults[{k}]"
            ));
            let Some(pass) = c.get("pass").and_then(Value::as_bool) else {
                let e = accept.error(&at, "pass", "must be true or false".into());
                accept.refuse(e, batch)?;
                continue;
            };
            let kind = c
                .get("assertion")
                .and_then(|a| a.get("type"))
                .and_then(Value::as_str)
                .unwrap_or("assertion");
            let judge = match &grader {
                Some(g) => format!("promptfoo {kind} ({g})"),
                None => format!("promptfoo {kind}"),
            };
            let mut row = super::log_ids::row_of(&ids);
            row.insert("judge".into(), json!(judge));
            row.insert(
                "value".into(),
                json!(if pass { "AGREE" } else { "DISAGREE" }),
            );
            row.insert("scale".into(), json!("agreement"));
            row.insert("text".into(), c.get("reason").cloned().unwrap_or(json!("")));
            row.insert("run_id".into(), json!(prompt + 1));
            accept.take_verdict(at, &row, batch)?;
        }
    }
    Ok(())
}
