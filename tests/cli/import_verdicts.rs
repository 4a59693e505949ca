//! Bring your own judges (issue #34 §1): `jury import` reads verdict rows
//! (`jury export --format jsonl|csv`, or another tool's rows naming their
//! `judge`), each source becoming its own run; a bad row refuses the whole
//! file with its line and field; the same file twice adds nothing; a study
//! exported and imported into a fresh store reports the same figures.

use crate::common;

use common::{Workspace, text};
use serde_json::{Value, json};

/// Stored verdicts.
fn verdict_count(ws: &Workspace) -> usize {
    ws.export_rows()
        .iter()
        .filter(|r| r["kind"] == "verdict")
        .count()
}

/// A verdict row of another tool, about a sample item kenton labelled.
fn row(item: &str, value: Value) -> Value {
    json!({"judge": "their-tool", "item_id": item, "classification_id": "urgency",
           "perspective_id": "classification", "persona_id": "kenton",
           "value": value, "scale": "likert", "confidence": 0.75, "text": "from elsewhere"})
}

/// Where two JSON documents differ (at most 20 places).
fn differences(at: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    if out.len() >= 20 {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                let null = Value::Null;
                differences(
                    &format!("{at}.{k}"),
                    x.get(k).unwrap_or(&null),
                    y.get(k).unwrap_or(&null),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                differences(&format!("{at}[{i}]"), p, q, out);
            }
        }
        _ if a != b => out.push(format!(
            "{at}: {} vs {}",
            common::text(a.to_string().as_bytes())
                .chars()
                .take(200)
                .collect::<String>(),
            b.to_string().chars().take(200).collect::<String>()
        )),
        _ => {}
    }
}

fn lines(rows: &[Value]) -> String {
    rows.iter().map(|r| format!("{r}\n")).collect()
}

#[test]
fn a_studys_verdicts_exported_and_imported_into_a_fresh_store_report_the_same() {
    let judged = Workspace::sample_judged(&["2", "3"], &[]);
    let export = judged.path("verdicts.jsonl");
    judged.ok(&[
        "export",
        "--format",
        "jsonl",
        "--out",
        export.to_str().expect("path"),
    ]);
    let before = verdict_count(&judged);
    assert!(before > 10, "the demo judge gave {before} verdicts");

    // A fresh store with the same items, personas, perspectives and labels.
    let fresh = Workspace::sample();
    let out = fresh.ok(&["import", export.to_str().expect("path")]);
    assert!(out.contains("imported as run"), "{out}");
    assert_eq!(verdict_count(&fresh), before);

    for args in [
        &["report", "--format", "json"][..],
        &["report", "--rank", "--format", "json"][..],
        &["estimate", "--format", "json"][..],
        &["trust", "--format", "json"][..],
    ] {
        let a: Value = serde_json::from_str(&judged.ok(args)).expect("json");
        let b: Value = serde_json::from_str(&fresh.ok(args)).expect("json");
        let mut diffs = Vec::new();
        differences("$", &a, &b, &mut diffs);
        assert!(
            diffs.is_empty(),
            "jury {args:?} differs after export and import:\n{}",
            diffs.join("\n")
        );
    }

    // The same file again adds nothing, and says so.
    let again = fresh.run(&["import", export.to_str().expect("path")]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert!(
        text(&again.stderr).contains("already imported"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(verdict_count(&fresh), before);
}

#[test]
fn a_bad_verdict_refuses_its_file_with_line_and_field_and_writes_nothing() {
    let ws = Workspace::sample();
    let cases = [
        (
            row("no-such-item", json!(4)),
            "item_id",
            "no item 'no-such-item'",
        ),
        (
            {
                let mut r = row("k-001", json!(4));
                r["classification_id"] = json!("colour");
                r
            },
            "classification_id",
            "has no classification 'colour'",
        ),
        (row("k-001", json!(7)), "value", "7"),
        (
            {
                let mut r = row("k-001", json!(4));
                r["confidence"] = json!(2);
                r
            },
            "confidence",
            "from 0 to 1",
        ),
    ];
    for (i, (bad, field, says)) in cases.into_iter().enumerate() {
        // Line 2 is the bad one; line 1 is valid and must not land either.
        let f = ws.write(
            &format!("bad{i}.jsonl"),
            lines(&[row("k-002", json!(2)), bad]),
        );
        let out = ws.run(&["import", f.to_str().expect("path")]);
        let err = text(&out.stderr);
        assert!(!out.status.success(), "case {i} was accepted");
        assert!(
            err.contains(&format!("bad{i}.jsonl: line 2: field '{field}'")) && err.contains(says),
            "case {i}: {err}"
        );
        assert_eq!(verdict_count(&ws), 0, "case {i}: something was written");
    }
}

#[test]
fn a_csv_of_another_tools_verdicts_is_its_own_judge_configuration() {
    let ws = Workspace::sample();
    let csv = "judge,item_id,classification_id,perspective_id,persona_id,value,scale,confidence,text\n\
               their-tool,k-001,urgency,classification,kenton,4,likert,0.9,\"urgent, plainly\"\n\
               their-tool,k-002,urgency,classification,kenton,2,likert,,\n";
    let f = ws.write("theirs.csv", csv);
    let out = ws.ok(&["import", f.to_str().expect("path")]);
    assert!(
        out.contains("2 verdict(s) from judge 'their-tool'"),
        "{out}"
    );
    let rows: Vec<Value> = ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["model"], "their-tool");
    assert_eq!(rows[0]["text"], "urgent, plainly");
    assert_eq!(rows[0]["confidence"], 0.9);
    assert_eq!(rows[0]["confidence_source"], "imported");
    assert_eq!(rows[1]["confidence"], Value::Null);
    // The run says where it came from.
    let runs = ws.ok(&["runs"]);
    assert!(
        runs.contains("imported from") && runs.contains("theirs.csv"),
        "{runs}"
    );
    // The judge stands beside people in the report.
    let report = ws.ok(&["report"]);
    assert!(report.contains("awag mode 2 · their-tool vs"), "{report}");
    // Importing it again adds nothing.
    ws.ok(&["import", f.to_str().expect("path")]);
    assert_eq!(verdict_count(&ws), 2);
    // `jury trust` says where each confidence came from (it called every
    // stored confidence "logprobs"), and a judge's stated one "verbalised".
    let mut said = row("k-003", json!(4));
    said["judge"] = json!("said-tool");
    said["confidence_source"] = json!("verbalized");
    let g = ws.write("said.jsonl", format!("{said}\n"));
    ws.ok(&["import", g.to_str().expect("path")]);
    let trust: Value =
        serde_json::from_str(&ws.ok(&["trust", "--format", "json"])).expect("trust json");
    let source_of = |judge: &str| {
        trust["thresholds"]
            .as_array()
            .expect("thresholds")
            .iter()
            .find(|t| t["judge"].as_str().is_some_and(|j| j.ends_with(judge)))
            .map(|t| t["confidence_source"].clone())
    };
    assert_eq!(source_of("their-tool"), Some(json!("imported")), "{trust}");
    assert_eq!(source_of("said-tool"), Some(json!("verbalised")), "{trust}");
    let table = ws.ok(&["trust"]);
    assert!(
        table.contains("confidence from the imported source's own figure (imported)")
            && table.contains("confidence from the judge's stated confidence (verbalised)")
            && !table.contains("logprobs)"),
        "{table}"
    );
}
