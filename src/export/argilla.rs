//! `jury export --format argilla`: the tasks to label ([`super::queue`]) as
//! Argilla 2 records in the shape its SDK writes and reads
//! (`rg.Dataset.records.to_json`, `rg.Record.from_dict`): `id`, `fields`
//! (title, text, classification, selected, perspective), `metadata` (jury's
//! ids and the scale), empty `suggestions` and `responses`. Log them into a
//! dataset whose settings have those text fields, one `LabelQuestion` per
//! scale named after it (labels as [`crate::domain::Scale::values`] writes
//! them) and a `TextQuestion` `note` (README, "Label Studio and Argilla"):
//! `ds.records.log([rg.Record.from_dict(r) for r in json.load(f)])`. The
//! dataset's `records.to_json` export comes back through `jury import`.
//!
//! Shape from the SDK's source (argilla 2.8, `records/_resource.py`
//! `Record.to_dict`), checked in `tests/fixtures/argilla/make.sh`.

use super::queue::{Task, ids};
use serde_json::{Map, Value, json};

pub fn records_json(tasks: &[Task]) -> Value {
    Value::Array(tasks.iter().map(record).collect())
}

fn record(t: &Task) -> Value {
    let mut metadata = Map::new();
    for (k, v) in ids(t) {
        metadata.insert(k.into(), json!(v));
    }
    metadata.insert("scale".into(), json!(t.scale.as_str()));
    json!({
        "id": record_id(t),
        "fields": {
            "title": t.title,
            "text": t.text,
            "classification": t.classification,
            "selected": t.selected,
            "perspective": t.perspective,
        },
        "metadata": metadata,
        "suggestions": {},
        "responses": {},
        "vectors": {},
        "status": "pending",
    })
}

/// A record id that names its combination (Argilla updates a record of
/// the same id rather than adding a second).
fn record_id(t: &Task) -> String {
    ids(t).map(|(_, v)| v).join("/")
}
