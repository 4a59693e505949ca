//! The rubric protocol end to end: sample examples judged per dimension, the
//! reference's results.json shape field for field, and faulty answers
//! (out-of-range score, malformed JSON) recorded with their raw text and
//! retried until every example and dimension has its score.
#![cfg(feature = "tui")]

use crate::common;
use common::*;
use jury::testserver::{RecordedRequest, Reply, demo_judge};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

fn rubric_workspace() -> Workspace {
    let ws = Workspace::new();
    let dir = sample_data().join("rubric");
    let out = ws.run(&["import", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    ws
}

const RUN: [&str; 4] = ["run", "--protocol", "rubric", "--json"];

#[test]
fn results_json_matches_the_reference_shape_field_for_field() {
    let ws = rubric_workspace();
    let srv = ServerRt::demo();
    let out = ws.run_with(&srv.url(), &RUN);
    assert_success(&out, &RUN);
    let doc: Value =
        serde_json::from_str(&ws.ok(&["export", "--format", "rubric-results"])).unwrap();
    let obj = doc.as_object().unwrap();
    assert_eq!(obj.keys().collect::<Vec<_>>(), ["results", "skipped"]);
    let results = doc["results"].as_array().unwrap();
    assert_eq!(results.len(), 14, "16 examples, 2 invalid");
    for r in results {
        let mut keys: Vec<&String> = r.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(keys, ["id", "relevance", "tone"], "{r}");
        assert!(r["id"].as_str().unwrap().starts_with("ticket-"));
        for d in ["relevance", "tone"] {
            let mut k: Vec<&String> = r[d].as_object().unwrap().keys().collect();
            k.sort();
            assert_eq!(k, ["reasoning", "score"], "{r}");
            assert!((1..=5).contains(&r[d]["score"].as_u64().unwrap()), "{r}");
            assert!(!r[d]["reasoning"].as_str().unwrap().trim().is_empty());
        }
    }
    let skipped = doc["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 2);
    for s in skipped {
        let mut k: Vec<&String> = s.as_object().unwrap().keys().collect();
        k.sort();
        assert_eq!(k, ["index", "reason"], "{s}");
        let reason = s["reason"].as_str().unwrap();
        assert!(
            s["index"].is_u64()
                && (reason.starts_with("Missing '") || reason.starts_with("Empty '")),
            "{s}"
        );
    }
}

/// The first answer for each (example, dimension) is bad — an out-of-range
/// score for relevance, malformed JSON for tone — and every later one good.
fn first_answer_bad(seen: &Mutex<HashMap<String, usize>>, r: &RecordedRequest) -> Reply {
    let key = r.last_user_message().unwrap_or_default();
    let n = {
        let mut m = seen.lock().unwrap();
        let n = m.entry(key.clone()).or_default();
        *n += 1;
        *n
    };
    if n > 1 {
        return demo_judge::reply(r, Duration::ZERO);
    }
    let system = r.body["messages"][0]["content"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let user = key.to_lowercase();
    let arguments =
        if user.contains("relevance") || system.contains("relevance") && !user.contains("tone") {
            r#"{"score": 7, "reasoning": "off the scale"}"#
        } else {
            r#"{"score": 4, "reasoning": "cut o"#
        };
    Reply::ToolCall {
        name: "record_score".into(),
        arguments: arguments.into(),
        chunk: 0,
        finish: None,
        usage: None,
    }
}

#[test]
fn bad_scores_and_malformed_answers_are_recorded_raw_and_retried() {
    let ws = rubric_workspace();
    let seen = Mutex::new(HashMap::new());
    let srv = ServerRt::start(move |r| first_answer_bad(&seen, r));
    let out = ws.run_with(&srv.url(), &RUN);
    assert_success(&out, &RUN);
    let summary: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(summary["verdicts"], 28, "{summary}");
    assert_eq!(summary["failed"], 0, "{summary}");
    // Every first answer was bad: 28 failures, each with the raw answer.
    let failures: Vec<Value> = jsonl(&ws.ok(&["failures", "--json"]));
    assert_eq!(failures.len(), 28);
    let raw: Vec<&str> = failures
        .iter()
        .map(|f| f["raw_response"].as_str().unwrap())
        .collect();
    assert!(raw.iter().any(|r| r.contains("\"score\": 7")), "{raw:?}");
    assert!(raw.iter().any(|r| r.contains("cut o")), "{raw:?}");
    let doc: Value =
        serde_json::from_str(&ws.ok(&["export", "--format", "rubric-results"])).unwrap();
    for r in doc["results"].as_array().unwrap() {
        for d in ["relevance", "tone"] {
            assert!((1..=5).contains(&r[d]["score"].as_u64().unwrap()), "{r}");
        }
    }
}
