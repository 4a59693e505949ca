//! Inspect AI eval logs (`inspect eval --log-format json`) read by `jury
//! import` (issue #34 §1): each sample's scores become verdicts of the
//! judge `inspect · SCORER (MODEL)`, items matched by the sample's id.
//! The fixture was made by the real Inspect AI against jury's test server
//! (`tests/fixtures/inspect/make.sh`, which runs the ignored test here).

use crate::common;

use common::{ServerRt, Workspace};

use jury::testserver::Reply;
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/inspect")
}

/// Not a test: makes `urgency.json` with the `inspect` command (INSPECT)
/// against the test server (run by make.sh).
#[test]
#[ignore]
fn make_the_inspect_fixture() {
    let srv = ServerRt::start(|req| {
        let body = req.body.to_string();
        if body.contains("GRADE") {
            // The grader: k-002's answer is wrong, the others right.
            if body.contains("Flight SW812") {
                Reply::content("The answer does not match the expert answer.\nGRADE: I")
            } else {
                Reply::content("The answer matches the expert answer.\nGRADE: C")
            }
        } else {
            Reply::content("urgent")
        }
    });
    let logs = tempfile::tempdir().expect("tempdir");
    let inspect = std::env::var("INSPECT").unwrap_or_else(|_| "inspect".into());
    let out = std::process::Command::new(&inspect)
        // Chat completions, not OpenAI's Responses API (the test server
        // speaks the former, as the servers jury talks to do).
        .args([
            "eval",
            "task.py",
            "--model",
            "openai/judge-model",
            "-M",
            "responses_api=false",
            "--log-format",
            "json",
        ])
        .arg("--log-dir")
        .arg(logs.path())
        .current_dir(fixtures())
        .env("OPENAI_BASE_URL", srv.url())
        .env("OPENAI_API_KEY", "test-key-not-secret")
        .env("INSPECT_DISPLAY", "plain")
        .output()
        .expect("run inspect");
    assert!(
        out.status.success(),
        "{}\n{}",
        common::text(&out.stdout),
        common::text(&out.stderr)
    );
    let log = std::fs::read_dir(logs.path())
        .expect("logs")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .expect("a JSON log");
    std::fs::copy(&log, fixtures().join("urgency.json")).expect("copy the log");
    eprintln!("wrote {}", fixtures().join("urgency.json").display());
}

#[test]
fn an_inspect_log_imports_as_its_scorers_verdicts() {
    let ws = Workspace::sample();
    let log = fixtures().join("urgency.json");
    let out = ws.ok(&["import", log.to_str().expect("path")]);
    assert!(
        out.contains("4 verdict(s) from judge 'openai/judge-model (model_graded_fact)'"),
        "{out}"
    );
    let mut got: Vec<(String, String, String)> = ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
        .map(|r| {
            (
                r["item_id"].as_str().unwrap_or_default().to_string(),
                r["value"].as_str().unwrap_or_default().to_string(),
                r["model"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    got.sort();
    let judge = "openai/judge-model (model_graded_fact)";
    assert_eq!(
        got,
        [
            ("k-001", "AGREE"),
            ("k-002", "DISAGREE"),
            ("k-003", "AGREE"),
            ("k-004", "AGREE")
        ]
        .map(|(i, v)| (i.to_string(), v.to_string(), judge.to_string()))
    );
    let report = ws.ok(&["report"]);
    assert!(
        report.contains("awag mode 3 · openai/judge-model (model_graded_fact) vs"),
        "{report}"
    );
    ws.ok(&["estimate"]);
    ws.ok(&["trust"]);

    // A partial score has no reading: the log is refused at its place.
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&log).expect("read")).expect("json");
    doc["samples"][1]["scores"]["model_graded_fact"]["value"] = serde_json::json!("P");
    let bad = ws.write("partial.json", doc.to_string());
    let fresh = Workspace::sample();
    let out = fresh.run(&["import", bad.to_str().expect("path")]);
    let err = common::text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("partial.json: $.samples[1].scores.model_graded_fact: field 'value'"),
        "{err}"
    );
    // A zipped .eval log is named as such.
    let eval = ws.write("run.eval", "PK");
    let out = ws.run(&["import", eval.to_str().expect("path")]);
    assert!(
        common::text(&out.stderr).contains("inspect log convert"),
        "{}",
        common::text(&out.stderr)
    );
}
