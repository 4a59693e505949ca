//! The few-shot loop end to end on the real binary against a judge on
//! 127.0.0.1: labels → split → few-shot set → a run with it → the report on
//! held-out pairs, and a few-shot set that saw a test pair is refused there.
#![cfg(feature = "tui")]

use crate::common;

use common::{ServerRt, Workspace, generated_workspace, text};
use serde_json::Value;

const RUN: &[&str] = &[
    "run",
    "--mode",
    "2",
    "--persona",
    "tester",
    "--perspective",
    "classification",
    "--json",
];

fn labelled() -> Workspace {
    let ws = generated_workspace(40, 2);
    for i in 0..40 {
        for (cls, v) in [("urgency", i % 5 + 1), ("work-pers", (i * 3) % 5 + 1)] {
            ws.ok(&["label", &format!("g-{i:06}"), cls, &v.to_string()]);
        }
    }
    ws
}

fn run(ws: &Workspace, server: &ServerRt, extra: &[&str]) {
    let mut args = RUN.to_vec();
    args.extend_from_slice(extra);
    let out = ws.run_with(&server.url(), &args);
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
}

#[test]
fn labels_split_fewshot_run_and_the_held_out_report() {
    let ws = labelled();
    let server = ServerRt::demo();
    // The five commands of README's loop.
    ws.ok(&["split", "--holdout", "0.3", "--seed", "5"]);
    run(&ws, &server, &[]);
    let set = ws.path("fewshot");
    ws.ok(&[
        "fewshot",
        "--from-labels",
        "--k",
        "8",
        "--out",
        set.to_str().unwrap(),
    ]);
    run(&ws, &server, &["--prompts", set.to_str().unwrap()]);
    let report: Value =
        serde_json::from_str(&ws.ok(&["report", "--split", "test", "--format", "json"])).unwrap();

    // No test pair among the examples.
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(set.join("fewshot.json")).unwrap()).unwrap();
    let split: std::collections::BTreeMap<(String, String), String> = ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "label")
        .map(|r| {
            (
                (
                    r["item_id"].as_str().unwrap().into(),
                    r["classification_id"].as_str().unwrap().into(),
                ),
                r["split"].as_str().unwrap().into(),
            )
        })
        .collect();
    let test_pairs = split.values().filter(|s| *s == "test").count();
    for e in manifest["examples"]["mode2"].as_array().unwrap() {
        let key = (
            e["itemId"].as_str().unwrap().to_string(),
            e["classificationId"].as_str().unwrap().to_string(),
        );
        assert_eq!(split[&key], "train", "{key:?}");
    }

    // The change between the two prompt versions, on held-out pairs only.
    let changes = report["prompt_version_changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{report:#}");
    let c = &changes[0];
    assert_eq!(c["n"].as_u64().unwrap() as usize, test_pairs, "{c}");
    assert!(
        c["kappa_to"]["value"].is_number() && c["delta_kappa"]["value"].is_number(),
        "{c}"
    );
    // An interval, or the reason there is none (25 held-out pairs: under 30).
    for f in ["kappa_to", "delta_kappa", "delta_agree"] {
        assert!(
            c[f]["ci95"].is_array() || c[f]["no_ci"].is_string(),
            "{f}: {c}"
        );
    }
    assert!(
        c["agree_to"]["ci95"].is_array(),
        "agreement: an interval at any n: {c}"
    );
    let table = ws.ok(&["report", "--split", "test"]);
    assert!(table.contains("prompt version changes"), "{table}");

    // A set made under another split holds test pairs of the new one: a run
    // with it makes the held-out report refuse that version.
    ws.ok(&["split", "--holdout", "0.5", "--seed", "9", "--replace"]);
    let seen = std::fs::read_to_string(set.join("fewshot.json")).unwrap();
    let now: std::collections::BTreeMap<(String, String), String> = ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "label")
        .map(|r| {
            (
                (
                    r["item_id"].as_str().unwrap().into(),
                    r["classification_id"].as_str().unwrap().into(),
                ),
                r["split"].as_str().unwrap().into(),
            )
        })
        .collect();
    let leaked = serde_json::from_str::<Value>(&seen).unwrap()["examples"]["mode2"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| {
            now[&(
                e["itemId"].as_str().unwrap().to_string(),
                e["classificationId"].as_str().unwrap().to_string(),
            )] == "test"
        });
    assert!(leaked, "seed 9 puts one of the old examples on test");
    let refused = ws.run(&["report", "--split", "test"]);
    assert_eq!(refused.status.code(), Some(1));
    let err = text(&refused.stderr);
    assert!(
        err.contains("few-shot examples") && err.contains("flatter"),
        "{err}"
    );
    // The train side and the whole report still work.
    ws.ok(&["report", "--split", "train"]);
    ws.ok(&["report"]);
}
