//! `jury import` keeps whether a label was given as a random sample (issue
//! #30 §4): `sampled` and `sample_seed` as jury's exports write them, in
//! JSONL and in the CSV export read back. An outside random sample stays
//! one instead of being reported as chosen by a person.

use crate::common;

use common::generated_workspace;
use serde_json::json;

fn label(item: usize, extra: serde_json::Value) -> serde_json::Value {
    let mut l = json!({
        "itemId": format!("g-{item:06}"), "classificationId": "urgency",
        "perspectiveId": "classification", "personaId": "tester",
        "value": "AGREE", "who": "alice",
    });
    if let (Some(l), Some(e)) = (l.as_object_mut(), extra.as_object()) {
        l.extend(e.clone());
    }
    l
}

/// (item, sampled, sample_seed) of every exported label row, sorted.
fn exported(ws: &common::Workspace) -> Vec<(String, bool, Option<u64>)> {
    let mut rows: Vec<_> = ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "label")
        .map(|r| {
            (
                r["item_id"].as_str().unwrap_or_default().to_string(),
                r["sampled"].as_bool().unwrap_or(false),
                r["sample_seed"].as_u64(),
            )
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn imported_labels_keep_sampled_and_sample_seed_through_jsonl_and_csv() {
    let ws = generated_workspace(4, 1);
    let labels = [
        label(0, json!({"sampled": true, "sample_seed": 5})),
        // An outside sample that gives no seed.
        label(1, json!({"sampled": true})),
        label(2, json!({"sampled": false, "sample_seed": null})),
        label(3, json!({})),
    ];
    let text: String = labels.iter().map(|l| format!("{l}\n")).collect();
    let path = ws.write("labels.jsonl", text);
    ws.ok(&["import", path.to_str().expect("path")]);
    let want = vec![
        ("g-000000".to_string(), true, Some(5)),
        ("g-000001".to_string(), true, None),
        ("g-000002".to_string(), false, None),
        ("g-000003".to_string(), false, None),
    ];
    assert_eq!(exported(&ws), want);

    // The CSV export read back into a fresh workspace says the same.
    let csv = ws.path("export.csv");
    ws.ok(&[
        "export",
        "--format",
        "csv",
        "--out",
        csv.to_str().expect("path"),
    ]);
    let again = generated_workspace(4, 1);
    again.ok(&["import", csv.to_str().expect("path")]);
    assert_eq!(exported(&again), want);
}

#[test]
fn a_sample_seed_that_is_not_a_number_names_file_line_and_field() {
    let ws = generated_workspace(1, 1);
    let path = ws.write(
        "labels.jsonl",
        format!(
            "{}\n",
            label(0, json!({"sampled": true, "sample_seed": "soon"}))
        ),
    );
    let out = ws.run(&["import", path.to_str().expect("path")]);
    assert!(!out.status.success());
    let err = common::text(&out.stderr);
    assert!(
        err.contains("labels.jsonl") && err.contains("sample_seed"),
        "{err}"
    );
}
