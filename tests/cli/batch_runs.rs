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

mod files;
mod interrupt;
mod lifecycle;
mod retry_direct;

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

/// `jury batch export --out OUT` of the mode-1 run over [`ITEMS`] in
/// batches of two (as [`batch_run`] sends it), against `srv`.
pub(crate) fn batch_export(ws: &Workspace, srv: &ServerRt, out: &std::path::Path) -> Output {
    ws.cmd()
        .env("OPENAI_BASE_URL", srv.url())
        .args(["batch", "export", "--out", out.to_str().expect("utf-8")])
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
        .expect("spawn jury")
}
