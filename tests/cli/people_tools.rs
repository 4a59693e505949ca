//! The round trip through the tools people label in (issue #34 §1): `jury
//! export --format label-studio|argilla` writes the combinations to label
//! as tasks those tools import, and `jury import` reads their exported
//! annotations back as labels, keeping who. The exports read here were made
//! from jury's own tasks: by a real Label Studio (1.23, through its API) and
//! by Argilla's SDK (2.8; `tests/fixtures/*/make.sh` say how).

use crate::common;

use common::Workspace;
use serde_json::Value;
use std::path::PathBuf;

fn fixture(tool: &str, name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(tool)
        .join(name)
}

fn read_json(p: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).expect("read")).expect("json")
}

/// The sample data with the Inspect fixture's verdicts (on k-001..k-004;
/// k-002 and k-004 have no label): what the fixtures' tasks came from.
fn judged_sample() -> Workspace {
    let ws = Workspace::sample();
    let log = fixture("inspect", "urgency.json");
    ws.ok(&["import", log.to_str().expect("path")]);
    ws
}

/// (item, value, who, note) of every label row on `urgency`, sorted.
fn urgency_labels(ws: &Workspace) -> Vec<(String, String, String, String)> {
    let mut got: Vec<_> = ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "label" && r["classification_id"] == "urgency")
        .map(|r| {
            let s = |k: &str| match &r[k] {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                v => v.to_string(),
            };
            (s("item_id"), s("value"), s("who"), s("text"))
        })
        .collect();
    got.sort();
    got
}

fn tasks_of(ws: &Workspace, format: &str) -> Value {
    let out = ws.path(&format!("{format}.json"));
    ws.ok(&[
        "export",
        "--format",
        format,
        "--out",
        out.to_str().expect("path"),
    ]);
    read_json(&out)
}

#[test]
fn label_studio_tasks_go_out_and_their_annotations_come_back_as_labels() {
    let ws = judged_sample();
    let tasks = tasks_of(&ws, "label-studio");
    // The same tasks the committed Label Studio export was made from.
    assert_eq!(tasks, read_json(&fixture("label-studio", "tasks.json")));
    let items: Vec<&str> = tasks
        .as_array()
        .expect("a task list")
        .iter()
        .map(|t| t["data"]["item_id"].as_str().expect("item_id"))
        .collect();
    assert_eq!(items, ["k-002", "k-004"]);
    let config = std::fs::read_to_string(ws.path("label-studio.label-config.xml")).expect("config");
    assert!(config.contains("<Choices name=\"agreement\""), "{config}");
    assert_eq!(
        config,
        std::fs::read_to_string(fixture("label-studio", "tasks.label-config.xml")).expect("read")
    );

    let before = urgency_labels(&ws);
    let export = fixture("label-studio", "export.json");
    ws.ok(&["import", export.to_str().expect("path")]);
    let after = urgency_labels(&ws);
    let new: Vec<_> = after
        .iter()
        .filter(|l| !before.contains(l))
        .cloned()
        .collect();
    assert_eq!(
        new,
        [
            ("k-002", "AGREE", "bob@example.org", ""),
            (
                "k-002",
                "DISAGREE",
                "alice@example.org",
                "A flight change two weeks out is not urgent."
            ),
            ("k-004", "AGREE", "alice@example.org", ""),
        ]
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
    );
    // Labelled now: nothing is left to send.
    assert_eq!(tasks_of(&ws, "label-studio"), serde_json::json!([]));
    // The same file again adds nothing.
    ws.ok(&["import", export.to_str().expect("path")]);
    assert_eq!(urgency_labels(&ws), after);

    // Label Studio's plain export names annotators by their user id.
    let fresh = judged_sample();
    let ids = fixture("label-studio", "export-ids.json");
    fresh.ok(&["import", ids.to_str().expect("path")]);
    let whos: Vec<String> = urgency_labels(&fresh)
        .into_iter()
        .filter(|l| !before.contains(l))
        .map(|l| l.2)
        .collect();
    assert_eq!(
        whos,
        [
            "label-studio user 2",
            "label-studio user 1",
            "label-studio user 1"
        ]
    );

    // A choice off the scale: the import is refused at its place, and
    // nothing of the file is kept.
    let fresh = judged_sample();
    let mut doc = read_json(&export);
    doc[0]["annotations"][0]["result"][0]["value"]["choices"] = serde_json::json!(["MAYBE"]);
    let bad = fresh.write("bad.json", doc.to_string());
    let out = fresh.run(&["import", bad.to_str().expect("path")]);
    let err = common::text(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("bad.json: $[0].annotations[0].result[0]: field 'value'"),
        "{err}"
    );
    assert_eq!(urgency_labels(&fresh), before);
    // A choice under a control jury did not write: refused, not skipped
    // (skipped, a project with its own config imported nothing, silently).
    let mut doc = read_json(&export);
    doc[0]["annotations"][0]["result"][0]["from_name"] = serde_json::json!("sentiment");
    let bad = fresh.write("other-config.json", doc.to_string());
    let err = common::text(&fresh.run(&["import", bad.to_str().expect("path")]).stderr);
    assert!(
        err.contains("other-config.json: $[0].annotations[0].result[0]: field 'from_name'")
            && err.contains("'sentiment'"),
        "{err}"
    );
    assert_eq!(urgency_labels(&fresh), before);
    // A task that is not jury's: named by its place and the missing id.
    let mut doc = read_json(&export);
    doc[1]["data"]
        .as_object_mut()
        .expect("data")
        .remove("item_id");
    let bad = fresh.write("foreign.json", doc.to_string());
    let err = common::text(&fresh.run(&["import", bad.to_str().expect("path")]).stderr);
    assert!(
        err.contains("foreign.json: $[1]: field 'data'") && err.contains("item_id missing"),
        "{err}"
    );
    assert_eq!(urgency_labels(&fresh), before);
}

#[test]
fn argilla_records_go_out_and_their_responses_come_back_as_labels() {
    let ws = judged_sample();
    let records = tasks_of(&ws, "argilla");
    assert_eq!(records, read_json(&fixture("argilla", "records.json")));
    let before = urgency_labels(&ws);
    let export = fixture("argilla", "export.json");
    ws.ok(&["import", export.to_str().expect("path")]);
    let after = urgency_labels(&ws);
    let new: Vec<_> = after
        .iter()
        .filter(|l| !before.contains(l))
        .cloned()
        .collect();
    let alice = "00000000-0000-4000-8000-00000000a11c";
    let bob = "00000000-0000-4000-8000-000000000b0b";
    assert_eq!(
        new,
        [
            ("k-002", "AGREE", bob, ""),
            ("k-002", "DISAGREE", alice, "Two weeks out: not urgent."),
            ("k-004", "AGREE", alice, ""),
        ]
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
    );
    ws.ok(&["import", export.to_str().expect("path")]);
    assert_eq!(urgency_labels(&ws), after, "a second import adds nothing");

    let fresh = judged_sample();
    let mut doc = read_json(&export);
    doc[0]["responses"]["agreement"][0]["value"] = serde_json::json!("MAYBE");
    let bad = fresh.write("bad.json", doc.to_string());
    let out = fresh.run(&["import", bad.to_str().expect("path")]);
    let err = common::text(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("bad.json: $[0].responses.agreement[0]: field 'value'"),
        "{err}"
    );
    assert_eq!(urgency_labels(&fresh), before);
    // A question jury did not write: refused, not skipped.
    let mut doc = read_json(&export);
    let answers = doc[0]["responses"]["agreement"].take();
    doc[0]["responses"]["sentiment"] = answers;
    let bad = fresh.write("other-question.json", doc.to_string());
    let err = common::text(&fresh.run(&["import", bad.to_str().expect("path")]).stderr);
    assert!(
        err.contains("other-question.json: $[0].responses.sentiment: field 'responses'")
            && err.contains("'sentiment' is no question"),
        "{err}"
    );
    assert_eq!(urgency_labels(&fresh), before);
}

#[test]
fn only_the_people_tools_take_needs_person() {
    let ws = Workspace::sample();
    let out = ws.run(&["export", "--format", "jsonl", "--needs-person"]);
    assert!(!out.status.success());
    assert!(common::text(&out.stderr).contains("label-studio or argilla"));
    // The escalation queue: no judge is trusted in this store, so every
    // judged combination no person labelled needs one.
    let ws = judged_sample();
    let out = ws.ok(&["export", "--format", "argilla", "--needs-person"]);
    let records: Value = serde_json::from_str(&out).expect("json");
    let ids: Vec<&str> = records
        .as_array()
        .expect("records")
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    assert_eq!(
        ids,
        [
            "k-002/urgency/classification/kenton",
            "k-004/urgency/classification/kenton"
        ]
    );
}

#[test]
fn verdict_rows_carry_their_prompt_hash_through_export_and_import() {
    let ws = Workspace::sample_judged(&["3"], &[]);
    let rows = ws.export_rows();
    let hashes: Vec<&str> = rows
        .iter()
        .filter(|r| r["kind"] == "verdict")
        .map(|r| r["prompt_hash"].as_str().expect("a prompt hash"))
        .collect();
    assert!(!hashes.is_empty());
    assert!(hashes.iter().all(|h| *h == hashes[0] && *h != "imported"));
    let file = ws.write("rows.jsonl", ws.ok(&["export", "--format", "jsonl"]));
    let other = Workspace::sample();
    other.ok(&["import", file.to_str().expect("path")]);
    let back: Vec<String> = other
        .export_rows()
        .iter()
        .filter(|r| r["kind"] == "verdict")
        .map(|r| r["prompt_hash"].as_str().expect("hash").to_string())
        .collect();
    assert_eq!(back.len(), hashes.len());
    assert!(back.iter().all(|h| h == hashes[0]), "{back:?}");
}
