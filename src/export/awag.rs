//! `jury export --format awag`: the S8.8 (evaluation data) and S8.9
//! (evaluation failure) record shapes.

use crate::domain::{Run, Verdict};
use crate::store::{Store, StoreError};
use serde_json::{Value, json};
use std::collections::HashMap;

/// The S8.8 (evaluation data) and S8.9 (evaluation failure) record shapes:
/// one success record per run, one failure record per failed request.
pub fn records(store: &Store) -> Result<Value, StoreError> {
    let runs: HashMap<i64, Run> = store.runs()?.into_iter().map(|r| (r.id, r)).collect();
    let items: HashMap<String, crate::domain::Item> = store
        .items()?
        .into_iter()
        .map(|i| (i.id.clone(), i))
        .collect();
    let personas: HashMap<String, crate::domain::Persona> = store
        .personas()?
        .into_iter()
        .map(|p| (p.id.clone(), p))
        .collect();
    let perspectives = store.perspectives()?;
    let persona_json = |id: &str| {
        personas
            .get(id)
            .map(crate::protocol::awag::request::persona_json)
            .unwrap_or(json!({"id": id}))
    };
    let persps_json = |ids: &[String]| -> Vec<Value> {
        perspectives
            .iter()
            .filter(|p| ids.contains(&p.id))
            .map(|p| json!({"perspectiveId": p.id, "perspectiveName": p.name, "perspectiveText": p.text}))
            .collect()
    };
    let mut success = Vec::new();
    let mut ids: Vec<&i64> = runs.keys().collect();
    ids.sort();
    for run_id in ids {
        let run = &runs[run_id];
        let record = run.spec.record.as_deref();
        let prompts = match record.and_then(|r| r.prompts_dir()) {
            Some(dir) => dir.display().to_string(),
            None => "embedded".to_string(),
        };
        let verdicts = store.verdicts_for_run(*run_id)?;
        if verdicts.is_empty() {
            continue;
        }
        // item → classification → perspective results, in first-seen order.
        let mut order: Vec<String> = Vec::new();
        let mut by_item: HashMap<String, Vec<&Verdict>> = HashMap::new();
        for v in &verdicts {
            if !by_item.contains_key(&v.key.item_id) {
                order.push(v.key.item_id.clone());
            }
            by_item.entry(v.key.item_id.clone()).or_default().push(v);
        }
        let out_items: Vec<Value> = order
            .iter()
            .map(|id| item_record(id, &by_item[id], items.get(id)))
            .collect();
        success.push(json!({
            "agent": "jury",
            "evaluationPersona": persona_json(&run.spec.persona_id),
            "evaluationPerspectives": persps_json(&run.spec.perspective_ids),
            "items": out_items,
            "context": {
                "contextId": format!("jury-run-{}", run.id),
                "evaluationItems": [],
                "openaiApiCompletionsQueryInfo": {
                    "model": run.spec.model,
                    "temperature": record.and_then(|r| r.temperature),
                    "promptText": format!("prompt set {} ({})", run.spec.prompt_hash, prompts),
                    "promptQueryJson": {"mode": run.spec.mode.map(|m| m.number()), "record": record},
                    "queryState": {"status": run.status.as_str(), "usage": usage_json(run)},
                },
            },
        }));
    }
    let failures: Vec<Value> = store
        .failures(None)?
        .iter()
        .map(|f| {
            let run = runs.get(&f.run_id);
            let mut item_ids: Vec<&str> = f.keys.iter().map(|k| k.item_id.as_str()).collect();
            item_ids.dedup();
            json!({
                "agent": "jury",
                "queryState": {"kind": f.kind.as_str(), "reason": f.reason, "finishReason": f.finish_reason, "attempt": f.attempt},
                "maxTokens": 0,
                "model": run.map(|r| r.spec.model.clone()).unwrap_or_default(),
                "promptQueryJson": serde_json::from_str::<Value>(&f.request).unwrap_or(Value::Null),
                "contextIdentifier": format!("jury-run-{}", f.run_id),
                "evaluationPersona": persona_json(run.map(|r| r.spec.persona_id.as_str()).unwrap_or("")),
                "evaluationPerspectives": persps_json(run.map(|r| r.spec.perspective_ids.as_slice()).unwrap_or(&[])),
                "responseText": f.reason,
                "rawReponseText": f.raw_response,
                "items": item_ids,
                "itemCount": item_ids.len(),
                "statusCode": f.http_status.unwrap_or(0),
            })
        })
        .collect();
    Ok(json!({"evaluationData": success, "evaluationFailures": failures}))
}

/// One item of an S8.8 record: the item as imported and the run's
/// verdicts on it, classification by classification, in first-seen order.
fn item_record(item_id: &str, vs: &[&Verdict], item: Option<&crate::domain::Item>) -> Value {
    let mut cls_order: Vec<String> = Vec::new();
    let mut by_cls: HashMap<String, Vec<Value>> = HashMap::new();
    for v in vs {
        let mut p = json!({"perspectiveId": v.key.perspective_id, "evaluationText": v.text});
        match v.value {
            crate::domain::Value::Likert(n) => {
                p["evaluationLikertVal"] = json!(n);
                p["evaluationLikertText"] = json!(likert_label(n));
            }
            other => p["evaluationAgreement"] = json!(other.as_text()),
        }
        if !by_cls.contains_key(&v.key.classification_id) {
            cls_order.push(v.key.classification_id.clone());
        }
        by_cls
            .entry(v.key.classification_id.clone())
            .or_default()
            .push(p);
    }
    let responses: Vec<Value> = cls_order
        .iter()
        .map(|c| json!({"classificationName": c, "perspectives": by_cls[c]}))
        .collect();
    json!({
        "itemId": item_id,
        "tags": item.map(|i| i.tags.clone()).unwrap_or_default(),
        "classifications": item.map(|i| i.classifications.iter().map(|c| json!({
            "classificationName": c.id,
            "classificationValue": c.selected_text(),
            "classificationOptions": c.available,
        })).collect::<Vec<_>>()).unwrap_or_default(),
        "evaluateSourceType": item.map(|i| i.source.kind.clone()).unwrap_or_default(),
        "evaluateSourceOriginator": item.map(|i| i.source.originator.clone()).unwrap_or_default(),
        "evaluateSourceChannel": item.map(|i| i.source.channel.clone()).unwrap_or_default(),
        "evaluateTimeText": item.and_then(|i| i.sent_text.clone()).unwrap_or_default(),
        "evaluateTimeMs": item.and_then(|i| i.sent_ms).unwrap_or(0),
        "evaluateTitle": item.map(|i| i.title.clone()).unwrap_or_default(),
        "evaluateText": item.map(|i| i.text.clone()).unwrap_or_default(),
        "evaluationResponses": responses,
    })
}

/// A run's token usage for the AwAg export: unknown is `null`, not `0`, and
/// the requests whose usage was never reported are counted.
fn usage_json(run: &crate::domain::Run) -> Value {
    use crate::analytics::usage_text::{Known, known};
    let all_unknown = known(run.requests, run.usage_unknown) == Known::None;
    let tokens = |n: u64| if all_unknown { Value::Null } else { json!(n) };
    json!({
        "prompt_tokens": tokens(run.prompt_tokens),
        "completion_tokens": tokens(run.completion_tokens),
        "usage_unknown_requests": run.usage_unknown,
    })
}

/// The words of a Likert value in S8.8 records.
fn likert_label(n: u8) -> &'static str {
    match n {
        1 => "Strongly disagree",
        2 => "Disagree",
        3 => "Neither agree nor disagree",
        4 => "Agree",
        _ => "Strongly agree",
    }
}
