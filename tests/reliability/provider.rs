//! docs/reliability.md rows 1–15 (the wire): each row is one named test against the
//! in-process fake OpenAI server, through `jury::provider::Client` and, where
//! the row is about verdicts, through `jury::engine::spawn_run` with a real
//! SQLite store in a temporary directory.
#![cfg(feature = "tui")]

use jury::domain::{Mode, RunStatus};
use jury::engine::{EngineConfig, EngineEvent, RunOutcome, RunRequest, spawn_run};
use jury::prompt::PromptSet;
use jury::provider::{Client, Completion, FinishReason, ProviderError, Secret, ToolMode};
use jury::store::Store;
use jury::testserver::{RecordedRequest, Reply, TestServer, demo_judge};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
// Rows 10 and 12 run on tokio's paused clock, read with its Instant.
use tokio::time::Instant;
// The client helpers.
use crate::common::provider::*;

mod errors;
mod stream;
mod timing;

const ARGS: &str = r#"{"resultItems":[{"id":{"itemId":"it-1","perspectiveId":"p1","classificationId":"c1"},"evaluatedSelection":"none","evaluationLikert":4,"evaluationText":"Größtenteils richtig — 😀 漢字 \"quoted\" \\ done"}]}"#;

// ───────────────────────── engine helpers ─────────────────────────

struct Fixture {
    _dir: tempfile::TempDir,
    db: PathBuf,
}

/// A store with persona `pa`, perspective `classification` and `n` items of two
/// classifications each (`c1`, `c2`).
fn fixture(n: usize) -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("jury.db");
    let personas = dir.path().join("personas.json");
    std::fs::write(
        &personas,
        json!([{"id": "pa", "name": "Pat", "definition": {"type": "Persona", "does": "reads mail"}}])
            .to_string(),
    )
    .expect("write");
    let persp = dir.path().join("perspectives.json");
    std::fs::write(
        &persp,
        json!([{"id": "classification", "name": "Classification", "text": "Is it right?"}])
            .to_string(),
    )
    .expect("write");
    let items = dir.path().join("items.jsonl");
    let mut lines = String::new();
    for i in 0..n {
        lines.push_str(&json!({
            "itemId": format!("it-{i}"), "sent": "2026-03-16T07:12:00Z",
            "title": format!("Item {i}"), "summary": format!("Text of item {i} about football and work."),
            "source": {"type": "email", "originator": "a@b.c", "channel": "mail"}, "tags": [],
            "classifications": [
                {"name": "c1", "desc": "Work or personal?", "available": ["work", "personal"], "selected": "work"},
                {"name": "c2", "desc": "Urgent?", "available": ["urgent", "not"], "selected": "not"}
            ]
        }).to_string());
        lines.push('\n');
    }
    std::fs::write(&items, lines).expect("write");
    let mut store = Store::open(&db).expect("store");
    jury::import::import_paths(&mut store, &[personas, persp, items], false, "tester")
        .expect("import");
    Fixture { _dir: dir, db }
}

fn engine_cfg(db: &Path, server: &TestServer, key: Option<&str>) -> EngineConfig {
    let mut p = cfg(server, true);
    p.max_retries = 1;
    p.api_key = key.map(Secret::new);
    EngineConfig {
        db_path: db.to_path_buf(),
        provider: p,
        prompts: Arc::new(PromptSet::embedded()),
    }
}

fn req(mode: Mode, batch: usize) -> RunRequest {
    let mut r = RunRequest::new(mode, "pa", vec!["classification".into()]);
    r.batch_size = batch;
    r.concurrency = 1;
    r
}

async fn run_engine(cfg: EngineConfig, req: RunRequest) -> (RunOutcome, Vec<EngineEvent>) {
    let mut h = spawn_run(cfg, req);
    let mut events = Vec::new();
    let outcome = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(ev) = h.events.recv().await {
            events.push(ev);
        }
        h.join.await
    })
    .await
    .expect("run within 60 s")
    .expect("join")
    .expect("run outcome");
    (outcome, events)
}

/// The demo judge's valid answer for `req`, as a JSON value (tool-call arguments).
fn demo_args(req: &RecordedRequest) -> Value {
    match demo_judge::reply(req, Duration::ZERO) {
        Reply::ToolCall { arguments, .. } => serde_json::from_str(&arguments).expect("demo json"),
        Reply::Content { text, .. } => serde_json::from_str(&text).expect("demo json"),
        other => panic!("unexpected demo reply {other:?}"),
    }
}

fn tool_reply(args: &Value) -> Reply {
    Reply::tool("get_evaluations", args.to_string())
}

fn count(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).expect("open");
    conn.query_row(sql, [], |r| r.get(0)).expect(sql)
}

fn failure_rows(db: &Path) -> Vec<(String, String, String)> {
    let conn = rusqlite::Connection::open(db).expect("open");
    let mut st = conn
        .prepare("SELECT kind, reason, raw_response FROM failures ORDER BY id")
        .expect("prepare");
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("query")
        .collect::<Result<Vec<_>, _>>()
        .expect("rows")
}

/// No (run, combination) twice and no combination judged twice for the config.
fn assert_no_duplicate_verdicts(db: &Path) {
    assert_eq!(
        count(
            db,
            "SELECT count(*) FROM (SELECT item_id, classification_id, perspective_id, persona_id, mode, model, prompt_hash, count(*) n FROM verdicts GROUP BY 1,2,3,4,5,6,7 HAVING n > 1)"
        ),
        0,
        "a combination was judged twice"
    );
}
