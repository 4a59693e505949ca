//! Tags on labels (why the judge was wrong) and "come back later" marks:
//! `jury label --tag` checks the configured set; exports carry both; the
//! report counts the tags on each judge group's disagreements; a mark is
//! never counted as a label.
#![cfg(feature = "tui")]

use crate::common;

use common::{ServerRt, Workspace, generated_workspace, jsonl};
use jury::domain::{ComboKey, MarkKind};
use jury::store::MarkSlot;
use serde_json::Value;

/// Four items judged in mode 2 by the demo judge; returns the judge's
/// Likert value per item.
fn judged() -> (Workspace, Vec<(String, u64)>) {
    let ws = generated_workspace(4, 1);
    let srv = ServerRt::demo();
    let args = [
        "run",
        "--persona",
        "tester",
        "--perspective",
        "classification",
        "--mode",
        "2",
    ];
    common::assert_success(&ws.run_with(&srv.url(), &args), &args);
    let mut judge: Vec<(String, u64)> = ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
        .map(|r| {
            (
                r["item_id"].as_str().unwrap().to_string(),
                r["value"].as_u64().unwrap(),
            )
        })
        .collect();
    judge.sort();
    assert_eq!(judge.len(), 4);
    (ws, judge)
}

fn label(ws: &Workspace, item: &str, value: u64, tags: &[&str]) -> std::process::Output {
    let v = value.to_string();
    let mut args = vec!["label", item, "urgency", &v, "--persona", "tester"];
    for t in tags {
        args.extend(["--tag", t]);
    }
    ws.run(&args)
}

#[test]
fn a_tag_outside_the_set_is_refused_with_the_set_named() {
    let (ws, judge) = judged();
    let out = label(&ws, &judge[0].0, 3, &["persona-misread", "typo-tag"]);
    assert!(!out.status.success());
    let err = common::text(&out.stderr);
    assert!(err.contains("typo-tag"), "{err}");
    assert!(
        err.contains("persona-misread, injection-worked, ignored-context"),
        "{err}"
    );
    assert!(ws.store().labels_for_item(&judge[0].0).unwrap().is_empty());
    // config.toml's `tags` replaces the set.
    let cfg = ws.write("config.toml", "tags = [\"off-topic\"]\n");
    let out = ws
        .cmd()
        .env("JURY_CONFIG", &cfg)
        .args(["label", &judge[0].0, "urgency", "3", "--persona", "tester"])
        .args(["--tag", "persona-misread"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(common::text(&out.stderr).contains("(off-topic)"));
    let out = ws
        .cmd()
        .env("JURY_CONFIG", &cfg)
        .args(["label", &judge[0].0, "urgency", "3", "--persona", "tester"])
        .args(["--tag", "off-topic"])
        .output()
        .unwrap();
    common::assert_success(&out, &["label --tag off-topic"]);
    // A tag name that cannot be one is refused where it is written.
    let bad = ws.write("bad.toml", "who = \"a\"\ntags = [\"two words\"]\n");
    let out = ws
        .cmd()
        .env("JURY_CONFIG", &bad)
        .args(["export"])
        .output()
        .unwrap();
    let err = common::text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("bad.toml") && err.contains("line 2") && err.contains("tags"),
        "{err}"
    );
}

#[test]
fn tags_are_exported_and_counted_on_each_judge_groups_disagreements() {
    let (ws, judge) = judged();
    let other = |v: u64| if v <= 2 { 5 } else { 1 };
    // Three disagreements tagged (one with two tags), one agreement tagged.
    let plan: [(&[&str], bool); 4] = [
        (&["persona-misread"], false),
        (&["persona-misread", "ignored-context"], false),
        (&["injection-worked"], false),
        (&["ignored-context"], true),
    ];
    for ((item, v), (tags, agree)) in judge.iter().zip(plan) {
        let value = if agree { *v } else { other(*v) };
        common::assert_success(&label(&ws, item, value, tags), &["label", item]);
    }
    let rows = ws.export_rows();
    let tagged: Vec<&Value> = rows.iter().filter(|r| r["kind"] == "label").collect();
    assert_eq!(tagged.len(), 4);
    assert_eq!(
        tagged[1]["tags"],
        serde_json::json!(["ignored-context", "persona-misread"])
    );
    let csv = ws.ok(&["export", "--format", "csv"]);
    assert!(
        csv.contains(r#""[""ignored-context"",""persona-misread""]""#),
        "{csv}"
    );
    let wide = jsonl(&ws.ok(&["export", "--format", "wide-jsonl"]));
    let first = wide
        .iter()
        .find(|r| r["item_id"] == judge[1].0.as_str())
        .unwrap();
    assert_eq!(first["tags:tester"], "ignored-context,persona-misread");

    let report: Value = serde_json::from_str(&ws.ok(&["report", "--format", "json"])).unwrap();
    let g = &report["judge_vs_human"][0];
    assert_eq!(
        g["disagreement_tags"],
        serde_json::json!({"persona-misread": 2, "ignored-context": 1, "injection-worked": 1}),
        "the agreeing pair's tag is not counted: {g}"
    );
    let table = ws.ok(&["report"]);
    assert!(
        table.contains(
            "tags on disagreements: ignored-context 1 · injection-worked 1 · persona-misread 2"
        ),
        "{table}"
    );
    let md = ws.ok(&["report", "--format", "md"]);
    assert!(md.contains("**Tags on disagreements**"), "{md}");
    let html = ws.ok(&["report", "--format", "html"]);
    assert!(html.contains("id=\"disagreement-tags\""));
    assert!(html.contains("persona-misread 2"));
    // Read back: the CSV (items and labels) and the JSON lines keep the tags.
    let want: Vec<Vec<String>> = {
        let store = ws.store();
        let mut t: Vec<Vec<String>> = judge
            .iter()
            .map(|(i, _)| store.labels_for_item(i).unwrap()[0].tags.clone())
            .collect();
        t.sort();
        t
    };
    let tags_in = |w: &Workspace| {
        let store = w.store();
        let mut t: Vec<Vec<String>> = judge
            .iter()
            .map(|(i, _)| store.labels_for_item(i).unwrap()[0].tags.clone())
            .collect();
        t.sort();
        t
    };
    let csv_back = generated_workspace(4, 1);
    let p = csv_back.write("back.csv", &csv);
    csv_back.ok(&["import", p.to_str().unwrap()]);
    assert_eq!(tags_in(&csv_back), want);
    let jsonl_back = generated_workspace(4, 1);
    let lines: Vec<String> = rows
        .iter()
        .filter(|r| r["kind"] == "label")
        .map(|r| r.to_string())
        .collect();
    let p = jsonl_back.write("back.jsonl", lines.join("\n") + "\n");
    jsonl_back.ok(&["import", p.to_str().unwrap()]);
    assert_eq!(tags_in(&jsonl_back), want);
}

#[test]
fn a_mark_is_exported_in_its_own_column_and_never_counted_as_a_label() {
    let (ws, judge) = judged();
    let slot = MarkSlot {
        key: ComboKey::new(&judge[0].0, "urgency", "classification"),
        persona_id: "tester".into(),
        who: "tester".into(),
    };
    ws.store()
        .record_mark(
            &slot,
            Some((MarkKind::Unsure, "sarcasm?")),
            &jury::store::now(),
            jury::store::MarkEventKind::Mark,
        )
        .unwrap();
    let rows = ws.export_rows();
    assert!(
        rows.iter().all(|r| r["kind"] != "label"),
        "a mark is no label"
    );
    let m: Vec<&Value> = rows.iter().filter(|r| r["kind"] == "mark").collect();
    assert_eq!(m.len(), 1);
    assert_eq!(m[0]["mark"], "unsure");
    assert_eq!(m[0]["text"], "sarcasm?");
    assert_eq!(m[0]["value"], Value::Null);
    let csv = ws.ok(&["export", "--format", "csv"]);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert!(header.contains(&"mark"));
    let wide = jsonl(&ws.ok(&["export", "--format", "wide-jsonl"]));
    let row = wide
        .iter()
        .find(|r| r["item_id"] == judge[0].0.as_str())
        .unwrap();
    assert_eq!(row["mark:tester"], "unsure");
    assert!(
        row.as_object()
            .unwrap()
            .keys()
            .all(|k| !k.starts_with("label:"))
    );
    // No judge-vs-human figures: nothing was labelled.
    let report: Value = serde_json::from_str(&ws.ok(&["report", "--format", "json"])).unwrap();
    assert_eq!(report["judge_vs_human"], serde_json::json!([]));
    // Labelling the row settles the mark.
    common::assert_success(&label(&ws, &judge[0].0, 2, &[]), &["label"]);
    assert!(ws.store().current_marks().unwrap().is_empty());
}
