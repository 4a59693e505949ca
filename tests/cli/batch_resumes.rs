//! Every way back to a batch finds it: a plain `jury run --resume` waits
//! for the open batch of its combinations, a resume after `jury batch
//! export` leaves the exported combinations to the import, two `--batch
//! --resume` at once read the batch once, and an answer file imported twice
//! adds nothing.
#![cfg(feature = "tui")]

use super::batch_runs::{
    ITEMS, batch_export, batch_run, batch_server, demo, direct_requests, spawn_batch_run, summary,
    verdicts, wait_while_running,
};
use crate::common;
use common::{RUN_AS_KENTON, ServerRt, Workspace, text};
use jury::testserver::{BatchScript, answer_file};
use serde_json::Value;

fn run_record(ws: &Workspace, id: &Value) -> Value {
    let runs: Value = serde_json::from_str(&ws.ok(&["runs", "--json"])).expect("runs");
    runs.as_array()
        .expect("runs")
        .iter()
        .find(|r| r["id"] == *id)
        .cloned()
        .expect("the run")
}

/// A batch run killed while it waits, so its batch stays open on the server.
fn killed_while_waiting(ws: &Workspace, srv: &ServerRt) {
    let mut child = spawn_batch_run(ws, srv, &[]);
    wait_while_running(&mut child, "the batch was looked at", || {
        super::batch_runs::looked_at_a_batch(srv)
    });
    child.kill().expect("kill -9");
    let _ = child.wait();
}

/// `jury run --resume` without `--batch`, while the batch of the same
/// combinations is open: it waits for that batch and reads it, and asks
/// nothing directly at full price.
#[test]
fn a_plain_resume_waits_for_the_open_batch() {
    let (srv, api) = batch_server(BatchScript {
        polls_in_progress: 3,
        ..BatchScript::default()
    });
    let ws = Workspace::sample();
    killed_while_waiting(&ws, &srv);
    let out = ws.judge(
        &srv.url(),
        None,
        &[
            "--mode",
            "1",
            "--items",
            ITEMS,
            "--batch-size",
            "2",
            "--batch-poll",
            "1",
            "--resume",
        ],
    );
    common::assert_success(&out, &["run --resume (batch open)"]);
    assert_eq!(direct_requests(&srv), 0, "nothing judged directly");
    assert!(
        text(&out.stderr).contains("in a batch still open on the server"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(api.created().len(), 1);
    assert_eq!(verdicts(&ws).len(), 15);
}

/// After `jury batch export` (the run queued, its file with another
/// engine), a plain `jury run --resume` leaves the exported combinations to
/// the import, says so, and judges none of them directly.
#[test]
fn a_resume_after_an_export_leaves_its_combinations_to_the_import() {
    let ws = Workspace::sample();
    let srv = ServerRt::demo();
    let out_path = ws.path("requests.jsonl");
    let out = batch_export(&ws, &srv, &out_path);
    common::assert_success(&out, &["batch export"]);
    let out = ws.judge(
        &srv.url(),
        None,
        &[
            "--mode",
            "1",
            "--items",
            ITEMS,
            "--batch-size",
            "2",
            "--resume",
            "--json",
        ],
    );
    assert!(out.status.code().is_some(), "{}", text(&out.stderr));
    assert!(
        srv.completions().is_empty(),
        "the exported combinations are not judged directly"
    );
    assert!(
        text(&out.stderr).contains("in the open batch of run"),
        "{}",
        text(&out.stderr)
    );
    // The import still reads them all.
    let requests = std::fs::read_to_string(&out_path).expect("the request file");
    let results = ws.write("results.jsonl", answer_file(&requests, demo));
    let out = ws.run(&[
        "batch",
        "import",
        results.to_str().expect("utf-8"),
        "--json",
    ]);
    common::assert_success(&out, &["batch import"]);
    assert_eq!(verdicts(&ws).len(), 15);
}

/// The same answer file imported twice: the second import adds no
/// verdict, request, token or cost.
#[test]
fn an_answer_file_imported_twice_adds_nothing() {
    let ws = Workspace::sample();
    let out_path = ws.path("requests.jsonl");
    let out = ws
        .cmd()
        .args([
            "batch",
            "export",
            "--out",
            out_path.to_str().expect("utf-8"),
        ])
        .args(&RUN_AS_KENTON[1..])
        .args([
            "--mode",
            "1",
            "--items",
            ITEMS,
            "--batch-size",
            "2",
            "--json",
        ])
        .output()
        .expect("jury");
    common::assert_success(&out, &["batch export"]);
    let run_id = summary(&out)["run_id"].clone();
    let requests = std::fs::read_to_string(&out_path).expect("the request file");
    let results = ws.write("results.jsonl", answer_file(&requests, demo));
    let import = || {
        ws.run(&[
            "batch",
            "import",
            results.to_str().expect("utf-8"),
            "--json",
        ])
    };
    common::assert_success(&import(), &["batch import"]);
    let first = run_record(&ws, &run_id);
    let kept = verdicts(&ws);
    assert_eq!(kept.len(), 15);
    let again = import();
    common::assert_success(&again, &["batch import (again)"]);
    let second = run_record(&ws, &run_id);
    for k in [
        "verdicts",
        "requests",
        "prompt_tokens",
        "completion_tokens",
        "cost_usd",
        "failures",
    ] {
        assert_eq!(first[k], second[k], "{k}: {first} vs {second}");
    }
    assert_eq!(verdicts(&ws), kept);
    assert!(
        text(&again.stderr).contains("not read again"),
        "{}",
        text(&again.stderr)
    );
}

/// Two `jury run --batch --resume` at once on one open batch: one waits
/// for the other; the batch is read (and its cost counted) once, and
/// neither reports the stored verdicts as missing.
#[test]
fn two_resumes_on_one_open_batch_read_it_once() {
    let (srv, api) = batch_server(BatchScript {
        polls_in_progress: 4,
        ..BatchScript::default()
    });
    let ws = Workspace::sample();
    killed_while_waiting(&ws, &srv);
    let a = spawn_batch_run(&ws, &srv, &["--resume"]);
    let b = spawn_batch_run(&ws, &srv, &["--resume"]);
    let outs = [a, b].map(|c| c.wait_with_output().expect("jury"));
    for out in &outs {
        common::assert_success(out, &["run --batch --resume (two at once)"]);
        let s = summary(out);
        assert_eq!(s["failed"], 0, "{s}");
    }
    assert_eq!(api.created().len(), 1);
    let output_reads = srv
        .server
        .requests()
        .iter()
        .filter(|r| r.path.contains("/files/") && r.path.ends_with("/content"))
        .count();
    assert_eq!(output_reads, 1, "the answers are downloaded once");
    assert_eq!(verdicts(&ws).len(), 15);
    // The cost is the batch's once: what one clean batch run costs.
    let clean = Workspace::sample();
    let (clean_srv, _) = batch_server(BatchScript::default());
    let clean_out = batch_run(&clean, &clean_srv, &[]);
    common::assert_success(&clean_out, &["run --batch"]);
    let run_id = summary(&outs[0])["run_id"].clone();
    let rec = run_record(&ws, &run_id);
    assert_eq!(rec["cost_usd"], summary(&clean_out)["cost_usd"], "{rec}");
    assert_eq!(rec["verdicts"], 15, "{rec}");
}
