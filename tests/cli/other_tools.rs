//! Other tools' logs read by `jury import` (issue #34 §1): Inspect AI eval
//! logs (`inspect eval --log-format json`; each sample's scores are
//! verdicts of the judge `MODEL (SCORER)`) and promptfoo results
//! (`promptfoo eval -o results.json`; each grader result a verdict of
//! `promptfoo TYPE (GRADER)`), items matched by id. The fixtures were made
//! by the real tools against jury's test server (`tests/fixtures/*/make.sh`,
//! which run the ignored tests here).

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
    make_an_inspect_log("json", "urgency.json");
}

/// Not a test: makes `urgency.eval`, Inspect's own zipped log format (run
/// by make.sh).
#[test]
#[ignore]
fn make_the_inspect_eval_fixture() {
    make_an_inspect_log("eval", "urgency.eval");
}

/// Runs task.py with Inspect against the test server, its log written in
/// `format` and copied to the fixtures as `name`.
fn make_an_inspect_log(format: &str, name: &str) {
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
            format,
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
        .find(|p| p.extension().is_some_and(|x| x == format))
        .expect("a log");
    std::fs::copy(&log, fixtures().join(name)).expect("copy the log");
    eprintln!("wrote {}", fixtures().join(name).display());
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

/// Not a test: makes `tests/fixtures/promptfoo/results.json` with the
/// `promptfoo` command (PROMPTFOO) against the test server (run by
/// tests/fixtures/promptfoo/make.sh).
#[test]
#[ignore]
fn make_the_promptfoo_fixture() {
    let srv = ServerRt::start(|req| {
        let body = req.body.to_string();
        if body.contains("rubric") || body.contains("Rubric") {
            // The grader sees the answer ("urgent") and the rubric with the
            // classifier's selection: it fails the rubrics that say "not".
            if body.contains("the message is not") {
                Reply::content(
                    r#"{"reason": "The answer calls it urgent; the rubric says not.", "pass": false, "score": 0}"#,
                )
            } else {
                Reply::content(
                    r#"{"reason": "The answer fits the rubric.", "pass": true, "score": 1}"#,
                )
            }
        } else {
            Reply::content("urgent")
        }
    });
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/promptfoo");
    let promptfoo = std::env::var("PROMPTFOO").unwrap_or_else(|_| "promptfoo".into());
    let home = tempfile::tempdir().expect("tempdir");
    let out = std::process::Command::new(&promptfoo)
        .args([
            "eval",
            "-c",
            "promptfooconfig.yaml",
            "-o",
            "results.json",
            "--no-cache",
            "--no-progress-bar",
        ])
        .current_dir(&dir)
        .env("OPENAI_BASE_URL", srv.url())
        .env("OPENAI_API_KEY", "test-key-not-secret")
        .env("PROMPTFOO_CONFIG_DIR", home.path())
        .env("PROMPTFOO_CACHE_ENABLED", "false")
        .env("PROMPTFOO_CACHE_PATH", home.path().join("cache"))
        .env("PROMPTFOO_DISABLE_TELEMETRY", "1")
        .env("PROMPTFOO_DISABLE_UPDATE", "1")
        .output()
        .expect("run promptfoo");
    eprintln!(
        "{}\n{}",
        common::text(&out.stdout),
        common::text(&out.stderr)
    );
    if std::env::var_os("SHOW_REQUESTS").is_some() {
        for r in srv.completions() {
            eprintln!("REQUEST {}", r.body);
        }
    }
    // Eight answers: four under test, four graded (no cache answered).
    assert_eq!(srv.completions().len(), 8, "requests to the test server");
    assert!(dir.join("results.json").is_file(), "no results.json");
}

#[test]
fn promptfoo_results_import_as_their_graders_verdicts() {
    let ws = Workspace::sample();
    let results =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/promptfoo/results.json");
    let out = ws.ok(&["import", results.to_str().expect("path")]);
    let judge = "promptfoo llm-rubric (openai:chat:judge-model)";
    assert!(
        out.contains(&format!("4 verdict(s) from judge '{judge}'")),
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
                r["text"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got[0],
        (
            "k-001".into(),
            "AGREE".into(),
            "The answer fits the rubric.".into()
        )
    );
    assert!(got[1..].iter().all(|g| g.1 == "DISAGREE"), "{got:?}");
    let report = ws.ok(&["report"]);
    assert!(
        report.contains(&format!("awag mode 3 · {judge} vs")),
        "{report}"
    );

    // A test whose vars do not name the item is refused at its place.
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results).expect("read")).expect("json");
    doc["results"]["results"][2]["vars"]
        .as_object_mut()
        .expect("vars")
        .remove("item_id");
    let bad = ws.write("no-id.json", doc.to_string());
    let fresh = Workspace::sample();
    let out = fresh.run(&["import", bad.to_str().expect("path")]);
    let err = common::text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("no-id.json: $.results.results[2]: field 'vars'") && err.contains("item_id"),
        "{err}"
    );
}

/// The issue's "done when": an Inspect log, a promptfoo results file and a
/// CSV of verdicts imported into one study stand beside jury's own run in
/// the ranking and the estimates.
#[test]
fn three_tools_and_a_jury_run_in_one_study() {
    let ws = Workspace::sample_judged(&["3"], &[]);
    let csv = ws.write(
        "theirs.csv",
        "judge,item_id,classification_id,perspective_id,persona_id,value,scale,confidence\n\
         their-script,k-001,urgency,classification,kenton,AGREE,agreement,0.9\n\
         their-script,k-002,urgency,classification,kenton,DISAGREE,agreement,0.6\n\
         their-script,k-003,urgency,classification,kenton,DISAGREE,agreement,0.7\n",
    );
    let inspect = fixtures().join("urgency.json");
    let promptfoo =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/promptfoo/results.json");
    ws.ok(&[
        "import",
        inspect.to_str().expect("path"),
        promptfoo.to_str().expect("path"),
        csv.to_str().expect("path"),
    ]);
    let judges = [
        "awag mode 3 · gpt-4o-mini",
        "awag mode 3 · openai/judge-model (model_graded_fact)",
        "awag mode 3 · promptfoo llm-rubric (openai:chat:judge-model)",
        "awag mode 3 · their-script",
    ];
    let rank: serde_json::Value =
        serde_json::from_str(&ws.ok(&["report", "--rank", "--format", "json"])).expect("json");
    let ranked: Vec<String> = rank
        .as_array()
        .expect("ranking")
        .iter()
        .flat_map(|r| r["configurations"].as_array().cloned().unwrap_or_default())
        .map(|c| c["judge"].as_str().unwrap_or_default().to_string())
        .collect();
    let estimate = ws.ok(&["estimate", "--format", "json"]);
    for j in judges {
        assert!(ranked.iter().any(|r| r == j), "{j} not ranked: {ranked:?}");
        assert!(estimate.contains(j), "{j} not estimated");
    }
    // The one with confidences is calibrated by jury trust.
    let trust = ws.ok(&["trust", "--format", "json"]);
    assert!(trust.contains("awag mode 3 · their-script"), "{trust}");
}
