//! `jury run`, `prompt`, `label`, `export`, `runs`, `failures` as processes,
//! against the in-process fake server answering as the demo judge.
#![cfg(feature = "tui")]

use crate::common;

use common::{ServerRt, Workspace, jsonl, text};
use jury::protocol::awag::request::undelimit;
use jury::testserver::Reply;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// The row contract of `export --format jsonl` (docs/design.md §5).
const CONTRACT: &[&str] = &[
    "kind",
    "run_id",
    "item_id",
    "classification_id",
    "perspective_id",
    "persona_id",
    "protocol",
    "mode",
    "model",
    "value",
    "text",
    "created_at",
];

fn run_ok(ws: &Workspace, srv: &ServerRt, extra: &[&str]) -> String {
    let out = ws.judge(&srv.url(), None, extra);
    common::assert_success(&out, extra);
    text(&out.stdout)
}

fn verdicts(ws: &Workspace) -> Vec<Value> {
    ws.export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
        .collect()
}

fn judged_items(rows: &[Value]) -> BTreeSet<String> {
    rows.iter()
        .map(|r| r["item_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn modes_1_2_3_write_contract_rows() {
    let ws = Workspace::sample();
    let srv = ServerRt::demo();
    for mode in ["1", "2", "3"] {
        let out = run_ok(
            &ws,
            &srv,
            &["--mode", mode, "--items", "k-001,k-002", "--json"],
        );
        let summary: Value = serde_json::from_str(out.trim()).expect("one JSON summary");
        assert_eq!(summary["status"], "done", "{summary}");
        assert_eq!(
            summary["verdicts"], 10,
            "two items × five classifications: {summary}"
        );
        assert_eq!(summary["failed"], 0);
    }
    let rows = verdicts(&ws);
    assert_eq!(rows.len(), 30);
    for r in &rows {
        for f in CONTRACT {
            assert!(
                r.get(*f).is_some_and(|v| !v.is_null()),
                "field {f} missing in {r}"
            );
        }
        assert_eq!(r["persona_id"], "kenton");
        assert_eq!(r["perspective_id"], "classification");
        assert_eq!(r["protocol"], "awag");
        assert!(!r["text"].as_str().unwrap().is_empty());
        match r["mode"].as_u64() {
            Some(1 | 2) => {
                let v = r["value"]
                    .as_u64()
                    .unwrap_or_else(|| panic!("Likert must be an integer: {r}"));
                assert!((1..=5).contains(&v), "{r}");
                assert_eq!(r["scale"], "likert", "{r}");
            }
            Some(3) => {
                assert!(
                    matches!(r["value"].as_str(), Some("AGREE" | "DISAGREE")),
                    "{r}"
                );
                assert_eq!(r["scale"], "agreement", "{r}");
            }
            other => panic!("mode {other:?}"),
        }
    }
    assert_eq!(
        judged_items(&rows),
        BTreeSet::from(["k-001".to_string(), "k-002".to_string()])
    );
    // One request per run: mode 1 packs both items, modes 2/3 ten entries.
    assert_eq!(srv.completions().len(), 3);
}

#[test]
fn dry_run_sends_nothing_and_needs_no_endpoint() {
    let ws = Workspace::sample();
    let out = ws.run(&[
        "run",
        "--mode",
        "2",
        "--persona",
        "kenton",
        "--perspective",
        "classification",
        "--dry-run",
        "--json",
    ]);
    common::assert_success(&out, &["run --dry-run"]);
    let plan: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(plan["dry_run"], true);
    assert_eq!(plan["combinations"], 66 * 5);
    assert_eq!(plan["requests"], 33, "330 entries in batches of 10");

    let srv = ServerRt::demo();
    let out = ws.run_with(
        &srv.url(),
        &[
            "run",
            "--mode",
            "1",
            "--persona",
            "kenton",
            "--perspective",
            "classification,privacy",
            "--dry-run",
        ],
    );
    common::assert_success(&out, &["run --dry-run (endpoint set)"]);
    assert!(
        text(&out.stdout).contains("dry run:"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(srv.server.request_count(), 0);
    assert!(verdicts(&ws).is_empty());
    assert!(
        ws.store().runs().unwrap().is_empty(),
        "a dry run created a run"
    );
}

#[test]
fn resume_after_a_complete_run_sends_and_duplicates_nothing() {
    let ws = Workspace::sample();
    let srv = ServerRt::demo();
    run_ok(&ws, &srv, &["--mode", "2", "--limit", "6"]);
    let sent = srv.server.request_count();
    let before = verdicts(&ws).len();
    assert_eq!(before, 30);
    let out = run_ok(
        &ws,
        &srv,
        &["--mode", "2", "--limit", "6", "--resume", "--json"],
    );
    let summary: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(summary["total"], 0, "{summary}");
    assert_eq!(srv.server.request_count(), sent, "resume sent requests");
    assert_eq!(verdicts(&ws).len(), before);
    // Resume of a bigger selection asks only for what is new.
    run_ok(&ws, &srv, &["--mode", "2", "--limit", "8", "--resume"]);
    let rows = verdicts(&ws);
    assert_eq!(rows.len(), 40);
    let keys: BTreeSet<(String, String)> = rows
        .iter()
        .map(|r| (r["item_id"].to_string(), r["classification_id"].to_string()))
        .collect();
    assert_eq!(keys.len(), 40, "a combination was judged twice");
    let last = srv.completions().pop().unwrap();
    let msg = last.last_user_message().unwrap();
    let req: Value = serde_json::from_str(undelimit(&msg).unwrap()).unwrap();
    assert_eq!(
        req["items"].as_array().unwrap().len(),
        10,
        "only the two new items' entries"
    );
}

#[test]
fn item_selection_flags() {
    let srv = ServerRt::demo();
    let ws = Workspace::sample();
    run_ok(&ws, &srv, &["--mode", "2", "--items", "k-003,t-001"]);
    assert_eq!(
        judged_items(&verdicts(&ws)),
        BTreeSet::from(["k-003".into(), "t-001".into()])
    );

    let ws = Workspace::sample();
    run_ok(&ws, &srv, &["--mode", "2", "--limit", "3"]);
    assert_eq!(
        judged_items(&verdicts(&ws)),
        BTreeSet::from(["k-001".into(), "k-002".into(), "k-003".into()])
    );

    let subset = |seed: &str| {
        let ws = Workspace::sample();
        run_ok(
            &ws,
            &srv,
            &["--mode", "3", "--subset-percent", "50", "--seed", seed],
        );
        judged_items(&verdicts(&ws))
    };
    let (a, b, c) = (subset("3"), subset("3"), subset("4"));
    assert_eq!(a, b, "the same seed chose different items");
    assert_ne!(a, c, "another seed chose the same items");
    assert!((16..=50).contains(&a.len()), "50 % of 66 gave {}", a.len());

    let ws = Workspace::sample();
    let out = ws.judge(&srv.url(), None, &["--mode", "2", "--items", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no item 'nope'"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn prompt_prints_the_exact_body_without_a_key() {
    let ws = Workspace::sample();
    let out = ws.run(&[
        "prompt",
        "--mode",
        "2",
        "--persona",
        "kenton",
        "--perspective",
        "classification",
        "--item",
        "k-001",
        "--json",
    ]);
    common::assert_success(&out, &["prompt"]);
    let body: Value = serde_json::from_str(&text(&out.stdout)).expect("a JSON body");
    assert_eq!(body["tools"][0]["function"]["name"], "get_evaluations");
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(
        body["tool_choice"],
        json!({"type": "function", "function": {"name": "get_evaluations"}})
    );
    let msgs = body["messages"].as_array().unwrap();
    assert_eq!(msgs[0]["role"], "system");
    let system = msgs[0]["content"].as_str().unwrap();
    let last = msgs.last().unwrap()["content"].as_str().unwrap();
    // The whole request, every untrusted field in it, lies between the markers.
    let token = last
        .strip_prefix("<<<ITEM-CONTENT ")
        .and_then(|r| r.split_once(">>>"))
        .map(|(t, _)| t)
        .unwrap_or_else(|| panic!("request not delimited: {last}"));
    assert!(token.len() >= 16, "boundary too short: {token}");
    assert!(
        last.ends_with(&format!("<<<END-ITEM-CONTENT {token}>>>")),
        "{last}"
    );
    assert!(
        system.contains(&format!("<<<ITEM-CONTENT {token}>>>")),
        "the system message announces another boundary"
    );
    let req: Value = serde_json::from_str(undelimit(last).unwrap())
        .expect("the request JSON is the last message");
    let items = req["items"].as_array().unwrap();
    assert_eq!(items.len(), 5, "one entry per classification");
    let content = items[0]["content"].as_str().unwrap();
    assert!(content.contains("Stock-out on BM-440 kettles"), "{content}");
    // The messages before the request hold no item data: the same for every
    // request of a run (a cacheable prefix).
    for m in &msgs[..msgs.len() - 1] {
        let c = m["content"].as_str().unwrap();
        assert!(!c.contains("BM-440") && !c.contains("k-001"), "{c}");
    }
    assert_eq!(items[0]["id"]["itemId"], "k-001");
    assert_eq!(items[0]["id"]["perspectiveId"], "classification");
    assert!(!text(&out.stdout).contains("Authorization"));
}

#[test]
fn labels_set_and_export_and_bad_values_are_refused() {
    let ws = Workspace::sample();
    let out = ws.ok(&["label", "k-001", "urgency", "2", "--note", "from a script"]);
    assert!(out.contains("labelled k-001/urgency as 2"), "{out}");
    let rows = ws.export_rows();
    let mine: Vec<&Value> = rows
        .iter()
        .filter(|r| r["kind"] == "label" && r["who"] == "tester")
        .collect();
    assert_eq!(mine.len(), 1, "{mine:?}");
    let l = mine[0];
    assert_eq!(l["item_id"], "k-001");
    assert_eq!(l["classification_id"], "urgency");
    assert_eq!(l["perspective_id"], "classification");
    assert_eq!(l["persona_id"], "kenton", "the inbox persona");
    assert_eq!(l["value"], 2);
    assert_eq!(l["text"], "from a script");
    for f in CONTRACT {
        assert!(l.get(*f).is_some(), "field {f} missing in {l}");
    }
    // Labelling again replaces, never duplicates.
    ws.ok(&["label", "k-001", "urgency", "1"]);
    let rows = ws.export_rows();
    let mine: Vec<&Value> = rows
        .iter()
        .filter(|r| r["kind"] == "label" && r["who"] == "tester")
        .collect();
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0]["value"], 1);

    let out = ws.run(&["label", "k-001", "urgency", "7"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains('7') && err.contains("1–5"),
        "unclear message: {err}"
    );
    let out = ws.run(&["label", "k-001", "no-such-class", "2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no classification 'no-such-class'"),
        "{}",
        text(&out.stderr)
    );
}

/// Answers the first request with arguments that are not JSON, the rest correctly.
fn flaky_first() -> ServerRt {
    ServerRt::start(|r| {
        if r.seq == 0 {
            Reply::tool("get_evaluations", "{\"resultItems\": [ this is not json")
        } else {
            jury::testserver::demo_judge::reply(r, std::time::Duration::ZERO)
        }
    })
}

#[test]
fn runs_and_failures_print_and_awag_export_has_s88_s89_shapes() {
    let ws = Workspace::sample();
    let srv = flaky_first();
    run_ok(&ws, &srv, &["--mode", "2", "--items", "k-001,k-002"]);
    assert_eq!(
        srv.completions().len(),
        2,
        "the malformed answer was retried once"
    );

    let runs = ws.ok(&["runs"]);
    assert!(
        runs.lines()
            .any(|l| l.trim_start().starts_with("1 ") && l.contains("done") && l.contains("10/10")),
        "{runs}"
    );
    let failures = ws.ok(&["failures", "1"]);
    assert!(
        failures.contains("malformed") && failures.contains("this is not json"),
        "{failures}"
    );
    let fj = jsonl(&ws.ok(&["failures", "1", "--json"]));
    assert_eq!(fj.len(), 1);
    let rows = ws.export_rows();
    let frows: Vec<&Value> = rows.iter().filter(|r| r["kind"] == "failure").collect();
    assert_eq!(
        frows.len(),
        10,
        "one row per combination the failure is about"
    );
    for (i, r) in frows.iter().enumerate() {
        for f in CONTRACT.iter().chain(&["raw_response", "status", "reason"]) {
            assert!(r.get(*f).is_some(), "{f} missing in {r}");
        }
        // The raw answer once per request: on its first row; the others
        // point to it by `failure_id`.
        assert_eq!(r["failure_id"], frows[0]["failure_id"]);
        if i == 0 {
            assert!(
                r["raw_response"]
                    .as_str()
                    .unwrap()
                    .contains("this is not json")
            );
        } else {
            assert!(r["raw_response"].is_null(), "{r}");
        }
    }

    let doc: Value = serde_json::from_str(&ws.ok(&["export", "--format", "awag"])).unwrap();
    let data = doc["evaluationData"].as_array().unwrap();
    assert_eq!(data.len(), 1);
    let rec = &data[0];
    for f in [
        "agent",
        "evaluationPersona",
        "evaluationPerspectives",
        "items",
        "context",
    ] {
        assert!(rec.get(f).is_some(), "S8.8 requires {f}");
    }
    assert_eq!(rec["evaluationPersona"]["id"], "kenton");
    for f in [
        "contextId",
        "evaluationItems",
        "openaiApiCompletionsQueryInfo",
    ] {
        assert!(rec["context"].get(f).is_some(), "S8.8 context requires {f}");
    }
    let items = rec["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    for it in items {
        for f in [
            "itemId",
            "tags",
            "classifications",
            "evaluateSourceType",
            "evaluateSourceOriginator",
            "evaluateSourceChannel",
            "evaluateTimeText",
            "evaluateTimeMs",
            "evaluateText",
            "evaluationResponses",
        ] {
            assert!(it.get(f).is_some(), "S8.8 item requires {f}: {it}");
        }
        assert!(it["evaluateTimeMs"].as_i64().unwrap() > 1_700_000_000_000);
        for c in it["classifications"].as_array().unwrap() {
            for f in [
                "classificationName",
                "classificationValue",
                "classificationOptions",
            ] {
                assert!(c.get(f).is_some(), "{f}: {c}");
            }
        }
        let responses = it["evaluationResponses"].as_array().unwrap();
        assert_eq!(responses.len(), 5);
        for r in responses {
            let p = &r["perspectives"][0];
            assert_eq!(p["perspectiveId"], "classification");
            assert!(p["evaluationText"].is_string());
            let v = p["evaluationLikertVal"].as_u64().unwrap();
            assert!((1..=5).contains(&v));
            assert!(p["evaluationLikertText"].is_string());
        }
    }
    let fails = doc["evaluationFailures"].as_array().unwrap();
    assert_eq!(fails.len(), 1);
    let f = &fails[0];
    for k in [
        "agent",
        "queryState",
        "maxTokens",
        "model",
        "promptQueryJson",
        "contextIdentifier",
        "evaluationPersona",
        "evaluationPerspectives",
        "responseText",
        "rawReponseText",
        "items",
        "itemCount",
        "statusCode",
    ] {
        assert!(f.get(k).is_some(), "S8.9 requires {k}: {f}");
    }
    assert_eq!(f["items"], json!(["k-001", "k-002"]));
    assert_eq!(f["itemCount"], 2);
    assert_eq!(f["statusCode"], 200);
    assert!(
        f["rawReponseText"]
            .as_str()
            .unwrap()
            .contains("this is not json")
    );
    assert_eq!(
        f["promptQueryJson"]["tools"][0]["function"]["name"],
        "get_evaluations"
    );
}

const CANARY: &str = "sk-CANARY-7f3a9c2e5b1d4068";

#[test]
fn the_api_key_never_leaks_even_when_the_server_echoes_it() {
    let ws = Workspace::sample();
    let srv = ServerRt::start(|r| {
        let auth = r.header("authorization").unwrap_or("").to_string();
        Reply::status(
            401,
            json!({"error": {"message": format!("Incorrect API key provided: {auth} ({})", auth.trim_start_matches("Bearer ")),
                              "type": "invalid_request_error", "code": "invalid_api_key"}})
            .to_string(),
        )
    });
    let out = ws.judge(
        &srv.url(),
        Some(CANARY),
        &["--mode", "2", "--limit", "3", "--concurrency", "1"],
    );
    assert!(!out.status.success(), "a 401 run succeeded");
    // The server did see the key (the test is real), and only once: 401 is not retried.
    let reqs = srv.completions();
    assert_eq!(reqs.len(), 1, "401 must stop the run");
    assert_eq!(
        reqs[0].header("authorization"),
        Some(format!("Bearer {CANARY}").as_str())
    );
    let mut seen = vec![
        ("run stdout", text(&out.stdout)),
        ("run stderr", text(&out.stderr)),
    ];
    assert!(
        seen[0].1.contains("401") || seen[1].1.contains("401"),
        "{seen:?}"
    );
    for args in [
        vec!["export", "--format", "jsonl"],
        vec!["export", "--format", "csv"],
        vec!["export", "--format", "awag"],
        vec!["failures"],
        vec!["failures", "--json"],
        vec!["runs"],
        vec!["runs", "--json"],
    ] {
        let o = ws
            .cmd()
            .env("OPENAI_API_KEY", CANARY)
            .args(&args)
            .output()
            .unwrap();
        common::assert_success(&o, &args);
        seen.push((
            "cmd",
            format!("{args:?}: {}{}", text(&o.stdout), text(&o.stderr)),
        ));
    }
    let failures = ws.ok(&["failures", "--json"]);
    assert!(
        failures.contains("<redacted>"),
        "the echoed key was not redacted but dropped? {failures}"
    );
    for (what, s) in &seen {
        assert!(!s.contains("CANARY"), "{what} leaked the key: {s}");
    }
    for entry in std::fs::read_dir(ws.dir.path()).unwrap() {
        let p = entry.unwrap().path();
        if p.is_file() {
            let bytes = std::fs::read(&p).unwrap();
            assert!(
                !bytes.windows(6).any(|w| w == b"CANARY"),
                "{} holds the key",
                p.display()
            );
        }
    }
}
