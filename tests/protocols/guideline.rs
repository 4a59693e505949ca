//! The guideline protocol end to end: conversations imported into a real
//! SQLite store in a tempdir, the engine, and a local judge on 127.0.0.1.
#![cfg(feature = "tui")]

use jury::domain::{Degree, FailureKind, Value};
use jury::engine::{EngineConfig, RunOutcome, RunRequest};
use jury::prompt::PromptSet;
use jury::protocol::JudgeSpec;
use jury::provider::ProviderConfig;
use jury::testserver::{RecordedRequest, Reply, TestServer};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/sample-data/guideline/conversations.json"
);
const SAMPLE_LABELS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/sample-data/guideline/labels.jsonl"
);

fn setup(dir: &Path) -> PathBuf {
    let db = dir.join("jury.db");
    let mut store = jury::store::Store::open(&db).unwrap();
    let report = jury::import::import_paths(
        &mut store,
        &[PathBuf::from(SAMPLE), PathBuf::from(SAMPLE_LABELS)],
        false,
        "tester",
    )
    .unwrap();
    assert_eq!(report.items, 14);
    assert_eq!(report.labels, 26);
    db
}

fn request(items: &[&str]) -> RunRequest {
    let mut req = RunRequest::for_spec(JudgeSpec::Guideline { persona: None });
    req.item_ids = Some(items.iter().map(|s| s.to_string()).collect());
    req.concurrency = 1;
    req
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

fn check(id: &str, degree: &str, missing: Option<&str>, applied: bool) -> serde_json::Value {
    let mut c = json!({
        "guideline_id": id,
        "action": "the action",
        "guideline_applied_rationale": [
            {"action_segment": "DO the thing", "action_applied_rationale": "The agent DID the thing."}
        ],
        "guideline_applied_degree": degree,
        "guideline_applied": applied,
    });
    if let Some(k) = missing {
        c["is_missing_part_functional_or_behavioral"] = json!(k);
        c["is_missing_part_functional_or_behavioral_rational"] = json!("why");
    }
    c
}

fn tool(checks: Vec<serde_json::Value>) -> Reply {
    Reply::tool(
        "record_guideline_checks",
        json!({ "checks": checks }).to_string(),
    )
}

#[test]
fn conversations_import_as_items_with_events_and_guidelines() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup(dir.path());
    let store = jury::store::Store::open(&db).unwrap();
    let c = store.item("conv-001").unwrap().unwrap();
    assert_eq!(c.kind, "conversation");
    assert!(c.title.starts_with("My parcel arrived today"));
    assert!(c.text.contains("2. [tool, tool] {"), "{}", c.text);
    assert!(c.text.contains("3. ai_agent: I'm sorry"));
    assert_eq!(c.payload["guidelines"][0]["id"], "g-damage");
    assert_eq!(c.payload["events"][1]["kind"], "tool");
    assert_eq!(c.payload["agent"]["name"], "Parcelly");
    // The reference's event spelling is accepted too, and bad records are named.
    let file = dir.path().join("more.json");
    std::fs::write(
        &file,
        r#"[{"id": "x1", "events": [{"event_source": "user", "event_kind": "message", "data": {"message": "Hi"}}],
             "guidelines": [{"condition": "greeting", "action": "greet back"}]}]"#,
    )
    .unwrap();
    let mut store = jury::store::Store::open(&db).unwrap();
    jury::import::import_paths(&mut store, std::slice::from_ref(&file), false, "t").unwrap();
    let x = store.item("x1").unwrap().unwrap();
    assert_eq!(x.payload["events"][0]["source"], "customer");
    assert_eq!(x.payload["guidelines"][0]["id"], "1");
    std::fs::write(
        &file,
        r#"[{"id": "x2", "events": [{"source": "customer", "content": ""}]}]"#,
    )
    .unwrap();
    let err = jury::import::import_paths(&mut store, &[file], false, "t").unwrap_err();
    assert!(err.to_string().contains("events[0]"), "{err}");
}

#[tokio::test]
async fn the_demo_judge_answers_every_guideline_on_the_degree_scale() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup(dir.path());
    let all: Vec<String> = (1..=14).map(|i| format!("conv-{i:03}")).collect();
    let ids: Vec<&str> = all.iter().map(String::as_str).collect();
    let (out, reqs) = run(&db, request(&ids), |r| {
        jury::testserver::demo_judge::reply(r, Duration::ZERO)
    })
    .await;
    assert_eq!(reqs.len(), 14, "one request per conversation");
    assert_eq!(out.progress.total, 26);
    assert_eq!(out.progress.verdicts, 26, "{out:?}");
    let store = jury::store::Store::open(&db).unwrap();
    let v = store.verdicts_for_run(out.run_id).unwrap();
    assert!(v.iter().all(|v| matches!(v.value, Value::Degree(_))));
    assert!(v.iter().all(|v| v.key.perspective_id == "guideline"));
    let damage = v
        .iter()
        .find(|v| v.key.classification_id == "g-damage")
        .unwrap();
    assert_eq!(
        damage.value,
        Value::Degree(Degree::Fully),
        "{}",
        damage.text
    );
    let user = reqs[0].last_user_message().unwrap();
    assert!(user.contains("\"guideline_id\": \"g-damage\""), "{user}");
    assert!(
        user.contains("\"guideline_id\": \"g-refund-time\""),
        "{user}"
    );
    assert_eq!(
        reqs[0].body["tools"][0]["function"]["name"],
        "record_guideline_checks"
    );
}

#[tokio::test]
async fn missing_guidelines_are_recorded_and_only_they_are_asked_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup(dir.path());
    let (out, reqs) = run(&db, request(&["conv-001"]), |r| {
        if r.seq == 0 {
            tool(vec![
                check("g-damage", "fully", None, true),
                check("g-unknown", "no", None, false),
            ])
        } else {
            tool(vec![check("g-refund-time", "no", None, false)])
        }
    })
    .await;
    assert_eq!(reqs.len(), 2);
    let retry = reqs[1].last_user_message().unwrap();
    assert!(
        retry.contains("\"guideline_id\": \"g-refund-time\""),
        "{retry}"
    );
    assert!(!retry.contains("\"g-damage\""));
    let store = jury::store::Store::open(&db).unwrap();
    let v = store.verdicts_for_run(out.run_id).unwrap();
    assert_eq!(v.len(), 2);
    let f = store.failures(Some(out.run_id)).unwrap();
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].kind, FailureKind::Invalid);
    assert_eq!(f[0].keys.len(), 1);
    assert_eq!(f[0].keys[0].classification_id, "g-refund-time");
    assert!(f[0].reason.contains("not in the answer"));
    assert!(f[0].reason.contains("unknown guideline 'g-unknown'"));
    assert!(f[0].raw_response.contains("g-unknown"));
}

#[tokio::test]
async fn malformed_json_and_invalid_entries_are_retried_valid_parts_kept() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup(dir.path());
    let (out, reqs) = run(&db, request(&["conv-003"]), |r| match r.seq {
        0 => Reply::tool(
            "record_guideline_checks",
            r#"{"checks": [{"guideline_id": "g-dup","#,
        ),
        1 => tool(vec![
            check("g-dup", "fully", None, true),
            // a missing part that is neither functional nor behavioral: invalid
            check("g-apology", "partially", Some("sideways"), true),
        ]),
        _ => tool(vec![check("g-apology", "fully", None, true)]),
    })
    .await;
    assert_eq!(reqs.len(), 3);
    let store = jury::store::Store::open(&db).unwrap();
    assert_eq!(store.verdicts_for_run(out.run_id).unwrap().len(), 2);
    let f = store.failures(Some(out.run_id)).unwrap();
    assert_eq!(f.len(), 2);
    let malformed = f.iter().find(|f| f.kind == FailureKind::Malformed).unwrap();
    assert_eq!(malformed.keys.len(), 2);
    assert!(
        malformed
            .raw_response
            .starts_with(r#"{"checks": [{"guideline_id": "g-dup","#)
    );
    let invalid = f.iter().find(|f| f.kind == FailureKind::Invalid).unwrap();
    assert!(
        invalid.reason.contains("functional or behavioral"),
        "{}",
        invalid.reason
    );
}

#[tokio::test]
async fn contradictions_of_the_rule_are_kept_and_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup(dir.path());
    let (out, reqs) = run(&db, request(&["conv-004"]), |_| {
        tool(vec![
            check("g-cancel", "partially", Some("functional"), true),
            check("g-moving", "partially", Some("behavioral"), true),
        ])
    })
    .await;
    assert_eq!(reqs.len(), 1, "a contradiction is not retried");
    let store = jury::store::Store::open(&db).unwrap();
    let v = store.verdicts_for_run(out.run_id).unwrap();
    let cancel = v
        .iter()
        .find(|v| v.key.classification_id == "g-cancel")
        .unwrap();
    assert_eq!(cancel.value, Value::Degree(Degree::Partially));
    assert!(cancel.selection_mismatch);
    assert_eq!(cancel.evaluated_selection.as_deref(), Some("applied=true"));
    assert!(
        cancel
            .text
            .starts_with("[inconsistent: a missing functional part means applied=false"),
        "{}",
        cancel.text
    );
    let raw: serde_json::Value = serde_json::from_str(&cancel.raw).unwrap();
    assert_eq!(raw["consistency"]["expected_applied"], false);
    assert_eq!(raw["consistency"]["stated_applied"], true);
    let moving = v
        .iter()
        .find(|v| v.key.classification_id == "g-moving")
        .unwrap();
    assert!(!moving.selection_mismatch);
    assert!(moving.text.contains("missing part is behavioral: why"));
}

#[test]
fn degree_labels_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = setup(dir.path());
    let jury = env!("CARGO_BIN_EXE_jury");
    let label = |g: &str, value: &str| {
        std::process::Command::new(jury)
            .args([
                "--db",
                db.to_str().unwrap(),
                "label",
                "conv-002",
                g,
                value,
                "--perspective",
                "guideline",
            ])
            .env("JURY_USER", "tester")
            .output()
            .unwrap()
    };
    assert!(label("g-thanks", "partially").status.success());
    assert!(!label("g-thanks", "7").status.success());
    assert!(!label("g-nope", "fully").status.success());
    let store = jury::store::Store::open(&db).unwrap();
    let ls = store.labels_for_item("conv-002").unwrap();
    let l = ls
        .iter()
        .find(|l| l.key.classification_id == "g-thanks" && l.who == "tester")
        .unwrap();
    assert_eq!(l.value, Value::Degree(Degree::Partially));
}
