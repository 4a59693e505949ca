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

const ARGS: &str = r#"{"resultItems":[{"id":{"itemId":"it-1","perspectiveId":"p1","classificationId":"c1"},"evaluatedSelection":"none","evaluationLikert":4,"evaluationText":"Größtenteils richtig — 😀 漢字 \"quoted\" \\ done"}]}"#;
const CANARY: &str = "sk-CANARY-RELIABILITY";

// ───────────────────────── client helpers ─────────────────────────

use crate::common::provider::*;

/// A whole HTTP/1.1 response with a chunked body: one HTTP chunk per piece.
fn chunked_sse(pieces: &[&[u8]]) -> Vec<u8> {
    let mut out = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n".to_vec();
    for p in pieces {
        out.extend_from_slice(format!("{:x}\r\n", p.len()).as_bytes());
        out.extend_from_slice(p);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

fn tool_chunk(index: usize, id: Option<&str>, name: Option<&str>, args: &str) -> String {
    let mut tc = json!({"index": index, "function": {"arguments": args}});
    if let Some(id) = id {
        tc["id"] = json!(id);
        tc["type"] = json!("function");
    }
    if let Some(n) = name {
        tc["function"]["name"] = json!(n);
    }
    format!(
        "data: {}\n\n",
        json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"tool_calls": [tc]}, "finish_reason": null}]})
    )
}

fn finish_chunk(reason: &str) -> String {
    format!(
        "data: {}\n\n",
        json!({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
    )
}

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

/// Number of entries asked about in a Mode 2/3 request.
fn entries_asked(req: &RecordedRequest) -> usize {
    let last = req.last_user_message().unwrap_or_default();
    // The request travels between the boundary markers.
    let json = jury::protocol::awag::request::undelimit(&last).unwrap_or(&last);
    let v: Value = serde_json::from_str(json).unwrap_or(Value::Null);
    v["items"].as_array().map_or(0, Vec::len)
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

// ───────────────────────── rows 1–15 ─────────────────────────

/// Row 1: arguments split inside a UTF-8 character or inside a JSON string are
/// reassembled exactly — over HTTP chunks split inside a character, through
/// the client, and at every byte offset of the raw stream.
#[tokio::test]
async fn reliability_01_split_inside_utf8_and_json_string() {
    // Character-sized fragments (every fragment boundary inside a JSON string).
    let server = TestServer::start(|_| Reply::ToolCall {
        name: "get_evaluations".into(),
        arguments: ARGS.into(),
        chunk: 1,
        finish: None,
        usage: Some((1, 2)),
    })
    .await
    .expect("server");
    let (r, frames) = run(&client(&server, true)).await;
    assert_eq!(r.expect("completion").answer_text(), ARGS);
    assert_eq!(streamed_args(&frames, 0), ARGS);

    // HTTP chunks cut in the middle of multi-byte characters and of `\"`.
    let mut stream = tool_chunk(0, Some("call_1"), Some("get_evaluations"), "");
    stream.push_str(&tool_chunk(0, None, None, ARGS));
    stream.push_str(&finish_chunk("tool_calls"));
    stream.push_str("data: [DONE]\n\n");
    let bytes = stream.into_bytes();
    let cuts: Vec<usize> = {
        let emoji = stream_pos(&bytes, "😀".as_bytes()) + 2; // inside the 4-byte emoji
        let kanji = stream_pos(&bytes, "漢".as_bytes()) + 1; // inside a 3-byte character
        let umlaut = stream_pos(&bytes, "ö".as_bytes()) + 1; // inside a 2-byte character
        let escape = stream_pos(&bytes, b"\\\\\\\"quoted") + 1; // inside an escape
        let mut c = vec![umlaut, emoji, kanji, escape];
        c.sort_unstable();
        c
    };
    let mut pieces: Vec<&[u8]> = Vec::new();
    let mut last = 0;
    for c in &cuts {
        pieces.push(&bytes[last..*c]);
        last = *c;
    }
    pieces.push(&bytes[last..]);
    let raw = chunked_sse(&pieces);
    let server = TestServer::start(move |_| Reply::Raw(raw.clone()))
        .await
        .expect("server");
    let (r, _) = run(&client(&server, true)).await;
    let c = r.expect("completion");
    assert_eq!(c.answer_text(), ARGS);
    assert_eq!(c.tool_calls.len(), 1);

    // Every byte offset, straight into the parser and accumulator.
    for cut in 0..=bytes.len() {
        let mut p = jury::provider::sse::SseParser::new();
        let mut acc = jury::provider::accumulate::Accumulator::new();
        let mut done = false;
        for part in [&bytes[..cut], &bytes[cut..]] {
            for ev in p.feed(part) {
                if ev.is_done() {
                    done = true;
                } else {
                    acc.push_data(&ev.data).expect("chunk");
                }
            }
        }
        let c = acc.finish(done).expect("complete");
        assert_eq!(c.answer_text(), ARGS, "cut at byte {cut}");
    }
}

fn stream_pos(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len())
        .position(|w| w == needle)
        .expect("needle in stream")
}

/// Row 2: two interleaved tool calls stay two; whole calls at index 0 with
/// different ids (Ollama) are not merged.
#[tokio::test]
async fn reliability_02_interleaved_and_whole_calls_at_index_0() {
    let calls = vec![
        (
            "get_evaluations".to_string(),
            r#"{"a":"één","n":1}"#.to_string(),
        ),
        (
            "get_evaluations".to_string(),
            r#"{"b":"twee 😀","n":2}"#.to_string(),
        ),
    ];
    for (interleave, ollama_style) in [(true, false), (false, true)] {
        let calls2 = calls.clone();
        let server = TestServer::start(move |_| Reply::ToolCalls {
            calls: calls2.clone(),
            chunk: 3,
            interleave,
            ollama_style,
        })
        .await
        .expect("server");
        for stream in [true, false] {
            let (r, frames) = run(&client(&server, stream)).await;
            let c = r.expect("completion");
            assert_eq!(
                c.tool_calls.len(),
                2,
                "interleave={interleave} ollama={ollama_style}"
            );
            assert_eq!(c.tool_calls[0].arguments, calls[0].1);
            assert_eq!(c.tool_calls[1].arguments, calls[1].1);
            assert_ne!(c.tool_calls[0].id, c.tool_calls[1].id);
            assert_eq!(streamed_args(&frames, 0), calls[0].1);
            assert_eq!(streamed_args(&frames, 1), calls[1].1);
        }
    }
}

/// Row 3: a tool call without an id, and one with empty arguments, are tolerated.
#[tokio::test]
async fn reliability_03_missing_id_and_empty_arguments_tolerated() {
    let mut no_id = tool_chunk(0, None, Some("get_evaluations"), "");
    no_id.push_str(&tool_chunk(0, None, None, r#"{"ok":true}"#));
    no_id.push_str(&finish_chunk("tool_calls"));
    no_id.push_str("data: [DONE]\n\n");
    let mut empty = tool_chunk(0, Some("call_9"), Some("get_evaluations"), "");
    empty.push_str(&finish_chunk("tool_calls"));
    empty.push_str("data: [DONE]\n\n");
    let (a, b) = (
        chunked_sse(&[no_id.as_bytes()]),
        chunked_sse(&[empty.as_bytes()]),
    );
    let server =
        TestServer::start(move |r| Reply::Raw(if r.seq == 0 { a.clone() } else { b.clone() }))
            .await
            .expect("server");
    let client = client(&server, true);
    let c = run(&client).await.0.expect("missing id tolerated");
    assert_eq!(c.tool_calls.len(), 1);
    assert_eq!(c.tool_calls[0].id, None);
    assert_eq!(c.tool_calls[0].name, "get_evaluations");
    assert_eq!(c.answer_text(), r#"{"ok":true}"#);
    let c = run(&client).await.0.expect("empty arguments tolerated");
    assert_eq!(c.tool_calls.len(), 1);
    assert_eq!(c.tool_calls[0].arguments, "");
    assert_eq!(c.answer_text(), "", "nothing invented");
    assert_eq!(server.request_count(), 2);
}

/// Row 4: arguments that are not JSON, or that violate the schema (Likert 7,
/// MAYBE), become a failure with the raw text; valid siblings are kept; only
/// the missing part is asked again.
#[tokio::test]
async fn reliability_04_invalid_arguments_keep_siblings_retry_missing() {
    // Mode 2: the second entry has Likert 7.
    for (mode, bad_field, bad_value) in [
        (Mode::Two, "evaluationLikert", json!(7)),
        (Mode::Three, "evaluationAgreement", json!("MAYBE")),
    ] {
        let fx = fixture(2);
        let bad = bad_value.clone();
        let server = TestServer::start(move |r| {
            let mut args = demo_args(r);
            if r.seq == 0 {
                args["resultItems"][1][bad_field] = bad.clone();
            }
            tool_reply(&args)
        })
        .await
        .expect("server");
        let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), req(mode, 4)).await;
        assert_eq!(out.status, RunStatus::Done, "{mode:?}");
        assert_eq!(out.progress.verdicts, 4, "{mode:?}");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 2, "{mode:?}");
        assert_eq!(entries_asked(&reqs[0]), 4);
        assert_eq!(
            entries_asked(&reqs[1]),
            1,
            "only the missing entry is asked again"
        );
        let f = failure_rows(&fx.db);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, "invalid");
        assert!(
            f[0].2.contains(&bad_value.to_string()),
            "raw text kept: {}",
            f[0].2
        );
        assert_eq!(count(&fx.db, "SELECT count(*) FROM verdicts"), 4);
        assert_no_duplicate_verdicts(&fx.db);
    }

    // Not JSON at all: a malformed failure with the raw text, then a retry.
    let fx = fixture(1);
    let server = TestServer::start(|r| {
        if r.seq == 0 {
            Reply::tool("get_evaluations", "I rate these 4/5, they look fine {")
        } else {
            tool_reply(&demo_args(r))
        }
    })
    .await
    .expect("server");
    let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), req(Mode::Two, 2)).await;
    assert_eq!(out.progress.verdicts, 2);
    let f = failure_rows(&fx.db);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].0, "malformed");
    assert_eq!(f[0].2, "I rate these 4/5, they look fine {");
}

/// Row 5: `length`, `content_filter` and a refusal are their own outcomes and
/// never scored — even when the arguments happen to be valid.
#[tokio::test]
async fn reliability_05_content_filter_refusal_never_scored() {
    // A `length` cut keeps the entries complete before it (rows 28 and 42):
    // `length_keeps_only_complete_entries` below.
    for (finish, kind) in [
        (Some("content_filter"), "content_filter"),
        (None, "refusal"),
    ] {
        let fx = fixture(1);
        let server = TestServer::start(move |r| match finish {
            Some(f) => Reply::ToolCall {
                name: "get_evaluations".into(),
                arguments: demo_args(r).to_string(),
                chunk: 16,
                finish: Some(f.into()),
                usage: Some((5, 5)),
            },
            None => Reply::Refusal {
                text: "I can't help with that.".into(),
            },
        })
        .await
        .expect("server");
        let mut rq = req(Mode::Two, 1);
        rq.max_attempts = 2;
        let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), rq).await;
        assert_eq!(out.progress.verdicts, 0, "{kind}: never scored");
        assert_eq!(count(&fx.db, "SELECT count(*) FROM verdicts"), 0, "{kind}");
        let f = failure_rows(&fx.db);
        assert!(!f.is_empty(), "{kind}");
        assert!(f.iter().all(|r| r.0 == kind), "{kind}: {f:?}");
        assert_eq!(out.progress.failed, 2, "{kind}");
    }
}

/// Row 6: a stream closed before `[DONE]` is an incomplete attempt: retried,
/// and its partial text never stored as a verdict.
#[tokio::test]
async fn reliability_06_close_before_done_retried_never_stored() {
    // Client: a cut with text comes back at once, that text with it.
    let server = TestServer::start(|_| Reply::Truncated {
        arguments: ARGS.into(),
        cut_at: 40,
    })
    .await
    .expect("server");
    let (r, _) = run(&client(&server, true)).await;
    match r {
        Err(ProviderError::Truncated { partial, .. }) => {
            assert_eq!(partial, ARGS.chars().take(40).collect::<String>())
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.request_count(), 1);

    // Engine, always cut inside the first entry: failures of kind truncated
    // with the partial text, and no verdict (nothing complete arrived).
    let fx = fixture(1);
    let server = TestServer::start(|r| {
        let args = demo_args(r).to_string();
        Reply::Truncated {
            arguments: args,
            cut_at: 60,
        }
    })
    .await
    .expect("server");
    let mut rq = req(Mode::Two, 2);
    rq.max_attempts = 2;
    let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), rq).await;
    assert_eq!(out.progress.verdicts, 0);
    assert_eq!(count(&fx.db, "SELECT count(*) FROM verdicts"), 0);
    let f = failure_rows(&fx.db);
    assert_eq!(f.len(), 2, "one per engine attempt: {f:?}");
    assert!(
        f.iter()
            .all(|r| r.0 == "truncated" && r.2.starts_with("{\"resultItems\""))
    );
    assert_eq!(
        server.request_count(),
        2,
        "a cut answer is not resent whole by the client"
    );

    // Engine, cut once: the retry's answer is stored, once.
    let fx = fixture(1);
    let server = TestServer::start(|r| {
        let args = demo_args(r).to_string();
        if r.seq == 0 {
            Reply::Truncated {
                arguments: args,
                cut_at: 30,
            }
        } else {
            Reply::tool("get_evaluations", args)
        }
    })
    .await
    .expect("server");
    let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), req(Mode::Two, 2)).await;
    assert_eq!((out.status, out.progress.verdicts), (RunStatus::Done, 2));
    assert_eq!(count(&fx.db, "SELECT count(*) FROM verdicts"), 2);
    assert_no_duplicate_verdicts(&fx.db);
}

/// Rows 28/42: `finish_reason: length` keeps exactly the entries complete
/// before the cut; none is built from half an entry.
#[tokio::test]
async fn length_keeps_only_complete_entries() {
    let fx = fixture(2);
    let server = TestServer::start(|r| {
        let args = demo_args(r).to_string();
        let cut = args.len() / 2;
        let cut = (cut..args.len())
            .find(|i| args.is_char_boundary(*i))
            .unwrap_or(cut);
        Reply::ToolCall {
            name: "get_evaluations".into(),
            arguments: args[..cut].to_string(),
            chunk: 16,
            finish: Some("length".into()),
            usage: Some((5, 5)),
        }
    })
    .await
    .expect("server");
    let mut rq = req(Mode::Two, 6);
    rq.max_attempts = 1;
    let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), rq).await;
    let first = &server.requests()[0];
    let full = demo_args(first);
    let text = full.to_string();
    let cut = text.len() / 2;
    // Entries whose whole text lies before the cut.
    let complete: Vec<&Value> = full["resultItems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            text.find(&e.to_string())
                .is_some_and(|at| at + e.to_string().len() <= cut)
        })
        .collect();
    assert!(!complete.is_empty());
    assert_eq!(out.progress.verdicts as usize, complete.len());
    let f = failure_rows(&fx.db);
    assert!(f.iter().all(|r| r.0 == "length"), "{f:?}");
}

/// Row 7: HTTP 200 then an error event is a provider error, retried.
#[tokio::test]
async fn reliability_07_error_event_after_200() {
    let server = TestServer::start(|r| match r.seq {
        0 => Reply::ErrorEvent {
            message: "The model is overloaded".into(),
        },
        _ => Reply::tool("get_evaluations", ARGS),
    })
    .await
    .expect("server");
    let (r, frames) = run(&client(&server, true)).await;
    assert_eq!(r.expect("completion").attempts, 2);
    assert!(retrying(&frames)[0].2.contains("overloaded"));

    let server = TestServer::start(|_| Reply::ErrorEvent {
        message: "The model is overloaded".into(),
    })
    .await
    .expect("server");
    let (r, _) = run(&client(&server, true)).await;
    match r {
        Err(ProviderError::RetriesExhausted { attempts: 4, last }) => {
            assert!(last.contains("overloaded"), "{last}")
        }
        other => panic!("{other:?}"),
    }
}

/// Row 8: `:` comments, CRLF, a lone CR and multi-line `data:` parse per the SSE spec.
#[tokio::test]
async fn reliability_08_comments_crlf_multiline_data() {
    let first = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_evaluations", "arguments": ""}}]}}]}).to_string();
    // The same JSON spread over two data: lines (joined with \n, which JSON allows).
    let (head, tail) = first.split_at(first.find("\"delta\"").expect("delta"));
    let second = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ARGS}}]}}]}).to_string();
    let stream = format!(
        ": keep-alive\r\n\r\n:another comment\r\ndata: {head}\r\ndata: {tail}\r\n\r\nevent: message\rdata:{second}\r\r: x\n{}data: [DONE]\r\n\r\n",
        finish_chunk("tool_calls").replace("\n\n", "\r\n\r\n")
    );
    let raw = chunked_sse(&[stream.as_bytes()]);
    let server = TestServer::start(move |_| Reply::Raw(raw.clone()))
        .await
        .expect("server");
    let (r, _) = run(&client(&server, true)).await;
    let c = r.expect("completion");
    assert_eq!(c.answer_text(), ARGS);
    assert_eq!(c.tool_calls[0].id.as_deref(), Some("call_1"));
    assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));

    let mut p = jury::provider::sse::SseParser::new();
    let evs = p.feed(b": c\r\ndata: a\r\ndata: b\r\n\r\n");
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0].data, "a\nb");
}

/// Row 9: no usage chunk → usage unknown (None, not zero), no panic — in the
/// client and in the run's counters.
#[tokio::test]
async fn reliability_09_no_usage_chunk_usage_unknown() {
    let server = TestServer::start(|_| Reply::ToolCall {
        name: "get_evaluations".into(),
        arguments: "{}".into(),
        chunk: 0,
        finish: None,
        usage: None,
    })
    .await
    .expect("server");
    for stream in [true, false] {
        assert_eq!(
            run(&client(&server, stream))
                .await
                .0
                .expect("completion")
                .usage,
            None
        );
    }
    let fx = fixture(1);
    let server = TestServer::start(|r| Reply::ToolCall {
        name: "get_evaluations".into(),
        arguments: demo_args(r).to_string(),
        chunk: 7,
        finish: None,
        usage: None,
    })
    .await
    .expect("server");
    let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), req(Mode::Two, 2)).await;
    assert_eq!(out.progress.verdicts, 2);
    assert_eq!(out.progress.usage_unknown, 1);
    assert_eq!(out.progress.usage.prompt_tokens, 0);
}

/// Row 10: 400/401/403/404/422 fail fast with a clear message and the key
/// redacted everywhere: error Display/Debug, the store file, `jury export`.
/// Under paused time, "fast" is exact: tokio's clock does not move.
#[tokio::test(start_paused = true)]
async fn reliability_10_client_errors_fail_fast_key_redacted() {
    fn echo(code: u16) -> impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static {
        move |r: &RecordedRequest| {
            let auth = r.header("authorization").unwrap_or("").to_string();
            let key = auth.trim_start_matches("Bearer ").to_string();
            Reply::status(
                code,
                json!({"error": {"message": format!("Incorrect API key provided: {key}. Header: {auth}"),
                                 "type": "invalid_request_error", "code": "invalid_api_key"}})
                .to_string(),
            )
        }
    }
    for code in [400u16, 401, 403, 404, 422] {
        let server = TestServer::start(echo(code)).await.expect("server");
        let mut c = cfg(&server, true);
        c.api_key = Some(Secret::new(CANARY));
        let client = Client::new(c).expect("client");
        let started = Instant::now();
        let (r, frames) = run(&client).await;
        let e = r.expect_err("rejected");
        assert_eq!(server.request_count(), 1, "{code}: fail fast, no retry");
        assert!(retrying(&frames).is_empty());
        assert_eq!(Instant::now(), started, "{code}: no wait before failing");
        assert_eq!(
            server.requests()[0].header("authorization"),
            Some(&*format!("Bearer {CANARY}"))
        );
        assert!(
            matches!(e, ProviderError::Rejected { status, .. } if status == code),
            "{e:?}"
        );
        let (display, debug) = (e.to_string(), format!("{e:?}"));
        for text in [&display, &debug] {
            assert!(!text.contains("CANARY"), "{code}: {text}");
        }
        assert!(display.contains(&format!("HTTP {code}")), "{display}");
        assert!(display.contains("Incorrect API key provided") && display.contains("<redacted>"));
        assert_eq!(e.is_fatal_for_run(), matches!(code, 401 | 403 | 404));
    }

    // Through a run: the failure is recorded, the key is nowhere on disk or in exports.
    let fx = fixture(2);
    let server = TestServer::start(echo(401)).await.expect("server");
    let (out, _) = run_engine(engine_cfg(&fx.db, &server, Some(CANARY)), req(Mode::Two, 2)).await;
    assert_eq!(out.status, RunStatus::Failed);
    assert_eq!(server.request_count(), 1, "401 stops the whole run");
    let note = out.note.unwrap_or_default();
    assert!(note.contains("401") && !note.contains("CANARY"), "{note}");
    assert_eq!(failure_rows(&fx.db).len(), 1);
    assert_key_absent_from_files(fx.db.parent().expect("dir"));
    let export = std::process::Command::new(env!("CARGO_BIN_EXE_jury"))
        .args(["export", "--format", "jsonl", "--db"])
        .arg(&fx.db)
        .env_remove("OPENAI_API_KEY")
        .env("JURY_CONFIG", fx.db.with_extension("none.toml"))
        .output()
        .expect("jury export");
    assert!(
        export.status.success(),
        "{}",
        String::from_utf8_lossy(&export.stderr)
    );
    let text = String::from_utf8_lossy(&export.stdout);
    assert!(text.contains("\"kind\":\"failure\""), "{text}");
    assert!(
        !text.contains("CANARY") && !String::from_utf8_lossy(&export.stderr).contains("CANARY")
    );
}

/// Every file under `dir` (the db, its -wal and -shm) is free of the canary.
fn assert_key_absent_from_files(dir: &Path) {
    for e in std::fs::read_dir(dir).expect("dir").flatten() {
        let bytes = std::fs::read(e.path()).unwrap_or_default();
        assert!(
            !bytes.windows(CANARY.len()).any(|w| w == CANARY.as_bytes())
                && !bytes.windows(7).any(|w| w == b"CANARY-"),
            "the key leaked into {}",
            e.path().display()
        );
    }
}

/// The idle timeout measures silence between chunks, not the answer's length:
/// a stream that trickles in for longer than the timeout is fine; one that
/// stalls mid-answer for longer is retried with a clear reason. Under paused
/// time: the pauses and the timeout run on tokio's clock, so a busy machine
/// cannot turn a 60 ms gap into a 300 ms silence.
#[tokio::test(start_paused = true)]
async fn reliability_11_idle_timeout_is_silence_not_length() {
    let server = TestServer::start(|r| {
        let answer = Reply::tool("get_evaluations", ARGS);
        match r.seq {
            // ~40 writes 60 ms apart: over 2 s in all, never 300 ms silent.
            0 => Reply::Paced(Duration::from_millis(60), Box::new(answer)),
            // Stalls 900 ms after the head, then an answer on the retry.
            1 => Reply::Paced(Duration::from_millis(900), Box::new(answer)),
            _ => answer,
        }
    })
    .await
    .expect("server");
    let mut c = cfg(&server, true);
    c.idle_timeout = Duration::from_millis(300);
    let client = Client::new(c).expect("client");
    let (r, frames) = run(&client).await;
    let done = r.expect("a slow but steady stream completes");
    assert_eq!(done.attempts, 1);
    assert!(retrying(&frames).is_empty());
    assert_eq!(done.tool_calls[0].arguments, ARGS);

    let (r, frames) = run(&client).await;
    assert_eq!(r.expect("completion").attempts, 2);
    let reasons: Vec<String> = retrying(&frames).into_iter().map(|r| r.2).collect();
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(
        reasons[0].contains("went silent") && reasons[0].contains("300ms"),
        "{reasons:?}"
    );
}

/// Row 11: 408/409/5xx/timeout/reset back off with jitter and a cap; attempts
/// are counted. Under paused time: the idle timeout and the delays run on
/// tokio's clock.
#[tokio::test(start_paused = true)]
async fn reliability_11_transient_faults_backoff_jitter_cap() {
    for code in [408u16, 409, 500, 502, 503, 504] {
        let server = TestServer::start(move |r| match r.seq {
            0 => Reply::status(code, r#"{"error":{"message":"try again"}}"#),
            _ => Reply::tool("get_evaluations", ARGS),
        })
        .await
        .expect("server");
        let (r, frames) = run(&client(&server, true)).await;
        assert_eq!(r.expect("completion").attempts, 2, "{code}");
        let rt = retrying(&frames);
        assert_eq!(rt.len(), 1);
        assert!(rt[0].2.contains(&code.to_string()), "{}", rt[0].2);
    }
    // An idle timeout and a reset connection, then success.
    let server = TestServer::start(|r| match r.seq {
        0 => Reply::tool("get_evaluations", "{}").delayed(Duration::from_secs(3)),
        1 => Reply::Raw(Vec::new()),
        _ => Reply::tool("get_evaluations", ARGS),
    })
    .await
    .expect("server");
    let mut c = cfg(&server, true);
    c.idle_timeout = Duration::from_millis(300);
    let (r, frames) = run(&Client::new(c).expect("client")).await;
    // The connection closed without an answer is resent at once, not counted.
    assert_eq!(r.expect("completion").attempts, 2);
    assert_eq!(server.request_count(), 3);
    let reasons: Vec<String> = retrying(&frames).into_iter().map(|r| r.2).collect();
    assert!(
        reasons[0].contains("did not answer") || reasons[0].contains("silent"),
        "{reasons:?}"
    );

    // Always 503: delays min(base·2ⁿ, cap) minus ≤ 25 % jitter, then a clear error.
    let server = TestServer::start(|_| Reply::status(503, "{}"))
        .await
        .expect("server");
    let mut c = cfg(&server, true);
    c.max_retries = 5;
    c.backoff_base = Duration::from_millis(10);
    c.backoff_cap = Duration::from_millis(40);
    let (r, frames) = run(&Client::new(c).expect("client")).await;
    match r {
        Err(ProviderError::RetriesExhausted { attempts, last }) => {
            assert_eq!(attempts, 6);
            assert!(last.contains("503"), "{last}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.request_count(), 6);
    let delays: Vec<Duration> = retrying(&frames).into_iter().map(|r| r.1).collect();
    assert_eq!(delays.len(), 5);
    for (n, d) in delays.iter().enumerate() {
        let full = Duration::from_millis(10 * (1 << n)).min(Duration::from_millis(40));
        assert!(
            *d <= full && *d >= full.mul_f64(0.75),
            "retry {n}: {d:?} vs {full:?}"
        );
    }
    assert!(
        delays[2..].iter().all(|d| *d <= Duration::from_millis(40)),
        "capped"
    );
    assert!(
        delays[2] != delays[3] || delays[3] != delays[4],
        "jittered: {delays:?}"
    );
}

/// Row 12: Retry-After as seconds, HTTP date, 0, garbage and 86400: honoured,
/// capped or a clear error. Under paused time: the retry goes out only once
/// tokio's clock has moved by the announced wait.
#[tokio::test(start_paused = true)]
async fn reliability_12_retry_after_forms() {
    async fn first_delay(
        value: String,
    ) -> (Result<Completion, ProviderError>, Option<Duration>, usize) {
        let server = TestServer::start(move |r| match r.seq {
            0 => Reply::Status {
                code: 429,
                headers: vec![("retry-after".into(), value.clone())],
                body: r#"{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}"#
                    .into(),
            },
            _ => Reply::tool("get_evaluations", "{}"),
        })
        .await
        .expect("server");
        let (r, frames) = run(&client(&server, true)).await;
        (
            r,
            retrying(&frames).first().map(|r| r.1),
            server.request_count(),
        )
    }
    // Seconds.
    let t = Instant::now();
    let (r, d, n) = first_delay("1".into()).await;
    assert_eq!(
        (r.expect("ok").attempts, d, n),
        (2, Some(Duration::from_secs(1)), 2)
    );
    assert!(
        t.elapsed() >= Duration::from_secs(1),
        "the wait was honoured"
    );
    // HTTP date two seconds ahead.
    let when = (chrono::Utc::now() + chrono::Duration::seconds(2))
        .format("%a, %d %b %Y %H:%M:%S GMT")
        .to_string();
    let (r, d, _) = first_delay(when).await;
    assert!(r.is_ok());
    let d = d.expect("delay");
    assert!(
        d > Duration::from_millis(900) && d <= Duration::from_secs(2),
        "{d:?}"
    );
    // Zero: retry at once.
    let (r, d, _) = first_delay("0".into()).await;
    assert!(r.is_ok());
    assert_eq!(d, Some(Duration::ZERO));
    // Garbage: ignored, the normal backoff applies (base 2 ms, cap 20 ms).
    let (r, d, _) = first_delay("soon-ish".into()).await;
    assert!(r.is_ok());
    assert!(d.expect("delay") <= Duration::from_millis(2));
    // A day: beyond the 120 s cap, a clear error at once.
    let (r, d, n) = first_delay("86400".into()).await;
    let e = r.expect_err("too long");
    assert_eq!(
        e,
        ProviderError::RetryAfterTooLong {
            wait: Duration::from_secs(86400),
            cap: Duration::from_secs(120)
        }
    );
    assert_eq!((d, n), (None, 1), "no retry, no wait");
    let msg = e.to_string();
    assert!(
        msg.contains("retry after") && msg.contains("86400") && msg.contains("120"),
        "{msg}"
    );
}

/// Row 13: 429 insufficient_quota stops the run with a note after few requests
/// (no storm); a later run with `resume` finishes the rest without repeating.
#[tokio::test]
async fn reliability_13_insufficient_quota_pauses_then_resumes() {
    let fx = fixture(3); // 6 combinations
    let healthy = Arc::new(AtomicBool::new(false));
    let h = healthy.clone();
    let server = TestServer::start(move |r| {
        if h.load(Ordering::SeqCst) || r.seq == 0 {
            tool_reply(&demo_args(r))
        } else {
            Reply::status(
                429,
                r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}"#,
            )
        }
    })
    .await
    .expect("server");
    let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), req(Mode::Two, 2)).await;
    assert_eq!(out.status, RunStatus::Failed);
    let note = out.note.clone().unwrap_or_default();
    assert!(note.contains("quota") && note.contains("resume"), "{note}");
    assert_eq!(
        server.request_count(),
        2,
        "one good batch, one quota answer, then stop"
    );
    assert_eq!(out.progress.verdicts, 2);
    let stored_status: String = rusqlite::Connection::open(&fx.db)
        .expect("open")
        .query_row("SELECT status FROM runs WHERE id = ?1", [out.run_id], |r| {
            r.get(0)
        })
        .expect("run row");
    assert_eq!(stored_status, "failed");

    healthy.store(true, Ordering::SeqCst);
    let mut rq = req(Mode::Two, 2);
    rq.resume = true;
    let (out2, events) = run_engine(engine_cfg(&fx.db, &server, None), rq).await;
    assert!(
        events.iter().any(|e| matches!(
            e,
            EngineEvent::RunStarted {
                total: 4,
                skipped: 2,
                ..
            }
        )),
        "{events:?}"
    );
    assert_eq!((out2.status, out2.progress.verdicts), (RunStatus::Done, 4));
    assert_eq!(server.request_count(), 4);
    assert_eq!(count(&fx.db, "SELECT count(*) FROM verdicts"), 6);
    assert_no_duplicate_verdicts(&fx.db);
}

/// Row 14: an HTML or empty proxy 502 gives a clear, short, sanitized message.
#[tokio::test]
async fn reliability_14_html_or_empty_502_short_sanitized() {
    let page = format!(
        "<!DOCTYPE html><html><head><title>502 Bad\u{1b}]0;pwned\u{7} Gateway</title></head><body><h1>Bad Gateway</h1>{}</body></html>",
        "<p>filler \u{202e}</p>".repeat(500)
    );
    for body in [page, String::new()] {
        let b = body.clone();
        let server = TestServer::start(move |_| Reply::status(502, b.clone()))
            .await
            .expect("server");
        let (r, frames) = run(&client(&server, true)).await;
        assert_eq!(retrying(&frames).len(), 3);
        let last = match r.expect_err("502") {
            ProviderError::RetriesExhausted { attempts: 4, last } => last,
            other => panic!("{other:?}"),
        };
        assert!(last.contains("502"), "{last}");
        assert!(last.chars().count() < 320, "short: {last}");
        assert!(!last.contains("<p>") && !last.contains("<html"), "{last}");
        assert!(
            !last.chars().any(|c| c.is_control() || c == '\u{202e}'),
            "sanitized: {last:?}"
        );
        if body.is_empty() {
            assert!(last.contains("empty"), "{last}");
        } else {
            assert!(
                last.contains("HTML page") && last.contains("Gateway"),
                "{last}"
            );
        }
    }
}

/// Row 15: a server that cannot do tool calls → fall back (JSON schema, then
/// JSON in content) or a clear capability error — never a silent empty verdict.
#[tokio::test]
async fn reliability_15_no_tool_support_falls_back_or_clear_error() {
    // Tools refused, JSON schema works: verdicts stored, mode remembered.
    let fx = fixture(2);
    let server = TestServer::start(|r| {
        if r.uses_tools() {
            Reply::status(
                400,
                r#"{"error":{"message":"tools are not supported by this model"}}"#,
            )
        } else {
            Reply::content(demo_args(r).to_string())
        }
    })
    .await
    .expect("server");
    let (out, events) = run_engine(engine_cfg(&fx.db, &server, None), req(Mode::Two, 2)).await;
    assert_eq!((out.status, out.progress.verdicts), (RunStatus::Done, 4));
    let reqs = server.requests();
    assert_eq!(
        reqs.len(),
        3,
        "one refused tools request, then JSON schema twice"
    );
    assert!(
        reqs[1..]
            .iter()
            .all(|r| r.response_format() == Some("json_schema"))
    );
    assert!(events.iter().any(
        |e| matches!(e, EngineEvent::Retrying { reason, .. } if reason.contains("tool calls"))
    ));

    // Client: prose everywhere except JSON content mode.
    let server = TestServer::start(|r| match r.response_format() {
        Some("json_object") => Reply::content(format!("```json\n{ARGS}\n```")),
        _ => Reply::content("I think the classification is right."),
    })
    .await
    .expect("server");
    let client = client(&server, true);
    let c = run(&client).await.0.expect("completion");
    assert_eq!(
        (c.tool_mode, c.answer_text()),
        (ToolMode::JsonContent, ARGS)
    );
    assert_eq!(client.tool_mode(), ToolMode::JsonContent);

    // Empty answers on every path: no silent empty verdict; the last path's
    // answers are the model's, recorded as failures (one bad answer never
    // stops a run), and the run with only failures is failed.
    let fx = fixture(2);
    let server = TestServer::start(|_| Reply::content(""))
        .await
        .expect("server");
    let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), req(Mode::Two, 2)).await;
    assert_eq!(out.status, RunStatus::Failed);
    assert_eq!(count(&fx.db, "SELECT count(*) FROM verdicts"), 0);
    assert!(!failure_rows(&fx.db).is_empty());

    // Nothing structured at all: a capability error that stops the run.
    for reply in [Reply::status(
        400,
        r#"{"error":{"message":"neither tools nor response_format are supported"}}"#,
    )] {
        let fx = fixture(2);
        let rp = reply.clone();
        let server = TestServer::start(move |_| rp.clone())
            .await
            .expect("server");
        let (out, _) = run_engine(engine_cfg(&fx.db, &server, None), req(Mode::Two, 2)).await;
        assert_eq!(out.status, RunStatus::Failed, "{reply:?}");
        let note = out.note.unwrap_or_default();
        assert!(note.contains("cannot return structured answers"), "{note}");
        assert_eq!(
            server.request_count(),
            3,
            "tools, JSON schema, JSON content: then stop"
        );
        assert_eq!(
            count(&fx.db, "SELECT count(*) FROM verdicts"),
            0,
            "no silent empty verdict"
        );
        let f = failure_rows(&fx.db);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].0, "provider");
    }
}

/// A tool call whose arguments open, then go on as one whitespace fragment
/// every `every` (SSE events keep coming, the answer does not grow).
fn whitespace_trickle(every: Duration) -> Reply {
    Reply::Paced(
        every,
        Box::new(Reply::ToolCall {
            name: "get_evaluations".into(),
            arguments: format!("{{\"resultItems\":[{}", " ".repeat(16 * 1000)),
            chunk: 16,
            finish: None,
            usage: None,
        }),
    )
}

/// Whitespace is not progress: a stream that only adds whitespace is idle,
/// cut after the idle timeout (not the request timeout), and the failure
/// says jury's own timeout cut it (was: 10 s, "cut off before it finished").
/// Under paused time.
#[tokio::test(start_paused = true)]
async fn a_whitespace_trickle_is_idle_and_the_cut_names_jurys_timeout() {
    let server = TestServer::start(|_| whitespace_trickle(Duration::from_millis(50)))
        .await
        .expect("server");
    let mut c = cfg(&server, true);
    c.idle_timeout = Duration::from_millis(300);
    let client = Client::new(c).expect("client");
    let started = Instant::now();
    let (r, _) = run(&client).await;
    let e = r.expect_err("cut");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(e, ProviderError::Truncated { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("jury's idle timeout") && msg.contains("300ms"),
        "{msg}"
    );

    // A stream that does grow, but past the request timeout: that timeout
    // is named too.
    let server = TestServer::start(|_| {
        Reply::Paced(
            Duration::from_millis(50),
            Box::new(Reply::ToolCall {
                name: "get_evaluations".into(),
                arguments: format!("{{\"resultItems\":[\"{}", "x".repeat(4000)),
                chunk: 4,
                finish: None,
                usage: None,
            }),
        )
    })
    .await
    .expect("server");
    let mut c = cfg(&server, true);
    c.idle_timeout = Duration::from_millis(300);
    c.request_timeout = Duration::from_secs(2);
    let (r, _) = run(&Client::new(c).expect("client")).await;
    let msg = r.expect_err("cut").to_string();
    assert!(
        msg.contains("jury's request timeout") && msg.contains("2s"),
        "{msg}"
    );
}

/// A batch's time is bounded: answers that each deliver one new entry and
/// then keep growing until the request timeout would be free retries, one
/// per entry; the batch stops at `max_attempts` request timeouts and says
/// so. Under paused time.
#[tokio::test(start_paused = true)]
async fn a_batch_that_keeps_delivering_slowly_is_bounded_in_time() {
    // Four items of two classifications: one batch of 8.
    let fx = fixture(4);
    let server = TestServer::start(|r| {
        let args = demo_judge::reply(r, Duration::ZERO);
        let Reply::ToolCall { arguments, .. } = args else {
            return args;
        };
        // The first entry complete, then a second that never ends.
        let v: Value = serde_json::from_str(&arguments).expect("args");
        let first = v["resultItems"][0].to_string();
        let arguments = format!(
            "{{\"resultItems\":[{first},{{\"evaluationText\":\"{}",
            "y".repeat(100_000)
        );
        Reply::Paced(
            Duration::from_millis(50),
            Box::new(Reply::ToolCall {
                name: "get_evaluations".into(),
                arguments,
                chunk: 200,
                finish: None,
                usage: None,
            }),
        )
    })
    .await
    .expect("server");
    let mut cfg = engine_cfg(&fx.db, &server, None);
    cfg.provider.request_timeout = Duration::from_secs(1);
    cfg.provider.idle_timeout = Duration::from_millis(500);
    let started = Instant::now();
    let (out, _) = run_engine(cfg, req(Mode::Two, 8)).await;
    let took = started.elapsed();
    assert!(
        took < Duration::from_millis(3500),
        "{took:?}, {} requests: {:?}",
        server.request_count(),
        failure_rows(&fx.db)
    );
    assert!(server.request_count() <= 4, "{}", server.request_count());
    assert!(out.progress.verdicts >= 2, "{:?}", out.progress);
    let reasons: Vec<String> = failure_rows(&fx.db).into_iter().map(|f| f.1).collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("time limit for the batch (3 × the 1s request timeout)")),
        "{reasons:?}"
    );
}
