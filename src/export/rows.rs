//! The rows of `jury export --format jsonl|csv` (the row contract,
//! docs/design.md §5): one per verdict, label and failure, each with every column of
//! [`COLUMNS`] it has. The CSV adds item rows
//! ([`crate::import::csv_export::item_row`]) that `jury import` reads back.

use crate::domain::{Failure, Label, Run, Verdict};
use serde_json::{Value, json};

/// The columns of the row contract (docs/design.md §5), in order.
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
    // Verdict rows: the run's prompt set hash, so two prompt sets of one
    // model stay two judge configurations through export and import.
    "prompt_hash",
    "replaced_judge_value",
    "blind",
    "failure_id",
    "split",
    "sampled",
    "sample_seed",
    // Label rows: `random` or `active`; the active order's draw (issue #33).
    "sample_order",
    "pi",
    "sample_draw",
    "sample_draws",
    // Mark rows: `unsure` or `skip` (a row to come back to; never a label).
    "mark",
    // Item rows (CSV only): what `jury import` needs to rebuild each item.
    "title",
    "sent",
    // An item's tags (item rows), a label's tags (label rows).
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
/// (`train`/`test`), null when the workspace has none; `sample` says the
/// label was given as a random sample, with the seed of its order when
/// known (`sampled: false`: not recorded as sampled).
pub fn label_row(
    l: &Label,
    split: Option<&crate::store::Split>,
    sample: Option<crate::store::SampleSeed>,
    active: Option<&crate::store::ActiveDraw>,
) -> Value {
    let mut row = json!({
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
        "sampled": sample.is_some(),
        "sample_seed": sample.flatten(),
        "sample_order": sample.map(|_| "random"),
        "tags": l.tags,
    });
    if let Some(d) = active {
        row["sampled"] = json!(true);
        row["sample_order"] = json!("active");
        row["sample_seed"] = json!(d.seed);
        row["pi"] = json!(d.p);
        row["sample_draw"] = json!(d.draw);
        row["sample_draws"] = json!(d.draws);
    }
    row
}

/// An adjudication: the reference label an adjudicator (`who`) gave where
/// people disagreed, its note in `text`. Its own `kind`, so nothing that
/// counts label rows counts it as one more person.
pub fn adjudication_row(a: &crate::domain::Adjudication) -> Value {
    json!({
        "kind": "adjudication",
        "run_id": null,
        "item_id": a.key.item_id,
        "classification_id": a.key.classification_id,
        "perspective_id": a.key.perspective_id,
        "persona_id": a.persona_id,
        "protocol": null,
        "mode": null,
        "model": null,
        "value": a.value.to_json(),
        "scale": a.value.scale().as_str(),
        "text": a.note,
        "created_at": a.created_at,
        "who": a.who,
    })
}

/// A "come back later" mark: its own `kind` and `mark` column, the note in
/// `text`, and no value, so nothing reading label rows can count it.
pub fn mark_row(m: &crate::domain::RowMark) -> Value {
    json!({
        "kind": "mark",
        "item_id": m.key.item_id,
        "classification_id": m.key.classification_id,
        "perspective_id": m.key.perspective_id,
        "persona_id": m.persona_id,
        "value": null,
        "mark": m.mark.as_str(),
        "text": m.note,
        "created_at": m.created_at,
        "who": m.who,
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
