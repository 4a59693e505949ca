//! Batch runs (`jury run --batch`, through the Files and Batches API of the
//! test server) and batch files (`jury batch export` / `import`), driving
//! the binary: verdicts as a streamed run's, an expired batch, kill -9
//! while a batch is in flight, and the export/import round trip.
#![cfg(feature = "tui")]

use crate::common;

use common::RUN_AS_KENTON;
use common::{ServerRt, Workspace, jsonl, text};
use jury::testserver::{BatchApi, BatchScript, Reply, answer_file};
use serde_json::Value;
use std::collections::BTreeSet;
use std::process::Output;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(crate) const ITEMS: &str = "k-001,k-002,k-003";

pub(crate) fn demo(r: &jury::testserver::RecordedRequest) -> Reply {
    jury::testserver::demo_judge::reply(r, Duration::ZERO)
}

/// A test server speaking the Batches API, answering lines as the demo judge.
pub(crate) fn batch_server(script: BatchScript) -> (ServerRt, Arc<BatchApi>) {
    let api = BatchApi::new(script, demo);
    let a = api.clone();
    (ServerRt::start(move |r| a.reply(r)), api)
}

pub(crate) fn batch_run(ws: &Workspace, srv: &ServerRt, extra: &[&str]) -> Output {
    let mut args = vec!["--mode", "1", "--items", ITEMS, "--batch-size", "2"];
    args.extend_from_slice(&["--batch", "--batch-poll", "1", "--json"]);
    args.extend_from_slice(extra);
    ws.judge(&srv.url(), None, &args)
}

pub(crate) fn summary(out: &Output) -> Value {
    serde_json::from_str(text(&out.stdout).trim()).unwrap_or_else(|_| {
        panic!(
            "one JSON summary: {}\n{}",
            text(&out.stdout),
            text(&out.stderr)
        )
    })
}

/// `(item, classification, value, text)` of every verdict.
pub(crate) fn verdicts(ws: &Workspace) -> BTreeSet<(String, String, String, String)> {
    ws.export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
        .map(|r| {
            (
                r["item_id"].as_str().unwrap_or("").to_string(),
                r["classification_id"].as_str().unwrap_or("").to_string(),
                r["value"].to_string(),
                r["text"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// Requests that went to the chat-completions endpoint directly.
pub(crate) fn direct_requests(srv: &ServerRt) -> usize {
    srv.server
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .count()
}

/// `jury run --batch` (as [`batch_run`] runs it, plus `extra`) started and
/// left running; its output piped.
pub(crate) fn spawn_batch_run(
    ws: &Workspace,
    srv: &ServerRt,
    extra: &[&str],
) -> std::process::Child {
    ws.cmd()
        .env("OPENAI_BASE_URL", srv.url())
        .args(RUN_AS_KENTON)
        .args(["--mode", "1", "--items", ITEMS, "--batch-size", "2"])
        .args(["--batch", "--batch-poll", "1", "--json"])
        .args(extra)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn jury")
}

/// Waits (at most two minutes) until `done`, failing if jury ends first.
pub(crate) fn wait_while_running(
    child: &mut std::process::Child,
    what: &str,
    done: impl Fn() -> bool,
) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "timed out: {what}"
        );
        if child.try_wait().expect("wait").is_some() {
            panic!("jury ended before {what}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Batch files uploaded to the server.
pub(crate) fn uploads(srv: &ServerRt) -> usize {
    srv.server
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/files"))
        .count()
}

/// Whether jury has looked at a batch it created (it is waiting on it).
pub(crate) fn looked_at_a_batch(srv: &ServerRt) -> bool {
    srv.server
        .requests()
        .iter()
        .any(|r| r.method == "GET" && r.path.contains("/batches/"))
}

#[test]
fn a_batch_run_gives_the_verdicts_of_a_streamed_run() {
    let (srv, api) = batch_server(BatchScript {
        polls_in_progress: 1,
        ..BatchScript::default()
    });
    let ws = Workspace::sample();
    let out = batch_run(&ws, &srv, &[]);
    common::assert_success(&out, &["run --batch"]);
    let s = summary(&out);
    assert_eq!(s["status"], "done", "{s}");
    assert_eq!(s["verdicts"], 15, "three items × five classifications: {s}");
    assert_eq!(api.created().len(), 1);
    assert_eq!(
        direct_requests(&srv),
        0,
        "a batch run sends nothing directly"
    );
    // Every line of the uploaded file is a non-streamed chat request.
    let uploaded = srv
        .server
        .requests()
        .into_iter()
        .find(|r| r.path.ends_with("/files"))
        .expect("an upload");
    assert!(
        uploaded
            .header("content-type")
            .is_some_and(|c| c.starts_with("multipart/form-data"))
    );

    let streamed = Workspace::sample();
    let srv2 = ServerRt::demo();
    let out = streamed.judge(
        &srv2.url(),
        None,
        &[
            "--mode",
            "1",
            "--items",
            ITEMS,
            "--batch-size",
            "2",
            "--json",
        ],
    );
    common::assert_success(&out, &["run"]);
    assert_eq!(verdicts(&ws), verdicts(&streamed));
    // Its tokens at the batch price: half the model's (gpt-4o-mini, $0.15
    // and $0.60 per million).
    let tokens = |k: &str| s[k].as_f64().expect("tokens");
    let half = (tokens("prompt_tokens") * 0.15 + tokens("completion_tokens") * 0.60) / 2e6;
    let cost = s["cost_usd"].as_f64().expect("a batch cost");
    assert!(
        half > 0.0 && (cost - half).abs() < 1e-12,
        "{cost} vs {half}"
    );

    // `jury runs` says how the batch went.
    let runs = ws.ok(&["runs"]);
    assert!(
        runs.contains("batch batch_")
            && runs.contains("completed, 2/2 answered, 0 failed; answers read"),
        "{runs}"
    );
}

#[test]
fn an_expired_batch_keeps_what_came_and_resume_completes_it() {
    let (srv, api) = batch_server(BatchScript {
        expire_after: Some(1),
        expire_first_only: true,
        ..BatchScript::default()
    });
    let ws = Workspace::sample();
    // One batch only: no follow-up batch asks for what it left.
    let out = batch_run(&ws, &srv, &["--max-attempts", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let s = summary(&out);
    // The first request (two items) was answered before the batch expired.
    assert_eq!(s["verdicts"], 10, "{s}");
    assert_eq!(s["failed"], 5, "{s}");
    let failures = ws.store().failures(None).expect("failures");
    assert!(
        failures.iter().any(|f| f.reason.contains("batch_expired")),
        "{failures:?}"
    );

    let out = batch_run(&ws, &srv, &["--resume"]);
    common::assert_success(&out, &["run --batch --resume"]);
    let s = summary(&out);
    assert_eq!(
        s["verdicts"], 5,
        "only the missing item is asked again: {s}"
    );
    assert_eq!(api.created().len(), 2);
    assert_eq!(verdicts(&ws).len(), 15);
    assert_eq!(direct_requests(&srv), 0);
}

#[test]
fn kill_9_while_the_batch_is_in_flight_then_resume_waits_for_the_same_batch() {
    let (srv, api) = batch_server(BatchScript {
        polls_in_progress: 3,
        ..BatchScript::default()
    });
    let ws = Workspace::sample();
    let mut child = spawn_batch_run(&ws, &srv, &[]);
    wait_while_running(&mut child, "the batch was looked at", || {
        looked_at_a_batch(&srv)
    });
    child.kill().expect("kill -9");
    let _ = child.wait();
    assert_eq!(api.created().len(), 1);

    let out = batch_run(&ws, &srv, &["--resume"]);
    common::assert_success(&out, &["run --batch --resume"]);
    let s = summary(&out);
    assert_eq!(s["verdicts"], 15, "{s}");
    assert_eq!(
        api.created().len(),
        1,
        "the open batch is waited for, not sent again"
    );
    assert_eq!(uploads(&srv), 1, "one upload");
    assert_eq!(direct_requests(&srv), 0);
    assert_eq!(verdicts(&ws).len(), 15);
}

#[test]
fn export_then_import_matches_every_line() {
    let ws = Workspace::sample();
    let srv = ServerRt::demo();
    let out_path = ws.path("requests.jsonl");
    let out = ws
        .cmd()
        .env("OPENAI_BASE_URL", srv.url())
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
        .expect("spawn jury");
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

/// A batch run that stays waiting (its batch never leaves `in_progress`),
/// interrupted (SIGINT, as Ctrl-C sends) once it has looked at its batch;
/// no terminal: stdin is empty.
fn interrupted_batch_run(ws: &Workspace, srv: &ServerRt, extra: &[&str]) -> Output {
    let mut child = spawn_batch_run(ws, srv, extra);
    wait_while_running(&mut child, "the batch was looked at", || {
        looked_at_a_batch(srv)
    });
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill -INT");
    assert!(sent.success());
    child.wait_with_output().expect("jury")
}

/// Requests that asked the server to cancel a batch.
fn cancels(srv: &ServerRt) -> Vec<String> {
    srv.server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/cancel"))
        .map(|r| r.path)
        .collect()
}

fn waiting_server() -> (ServerRt, Arc<BatchApi>) {
    batch_server(BatchScript {
        polls_in_progress: 100_000,
        ..BatchScript::default()
    })
}

#[test]
fn ctrl_c_with_batch_on_interrupt_cancel_cancels_the_batch_on_the_server() {
    let (srv, api) = waiting_server();
    let ws = Workspace::sample();
    let out = interrupted_batch_run(&ws, &srv, &["--batch-on-interrupt", "cancel"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let s = summary(&out);
    assert_eq!(s["status"], "cancelled", "{s}");
    let id = api.created().pop().expect("a batch");
    assert_eq!(cancels(&srv), [format!("/v1/batches/{id}/cancel")]);
    let note = s["note"].as_str().unwrap_or_default();
    assert!(note.contains(&format!("batch {id} cancelled")), "{s}");
    assert!(err.contains("--resume"), "how to go on: {err}");
    assert_eq!(direct_requests(&srv), 0);
    // The run's record says so too.
    let runs: Value = serde_json::from_str(&ws.ok(&["runs", "--json"])).expect("runs");
    assert_eq!(runs[0]["status"], "cancelled");
    assert!(
        runs[0]["note"]
            .as_str()
            .is_some_and(|n| n.contains("cancelled on the server")),
        "{runs}"
    );
}

#[test]
fn ctrl_c_without_a_terminal_leaves_the_batch_running_and_says_how_to_resume() {
    let (srv, api) = waiting_server();
    let ws = Workspace::sample();
    let out = interrupted_batch_run(&ws, &srv, &[]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let s = summary(&out);
    assert_eq!(s["status"], "cancelled", "{s}");
    assert!(cancels(&srv).is_empty(), "the batch is left running");
    let id = api.created().pop().expect("a batch");
    let note = s["note"].as_str().unwrap_or_default();
    assert!(note.contains(&format!("batch {id} left running")), "{s}");
    assert!(err.contains("--batch --resume"), "how to go on: {err}");

    // `--batch-on-interrupt leave` says the same and sends no cancel either.
    let (srv, _api) = waiting_server();
    let ws = Workspace::sample();
    let out = interrupted_batch_run(&ws, &srv, &["--batch-on-interrupt", "leave"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        summary(&out)["note"]
            .as_str()
            .is_some_and(|n| n.contains("left running"))
    );
    assert!(cancels(&srv).is_empty());
}

/// `--batch-retry direct`: the lines a batch did not answer (it expired
/// after the first) are asked again as streamed requests, each exactly
/// once, the same messages as their batch lines, and the run ends complete.
#[test]
fn batch_retry_direct_asks_exactly_the_failed_lines_directly() {
    let (srv, api) = batch_server(BatchScript {
        expire_after: Some(1),
        ..BatchScript::default()
    });
    let ws = Workspace::sample();
    let mut args = vec!["--mode", "1", "--items", ITEMS, "--batch-size", "1"];
    args.extend_from_slice(&["--batch", "--batch-poll", "1", "--json"]);
    args.extend_from_slice(&["--batch-retry", "direct"]);
    let out = ws.judge(&srv.url(), None, &args);
    common::assert_success(&out, &["run --batch --batch-retry direct"]);
    let s = summary(&out);
    assert_eq!(s["verdicts"], 15, "{s}");
    assert_eq!(api.created().len(), 1, "no second batch");
    let input = api.input(&api.created()[0]).expect("the batch's file");
    let lines = jsonl(&input);
    assert_eq!(lines.len(), 3);
    // The batch answered the first line only.
    let failed: BTreeSet<String> = lines[1..]
        .iter()
        .map(|l| l["body"]["messages"].to_string())
        .collect();
    let direct: Vec<Value> = srv
        .server
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .map(|r| r.body)
        .collect();
    assert_eq!(direct.len(), 2, "one streamed request per failed line");
    assert!(direct.iter().all(|b| b["stream"] == true));
    let asked: BTreeSet<String> = direct.iter().map(|b| b["messages"].to_string()).collect();
    assert_eq!(asked, failed, "exactly the failed custom ids");
    assert_eq!(verdicts(&ws).len(), 15);
    let streamed = Workspace::sample();
    let out = streamed.judge(
        &ServerRt::demo().url(),
        None,
        &["--mode", "1", "--items", ITEMS, "--batch-size", "1"],
    );
    common::assert_success(&out, &["run"]);
    assert_eq!(verdicts(&ws), verdicts(&streamed));
}

/// `jury runs --json` carries each batch run's batches: id, status and
/// `request_counts`, and never the key.
#[test]
fn runs_json_carries_each_batch_runs_status() {
    let (srv, api) = batch_server(BatchScript::default());
    let ws = Workspace::sample();
    let mut args = vec!["--mode", "1", "--items", ITEMS, "--batch-size", "2"];
    args.extend_from_slice(&["--batch", "--batch-poll", "1", "--json"]);
    let out = ws.judge(&srv.url(), Some("sk-CANARY-BATCH-KEY"), &args);
    common::assert_success(&out, &["run --batch"]);
    let batch_run = summary(&out)["run_id"].clone();
    let listed = ws.ok(&["runs", "--json"]);
    assert!(!listed.contains("CANARY"), "{listed}");
    let runs: Value = serde_json::from_str(&listed).expect("runs");
    assert_eq!(runs[0]["id"], batch_run);
    let batches = runs[0]["batches"].as_array().expect("the run's batches");
    assert_eq!(batches.len(), 1, "{listed}");
    let b = &batches[0];
    assert_eq!(b["batch_id"], api.created()[0].as_str(), "{b}");
    assert_eq!(b["status"], "completed", "{b}");
    assert_eq!(
        b["request_counts"],
        serde_json::json!({"total": 2, "completed": 2, "failed": 0}),
        "{b}"
    );
    assert_eq!(b["answers_read"], true, "{b}");
    // A streamed run has none.
    let out = ws.judge(
        &ServerRt::demo().url(),
        None,
        &["--mode", "2", "--items", ITEMS],
    );
    common::assert_success(&out, &["run"]);
    let runs: Value = serde_json::from_str(&ws.ok(&["runs", "--json"])).expect("runs");
    let streamed = runs
        .as_array()
        .expect("runs")
        .iter()
        .find(|r| r["id"] != batch_run)
        .expect("the streamed run");
    assert!(streamed.get("batches").is_none(), "{streamed}");
}

/// `--batch-retry direct` under a budget that holds the batch's worst case
/// and a little more: once the batch is over, what it held for its lines
/// is given back, so the requests asked directly go out (one at a time,
/// as the budget allows) instead of waiting forever.
#[test]
fn batch_retry_direct_under_a_tight_budget_is_not_held_back_by_the_batch() {
    let script = BatchScript {
        expire_after: Some(1),
        ..BatchScript::default()
    };
    let mut args = vec!["--mode", "1", "--items", ITEMS, "--batch-size", "1"];
    args.extend_from_slice(&["--batch", "--batch-poll", "1", "--json"]);
    args.extend_from_slice(&["--batch-retry", "direct"]);
    // The batch's worst case, from a first run's request file: every byte
    // a prompt token and every allowed answer token, at the batch price
    // (gpt-4o-mini's halved: $0.075 and $0.30 per million).
    let (srv, api) = batch_server(script.clone());
    let first = Workspace::sample();
    common::assert_success(&first.judge(&srv.url(), None, &args), &["run --batch"]);
    let input = api.input(&api.created()[0]).expect("the batch's file");
    let worst: f64 = input
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let max_tokens = jsonl(l)[0]["body"]["max_tokens"]
                .as_f64()
                .expect("max_tokens");
            (l.len() as f64 * 0.075 + max_tokens * 0.30) / 1e6
        })
        .sum();
    let budget = format!("{:.8}", worst * 1.2);

    let (srv, _api) = batch_server(script);
    let ws = Workspace::sample();
    let mut child = ws
        .cmd()
        .env("OPENAI_BASE_URL", srv.url())
        .args(RUN_AS_KENTON)
        .args(&args)
        .args(["--budget", &budget])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn jury");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let out = child.wait_with_output().expect("jury");
            panic!("still waiting after a minute: {}", text(&out.stderr));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("jury");
    common::assert_success(&out, &["run --batch --batch-retry direct --budget"]);
    assert_eq!(summary(&out)["verdicts"], 15);
    assert_eq!(direct_requests(&srv), 2);
}

/// The command line kept with a batch run (for `jury batch import`) keeps
/// no credential a `--base-url` carried: the store's bytes, WAL included,
/// never hold the URL's password.
#[test]
fn a_key_in_the_base_url_is_not_kept_with_the_batchs_command_line() {
    let (srv, _api) = batch_server(BatchScript::default());
    let ws = Workspace::sample();
    let url = srv
        .url()
        .replacen("http://", "http://user:sk-CANARY-URL-PASS@", 1);
    let out = ws
        .cmd()
        .args(RUN_AS_KENTON)
        .args(["--mode", "1", "--items", ITEMS, "--batch-size", "2"])
        .args(["--batch", "--batch-poll", "1", "--json"])
        .arg(format!("--base-url={url}"))
        .output()
        .expect("jury");
    common::assert_success(&out, &["run --batch --base-url=URL-with-a-key"]);
    let mut kept = Vec::new();
    for suffix in ["", "-wal"] {
        let path = format!("{}{suffix}", ws.db.display());
        kept.extend(std::fs::read(&path).unwrap_or_default());
    }
    let kept = String::from_utf8_lossy(&kept);
    assert!(!kept.contains("CANARY"), "a credential is in the store");
    assert!(
        kept.contains("--base-url=http://"),
        "the command line is kept"
    );
}

/// What an expired batch left unanswered goes out again in a follow-up
/// batch of the same run (no direct request, nothing asked twice), and the
/// run ends with every verdict.
#[test]
fn an_expired_batch_is_followed_up_by_a_batch_of_what_it_left() {
    let (srv, api) = batch_server(BatchScript {
        expire_after: Some(1),
        expire_first_only: true,
        ..BatchScript::default()
    });
    let ws = Workspace::sample();
    let out = batch_run(&ws, &srv, &[]);
    common::assert_success(&out, &["run --batch (an expiring first batch)"]);
    let s = summary(&out);
    assert_eq!(s["verdicts"], 15, "{s}");
    assert_eq!(s["failed"], 0, "{s}");
    assert!(
        text(&out.stderr).contains("in a follow-up batch (attempt 2 of 3)"),
        "{}",
        text(&out.stderr)
    );
    let created = api.created();
    assert_eq!(created.len(), 2, "the batch and one follow-up");
    assert_eq!(direct_requests(&srv), 0);
    assert_eq!(verdicts(&ws).len(), 15);
    // The follow-up asked only for what the first left: one request of two
    // items' entries, under a new custom id.
    let batches =
        serde_json::from_str::<Value>(&ws.ok(&["runs", "--json"])).expect("runs")[0]["batches"]
            .clone();
    assert_eq!(batches.as_array().map(Vec::len), Some(2), "{batches}");
    assert_eq!(batches[1]["request_counts"]["total"], 1, "{batches}");
}

/// kill -9 while the follow-up batch is in flight: `--resume` waits for
/// that follow-up (nothing is uploaded or created again) and completes the run.
#[test]
fn kill_9_during_a_follow_up_batch_then_resume_waits_for_it() {
    let (srv, api) = batch_server(BatchScript {
        expire_after: Some(1),
        expire_first_only: true,
        polls_in_progress: 3,
    });
    let ws = Workspace::sample();
    let mut child = spawn_batch_run(&ws, &srv, &[]);
    // Killed once it has looked at the follow-up batch: it is waiting on it.
    wait_while_running(&mut child, "the follow-up batch was looked at", || {
        api.created().len() == 2
            && srv.server.requests().iter().any(|r| {
                r.method == "GET" && api.created().get(1).is_some_and(|id| r.path.ends_with(id))
            })
    });
    child.kill().expect("kill -9");
    let _ = child.wait();
    assert_eq!(uploads(&srv), 2);

    let out = batch_run(&ws, &srv, &["--resume"]);
    common::assert_success(&out, &["run --batch --resume"]);
    // The answered lines of the first batch are not failures of the resume.
    assert_eq!(summary(&out)["failure_records"], 0, "{}", text(&out.stdout));
    let failures = ws.store().failures(None).expect("failures");
    assert!(failures.is_empty(), "{failures:?}");
    assert_eq!(
        api.created().len(),
        2,
        "the follow-up is waited for, not sent again"
    );
    assert_eq!(uploads(&srv), 2, "nothing uploaded again");
    assert_eq!(direct_requests(&srv), 0);
    assert_eq!(verdicts(&ws).len(), 15);
}
