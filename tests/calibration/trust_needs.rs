//! Nothing trusted means everything needs a person: with no verdict that
//! has a confidence, or no threshold that meets the guarantee, `jury trust
//! --needs-person` and the workbench's queue (`escalation_queue`) say no
//! judge is trusted yet and list every judged combination no one labelled.
#![cfg(feature = "tui")]

use crate::common;
use crate::confidence::{import_labels, opposite, run_args, verdict_rows};
use common::ServerRt;
use serde_json::Value;
use std::collections::BTreeSet;

/// (item, classification, the judge's value) of every verdict.
fn verdicts(ws: &common::Workspace) -> Vec<(String, String, String)> {
    verdict_rows(ws)
        .iter()
        .map(|r| {
            let s = |f: &str| r[f].as_str().expect(f).to_string();
            (s("item_id"), s("classification_id"), s("value"))
        })
        .collect()
}

/// The queue as (classification, item), from the JSON rows; every row
/// names no judge (none is trusted).
fn queue(ws: &common::Workspace) -> BTreeSet<(String, String)> {
    let rows: Value =
        serde_json::from_str(&ws.ok(&["trust", "--needs-person", "--format", "json"]))
            .expect("json");
    rows.as_array()
        .expect("an array")
        .iter()
        .map(|r| {
            assert!(r["judge"].is_null() && r["value"].is_null(), "{r}");
            assert_eq!(r["persona"], "tester");
            let s = |f: &str| r[f].as_str().expect(f).to_string();
            (s("classification"), s("item"))
        })
        .collect()
}

fn unlabelled(
    all: &[(String, String, String)],
    labelled: &[(String, String, String)],
) -> BTreeSet<(String, String)> {
    let done: BTreeSet<(&str, &str)> = labelled
        .iter()
        .map(|(i, c, _)| (c.as_str(), i.as_str()))
        .collect();
    all.iter()
        .filter(|(i, c, _)| !done.contains(&(c.as_str(), i.as_str())))
        .map(|(i, c, _)| (c.clone(), i.clone()))
        .collect()
}

/// No verdict has a confidence: before, the queue was empty ("no verdict
/// of a trusted configuration needs a person").
#[test]
fn without_confidences_every_unlabelled_combination_needs_a_person() {
    let ws = common::generated_workspace(6, 2);
    let srv = ServerRt::demo();
    common::assert_success(&ws.run_with(&srv.url(), &run_args(&[])), &["run"]);
    let all = verdicts(&ws);
    assert_eq!(all.len(), 12);
    let labelled = &all[..2];
    import_labels(
        &ws,
        &labelled
            .iter()
            .map(|(i, c, v)| (i.clone(), c.clone(), v.as_str()))
            .collect::<Vec<_>>(),
    );
    let want = unlabelled(&all, labelled);
    assert_eq!(want.len(), 10);
    assert_eq!(queue(&ws), want);
    let table = ws.ok(&["trust", "--needs-person"]);
    assert!(table.starts_with("No judge is trusted yet"), "{table}");
    assert!(table.contains("no verdict has a confidence"), "{table}");
    assert!(table.contains("10 combination(s)"), "{table}");
    assert_eq!(
        table
            .matches("no judge is trusted for this classification")
            .count(),
        10,
        "{table}"
    );
    // The workbench's "needs a person" reads the same queue.
    let (esc, trusted) = jury::report::trust::escalation_queue(&ws.store()).expect("the queue");
    assert!(!trusted);
    let got: BTreeSet<(String, String)> = esc
        .iter()
        .map(|e| (e.key.classification_id.clone(), e.key.item_id.clone()))
        .collect();
    assert_eq!(got, want);
}

/// Confidences, but no threshold meets the guarantee (people disagree with
/// the judge on every label of one classification; the other has no label):
/// every unlabelled combination of both is listed, under a first line that
/// says no judge is trusted.
#[test]
fn with_no_threshold_met_every_unlabelled_combination_needs_a_person() {
    let ws = common::generated_workspace(40, 2);
    let srv = ServerRt::demo();
    let out = ws.run_with(&srv.url(), &run_args(&["--confidence", "logprobs"]));
    common::assert_success(&out, &["run"]);
    let all = verdicts(&ws);
    assert_eq!(all.len(), 80);
    let first = all[0].1.clone();
    let labelled: Vec<(String, String, String)> = all
        .iter()
        .filter(|r| r.1 == first)
        .take(30)
        .cloned()
        .collect();
    import_labels(
        &ws,
        &labelled
            .iter()
            .map(|(i, c, v)| (i.clone(), c.clone(), opposite(v)))
            .collect::<Vec<_>>(),
    );
    let thresholds: Value =
        serde_json::from_str(&ws.ok(&["trust", "--format", "json"])).expect("json");
    assert!(
        thresholds["thresholds"]
            .as_array()
            .expect("an array")
            .iter()
            .all(|t| t["threshold"].is_null()),
        "{thresholds}"
    );
    let want = unlabelled(&all, &labelled);
    assert_eq!(want.len(), 50);
    assert_eq!(queue(&ws), want);
    let table = ws.ok(&["trust", "--needs-person"]);
    assert!(
        table.starts_with(
            "No judge is trusted yet (no confidence threshold guarantees 90 % agreement at 90 %"
        ),
        "{table}"
    );
    let (esc, trusted) = jury::report::trust::escalation_queue(&ws.store()).expect("the queue");
    assert!(!trusted);
    assert_eq!(esc.len(), 50);
}
