//! `jury export --format rubric-results`: the rubric harness's results.json.

use crate::store::{Store, StoreError};
use serde_json::{Value, json};
use std::collections::HashMap;

/// The rubric harness's results.json: per example the latest score and
/// reasoning of each dimension, and the examples skipped as invalid.
pub fn results(store: &Store) -> Result<Value, StoreError> {
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
