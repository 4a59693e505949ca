//! `jury run --cascade small,big` against the test server's demo judge
//! (token probabilities give each verdict a confidence): the first judge
//! judges everything, its threshold is calibrated on the store's labels,
//! and the second is asked only about what the first does not keep — every
//! request counted at the server; the cascade's run records per stage what
//! it was asked, cost and kept; a kill -9 during the second stage and
//! `--resume` pay nothing again for the first.
#![cfg(feature = "tui")]

use super::batch_runs::wait_while_running;
use crate::common;
use common::{ServerRt, Workspace, asked_keys, generated_workspace, jsonl};
use jury::domain::ComboKey;
use jury::testserver::{RecordedRequest, Reply};
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

const ITEMS: usize = 40;

fn run_args(extra: &[&'static str]) -> Vec<&'static str> {
    let mut args = vec![
        "run",
        "--mode",
        "3",
        "--persona",
        "tester",
        "--perspective",
        "classification",
        "--confidence",
        "logprobs",
        "--alpha",
        "0.2",
        "--min-calibration",
        "10",
        // The demo judge's confidence follows the request's text: the
        // scratch run that learns its answers asks in the same batches.
        "--batch-size",
        "5",
        "--cascade",
        "small,big",
    ];
    args.extend(extra);
    args
}

fn model_of(r: &RecordedRequest) -> &str {
    r.body.get("model").and_then(Value::as_str).unwrap_or("")
}

/// The judged combinations a model was asked about, request by request
/// (the structured-path probe names no combination).
fn asked_of(srv: &ServerRt, model: &str) -> Vec<ComboKey> {
    srv.completions()
        .iter()
        .filter(|r| {
            model_of(r) == model && r.last_user_message().is_some_and(|m| m.contains("itemId"))
        })
        .flat_map(asked_keys)
        .collect()
}

/// A workspace whose labels agree with the demo judge on its more
/// confident half and disagree on the rest (every fourth combination left
/// unlabelled, for the escalation queue): the judge's answers are
/// learnt from a scratch store with the same items (the demo judge is
/// deterministic), so the cascade's own store starts with labels only.
fn labelled_workspace(srv: &ServerRt) -> Workspace {
    labelled_with_scratch(srv).0
}

/// As [`labelled_workspace`], with the scratch store (its verdicts those of
/// the model `scratch`).
fn labelled_with_scratch(srv: &ServerRt) -> (Workspace, Workspace) {
    let scratch = generated_workspace(ITEMS, 1);
    let out = scratch.run_with(
        &srv.url(),
        &[
            "run",
            "--mode",
            "3",
            "--persona",
            "tester",
            "--perspective",
            "classification",
            "--confidence",
            "logprobs",
            "--model",
            "scratch",
            "--batch-size",
            "5",
        ],
    );
    common::assert_success(&out, &["scratch run"]);
    let mut judged: Vec<(f64, String, String)> = scratch
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
        .map(|r| {
            (
                r["confidence"].as_f64().expect("a confidence"),
                r["item_id"].as_str().expect("item").to_string(),
                r["value"].as_str().expect("AGREE or DISAGREE").to_string(),
            )
        })
        .collect();
    assert_eq!(judged.len(), ITEMS);
    judged.sort_by(|a, b| b.0.total_cmp(&a.0));
    let lines: Vec<String> = judged
        .iter()
        .enumerate()
        .filter(|(rank, _)| rank % 4 != 3)
        .map(|(rank, (_, item, value))| {
            let agree = rank < ITEMS / 2;
            let label = match (agree, value.as_str()) {
                (true, v) => v.to_string(),
                (false, "AGREE") => "DISAGREE".to_string(),
                (false, _) => "AGREE".to_string(),
            };
            json!({"itemId": item, "classificationId": "urgency", "perspectiveId": "classification",
                   "personaId": "tester", "value": label, "who": "alice"})
            .to_string()
        })
        .collect();
    let ws = generated_workspace(ITEMS, 1);
    let p = ws.write("labels.jsonl", lines.join("\n") + "\n");
    ws.ok(&["import", p.to_str().expect("path")]);
    (ws, scratch)
}

fn key(item: &str) -> ComboKey {
    ComboKey::new(item, "urgency", "classification")
}

/// What the first judge keeps by the cascade's record: its verdicts at or
/// above its threshold.
fn kept_by_small(ws: &Workspace, record: &Value) -> HashSet<ComboKey> {
    let threshold = record["stages"][0]["thresholds"][0]["threshold"]
        .as_f64()
        .expect("the first judge keeps some: a threshold");
    at_or_above(ws, "small", threshold)
}

/// A judge's combinations with a confidence at or above `threshold`.
fn at_or_above(ws: &Workspace, model: &str, threshold: f64) -> HashSet<ComboKey> {
    ws.export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict" && r["model"] == model)
        .filter(|r| r["confidence"].as_f64().expect("confidence") >= threshold)
        .map(|r| key(r["item_id"].as_str().expect("item")))
        .collect()
}

fn cascade_record(stdout: &str) -> Value {
    let last = jsonl(stdout)
        .into_iter()
        .rev()
        .find(|v| v.get("cascade").is_some())
        .expect("the cascade's record");
    last["cascade"].clone()
}

#[test]
fn the_second_judge_is_asked_only_what_the_first_does_not_keep() {
    let srv = ServerRt::demo();
    let ws = labelled_workspace(&srv);
    let before = srv.completions().len();
    let out = ws.run_with(&srv.url(), &run_args(&["--json"]));
    common::assert_success(&out, &["run --cascade"]);
    let record = cascade_record(&common::text(&out.stdout));
    let kept = kept_by_small(&ws, &record);
    assert!(
        !kept.is_empty() && kept.len() < ITEMS,
        "the first judge keeps some, not all: {record}"
    );
    assert_eq!(record["stages"][0]["kept"], kept.len() as u64, "{record}");
    // The first judge was asked about everything, once.
    let small = asked_of(&srv, "small");
    assert_eq!(small.len(), ITEMS);
    // The second only about the rest, each once: never about a kept one.
    let big = asked_of(&srv, "big");
    let big_set: HashSet<&ComboKey> = big.iter().collect();
    assert_eq!(big.len(), big_set.len(), "asked twice: {big:?}");
    assert!(
        big.iter().all(|k| !kept.contains(k)),
        "big was asked about a kept combination"
    );
    assert_eq!(big.len(), ITEMS - kept.len());
    // Per stage: what it was asked, cost and kept.
    let stages = record["stages"].as_array().expect("stages");
    assert_eq!(stages[0]["judged"], ITEMS as u64);
    assert_eq!(stages[1]["judged"], (ITEMS - kept.len()) as u64);
    assert_eq!(stages[1]["kept_before"], kept.len() as u64);
    for s in stages {
        // The demo judge reports no usage with token probabilities: each
        // request is booked as usage unknown, as the ledger books it.
        let requests = s["requests"].as_u64().expect("requests");
        assert!(requests > 0, "{s}");
        assert_eq!(s["usage_unknown"], requests, "{s}");
        assert_eq!(s["runs"].as_array().expect("runs").len(), 1, "{s}");
    }
    let people = record["people"].as_u64().expect("people");
    let kept_big = stages[1]["kept"].as_u64().expect("kept");
    assert_eq!(people + kept_big + kept.len() as u64, ITEMS as u64);
    let requests_made = srv.completions().len() - before;

    // Run again: every verdict is reused, nothing is asked.
    let again = ws.run_with(&srv.url(), &run_args(&["--json"]));
    common::assert_success(&again, &["run --cascade again"]);
    assert_eq!(
        srv.completions().len() - before,
        requests_made,
        "asked again"
    );

    // `jury trust --cascade` and `jury report` read the record back.
    let trust = ws.ok(&[
        "trust",
        "--alpha",
        "0.2",
        "--min-calibration",
        "10",
        "--cascade",
        "small,big",
    ]);
    assert!(trust.contains("cascade run"), "{trust}");
    assert!(trust.contains("judged     40"), "{trust}");
    let report = ws.ok(&["report"]);
    assert!(
        report.contains("jury run --cascade:") && report.contains("judged     40"),
        "{report}"
    );

    // The escalation queue holds only what neither judge keeps, of the
    // combinations no person labelled: in `jury trust --needs-person` and
    // in the queue the workbench's filter and the queue's export read.
    let kept_big = match stages[1]["thresholds"][0]["threshold"].as_f64() {
        Some(t) => &at_or_above(&ws, "big", t) - &kept,
        None => HashSet::new(),
    };
    let labelled: HashSet<ComboKey> = ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "label")
        .map(|r| key(r["item_id"].as_str().expect("item")))
        .collect();
    let expected: HashSet<ComboKey> = (0..ITEMS)
        .map(|i| key(&format!("g-{i:06}")))
        .filter(|k| !labelled.contains(k) && !kept.contains(k) && !kept_big.contains(k))
        .collect();
    assert_eq!(labelled.len(), ITEMS - ITEMS / 4);
    assert!(
        !expected.is_empty(),
        "some unlabelled combination is kept by neither"
    );
    let queue: Vec<Value> = serde_json::from_str(&ws.ok(&[
        "trust",
        "--alpha",
        "0.2",
        "--min-calibration",
        "10",
        "--cascade",
        "small,big",
        "--needs-person",
        "--format",
        "json",
    ]))
    .expect("the queue as JSON");
    let queued: HashSet<ComboKey> = queue
        .iter()
        .map(|r| key(r["item"].as_str().expect("item")))
        .collect();
    eprintln!(
        "cascade small,big on {ITEMS}: small keeps {}, big asked {}, keeps {}, queue {} (of {} unlabelled)",
        kept.len(),
        big.len(),
        kept_big.len(),
        expected.len(),
        ITEMS - labelled.len()
    );
    assert_eq!(queued.len(), queue.len());
    assert_eq!(queued, expected);
    // Without --cascade, `jury trust --needs-person` follows the latest cascade too.
    let plain: Vec<Value> =
        serde_json::from_str(&ws.ok(&["trust", "--needs-person", "--format", "json"]))
            .expect("the queue as JSON");
    let plain: HashSet<ComboKey> = plain
        .iter()
        .map(|r| key(r["item"].as_str().expect("item")))
        .collect();
    assert_eq!(plain, expected);
    let (workbench, trusted) =
        jury::report::trust::escalation_queue(&ws.store()).expect("the queue");
    assert!(trusted);
    let workbench: HashSet<ComboKey> = workbench.iter().map(|e| (*e.key).clone()).collect();
    assert_eq!(workbench, expected);
}

#[test]
fn too_few_labels_stop_the_cascade_before_anything_is_sent() {
    let srv = ServerRt::demo();
    let ws = generated_workspace(ITEMS, 1);
    let out = ws.run_with(&srv.url(), &run_args(&[]));
    assert_eq!(out.status.code(), Some(1));
    let err = common::text(&out.stderr);
    assert!(err.contains("urgency · classification: 0"), "{err}");
    assert!(err.contains("needs at least 14"), "{err}");
    assert!(err.contains("nothing was sent"), "{err}");
    // A judge named twice, or one judge alone, is refused as well.
    for stages in ["small,small", "small"] {
        let mut args = run_args(&[]);
        let at = args.iter().position(|a| *a == "small,big").expect("stages");
        args[at] = stages;
        let out = ws.run_with(&srv.url(), &args);
        assert_eq!(out.status.code(), Some(1), "{stages}");
        let err = common::text(&out.stderr);
        assert!(
            err.contains("named twice") || err.contains("two judges or more"),
            "{err}"
        );
    }
    assert_eq!(srv.completions().len(), 0);
}

#[test]
fn a_cascade_killed_in_its_second_stage_resumes_without_paying_twice() {
    let hold = Arc::new(AtomicBool::new(true));
    let held = hold.clone();
    let srv = ServerRt::start(move |r| {
        let reply = jury::testserver::demo_judge::reply(r, std::time::Duration::ZERO);
        if held.load(Ordering::SeqCst) && model_of(r) == "big" {
            // The second judge does not answer: the process is killed while it waits.
            return Reply::Delay(std::time::Duration::from_secs(3600), Box::new(reply));
        }
        reply
    });
    let ws = labelled_workspace(&srv);
    let mut child = ws
        .cmd()
        .env("OPENAI_BASE_URL", srv.url())
        .args(run_args(&["--concurrency", "1"]))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn jury");
    wait_while_running(&mut child, "the second judge was asked", || {
        !asked_of(&srv, "big").is_empty()
    });
    child.kill().expect("kill -9");
    let _ = child.wait();
    let small_before = asked_of(&srv, "small").len();
    assert_eq!(small_before, ITEMS);

    hold.store(false, Ordering::SeqCst);
    let out = ws.run_with(&srv.url(), &run_args(&["--resume", "--json"]));
    common::assert_success(&out, &["run --cascade --resume"]);
    let record = cascade_record(&common::text(&out.stdout));
    // Nothing asked of the first judge again; the second never about a kept one.
    assert_eq!(
        asked_of(&srv, "small").len(),
        ITEMS,
        "the first judge was paid twice"
    );
    let kept = kept_by_small(&ws, &record);
    let big = asked_of(&srv, "big");
    assert!(
        big.iter().all(|k| !kept.contains(k)),
        "big was asked about a kept combination"
    );
    let answered: HashSet<&ComboKey> = big.iter().collect();
    assert_eq!(answered.len(), ITEMS - kept.len());
    // One cascade run, taken up: the first stage's run from before the
    // kill, the second's killed run and the one that finished it.
    let runs: Value = serde_json::from_str(&ws.ok(&["runs", "--json"])).expect("runs");
    let cascades: Vec<&Value> = runs
        .as_array()
        .expect("runs")
        .iter()
        .filter(|r| {
            r["spec"]["model"]
                .as_str()
                .is_some_and(|m| m.starts_with("cascade: "))
        })
        .collect();
    assert_eq!(cascades.len(), 1, "{runs}");
    assert_eq!(cascades[0]["status"], "done", "{runs}");
    let stages = record["stages"].as_array().expect("stages");
    assert_eq!(
        stages[0]["runs"].as_array().expect("runs").len(),
        1,
        "{record}"
    );
    assert_eq!(stages[0]["judged"], ITEMS as u64, "{record}");
    assert_eq!(stages[1]["judged"], (ITEMS - kept.len()) as u64, "{record}");
    assert_eq!(
        stages[1]["runs"].as_array().expect("runs").len(),
        2,
        "{record}"
    );
    let by_stage: BTreeMap<usize, u64> = stages
        .iter()
        .enumerate()
        .map(|(i, s)| (i, s["requests"].as_u64().expect("requests")))
        .collect();
    assert!(by_stage.values().all(|n| *n > 0), "{record}");
}

/// An imported source as the first stage asks nothing; the second stage,
/// named `big@URL`, is asked at its own server about the rest only.
#[test]
fn an_imported_source_keeps_first_and_a_model_at_its_own_server_gets_the_rest() {
    let srv = ServerRt::demo();
    let (ws, scratch) = labelled_with_scratch(&srv);
    // The scratch store's verdicts come in as the source `scratch`.
    let rows: Vec<String> = scratch
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
        .map(|r| r.to_string())
        .collect();
    let f = ws.write("scratch.jsonl", rows.join("\n") + "\n");
    ws.ok(&["import", f.to_str().expect("path")]);
    let other = ServerRt::demo();
    let big = format!("big@{}", other.url());
    let before = srv.completions().len();
    let mut args = run_args(&["--json"]);
    let at = args.iter().position(|a| *a == "small,big").expect("stages");
    let stages = format!("scratch,{big}");
    args[at] = &stages;
    let out = ws.run_with(&srv.url(), &args);
    common::assert_success(&out, &["run --cascade scratch,big@URL"]);
    let record = cascade_record(&common::text(&out.stdout));
    assert_eq!(
        srv.completions().len(),
        before,
        "the run's own server was asked"
    );
    assert_eq!(
        record["stages"][0]["source"]["kind"], "imported",
        "{record}"
    );
    assert_eq!(record["stages"][0]["requests"], 0, "{record}");
    let threshold = record["stages"][0]["thresholds"][0]["threshold"]
        .as_f64()
        .expect("the imported source keeps some");
    let kept = at_or_above(&ws, "scratch", threshold);
    assert!(!kept.is_empty() && kept.len() < ITEMS);
    let asked = asked_of(&other, "big");
    assert_eq!(asked.len(), ITEMS - kept.len());
    assert!(
        asked.iter().all(|k| !kept.contains(k)),
        "big was asked about a kept combination"
    );
}

/// A budget the first stage cannot be held to (its model has no price, so
/// no request can be checked against it) stops the cascade before anything
/// is sent, as it stops a run: exit 1, the cascade's run failed.
#[test]
fn a_budget_the_first_stage_cannot_keep_stops_the_cascade() {
    let srv = ServerRt::demo();
    let ws = labelled_workspace(&srv);
    let before = srv.completions().len();
    let out = ws.run_with(&srv.url(), &run_args(&["--budget", "0.01"]));
    assert_eq!(out.status.code(), Some(1), "{}", common::text(&out.stderr));
    let err = common::text(&out.stderr);
    assert!(
        err.contains("--budget $0.01 needs a price for the model 'small'"),
        "{err}"
    );
    assert_eq!(srv.completions().len(), before, "something was sent");
    let runs: Value = serde_json::from_str(&ws.ok(&["runs", "--json"])).expect("runs");
    let cascade = runs
        .as_array()
        .expect("runs")
        .iter()
        .find(|r| {
            r["spec"]["model"]
                .as_str()
                .is_some_and(|m| m.starts_with("cascade: "))
        })
        .cloned()
        .expect("the cascade's run");
    assert_eq!(cascade["status"], "failed", "{cascade}");
    // Ended by the cascade itself with its record, not found abandoned later.
    assert!(
        cascade["note"]
            .as_str()
            .is_some_and(|n| n.starts_with("cascade of 40")),
        "{cascade}"
    );
}
