//! The API key never leaves the process, even when a server echoes it back in
//! a 500 body or in an error event after a 200: not in the run's output, the
//! failures, any export, nor the store's bytes (database and WAL).
#![cfg(feature = "tui")]

mod common;
use common::*;
use jury::testserver::{Reply, demo_judge};
use std::time::Duration;

const CANARY: &str = "sk-CANARY-ECHO-51c0ffee";

#[test]
fn a_key_echoed_in_500_bodies_and_error_events_is_never_written() {
    let ws = Workspace::new();
    ws.import_sample();
    let srv = ServerRt::start(|r| {
        let auth = r.header("authorization").unwrap_or("").to_string();
        match r.seq {
            0 => Reply::Status {
                code: 500,
                headers: vec![],
                body: format!(r#"{{"error":{{"message":"upstream failed for {auth}"}}}}"#),
            },
            1 => Reply::ErrorEvent {
                message: format!(
                    "stream aborted; key was {}",
                    auth.trim_start_matches("Bearer ")
                ),
            },
            _ => demo_judge::reply(r, Duration::ZERO),
        }
    });
    let args = [
        "run",
        "--mode",
        "2",
        "--persona",
        "kenton",
        "--perspective",
        "classification",
        "--limit",
        "2",
        "--concurrency",
        "1",
    ];
    let out = ws
        .cmd()
        .env("OPENAI_BASE_URL", srv.url())
        .env("OPENAI_API_KEY", CANARY)
        .args(args)
        .output()
        .unwrap();
    // The server really saw the key.
    let reqs = srv.completions();
    assert!(reqs[0].header("authorization").unwrap().contains(CANARY));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut seen = vec![
        ("run stdout", text(&out.stdout)),
        ("run stderr", text(&out.stderr)),
    ];
    for a in [
        vec!["failures"],
        vec!["failures", "--json"],
        vec!["export", "--format", "jsonl"],
        vec!["export", "--format", "csv"],
        vec!["export", "--format", "awag"],
        vec!["runs", "--json"],
        vec!["report", "--format", "json", "--bootstrap", "0"],
    ] {
        let o = ws.run(&a);
        seen.push((
            "command",
            format!("{a:?}: {}{}", text(&o.stdout), text(&o.stderr)),
        ));
    }
    for (what, s) in &seen {
        assert!(!s.contains("CANARY"), "{what} leaked the key: {s}");
    }
    // Both echoing answers were really served, then retried past.
    let served = srv.completions().len();
    assert!(served >= 3, "{served} requests");
    for f in std::fs::read_dir(ws.db.parent().unwrap()).unwrap() {
        let p = f.unwrap().path();
        if p.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("jury.db")
        {
            let bytes = std::fs::read(&p).unwrap();
            assert!(
                !bytes.windows(6).any(|w| w == b"CANARY"),
                "{} holds the key",
                p.display()
            );
        }
    }
}
