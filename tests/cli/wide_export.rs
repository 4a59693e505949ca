//! `jury export --format wide|wide-jsonl`: one row per item, classification,
//! perspective and persona, with the classifier's value, each judge
//! configuration's standing verdict and confidence, and each person's label
//! in columns of their own; the same values the row export holds.
#![cfg(feature = "tui")]

use crate::common;

use common::{ServerRt, generated_workspace, jsonl};
use serde_json::{Value, json};
use std::collections::BTreeMap;

#[test]
fn the_wide_export_has_a_column_per_judge_and_person() {
    let ws = generated_workspace(4, 2);
    let srv = ServerRt::demo();
    for mode in ["2", "3"] {
        let mut args = vec![
            "run",
            "--persona",
            "tester",
            "--perspective",
            "classification",
        ];
        args.extend(["--mode", mode, "--confidence", "logprobs"]);
        let out = ws.run_with(&srv.url(), &args);
        common::assert_success(&out, &args);
    }
    // alice labels two combinations (one on each scale), bob one.
    let labels = [
        ("alice", "g-000000", "urgency", json!(4)),
        ("alice", "g-000000", "work-pers", json!("DISAGREE")),
        ("bob", "g-000001", "urgency", json!(2)),
    ];
    let lines: Vec<String> = labels
        .iter()
        .map(|(who, item, cls, v)| {
            json!({"itemId": item, "classificationId": cls, "perspectiveId": "classification",
                   "personaId": "tester", "value": v, "who": who})
            .to_string()
        })
        .collect();
    let p = ws.write("labels.jsonl", lines.join("\n") + "\n");
    ws.ok(&["import", p.to_str().unwrap()]);

    let rows: Vec<Value> = jsonl(&ws.ok(&["export", "--format", "wide-jsonl"]));
    // 4 items × 2 classifications, one persona and perspective.
    assert_eq!(rows.len(), 8, "{rows:?}");
    let keys: Vec<&String> = rows[0].as_object().unwrap().keys().collect();
    let judges: Vec<&&String> = keys
        .iter()
        .filter(|k| k.starts_with("judge:") && !k.ends_with(":confidence"))
        .collect();
    assert_eq!(judges.len(), 2, "{keys:?}");
    // alice used two scales: a column each; bob one.
    for k in ["label:alice:likert", "label:alice:agreement", "label:bob"] {
        assert!(keys.iter().any(|c| *c == k), "{k} in {keys:?}");
    }
    // Every verdict of the row export is in its cell, with its confidence.
    let mut want: BTreeMap<(String, String, String), (Value, Value)> = BTreeMap::new();
    for r in jsonl(&ws.ok(&["export"])) {
        if r["kind"] == "verdict" {
            let judge = if r["mode"] == 2 { "mode 2" } else { "mode 3" };
            want.insert(
                (
                    r["item_id"].as_str().unwrap().into(),
                    r["classification_id"].as_str().unwrap().into(),
                    judge.into(),
                ),
                (r["value"].clone(), r["confidence"].clone()),
            );
        }
    }
    assert_eq!(want.len(), 16);
    for row in &rows {
        let item = row["item_id"].as_str().unwrap();
        let cls = row["classification_id"].as_str().unwrap();
        assert_eq!(row["persona_id"], "tester");
        assert!(row["classifier"].is_string(), "{row}");
        for j in &judges {
            let mode = if j.contains("mode 2") {
                "mode 2"
            } else {
                "mode 3"
            };
            let (value, confidence) = &want[&(item.into(), cls.into(), mode.into())];
            assert_eq!(&row[j.as_str()], value, "{row}");
            assert_eq!(
                &row[format!("{j}:confidence").as_str()],
                confidence,
                "{row}"
            );
        }
    }
    let cell = |item: &str, cls: &str, col: &str| -> Value {
        rows.iter()
            .find(|r| r["item_id"] == item && r["classification_id"] == cls)
            .unwrap()[col]
            .clone()
    };
    assert_eq!(cell("g-000000", "urgency", "label:alice:likert"), json!(4));
    assert_eq!(
        cell("g-000000", "work-pers", "label:alice:agreement"),
        json!("DISAGREE")
    );
    assert_eq!(cell("g-000001", "urgency", "label:bob"), json!(2));
    assert_eq!(cell("g-000002", "urgency", "label:bob"), Value::Null);

    // The CSV: the same header and as many rows.
    let csv = ws.ok(&["export", "--format", "wide"]);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        &header[..5],
        [
            "item_id",
            "classification_id",
            "perspective_id",
            "persona_id",
            "classifier"
        ]
    );
    assert_eq!(header.len(), keys.len());
    assert_eq!(lines.count(), 8);
}
