//! Batch files: `jury batch export` / `import` round trip, the budget checked
//! before a batch is sent, and a batch file never written over jury's own.

use super::*;

#[test]
fn export_then_import_matches_every_line() {
    let ws = Workspace::sample();
    let srv = ServerRt::demo();
    let out_path = ws.path("requests.jsonl");
    let out = batch_export(&ws, &srv, &out_path);
    common::assert_success(&out, &["batch export"]);
    let s = summary(&out);
    assert_eq!(s["status"], "queued", "{s}");
    assert_eq!(
        s["failed"], 0,
        "nothing is missing before the answers come: {s}"
    );
    assert!(srv.server.requests().is_empty(), "an export sends nothing");
    let requests = std::fs::read_to_string(&out_path).expect("the request file");
    let lines = jsonl(&requests);
    assert_eq!(lines.len(), 2, "three items, two a request");
    for l in &lines {
        assert_eq!(l["method"], "POST");
        assert_eq!(l["url"], "/v1/chat/completions");
        assert!(l["custom_id"].as_str().unwrap().starts_with("jury-"));
        assert_ne!(l["body"]["stream"], true, "{l}");
        assert!(l["body"]["messages"].is_array());
    }

    // The engine's answers, the second line an error.
    let answered = answer_file(&requests, demo);
    let mut out_lines: Vec<Value> = jsonl(&answered);
    out_lines[1]["response"] = serde_json::json!({
        "status_code": 400,
        "body": {"error": {"message": "model overloaded", "type": "invalid_request_error"}}
    });
    let results: String = out_lines.iter().map(|l| format!("{l}\n")).collect();
    let results_path = ws.write("results.jsonl", results);
    let out = ws.run(&[
        "batch",
        "import",
        results_path.to_str().expect("utf-8"),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let s = summary(&out);
    assert_eq!(s["verdicts"], 10, "{s}");
    assert_eq!(s["failed"], 5, "{s}");
    let failures = ws.store().failures(None).expect("failures");
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].reason.contains("model overloaded"),
        "{failures:?}"
    );
    assert_eq!(failures[0].http_status, Some(400));

    // The same verdicts a streamed run gives for the answered items.
    let streamed = Workspace::sample();
    let out = streamed.judge(
        &srv.url(),
        None,
        &["--mode", "1", "--items", "k-001,k-002", "--batch-size", "2"],
    );
    common::assert_success(&out, &["run"]);
    assert_eq!(verdicts(&ws), verdicts(&streamed));
}

#[test]
fn a_batch_over_the_budget_is_never_sent() {
    let (srv, api) = batch_server(BatchScript::default());
    let ws = Workspace::sample();
    let out = batch_run(&ws, &srv, &["--budget", "0.000001"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let s = summary(&out);
    assert!(
        s["note"].as_str().is_some_and(|n| n.contains("budget")),
        "{s}"
    );
    assert!(srv.server.requests().is_empty(), "nothing uploaded");
    assert!(api.created().is_empty());
}

/// `jury batch export --out` onto the store, its `-wal` or the labels kept
/// for replay (by any name) is refused before a run is made, and leaves
/// each file as it was; it used to write the request file over the store.
#[test]
fn a_batch_file_is_never_written_over_jurys_own_files() {
    let ws = Workspace::sample();
    let kept = ws.path("jury.db.unsaved-labels.jsonl");
    std::fs::write(&kept, "{\"kept\":true}\n").expect("write");
    std::os::unix::fs::symlink(&ws.db, ws.path("link.db")).expect("symlink");
    let rows_before = ws.ok(&["export", "--format", "jsonl"]);
    let runs_before = ws.ok(&["runs", "--json"]);
    for out in [
        ws.db.clone(),
        ws.path("link.db"),
        ws.db.with_file_name("jury.db-wal"),
        kept.clone(),
    ] {
        let o = ws.run(&[
            "batch",
            "export",
            "--out",
            out.to_str().expect("utf-8"),
            "--mode",
            "2",
            "--persona",
            "kenton",
            "--perspective",
            "classification",
            "--limit",
            "2",
        ]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{}: {err}", out.display());
        assert!(
            err.contains("refusing") && err.contains("a file jury keeps beside it"),
            "{}: {err}",
            out.display()
        );
    }
    assert_eq!(std::fs::read(&kept).expect("kept"), b"{\"kept\":true}\n");
    assert_eq!(ws.ok(&["export", "--format", "jsonl"]), rows_before);
    assert_eq!(ws.ok(&["runs", "--json"]), runs_before, "no run was made");
}
