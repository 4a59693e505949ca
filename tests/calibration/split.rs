//! A held-out split fixed per workspace — `jury split`, the `split` field of
//! label rows in `jury export`, and `jury report --split test` — on the real
//! binary and a real store.
#![cfg(feature = "tui")]

use crate::common;

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
    // Stratified as far as whole items allow: each label value holds out
    // about 30 % of its pairs.
    for (value, counts) in made["by_label"].as_object().unwrap() {
        let (tr, te) = (counts[0].as_u64().unwrap(), counts[1].as_u64().unwrap());
        let want = (tr + te) as f64 * 0.3;
        assert!(
            (te as f64 - want).abs() <= 2.0_f64.max(want * 0.34),
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

/// item → the sides its labelled pairs are on.
fn sides_by_item(ws: &Workspace) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for ((item, _), side) in sides(ws) {
        out.entry(item).or_default().insert(side);
    }
    out
}

/// A split by (item, classification) let an item's `urgency` be a few-shot
/// example while its `work-pers` was scored as held-out: the split is by
/// item, and a pair labelled later joins its item's side.
#[test]
fn every_pair_of_an_item_is_on_one_side_and_later_labels_join_it() {
    let ws = Workspace::new();
    ws.import_sample();
    let made = split_json(&ws, &["--holdout", "0.3", "--seed", "7"]);
    let by_item = sides_by_item(&ws);
    let several = sides(&ws)
        .keys()
        .fold(BTreeMap::<&str, usize>::new(), |mut m, (i, _)| {
            *m.entry(i.as_str()).or_default() += 1;
            m
        })
        .into_values()
        .filter(|n| *n > 1)
        .count();
    assert!(several > 3, "the sample labels several pairs of an item");
    for (item, s) in &by_item {
        assert_eq!(s.len(), 1, "{item} is on {s:?}");
    }
    assert_eq!(made["by"], "item", "{made}");
    let test_items = by_item.values().filter(|s| s.contains("test")).count();
    assert_eq!(
        (test_items as u64, (by_item.len() - test_items) as u64),
        (
            made["test_items"].as_u64().unwrap(),
            made["train_items"].as_u64().unwrap()
        )
    );
    assert!(test_items > 0 && test_items < by_item.len());

    // A classification of a held-out item labelled after the split joins
    // the item's side, whatever the pair's own hash would say.
    let store = ws.store();
    let labelled: BTreeSet<(String, String)> =
        store.labelled_pair_keys().unwrap().into_iter().collect();
    let (item, cls) = store
        .items()
        .unwrap()
        .into_iter()
        .filter(|it| by_item.get(&it.id).is_some_and(|s| s.contains("test")))
        .flat_map(|it| {
            it.classifications
                .iter()
                .map(|c| (it.id.clone(), c.id.clone()))
                .collect::<Vec<_>>()
        })
        .find(|k| !labelled.contains(k))
        .expect("a held-out item with an unlabelled classification");
    drop(store);
    ws.ok(&["label", &item, &cls, "2"]);
    assert_eq!(
        sides(&ws)[&(item.clone(), cls.clone())],
        "test",
        "{item}/{cls}"
    );
    // The table says items.
    let shown = ws.ok(&["split"]);
    assert!(shown.contains("labelled items now"), "{shown}");
    assert!(
        !shown.contains("pair-level") && !shown.contains("by (item, classification) pair"),
        "{shown}"
    );
}

/// A split stored by an earlier jury, by (item, classification) pair, with
/// an item on both sides: `jury split` says so, `jury report --split` and
/// `jury fewshot` refuse it, `jury split --replace` remakes it by item.
#[test]
fn a_stored_pair_level_split_is_reported_and_replace_remakes_it() {
    let ws = Workspace::new();
    ws.import_sample();
    split_json(&ws, &["--holdout", "0.3", "--seed", "7"]);
    // Turn one pair of an item with several labelled pairs to the other
    // side, as a pair-level split would have placed it.
    let before = sides(&ws);
    let (item, cls) = before
        .keys()
        .find(|(i, c)| before.keys().any(|(i2, c2)| i2 == i && c2 != c))
        .unwrap()
        .clone();
    let other = if before[&(item.clone(), cls.clone())] == "test" {
        "train"
    } else {
        "test"
    };
    let conn = rusqlite::Connection::open(&ws.db).unwrap();
    conn.execute(
        "UPDATE split_members SET side = ?1 WHERE item_id = ?2 AND classification_id = ?3",
        rusqlite::params![other, item, cls],
    )
    .unwrap();
    drop(conn);

    let shown = ws.ok(&["split"]);
    assert!(
        shown.contains("made by (item, classification) pair")
            && shown.contains(&item)
            && shown.contains("--replace"),
        "{shown}"
    );
    let j = split_json(&ws, &[]);
    assert_eq!(
        (j["by"].as_str(), j["mixed_items"].as_u64()),
        (Some("pair"), Some(1)),
        "{j}"
    );
    for side in ["test", "train"] {
        let refused = ws.run(&["report", "--split", side]);
        assert_eq!(refused.status.code(), Some(1), "report --split {side}");
        let err = text(&refused.stderr);
        assert!(
            err.contains("made by (item, classification) pair")
                && err.contains("jury split --replace --holdout 0.3 --seed 7"),
            "{err}"
        );
    }
    let out = ws.path("set");
    let refused = ws.run(&["fewshot", "--from-labels", "--out", out.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        text(&refused.stderr).contains("--replace"),
        "{}",
        text(&refused.stderr)
    );
    assert!(!out.exists());

    split_json(&ws, &["--holdout", "0.3", "--seed", "7", "--replace"]);
    assert_eq!(split_json(&ws, &[])["by"], "item");
    assert!(sides_by_item(&ws).values().all(|s| s.len() == 1));
    ws.ok(&["report", "--split", "test"]);
}

/// A prompt version whose examples show any classification of a held-out
/// item has seen that item's text: `jury report --split test` refuses it,
/// even when the example's own classification was never labelled.
#[test]
fn report_on_test_refuses_a_version_whose_examples_show_a_held_out_item() {
    let ws = Workspace::new();
    ws.import_sample();
    split_json(&ws, &["--holdout", "0.3", "--seed", "7"]);
    let rule = jury::domain::SplitRule::new(0.3, 7).unwrap();
    let by_item = sides_by_item(&ws);
    let labelled: BTreeSet<(String, String)> = sides(&ws).into_keys().collect();
    // A held-out item's classification nobody labelled, whose pair hash
    // alone would have said `train`.
    let (item, cls) = ws
        .store()
        .items()
        .unwrap()
        .into_iter()
        .filter(|it| by_item.get(&it.id).is_some_and(|s| s.contains("test")))
        .flat_map(|it| {
            it.classifications
                .iter()
                .map(|c| (it.id.clone(), c.id.clone()))
                .collect::<Vec<_>>()
        })
        .find(|(i, c)| !labelled.contains(&(i.clone(), c.clone())) && rule.position(i, c) >= 0.3)
        .expect("an unlabelled classification of a held-out item");
    ws.ok(&["report", "--split", "test"]);
    ws.store()
        .record_prompt_examples("feedbeef00", &[(item.clone(), cls)])
        .unwrap();
    let refused = ws.run(&["report", "--split", "test"]);
    assert_eq!(refused.status.code(), Some(1));
    let err = text(&refused.stderr);
    assert!(err.contains("feedbeef") && err.contains(&item), "{err}");
    // On `train` the examples are expected.
    ws.ok(&["report", "--split", "train"]);
}
