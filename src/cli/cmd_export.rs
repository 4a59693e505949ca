//! `jury export`.

use super::strings::export as say;
use super::{ExportArgs, ExportFormat, open_store};
use crate::config::Settings;
use crate::domain::{Failure, Label, Run, Verdict};
use crate::import::csv_export::JSON_COLUMNS;
use crate::store::Store;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::Write;
use std::process::ExitCode;

/// The columns of the row contract (DESIGN §5), in order.
pub const COLUMNS: &[&str] = &[
    "kind",
    "run_id",
    "item_id",
    "classification_id",
    "perspective_id",
    "persona_id",
    "protocol",
    "mode",
    "model",
    "value",
    "scale",
    "text",
    "created_at",
    "who",
    "evaluated_selection",
    "selection_mismatch",
    "raw_response",
    "status",
    "reason",
    "position",
    "request_items",
    "confidence",
    "confidence_source",
    "expected_score",
    // The server that answered (no credentials, no query).
    "server",
    "replaced_judge_value",
    "blind",
    "failure_id",
    "split",
    "sampled",
    "sample_seed",
    // Item rows (CSV only): what `jury import` needs to rebuild each item.
    "title",
    "sent",
    "tags",
    "source_type",
    "source_originator",
    "source_channel",
    "classifications",
    "item_kind",
    "payload",
];

pub fn verdict_row(v: &Verdict) -> Value {
    json!({
        "kind": "verdict",
        "run_id": v.run_id,
        "item_id": v.key.item_id,
        "classification_id": v.key.classification_id,
        "perspective_id": v.key.perspective_id,
        "persona_id": v.persona_id,
        "protocol": v.protocol.as_str(),
        "mode": v.mode.map(|m| m.number()),
        "model": v.model,
        "value": v.value.to_json(),
        "scale": v.value.scale().as_str(),
        "text": v.text,
        "created_at": v.created_at,
        "evaluated_selection": v.evaluated_selection,
        "selection_mismatch": v.selection_mismatch,
        "position": v.position.map(|p| p.index),
        "request_items": v.position.map(|p| p.items),
        // Full precision: serde_json writes the shortest text that reads
        // back as the same f64.
        "confidence": v.confidence.map(|c| c.value),
        "confidence_source": v.confidence.map(|c| c.source.as_str()),
        "expected_score": v.confidence.and_then(|c| c.expected_score),
        "server": v.server,
    })
}

/// A label row; `split` is its side of the workspace's held-out split
/// (`train`/`test`), null when the workspace has none; `sample_seed` the
/// seed of the workbench's random `sample` order it was given in, if it was
/// (`sampled: false`: a person chose the item).
pub fn label_row(
    l: &Label,
    split: Option<&crate::store::Split>,
    sample_seed: Option<u64>,
) -> Value {
    json!({
        "kind": "label",
        "run_id": null,
        "item_id": l.key.item_id,
        "classification_id": l.key.classification_id,
        "perspective_id": l.key.perspective_id,
        "persona_id": l.persona_id,
        "protocol": null,
        "mode": null,
        "model": null,
        "value": l.value.to_json(),
        "text": l.note,
        "created_at": l.created_at,
        "who": l.who,
        "scale": l.value.scale().as_str(),
        "replaced_judge_value": l.replaced_judge_value.map(|v| v.to_json()),
        "blind": l.blind,
        "split": split.map(|s| s.side_of(&l.key.item_id, &l.key.classification_id).as_str()),
        "sampled": sample_seed.is_some(),
        "sample_seed": sample_seed,
    })
}

/// One row per combination a failure is about (so every row names its item),
/// all carrying the failure's `failure_id` (its store row: one per request).
/// Only the first row carries the raw answer; the others have
/// `raw_response: null` and point to it by `failure_id`. A request covering
/// ten combinations is one answer, and a 200 MB answer must stay 200 MB in
/// the export rather than becoming 2 GB.
pub fn failure_rows(id: i64, f: &Failure, run: Option<&Run>) -> Vec<Value> {
    let row = |item: Value, cls: Value, persp: Value, raw: Option<&str>| {
        json!({
            "kind": "failure",
            "failure_id": id,
            "run_id": f.run_id,
            "item_id": item,
            "classification_id": cls,
            "perspective_id": persp,
            "persona_id": run.map(|r| r.spec.persona_id.clone()),
            "protocol": run.map(|r| r.spec.protocol.as_str()),
            "mode": run.and_then(|r| r.spec.mode.map(|m| m.number())),
            "model": run.map(|r| r.spec.model.clone()),
            "value": null,
            "text": null,
            "created_at": f.created_at,
            "raw_response": raw,
            "status": f.http_status,
            "reason": format!("{}: {}", f.kind.as_str(), f.reason),
            "finish_reason": f.finish_reason,
            "attempt": f.attempt,
        })
    };
    if f.keys.is_empty() {
        return vec![row(
            Value::Null,
            Value::Null,
            Value::Null,
            Some(&f.raw_response),
        )];
    }
    f.keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            row(
                json!(k.item_id),
                json!(k.classification_id),
                json!(k.perspective_id),
                (i == 0).then_some(f.raw_response.as_str()),
            )
        })
        .collect()
}

pub fn export(s: &Settings, a: ExportArgs) -> anyhow::Result<ExitCode> {
    if let Some(p) = &a.out
        && crate::store::is_own_file(&s.db_path, p)
    {
        anyhow::bail!(say::out_is_store(&p.display().to_string()));
    }
    if a.out.is_some() {
        super::remove_temporaries_on_signal();
    }
    let store = open_store(s)?;
    // With repeats as the confidence, each verdict without a stored one
    // carries its share among its configuration's repeats.
    let repeats = s.confidence.as_deref() == Some("repeats");
    match &a.out {
        // Written beside the target and renamed over it when complete: a
        // failed or killed export leaves the previous file as it was.
        Some(p) => crate::store::write_atomically(p, |w| {
            write_export(&store, a.format, repeats, w).map_err(std::io::Error::other)
        })
        .map_err(|e| {
            anyhow::anyhow!(say::cannot_write(&p.display().to_string(), &e.to_string()))
        })?,
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let written = write_export(&store, a.format, repeats, &mut out)
                .and_then(|()| out.flush().map_err(anyhow::Error::from));
            if let Err(e) = written {
                match e.downcast_ref::<std::io::Error>() {
                    Some(io) => super::stdout_failed(io),
                    None => return Err(e),
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn write_export(
    store: &Store,
    format: ExportFormat,
    repeats: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let runs: HashMap<i64, Run> = store.runs()?.into_iter().map(|r| (r.id, r)).collect();
    match format {
        ExportFormat::Jsonl | ExportFormat::Csv => {
            let csv = format == ExportFormat::Csv;
            if csv {
                writeln!(out, "{}", COLUMNS.join(","))?;
            }
            let emit = |row: Value, out: &mut dyn Write| -> std::io::Result<()> {
                if csv {
                    let cells: Vec<String> = COLUMNS
                        .iter()
                        .map(|c| match &row[*c] {
                            Value::String(j) if JSON_COLUMNS.contains(c) => {
                                crate::report::csv::json_text(j)
                            }
                            v => crate::report::csv::cell(v),
                        })
                        .collect();
                    writeln!(out, "{}", cells.join(","))
                } else {
                    writeln!(out, "{row}")
                }
            };
            let mut err = None;
            let split = store.split()?;
            let sampled = store.sampled_labels()?;
            let mut each = |v: Verdict| {
                if err.is_none() {
                    err = emit(verdict_row(&v), out).err();
                }
            };
            if repeats {
                store.for_each_verdict_with_repeats(&mut each)?;
            } else {
                store.for_each_verdict(&mut each)?;
            }
            store.for_each_label(|l| {
                if err.is_none() {
                    let seed = sampled
                        .get(&(l.key.clone(), l.persona_id.clone(), l.who.clone()))
                        .copied();
                    err = emit(label_row(&l, split.as_ref(), seed), out).err();
                }
            })?;
            store.for_each_failure(None, |id, f| {
                for row in failure_rows(id, &f, runs.get(&f.run_id)) {
                    if err.is_none() {
                        err = emit(row, out).err();
                    }
                }
            })?;
            // The CSV carries the items too (after the rows it always had),
            // so `jury import` reads it back.
            if csv && err.is_none() {
                store.for_each_item(|i| {
                    err = emit(crate::import::csv_export::item_row(&i), out).err();
                    err.is_none()
                })?;
            }
            if let Some(e) = err {
                return Err(e.into());
            }
        }
        ExportFormat::Awag => {
            let doc = awag_records(store, &runs)?;
            writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        }
        ExportFormat::RubricResults => {
            let doc = rubric_results(store)?;
            writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        }
    }
    out.flush()?;
    Ok(())
}

fn likert_label(n: u8) -> &'static str {
    match n {
        1 => "Strongly disagree",
        2 => "Disagree",
        3 => "Neither agree nor disagree",
        4 => "Agree",
        _ => "Strongly agree",
    }
}

/// The S8.8 (evaluation data) and S8.9 (evaluation failure) record shapes:
/// one success record per run, one failure record per failed request.
fn awag_records(store: &Store, runs: &HashMap<i64, Run>) -> anyhow::Result<Value> {
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
                    "temperature": run.spec.params.get("temperature").cloned().unwrap_or(Value::Null),
                    "promptText": format!("prompt set {} ({})", run.spec.prompt_hash, run.spec.params.get("prompts").and_then(Value::as_str).unwrap_or("embedded")),
                    "promptQueryJson": {"mode": run.spec.mode.map(|m| m.number()), "params": run.spec.params},
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

/// The rubric harness's results.json: per example the latest score and
/// reasoning of each dimension, and the examples skipped as invalid.
fn rubric_results(store: &Store) -> anyhow::Result<Value> {
    let mut order: Vec<String> = Vec::new();
    let mut by_example: HashMap<String, serde_json::Map<String, Value>> = HashMap::new();
    store.for_each_verdict(|v| {
        if v.protocol != crate::domain::Protocol::Rubric {
            return;
        }
        let entry = by_example.entry(v.key.item_id.clone()).or_insert_with(|| {
            order.push(v.key.item_id.clone());
            let mut m = serde_json::Map::new();
            m.insert("id".into(), json!(v.key.item_id));
            m
        });
        // Later verdicts (a re-run) replace earlier ones.
        entry.insert(
            v.key.classification_id.clone(),
            json!({"score": v.value.to_json(), "reasoning": v.text}),
        );
    })?;
    let results: Vec<Value> = order
        .iter()
        .filter_map(|id| by_example.remove(id))
        .map(Value::Object)
        .collect();
    let skipped: Vec<Value> = store
        .skips("rubric")?
        .into_iter()
        .map(|(_, index, reason)| json!({"index": index, "reason": reason}))
        .collect();
    Ok(json!({"results": results, "skipped": skipped}))
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
