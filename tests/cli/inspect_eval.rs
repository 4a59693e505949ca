//! Inspect AI's own log format, `.eval` (a zip archive; issue #34 §1):
//! `urgency.eval` was written by the real Inspect (0.3.285, zstd entries)
//! from the same task and test server as `urgency.json`
//! (`tests/fixtures/inspect/make.sh`); both import as the same verdicts.

use crate::common;

use common::Workspace;
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/inspect")
        .join(name)
}

/// (item, value, judge, text) of every verdict row, sorted.
fn verdicts(ws: &Workspace) -> Vec<(String, String, String, String)> {
    let mut got: Vec<_> = ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or_default().to_string();
            (s("item_id"), s("value"), s("model"), s("text"))
        })
        .collect();
    got.sort();
    got
}

/// A `.eval` archive (entries stored) holding `doc`'s eval and samples.
fn eval_of(doc: &Value, path: &std::path::Path) {
    let mut z = zip::ZipWriter::new(std::fs::File::create(path).expect("create"));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    z.start_file("header.json", opts).expect("entry");
    z.write_all(
        serde_json::json!({"eval": doc["eval"]})
            .to_string()
            .as_bytes(),
    )
    .expect("write");
    for s in doc["samples"].as_array().expect("samples") {
        let name = format!("samples/{}_epoch_1.json", s["id"].as_str().expect("id"));
        z.start_file(name, opts).expect("entry");
        z.write_all(s.to_string().as_bytes()).expect("write");
    }
    z.finish().expect("finish");
}

#[test]
fn an_eval_log_imports_as_its_json_twin_does() {
    let from_json = Workspace::sample();
    from_json.ok(&["import", fixture("urgency.json").to_str().expect("path")]);
    let ws = Workspace::sample();
    let eval = fixture("urgency.eval");
    let out = ws.ok(&["import", eval.to_str().expect("path")]);
    assert!(
        out.contains("4 verdict(s) from judge 'openai/judge-model (model_graded_fact)'"),
        "{out}"
    );
    let got = verdicts(&ws);
    assert_eq!(got.len(), 4);
    let values: Vec<(&str, &str)> = got.iter().map(|v| (v.0.as_str(), v.1.as_str())).collect();
    assert_eq!(
        values,
        [
            ("k-001", "AGREE"),
            ("k-002", "DISAGREE"),
            ("k-003", "AGREE"),
            ("k-004", "AGREE")
        ]
    );
    // Same judge and explanations as the JSON log's (a separate Inspect
    // run: the grader's words are the test server's, so they agree).
    assert_eq!(got, verdicts(&from_json));
    // The same file again adds nothing.
    ws.ok(&["import", eval.to_str().expect("path")]);
    assert_eq!(verdicts(&ws), got);
}

#[test]
fn a_bad_sample_in_an_eval_log_is_named_by_its_entry() {
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("urgency.json")).expect("read"))
            .expect("json");
    doc["samples"][1]["scores"]["model_graded_fact"]["value"] = serde_json::json!("P");
    let ws = Workspace::sample();
    let bad = ws.path("partial.eval");
    eval_of(&doc, &bad);
    let out = ws.run(&["import", bad.to_str().expect("path")]);
    let err = common::text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(
            "partial.eval: samples/k-002_epoch_1.json: $.scores.model_graded_fact: field 'value'"
        ),
        "{err}"
    );
    assert!(verdicts(&ws).is_empty(), "nothing imported");
    // Not a zip at all.
    let junk = ws.write("junk.eval", "PK");
    let err = common::text(&ws.run(&["import", junk.to_str().expect("path")]).stderr);
    assert!(
        err.contains("junk.eval: not an Inspect AI .eval log"),
        "{err}"
    );
}
