//! Runs kept as typed records (`runs.record`): a store written before
//! records opens, converts its runs once and resumes its open batch run;
//! `jury runs --json` shows each run's record and no command line; `jury
//! batch import` asks with the prompt set the run recorded.
#![cfg(feature = "tui")]

use crate::common;

use common::RUN_AS_KENTON;
use common::{ServerRt, Workspace, text};
use jury::testserver::{BatchApi, BatchScript, Reply, answer_file};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ITEMS: &str = "k-001,k-002,k-003";
/// The schema version before run records.
const BEFORE_RECORDS: usize = 16;

fn demo(r: &jury::testserver::RecordedRequest) -> Reply {
    jury::testserver::demo_judge::reply(r, Duration::ZERO)
}

/// The Files and Batches API on a test server, lines answered as the demo
/// judge answers.
fn server(script: BatchScript) -> (ServerRt, Arc<BatchApi>) {
    let api = BatchApi::new(script, demo);
    let a = api.clone();
    (ServerRt::start(move |r| a.reply(r)), api)
}

/// `jury run --batch` as kenton in mode 1 on three items, and `extra`.
fn batch_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = RUN_AS_KENTON.to_vec();
    args.extend(["--mode", "1", "--items", ITEMS, "--batch-size", "2"]);
    args.extend(["--batch", "--batch-poll", "1", "--json"]);
    args.extend_from_slice(extra);
    args
}

/// `jury run --batch` of [`batch_args`] against `srv`, to its end.
fn batch_run(ws: &Workspace, srv: &ServerRt, extra: &[&str]) -> std::process::Output {
    ws.run_with(&srv.url(), &batch_args(extra))
}

fn requests_to(srv: &ServerRt, path_end: &str) -> usize {
    srv.server
        .requests()
        .iter()
        .filter(|r| r.path.ends_with(path_end))
        .count()
}

fn runs_json(ws: &Workspace) -> Value {
    serde_json::from_str(&ws.ok(&["runs", "--json"])).expect("runs --json")
}

/// A batch run started, waited on until jury has looked at its batch,
/// then killed (-9): its batch stays open on the server.
fn batch_left_open(ws: &Workspace, srv: &ServerRt) {
    let mut child = ws
        .cmd()
        .env("OPENAI_BASE_URL", srv.url())
        .args(batch_args(&[]))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn jury");
    let start = Instant::now();
    let looked = || {
        srv.server
            .requests()
            .iter()
            .any(|r| r.method == "GET" && r.path.contains("/batches/"))
    };
    while !looked() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no look at the batch"
        );
        assert!(
            child.try_wait().expect("wait").is_none(),
            "jury ended first"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("kill -9");
    let _ = child.wait();
}

/// Rewrites the store at `db` as the jury before run records wrote it:
/// a schema of version 16 holding the same rows, each run's settings as the
/// `params` blob `params_of` gives and each batch part with the command
/// line `argv` (as that jury recorded it, masked URL and all).
fn as_written_before_records(db: &std::path::Path, params_of: &Value, argv: &[&str]) {
    let old = db.with_extension("old");
    {
        let conn = rusqlite::Connection::open(&old).expect("old store");
        for sql in &jury::store::migrations()[..BEFORE_RECORDS] {
            conn.execute_batch(sql).expect("old migration");
        }
        conn.pragma_update(None, "user_version", BEFORE_RECORDS as i64)
            .expect("version");
        conn.execute("ATTACH DATABASE ?1 AS new", [db.to_str().expect("utf-8")])
            .expect("attach");
        let tables: Vec<String> = conn
            .prepare("SELECT name FROM main.sqlite_master WHERE type = 'table'")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .expect("tables");
        for t in tables {
            let cols: Vec<String> = conn
                .prepare(&format!("PRAGMA main.table_info({t})"))
                .and_then(|mut s| s.query_map([], |r| r.get(1))?.collect())
                .expect("columns");
            let select: Vec<String> = cols
                .iter()
                .map(|c| match (t.as_str(), c.as_str()) {
                    ("runs", "params") => ":params".to_string(),
                    ("batch_jobs", "argv") => ":argv".to_string(),
                    _ => c.clone(),
                })
                .collect();
            let sql = format!(
                "INSERT INTO main.{t} ({}) SELECT {} FROM new.{t}",
                cols.join(", "),
                select.join(", ")
            );
            let mut stmt = conn.prepare(&sql).expect("copy");
            let argv = serde_json::to_string(argv).expect("argv");
            let params = params_of.to_string();
            let mut bound: Vec<(&str, &dyn rusqlite::ToSql)> = Vec::new();
            for (name, value) in [(":params", &params), (":argv", &argv)] {
                if stmt.parameter_index(name).expect("name").is_some() {
                    bound.push((name, value));
                }
            }
            stmt.execute(bound.as_slice()).expect("copy rows");
        }
        conn.execute("DETACH DATABASE new", []).expect("detach");
    }
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    std::fs::rename(&old, db).expect("replace the store");
}

/// The settings blob the jury before records kept for the batch run above.
fn old_params() -> Value {
    json!({
        "batch_size": 2, "concurrency": 4, "max_attempts": 3, "temperature": null,
        "prompts": "embedded", "items": 3, "options": null, "shuffle_seed": null,
    })
}

/// A store written before run records, holding a batch run whose batch is
/// open on the server: it opens, the run gets its record (its settings
/// read once from its params and command line), no command line is left
/// in the store, and `--resume` waits for that same batch.
#[test]
fn a_store_from_before_records_converts_and_resumes_its_open_batch() {
    let (srv, api) = server(BatchScript {
        polls_in_progress: 3,
        ..BatchScript::default()
    });
    let ws = Workspace::sample();
    batch_left_open(&ws, &srv);
    assert_eq!(api.created().len(), 1);
    let masked = format!(
        "--base-url={}",
        srv.url().replacen("http://", "http://user:****@", 1)
    );
    let argv = batch_args(&[
        "--structured",
        "json_schema",
        "--batch-retry",
        "direct",
        &masked,
    ]);
    as_written_before_records(&ws.db, &old_params(), &argv);
    {
        let conn = rusqlite::Connection::open(&ws.db).expect("old store");
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .expect("version");
        assert_eq!(
            v, BEFORE_RECORDS as i64,
            "the store is as the old jury left it"
        );
    }

    let runs = runs_json(&ws);
    let run = &runs[0];
    let record = &run["spec"]["record"];
    assert_eq!(record["version"], 1, "{run}");
    assert_eq!(
        record["judge"],
        json!({"protocol": "awag", "mode": "One", "persona": "kenton", "perspectives": ["classification"]}),
        "{run}"
    );
    assert_eq!(record["structured"], "json_schema", "{run}");
    assert_eq!(record["batch_size"], 2, "{run}");
    assert_eq!(record["batch"]["way"], "api", "{run}");
    assert_eq!(record["batch"]["retry"], "direct", "{run}");
    assert_eq!(record["batch"]["poll_secs"], 1, "{run}");
    assert_eq!(
        record["servers"],
        json!([srv.url().trim_end_matches('/')]),
        "{run}"
    );
    assert!(record["converted"].as_str().is_some(), "{run}");
    let listed = run.to_string();
    for gone in ["argv", "params", "--batch", "****"] {
        assert!(!listed.contains(gone), "{gone} in {listed}");
    }
    let conn = rusqlite::Connection::open(&ws.db).expect("store");
    let has_argv: i64 = conn
        .query_row(
            "SELECT count(*) FROM pragma_table_info('batch_jobs') WHERE name = 'argv'",
            [],
            |r| r.get(0),
        )
        .expect("columns");
    assert_eq!(has_argv, 0, "no command line is kept");
    drop(conn);

    let out = batch_run(&ws, &srv, &["--resume"]);
    common::assert_success(&out, &["run --batch --resume after the migration"]);
    let s: Value = serde_json::from_str(text(&out.stdout).trim()).expect("summary");
    assert_eq!(s["verdicts"], 15, "{s}");
    assert_eq!(
        api.created().len(),
        1,
        "the open batch is waited for, not sent again"
    );
    assert_eq!(requests_to(&srv, "/files"), 1, "one upload");
    assert_eq!(requests_to(&srv, "/chat/completions"), 0);
}

/// `jury runs --json` shows each run as its typed record; nothing of a
/// command line.
#[test]
fn runs_json_shows_the_typed_record_and_no_command_line() {
    let (srv, _api) = server(BatchScript::default());
    let ws = Workspace::sample();
    let out = batch_run(&ws, &srv, &["--temperature", "0.5"]);
    common::assert_success(&out, &["run --batch"]);
    let runs = runs_json(&ws);
    let run = &runs[0];
    let record = &run["spec"]["record"];
    assert_eq!(record["version"], 1, "{run}");
    assert_eq!(record["judge"]["protocol"], "awag", "{run}");
    assert_eq!(record["temperature"], 0.5, "{run}");
    assert_eq!(record["batch"]["way"], "api", "{run}");
    assert_eq!(record["prompts"]["dir"], Value::Null, "{run}");
    assert!(
        record["prompts"]["hash"]
            .as_str()
            .is_some_and(|h| !h.is_empty())
    );
    assert!(run["spec"].get("params").is_none(), "{run}");
    let listed = run.to_string();
    for flag in ["--mode", "--batch", "--items", "argv"] {
        assert!(!listed.contains(flag), "{flag} in {listed}");
    }
}

/// A copy of the embedded AwAg prompts with one sentence added (another
/// prompt set, with another hash).
fn edited_prompts(ws: &Workspace) -> std::path::PathBuf {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("prompts/awag");
    let edited = ws.path("prompts-v2");
    std::fs::create_dir_all(&edited).expect("folder");
    for f in std::fs::read_dir(&src).expect("prompts") {
        let f = f.expect("entry").path();
        std::fs::copy(&f, edited.join(f.file_name().expect("name"))).expect("copy");
    }
    let user = edited.join("user_likert.txt");
    let mut text = std::fs::read_to_string(&user).expect("read");
    text.push_str("\nWhen in doubt, prefer the middle of the scale.\n");
    std::fs::write(&user, text).expect("write");
    edited
}

/// A batch file exported with `--prompts DIR` is imported, without
/// `--prompts`, with the prompt set the run recorded (today's jury asked
/// the import's own, embedded set and refused: "other prompts").
#[test]
fn batch_import_asks_with_the_runs_recorded_prompt_set() {
    let ws = Workspace::sample();
    let prompts = edited_prompts(&ws);
    let out_path = ws.path("requests.jsonl");
    let mut args = vec![
        "batch",
        "export",
        "--out",
        out_path.to_str().expect("utf-8"),
    ];
    args.extend(&RUN_AS_KENTON[1..]);
    args.extend([
        "--mode",
        "1",
        "--items",
        ITEMS,
        "--batch-size",
        "2",
        "--json",
    ]);
    args.extend(["--prompts", prompts.to_str().expect("utf-8")]);
    common::assert_success(&ws.run(&args), &args);
    let requests = std::fs::read_to_string(&out_path).expect("the request file");
    let answers = ws.write("answers.jsonl", answer_file(&requests, demo));
    let out = ws.run(&[
        "batch",
        "import",
        answers.to_str().expect("utf-8"),
        "--json",
    ]);
    common::assert_success(&out, &["batch import (no --prompts)"]);
    let s: Value = serde_json::from_str(text(&out.stdout).trim()).expect("summary");
    assert_eq!(s["verdicts"], 15, "{s}");
    let run = &runs_json(&ws)[0];
    assert_eq!(
        run["spec"]["record"]["prompts"]["dir"],
        json!(std::path::absolute(&prompts).expect("absolute")),
        "{run}"
    );
    assert_eq!(run["status"], "done", "{run}");
}
