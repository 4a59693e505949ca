//! Issue "Close the loop", point 1: a held-out split fixed per workspace —
//! `jury split`, the `split` field of label rows in `jury export`, and
//! `jury report --split test` — on the real binary and a real store.
#![cfg(feature = "tui")]

mod common;

use common::{Workspace, text};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// (item, classification) → side, from the label rows of an export.
fn sides(ws: &Workspace) -> BTreeMap<(String, String), String> {
    let mut out = BTreeMap::new();
    for r in ws.export_rows() {
        if r["kind"] != "label" {
            continue;
        }
        let key = (
            r["item_id"].as_str().unwrap().to_string(),
            r["classification_id"].as_str().unwrap().to_string(),
        );
        let side = r["split"]
            .as_str()
            .expect("a split side on every label row");
        if let Some(before) = out.insert(key.clone(), side.to_string()) {
            assert_eq!(before, side, "{key:?}: two labels of one pair on two sides");
        }
    }
    out
}

fn split_json(ws: &Workspace, args: &[&str]) -> Value {
    let mut full = vec!["split", "--json"];
    full.extend_from_slice(args);
    serde_json::from_str(ws.ok(&full).trim()).expect("split --json")
}

#[test]
fn a_split_is_stratified_fixed_and_the_same_for_the_same_seed() {
    let ws = Workspace::new();
    ws.import_sample();
    // No split yet: label rows say so with null.
    assert!(
        ws.export_rows()
            .iter()
            .filter(|r| r["kind"] == "label")
            .all(|r| r["split"].is_null())
    );
    assert_eq!(split_json(&ws, &[]), Value::Null);

    let made = split_json(&ws, &["--holdout", "0.3", "--seed", "7"]);
    let (train, test) = (
        made["train"].as_u64().unwrap(),
        made["test"].as_u64().unwrap(),
    );
    let before = sides(&ws);
    assert_eq!(
        (train + test) as usize,
        before.len(),
        "every labelled pair placed: {made}"
    );
    // Stratified: each label value holds out round(n × 0.3) of its pairs.
    for (value, counts) in made["by_label"].as_object().unwrap() {
        let (tr, te) = (counts[0].as_u64().unwrap(), counts[1].as_u64().unwrap());
        assert_eq!(
            te,
            ((tr + te) as f64 * 0.3).round() as u64,
            "label {value}: {counts}"
        );
    }

    // Fixed: a second split is refused and changes nothing.
    let again = ws.run(&["split", "--holdout", "0.5", "--seed", "8"]);
    assert_eq!(again.status.code(), Some(1));
    let err = text(&again.stderr);
    assert!(
        err.contains("already has a held-out split") && err.contains("--replace"),
        "{err}"
    );
    assert_eq!(sides(&ws), before);

    // A relabelled pair keeps its side; a newly labelled pair gets one by the hash.
    let (item, cls) = before
        .keys()
        .find(|(_, c)| c == "urgency")
        .expect("a labelled urgency")
        .clone();
    // `list items --json` writes one item per line.
    let unlabelled = common::jsonl(&ws.ok(&["list", "items", "--json"]))
        .iter()
        .filter_map(|i| i["id"].as_str().map(str::to_string))
        .find(|id| !before.contains_key(&(id.clone(), "urgency".to_string())))
        .expect("an item whose urgency is not labelled");
    ws.ok(&["label", &item, &cls, "1", "--who", "carol"]);
    ws.ok(&["label", &unlabelled, "urgency", "4"]);
    let after = sides(&ws);
    for (k, side) in &before {
        assert_eq!(after.get(k), Some(side), "{k:?} moved");
    }
    let joined = after
        .get(&(unlabelled.clone(), "urgency".to_string()))
        .expect("the new label's pair has a side");
    assert!(joined == "train" || joined == "test");

    // The same labels, seed and share give the same split in another workspace.
    let other = Workspace::new();
    other.import_sample();
    split_json(&other, &["--holdout", "0.3", "--seed", "7"]);
    assert_eq!(sides(&other), before);
    // Another seed gives another split.
    let third = Workspace::new();
    third.import_sample();
    split_json(&third, &["--holdout", "0.3", "--seed", "8"]);
    assert_ne!(sides(&third), before);
    // --replace makes the new one.
    split_json(&ws, &["--holdout", "0.5", "--seed", "8", "--replace"]);
    assert_ne!(sides(&ws), after);
}

#[test]
fn report_on_the_test_side_counts_only_held_out_pairs() {
    let ws = Workspace::new();
    ws.import_sample();
    let refused = ws.run(&["report", "--split", "test"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(text(&refused.stderr).contains("jury split --holdout"));

    split_json(&ws, &["--holdout", "0.4", "--seed", "3"]);
    let side_of = sides(&ws);
    let all: Value = serde_json::from_str(&ws.ok(&["report", "--format", "json"])).unwrap();
    let test: Value =
        serde_json::from_str(&ws.ok(&["report", "--format", "json", "--split", "test"])).unwrap();
    let train: Value =
        serde_json::from_str(&ws.ok(&["report", "--format", "json", "--split", "train"])).unwrap();
    assert_eq!(test["split"], "test");
    assert!(all["split"].is_null());
    let n = |v: &Value| -> u64 {
        v["human_vs_human"]
            .as_array()
            .map(|gs| gs.iter().map(|g| g["n"].as_u64().unwrap()).sum())
            .unwrap_or(0)
    };
    // Every human-vs-human pair is on exactly one side.
    assert!(n(&all) > 0);
    assert_eq!(
        n(&test) + n(&train),
        n(&all),
        "test {} + train {} = all {}",
        n(&test),
        n(&train),
        n(&all)
    );
    assert!(n(&test) > 0 && n(&train) > 0);
    // And the pairs held out are the ones the export says are on `test`.
    let held_out: BTreeSet<_> = side_of
        .iter()
        .filter(|(_, s)| *s == "test")
        .map(|(k, _)| k)
        .collect();
    assert!(!held_out.is_empty());
    let table = ws.ok(&["report", "--split", "test"]);
    assert!(
        table.starts_with("on the test side of the held-out split only"),
        "{table}"
    );
}
