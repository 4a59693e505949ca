//! `jury doctor` as a process: against the in-process fake server, against
//! `jury demo-judge`, and on broken stores and configs.
#![cfg(feature = "tui")]

use jury::store::Store;
use jury::testserver::{Reply, TestServer, demo_judge};
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

const CANARY: &str = "sk-CANARY-RELIABILITY";

fn jury(db: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_jury"));
    c.arg("--db").arg(db);
    c.env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("JURY_MODEL")
        .env("JURY_CONFIG", db.with_extension("no-config.toml"));
    c
}

fn store(dir: &Path) -> PathBuf {
    let db = dir.join("jury.db");
    Store::open(&db).expect("store");
    db
}

async fn doctor(db: &Path, base: Option<String>, extra: &[&str]) -> (Option<i32>, String) {
    let mut c = jury(db);
    c.arg("doctor").args(extra);
    if let Some(b) = base {
        c.env("OPENAI_BASE_URL", b);
    }
    let out: Output = tokio::task::spawn_blocking(move || c.output())
        .await
        .expect("join")
        .expect("jury doctor");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

fn line<'a>(out: &'a str, level: &str, check: &str) -> &'a str {
    out.lines()
        .find(|l| {
            let mut w = l.split_whitespace();
            w.next() == Some(level) && w.next() == Some(check)
        })
        .unwrap_or_else(|| panic!("no '{level} {check}' line in:\n{out}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_all_ok_against_the_fake_server() {
    let server = TestServer::start(|r| demo_judge::reply(r, Duration::ZERO))
        .await
        .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let db = store(dir.path());
    let (code, out) = doctor(
        &db,
        Some(server.base_url()),
        &["--model", "jury-demo-judge"],
    )
    .await;
    assert_eq!(code, Some(0), "{out}");
    for (level, check) in [
        ("ok", "config"),
        ("ok", "store"),
        ("ok", "key"),
        ("ok", "endpoint"),
        ("ok", "judge"),
        ("ok", "streaming"),
        ("ok", "mode"),
    ] {
        line(&out, level, check);
    }
    assert!(
        out.contains("integrity ok") && out.contains("journal mode WAL"),
        "{out}"
    );
    assert!(
        out.contains(&format!("schema version {}", jury::store::SCHEMA_VERSION)),
        "{out}"
    );
    assert!(line(&out, "ok", "mode").contains("tool calls"));
    let reqs = server.requests();
    assert!(
        reqs.iter()
            .any(|r| r.method == "GET" && r.path == "/v1/models")
    );
    let post = reqs
        .iter()
        .find(|r| r.method == "POST")
        .expect("a judgement");
    assert!(post.wants_stream() && post.uses_tools());
    assert_eq!(
        post.body["tool_choice"]["function"]["name"],
        "get_evaluations"
    );

    // A model the server does not list: a warning, and warnings alone exit 0.
    let (code, out) = doctor(&db, Some(server.base_url()), &["--model", "gpt-nope"]).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(line(&out, "warning", "endpoint").contains("does not list the model 'gpt-nope'"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_reports_fallback_mode_and_key_problems() {
    // Tools refused, JSON schema works: a warning naming the fallback.
    let server = TestServer::start(|r| {
        if r.method == "GET" {
            jury::testserver::models_reply(&["m"])
        } else if r.uses_tools() {
            Reply::status(400, r#"{"error":{"message":"tools are not supported"}}"#)
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    })
    .await
    .expect("server");
    let dir = tempfile::tempdir().expect("tempdir");
    let db = store(dir.path());
    let (code, out) = doctor(&db, Some(server.base_url()), &["--model", "m"]).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(
        line(&out, "warning", "judge").contains("JSON schema response format does")
            && line(&out, "warning", "judge").contains("--structured json_schema"),
        "{out}"
    );
    assert!(line(&out, "ok", "mode").contains("JSON schema"), "{out}");

    // llama.cpp: tool_choice ignored, JSON in the content. Named as such.
    let server = TestServer::start(|r| {
        if r.method == "GET" {
            jury::testserver::models_reply(&["m"])
        } else {
            let mut plain = r.clone();
            plain.body["tools"] = serde_json::Value::Null;
            match demo_judge::reply(&plain, Duration::ZERO) {
                Reply::ToolCall { arguments, .. } => Reply::content(arguments),
                other => other,
            }
        }
    })
    .await
    .expect("server");
    let (code, out) = doctor(&db, Some(server.base_url()), &["--model", "m"]).await;
    assert_eq!(code, Some(0), "{out}");
    let judge = line(&out, "warning", "judge");
    assert!(
        judge.contains("JSON in content: the server ignored tool_choice")
            && judge.contains("--structured json_schema"),
        "{out}"
    );

    // Its own timeout is told apart from a server cut-off.
    let server = TestServer::start(|r| {
        if r.method == "GET" {
            jury::testserver::models_reply(&["m"])
        } else {
            demo_judge::reply(r, Duration::from_secs(5))
        }
    })
    .await
    .expect("server");
    let (code, out) = doctor(
        &db,
        Some(server.base_url()),
        &["--model", "m", "--timeout-secs", "1"],
    )
    .await;
    assert_eq!(code, Some(1), "{out}");
    assert!(
        line(&out, "problem", "judge").contains("doctor's own 1s timeout"),
        "{out}"
    );
    let server = TestServer::start(|r| {
        if r.method == "GET" {
            jury::testserver::models_reply(&["m"])
        } else {
            Reply::Truncated {
                arguments: "{\"resultItems\": [{\"id\"".into(),
                cut_at: 20,
            }
        }
    })
    .await
    .expect("server");
    let (_, out) = doctor(&db, Some(server.base_url()), &["--model", "m"]).await;
    assert!(
        line(&out, "problem", "judge").contains("the server cut the test answer off"),
        "{out}"
    );

    // A refused key: a problem, the key redacted even though the server echoes it.
    let server = TestServer::start(|r| {
        let auth = r.header("authorization").unwrap_or("").to_string();
        Reply::status(
            401,
            json!({"error": {"message": format!("Incorrect API key provided: {auth}")}})
                .to_string(),
        )
    })
    .await
    .expect("server");
    let mut c = jury(&db);
    c.args(["doctor", "--model", "m"])
        .env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", CANARY);
    let out = tokio::task::spawn_blocking(move || c.output())
        .await
        .expect("join")
        .expect("doctor");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        line(&text, "problem", "endpoint").contains("HTTP 401"),
        "{text}"
    );
    assert!(line(&text, "ok", "key").contains("not shown"));
    assert!(!text.contains("CANARY"), "{text}");

    // Nothing listening.
    let (code, out) = doctor(&db, Some("http://127.0.0.1:9/v1".into()), &[]).await;
    assert_eq!(code, Some(1));
    assert!(
        line(&out, "problem", "endpoint").contains("cannot reach"),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_store_and_config_checks_need_no_key_or_network() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = store(dir.path());
    let (code, out) = doctor(&db, None, &["--skip-endpoint"]).await;
    assert_eq!(code, Some(0), "{out}");
    line(&out, "skipped", "endpoint");

    // A config file holding the key with mode 0644: a problem, the rest still checked.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let conf = dir.path().join("config.toml");
        std::fs::write(&conf, format!("api_key = \"{CANARY}\"\n")).expect("write");
        std::fs::set_permissions(&conf, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let mut c = jury(&db);
        c.args(["doctor", "--skip-endpoint"])
            .env("JURY_CONFIG", &conf);
        let out = c.output().expect("doctor");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(1), "{text}");
        assert!(
            line(&text, "problem", "config").contains("chmod 600"),
            "{text}"
        );
        line(&text, "ok", "store");
        assert!(!text.contains("CANARY"));
        std::fs::set_permissions(&conf, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        let mut c = jury(&db);
        c.args(["doctor", "--skip-endpoint"])
            .env("JURY_CONFIG", &conf);
        let out = c.output().expect("doctor");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert!(line(&text, "ok", "config").contains("private"), "{text}");
        // A file toml cannot read: the message names the line, never quotes the key.
        std::fs::write(&conf, format!("api_key = {CANARY}\n")).expect("write");
        let mut c = jury(&db);
        c.args(["doctor", "--skip-endpoint"])
            .env("JURY_CONFIG", &conf);
        let out = c.output().expect("doctor");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            line(&text, "problem", "config").contains("line 1"),
            "{text}"
        );
        assert!(!text.contains("CANARY"), "{text}");
        // A world-writable store.
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o666)).expect("chmod");
        let (code, out) = doctor(&db, None, &["--skip-endpoint"]).await;
        assert_eq!(code, Some(1));
        assert!(
            line(&out, "problem", "store").contains("other users"),
            "{out}"
        );
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    }

    // A damaged store: a problem, and its -wal is left alone.
    let bad = dir.path().join("bad.db");
    std::fs::copy(&db, &bad).expect("copy");
    let mut bytes = std::fs::read(&bad).expect("read");
    bytes[..100].fill(0x41);
    std::fs::write(&bad, &bytes).expect("corrupt");
    let wal = dir.path().join("bad.db-wal");
    std::fs::write(&wal, b"precious frames").expect("wal");
    let (code, out) = doctor(&bad, None, &["--skip-endpoint"]).await;
    assert_eq!(code, Some(1));
    assert!(line(&out, "problem", "store").contains("damaged"), "{out}");
    assert_eq!(std::fs::read(&wal).expect("-wal kept"), b"precious frames");

    // No store yet: a warning saying it will be created (warnings alone exit 0).
    let (code, out) = doctor(&dir.path().join("new.db"), None, &["--skip-endpoint"]).await;
    assert_eq!(code, Some(0), "{out}");
    assert!(line(&out, "warning", "store").contains("created on first use"));
    assert!(
        !dir.path().join("new.db").exists(),
        "doctor creates nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_against_jury_demo_judge_process() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = store(dir.path());
    let mut demo = Command::new(env!("CARGO_BIN_EXE_jury"))
        .args(["demo-judge", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("demo judge");
    let mut first = String::new();
    // Keep the pipe open: the demo judge prints a second line (SIGPIPE otherwise).
    let mut reader = BufReader::new(demo.stdout.take().expect("stdout"));
    reader.read_line(&mut first).expect("read");
    // `export OPENAI_BASE_URL=… JURY_MODEL=…`: what a user pastes.
    let export = |name: &str| {
        first
            .split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{name}=")))
            .map(str::to_string)
            .unwrap_or_else(|| panic!("the demo judge prints {name}: {first}"))
    };
    let (base, model) = (export("OPENAI_BASE_URL"), export("JURY_MODEL"));
    let (code, out) = doctor(&db, Some(base), &["--model", &model]).await;
    let _ = demo.kill();
    let _ = demo.wait();
    drop(reader);
    assert_eq!(code, Some(0), "{out}");
    // The printed model is the one the demo judge lists: no warning at all.
    line(&out, "ok", "endpoint");
    line(&out, "ok", "judge");
    line(&out, "ok", "streaming");
    assert!(!out.contains("warning"), "{out}");
}

/// A server that keeps the test answer alive with one whitespace fragment
/// after another is cut by doctor's own timeout, which bounds the whole
/// check (one request, not one per retry), and the problem says whose
/// timeout it was (was: "the server cut the test answer off").
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_cuts_a_whitespace_trickle_with_its_own_timeout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = store(dir.path());
    let server = TestServer::start(|r| {
        if r.method == "GET" {
            jury::testserver::models_reply(&["m"])
        } else {
            let arguments = format!("{{\"resultItems\": [{}", " ".repeat(400));
            Reply::Paced(
                Duration::from_millis(100),
                Box::new(Reply::ToolCall {
                    name: "get_evaluations".into(),
                    arguments,
                    chunk: 16,
                    finish: None,
                    usage: None,
                }),
            )
        }
    })
    .await
    .expect("server");
    let (code, out) = doctor(
        &db,
        Some(server.base_url()),
        &["--model", "m", "--timeout-secs", "1"],
    )
    .await;
    assert_eq!(code, Some(1), "{out}");
    assert!(
        line(&out, "problem", "judge").contains("doctor's own 1s timeout"),
        "{out}"
    );
    let posts = server
        .requests()
        .iter()
        .filter(|r| r.method == "POST")
        .count();
    assert_eq!(posts, 1, "{out}");
}
