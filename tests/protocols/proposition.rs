//! The proposition protocol end to end: a real SQLite store in a tempdir, the
//! engine, and a local judge server on 127.0.0.1.
#![cfg(feature = "tui")]

use jury::domain::{FailureKind, Value};
use jury::engine::{EngineConfig, RunOutcome, RunRequest};
use jury::prompt::PromptSet;
use jury::protocol::JudgeSpec;
use jury::protocol::proposition::Settings;
use jury::provider::ProviderConfig;
use jury::testserver::{RecordedRequest, Reply, TestServer};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

const ITEMS: &str = r#"[
 {"itemId": "e1", "sent": "2026-03-16T07:12:00Z", "title": "Invoice 2231 overdue",
  "summary": "Please pay invoice 2231 by Friday, it is now two weeks overdue.",
  "source": {"type": "email", "originator": "accounts@example.com", "channel": "work-mail"},
  "tags": ["urgent"],
  "classifications": [{"name": "urgency", "desc": "Urgent?", "available": ["urgent", "not"], "selected": "urgent"}]},
 {"itemId": "r1", "title": "Rovers win the derby",
  "summary": "A late goal gave Rovers the win on Saturday.",
  "source": {"type": "rss", "originator": "Sports feed", "channel": "news"},
  "classifications": [{"name": "urgency", "desc": "Urgent?", "available": ["urgent", "not"], "selected": "not"}]},
 {"id": "c1", "events": [
   {"source": "customer", "kind": "message", "content": "My invoice shows the wrong amount."},
   {"source": "ai_agent", "kind": "message", "content": "Sorry about that. Which invoice number is it?"},
   {"source": "customer", "kind": "message", "content": "Invoice 2231."},
   {"source": "tool", "kind": "tool", "content": {"call": "billing.invoice", "result": {"amount": 120}}},
   {"source": "ai_agent", "kind": "message", "content": "I have corrected invoice 2231 to 120."}
 ], "guidelines": []}
]"#;

fn setup(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("jury.db");
    let file = dir.join("items.json");
    std::fs::write(&file, ITEMS).unwrap();
    let mut store = jury::store::Store::open(&db).unwrap();
    jury::import::import_paths(&mut store, &[file], false, "tester").unwrap();
    db
}

fn request(settings: Settings, items: &[&str]) -> RunRequest {
    let mut req = RunRequest::for_spec(JudgeSpec::Proposition {
        settings,
        persona: None,
    });
    req.item_ids = Some(items.iter().map(|s| s.to_string()).collect());
    req.concurrency = 1;
    req
}

fn settings(claim: &str) -> Settings {
    Settings {
        claim: claim.into(),
        claim_id: "c-test".into(),
        scoring: jury::protocol::proposition::Scoring::Check,
        double_check: false,
        precondition: None,
        first_n: None,
        last_n: None,
    }
}

async fn run(
    db: &Path,
    req: RunRequest,
    responder: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
) -> (RunOutcome, Vec<RecordedRequest>) {
    let server = TestServer::start(responder).await.unwrap();
    let mut provider = ProviderConfig::new(server.base_url(), "test-model");
    provider.max_retries = 0;
    provider.backoff_base = Duration::from_millis(1);
    let cfg = EngineConfig {
        db_path: db.to_path_buf(),
        provider,
        prompts: Arc::new(PromptSet::embedded()),
    };
    let mut handle = jury::engine::spawn_run(cfg, req);
    while handle.events.recv().await.is_some() {}
    let outcome = handle.join.await.unwrap().unwrap();
    (outcome, server.requests())
}

fn answer(value: serde_json::Value, why: &str) -> String {
    json!({"justification": why, "value": value, "confidence": 0.8}).to_string()
}

#[tokio::test]
async fn check_with_the_demo_judge_fills_variables_and_records_bool_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup(dir.path());
    let req = request(
        settings("The item from {{source.originator}} asks for an overdue invoice to be paid."),
        &["e1", "r1", "c1"],
    );
    let (out, reqs) = run(&db, req, |r| {
        jury::testserver::demo_judge::reply(r, Duration::ZERO)
    })
    .await;
    assert_eq!(out.progress.verdicts, 3, "{out:?}");
    assert_eq!(reqs.len(), 3);
    let body = reqs
        .iter()
        .find(|r| r.body.to_string().contains("Invoice 2231 overdue"))
        .unwrap();
    assert_eq!(
        body.body["tools"][0]["function"]["name"],
        "record_proposition_check"
    );
    let user = body.last_user_message().unwrap();
    assert!(
        user.contains("The item from accounts@example.com asks"),
        "{user}"
    );
    let store = jury::store::Store::open(&db).unwrap();
    let v = store.verdicts_for_run(out.run_id).unwrap();
    let e1 = v.iter().find(|v| v.key.item_id == "e1").unwrap();
    assert_eq!(e1.value, Value::Bool(true));
    assert_eq!(e1.key.classification_id, "c-test");
    assert_eq!(e1.key.perspective_id, "proposition");
    assert_eq!(e1.persona_id, "-");
    let r1 = v.iter().find(|v| v.key.item_id == "r1").unwrap();
    assert_eq!(r1.value, Value::Bool(false));
}

#[tokio::test]
async fn conversation_windows_limit_the_events_shown() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup(dir.path());
    let mut s = settings("The agent corrected the invoice.");
    s.last_n = Some(2);
    let (out, reqs) = run(&db, request(s, &["c1"]), |_| {
        Reply::tool(
            "record_proposition_check",
            answer(json!(true), "Event 5 says so."),
        )
    })
    .await;
    assert_eq!(out.progress.verdicts, 1);
    let user = reqs[0].last_user_message().unwrap();
    assert!(user.contains("the last 2 are shown"), "{user}");
    assert!(user.contains("5. ai_agent: I have corrected"));
    assert!(!user.contains("Which invoice number"));
}

#[tokio::test]
async fn out_of_range_scores_are_recorded_and_retried() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup(dir.path());
    let mut s = settings("The item is about money.");
    s.scoring = jury::protocol::proposition::Scoring::Score;
    let (out, reqs) = run(&db, request(s, &["e1"]), |r| {
        let v = if r.seq == 0 { 12 } else { 7 };
        Reply::tool("record_proposition_score", answer(json!(v), "An invoice."))
    })
    .await;
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        reqs[0].body["tools"][0]["function"]["parameters"]["properties"]["value"]["maximum"],
        9
    );
    let store = jury::store::Store::open(&db).unwrap();
    let v = store.verdicts_for_run(out.run_id).unwrap();
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].value, Value::Score(7));
    let f = store.failures(Some(out.run_id)).unwrap();
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].kind, FailureKind::Invalid);
    assert!(
        f[0].reason.contains("'12' is not a valid score09"),
        "{}",
        f[0].reason
    );
    assert!(f[0].raw_response.contains("12"));
}

#[tokio::test]
async fn malformed_json_is_kept_raw_and_retried() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup(dir.path());
    let (out, reqs) = run(&db, request(settings("x"), &["e1"]), |r| {
        if r.seq == 0 {
            Reply::tool(
                "record_proposition_check",
                r#"{"justification": "half an ans"#,
            )
        } else {
            Reply::tool("record_proposition_check", answer(json!(false), "No."))
        }
    })
    .await;
    assert_eq!(reqs.len(), 2);
    let store = jury::store::Store::open(&db).unwrap();
    assert_eq!(
        store.verdicts_for_run(out.run_id).unwrap()[0].value,
        Value::Bool(false)
    );
    let f = store.failures(Some(out.run_id)).unwrap();
    assert_eq!(f[0].kind, FailureKind::Malformed);
    assert_eq!(f[0].raw_response, r#"{"justification": "half an ans"#);
    // A missing confidence is invalid too.
    let (out2, _) = run(&db, request(settings("y"), &["e1"]), |_| {
        Reply::tool(
            "record_proposition_check",
            json!({"justification": "x", "value": true}).to_string(),
        )
    })
    .await;
    let f = store.failures(Some(out2.run_id)).unwrap();
    assert_eq!(f.len(), 3);
    assert!(f[0].reason.contains("no confidence"));
    assert_eq!(out2.progress.verdicts, 0);
}

#[tokio::test]
async fn a_failed_precondition_gives_a_verdict_without_any_request() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup(dir.path());
    let mut s = settings("The email asks for payment.");
    s.precondition = Some("source.type == email and tags contains urgent".into());
    s.scoring = jury::protocol::proposition::Scoring::Score;
    let (out, reqs) = run(&db, request(s.clone(), &["e1", "r1", "c1"]), |_| {
        Reply::tool(
            "record_proposition_score",
            answer(json!(8), "Pay by Friday."),
        )
    })
    .await;
    assert_eq!(reqs.len(), 1, "only e1 meets the precondition");
    assert!(
        reqs[0]
            .last_user_message()
            .unwrap()
            .contains("Invoice 2231")
    );
    assert_eq!(out.progress.total, 3);
    assert_eq!(out.progress.verdicts, 3);
    let store = jury::store::Store::open(&db).unwrap();
    let v = store.verdicts_for_run(out.run_id).unwrap();
    let r1 = v.iter().find(|v| v.key.item_id == "r1").unwrap();
    assert_eq!(r1.value, Value::Score(9));
    assert!(r1.text.starts_with("Trivially true"), "{}", r1.text);
    let raw: serde_json::Value = serde_json::from_str(&r1.raw).unwrap();
    assert_eq!(raw["precondition_holds"], false);
    assert_eq!(r1.tokens, 0);

    // Nothing meets it: the run still finishes, with no request at all.
    s.precondition = Some("source.type == sms".into());
    s.scoring = jury::protocol::proposition::Scoring::Check;
    let (out, reqs) = run(&db, request(s, &["e1", "r1"]), |_| Reply::status(500, "{}")).await;
    assert!(reqs.is_empty());
    assert_eq!(out.progress.verdicts, 2);
    let v = store.verdicts_for_run(out.run_id).unwrap();
    assert!(v.iter().all(|v| v.value == Value::Bool(true)));
}

#[tokio::test]
async fn double_check_records_the_first_and_the_revised_answer() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup(dir.path());
    let mut s = settings("The item is urgent.");
    s.double_check = true;
    let (out, reqs) = run(&db, request(s, &["e1", "r1"]), |r| {
        let msgs = r.body["messages"].as_array().unwrap();
        let second_look = msgs.iter().any(|m| m["role"] == "assistant");
        let is_e1 = r.body.to_string().contains("Invoice 2231");
        // e1: true, revised to false. r1: false both times.
        let v = is_e1 && !second_look;
        Reply::tool(
            "record_proposition_check",
            answer(
                json!(v),
                if second_look {
                    "Second look."
                } else {
                    "First look."
                },
            ),
        )
    })
    .await;
    assert_eq!(reqs.len(), 4);
    assert_eq!(out.progress.requests, 4);
    let follow = reqs
        .iter()
        .find(|r| r.body["messages"].as_array().unwrap().len() == 4)
        .unwrap();
    let msgs = follow.body["messages"].as_array().unwrap();
    assert_eq!(msgs[2]["role"], "assistant");
    assert!(msgs[2]["content"].as_str().unwrap().contains("First look."));
    assert!(
        msgs[3]["content"]
            .as_str()
            .unwrap()
            .starts_with("Are you sure?")
    );
    let store = jury::store::Store::open(&db).unwrap();
    let v = store.verdicts_for_run(out.run_id).unwrap();
    let e1 = v.iter().find(|v| v.key.item_id == "e1").unwrap();
    assert_eq!(e1.value, Value::Bool(false));
    assert!(
        e1.text
            .starts_with("[revised on double-check: true → false] Second look."),
        "{}",
        e1.text
    );
    let raw: serde_json::Value = serde_json::from_str(&e1.raw).unwrap();
    assert_eq!(raw["first"]["value"], true);
    assert_eq!(raw["revised"]["value"], false);
    assert_eq!(raw["flipped"], true);
    let r1 = v.iter().find(|v| v.key.item_id == "r1").unwrap();
    let raw: serde_json::Value = serde_json::from_str(&r1.raw).unwrap();
    assert_eq!(raw["flipped"], false);
    assert!(r1.text.starts_with("[double-checked: kept false]"));
}

#[tokio::test]
async fn an_invalid_double_check_answer_retries_the_whole_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup(dir.path());
    let mut s = settings("The item is urgent.");
    s.double_check = true;
    let (out, reqs) = run(&db, request(s, &["e1"]), |r| {
        if r.seq == 1 {
            Reply::tool("record_proposition_check", "not json")
        } else {
            Reply::tool("record_proposition_check", answer(json!(true), "Yes."))
        }
    })
    .await;
    assert_eq!(reqs.len(), 4);
    let store = jury::store::Store::open(&db).unwrap();
    let f = store.failures(Some(out.run_id)).unwrap();
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].raw_response, "not json");
    assert!(f[0].reason.contains("the double-check answer"));
    assert!(f[0].request.contains("Are you sure?"));
    assert_eq!(store.verdicts_for_run(out.run_id).unwrap().len(), 1);
}

#[test]
fn labels_on_the_proposition_scale_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup(dir.path());
    let jury = env!("CARGO_BIN_EXE_jury");
    let label = |claim: &str, value: &str| {
        std::process::Command::new(jury)
            .args([
                "--db",
                db.to_str().unwrap(),
                "label",
                "e1",
                claim,
                value,
                "--perspective",
                "proposition",
            ])
            .env("JURY_USER", "alice")
            .output()
            .unwrap()
    };
    assert!(label("c-check", "true").status.success());
    assert!(label("c-score", "7").status.success());
    let bad = label("c-score", "12");
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("0 to 9"));
    let store = jury::store::Store::open(&db).unwrap();
    let mut ls = store.labels_for_item("e1").unwrap();
    ls.sort_by(|a, b| a.key.classification_id.cmp(&b.key.classification_id));
    assert_eq!(ls.len(), 2);
    assert_eq!(ls[0].value, Value::Bool(true));
    assert_eq!(ls[1].value, Value::Score(7));
    assert_eq!(ls[1].persona_id, "-");
    assert_eq!(ls[1].key.perspective_id, "proposition");
}
