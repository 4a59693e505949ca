//! Rows 10, 13–15 (answers that are errors): client errors fail fast with the
//! key redacted, a spent quota pauses, HTML or empty 502s are cut short and
//! sanitised, and a server without tool support falls back or says so.

use super::*;

const CANARY: &str = "sk-CANARY-RELIABILITY";

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
