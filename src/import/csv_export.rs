//! The item rows of `jury export --format csv` and reading that CSV back:
//! an item row holds what `jury import` needs to rebuild the item (its
//! classifications, tags and protocol payload as JSON cells), so export and
//! import round-trip items and labels.

use crate::domain::Item;
use serde_json::{Map, Value, json};

/// The export columns that hold JSON text (read back as JSON, not as text
/// with escapes).
pub const JSON_COLUMNS: &[&str] = &["tags", "classifications", "payload"];

/// Which export column each record field comes from (for errors).
pub const COLUMN_OF_FIELD: &[(&str, &str)] = &[
    ("id", "item_id"),
    ("itemId", "item_id"),
    ("classificationId", "classification_id"),
    ("perspectiveId", "perspective_id"),
    ("personaId", "persona_id"),
    ("persona", "persona_id"),
    ("value", "value"),
    ("scale", "scale"),
    ("createdAt", "created_at"),
    ("who", "who"),
    ("replacedJudgeValue", "replaced_judge_value"),
    ("blind", "blind"),
    ("sampled", "sampled"),
    ("sampleSeed", "sample_seed"),
    ("sampleOrder", "sample_order"),
    ("pi", "pi"),
    ("sampleDraw", "sample_draw"),
    ("sampleDraws", "sample_draws"),
    ("title", "title"),
    ("summary", "text"),
    ("text", "text"),
    ("sent", "sent"),
    ("tags", "tags"),
    ("source", "source_type"),
    ("classifications", "classifications"),
    ("payload", "payload"),
    ("ticket", "payload"),
    ("response", "payload"),
    ("events", "payload"),
    ("guidelines", "payload"),
];

/// An item as an export row (`kind` `item`; its owner in `persona_id`).
pub fn item_row(i: &Item) -> Value {
    let classifications: Vec<Value> = i
        .classifications
        .iter()
        .map(|c| json!({"name": c.id, "desc": c.description, "available": c.available, "selected": c.selected}))
        .collect();
    json!({
        "kind": "item",
        "item_id": i.id,
        "persona_id": i.owner,
        "title": i.title,
        "text": i.text,
        "sent": sent_cell(i),
        "tags": Value::Array(i.tags.iter().map(|t| json!(t)).collect()).to_string(),
        "source_type": i.source.kind,
        "source_originator": i.source.originator,
        "source_channel": i.source.channel,
        "classifications": Value::Array(classifications).to_string(),
        "item_kind": i.kind,
        "payload": (!i.payload.is_null()).then(|| i.payload.to_string()),
    })
}

/// `sent` as imported, except a time given in epoch seconds with a
/// fraction: its ISO text has whole seconds, so the epoch form is written
/// (`1773652800.283`) and import gets the same text and milliseconds back.
fn sent_cell(i: &Item) -> Option<String> {
    use chrono::{SecondsFormat, TimeZone, Utc};
    let (Some(text), Some(ms)) = (&i.sent_text, i.sent_ms) else {
        return i.sent_text.clone();
    };
    let whole = Utc
        .timestamp_millis_opt(ms)
        .single()
        .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true));
    if ms.rem_euclid(1000) != 0 && whole.as_deref() == Some(text.as_str()) {
        Some(format!(
            "{}.{:03}",
            ms.div_euclid(1000),
            ms.rem_euclid(1000)
        ))
    } else {
        Some(text.clone())
    }
}

/// A cell of column `column` as jury wrote it: JSON cells as they are, text
/// cells without the `'` and the escapes the export added (see
/// [`crate::report::csv::text`]), so what comes back is what was stored.
pub fn cell_text(column: &str, cell: &str) -> String {
    if JSON_COLUMNS.contains(&column) {
        cell.to_string()
    } else {
        crate::report::csv::from_text_cell(cell)
    }
}

/// An export item row as the item record `jury import` reads, or the field
/// and why its cell is not what the export writes.
pub fn item_from_cells(cell: &dyn Fn(&str) -> String) -> Result<Value, (&'static str, String)> {
    let json_cell = |name: &'static str| -> Result<Option<Value>, (&'static str, String)> {
        let c = cell(name);
        if c.trim().is_empty() {
            return Ok(None);
        }
        serde_json::from_str(&c)
            .map(Some)
            .map_err(|e| (name, format!("is not the JSON jury exports: {e}")))
    };
    let mut obj = Map::new();
    obj.insert("id".into(), json!(cell("item_id")));
    for (field, column) in [
        ("title", "title"),
        ("text", "text"),
        ("sent", "sent"),
        ("persona", "persona_id"),
    ] {
        let v = cell(column);
        if !v.is_empty() {
            obj.insert(field.into(), json!(v));
        }
    }
    if let Some(t) = json_cell("tags")? {
        obj.insert("tags".into(), t);
    }
    obj.insert(
        "source".into(),
        json!({"type": cell("source_type"), "originator": cell("source_originator"), "channel": cell("source_channel")}),
    );
    if let Some(c) = json_cell("classifications")?
        && c.as_array().is_some_and(|a| !a.is_empty())
    {
        obj.insert("classifications".into(), c);
    }
    // A protocol input (rubric example, conversation) is rebuilt from its
    // payload, as when it was first imported.
    match json_cell("payload")? {
        None => {}
        Some(Value::Object(p)) => obj.extend(p),
        Some(_) => return Err(("payload", "is not a JSON object".into())),
    }
    Ok(Value::Object(obj))
}

/// An export label row as the label record `jury import` reads.
pub fn label_from_cells(cell: &dyn Fn(&str) -> String) -> Value {
    let mut obj = Map::new();
    for (field, column) in [
        ("itemId", "item_id"),
        ("classificationId", "classification_id"),
        ("perspectiveId", "perspective_id"),
        ("personaId", "persona_id"),
        ("value", "value"),
        ("scale", "scale"),
        ("note", "text"),
        ("who", "who"),
        ("createdAt", "created_at"),
        ("replacedJudgeValue", "replaced_judge_value"),
        ("blind", "blind"),
        ("sampled", "sampled"),
        ("sampleSeed", "sample_seed"),
        ("sampleOrder", "sample_order"),
        ("pi", "pi"),
        ("sampleDraw", "sample_draw"),
        ("sampleDraws", "sample_draws"),
        ("tags", "tags"),
    ] {
        let v = cell(column);
        if !v.is_empty() || field == "value" {
            obj.insert(field.into(), json!(v));
        }
    }
    Value::Object(obj)
}
