//! `jury run` exit codes: 0 when every verdict is in, 2 when failures were
//! recorded, 1 when a fault fatal for the whole run stopped it.
#![cfg(feature = "tui")]

use crate::common;
use common::*;
use jury::testserver::Reply;

fn run(ws: &Workspace, srv: &ServerRt) -> std::process::Output {
    ws.run_with(
        &srv.url(),
        &[
            "run",
            "--mode",
            "2",
            "--persona",
            "kenton",
            "--perspective",
            "classification",
            "--limit",
            "3",
            "--concurrency",
            "1",
        ],
    )
}

#[test]
fn a_refused_key_is_a_fatal_error_that_names_the_endpoint() {
    let ws = Workspace::new();
    ws.import_sample();
    let srv = ServerRt::start(|_| {
        Reply::Status {
        code: 401,
        headers: vec![],
        body: r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#.into(),
    }
    });
    let out = run(&ws, &srv);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&srv.url()), "{err}");
    assert!(err.contains("--resume"), "{err}");
    // One request at a time: the first 401 stops the run, nothing is retried.
    let c = srv.completions();
    assert_eq!(c.len(), 1);
}

#[test]
fn a_complete_run_exits_0_and_one_with_failures_exits_2() {
    let ws = Workspace::new();
    ws.import_sample();
    let demo = ServerRt::demo();
    assert_eq!(run(&ws, &demo).status.code(), Some(0));
    // A server that always answers with a broken tool call: failures recorded.
    let ws = Workspace::new();
    ws.import_sample();
    let broken = ServerRt::start(|_| Reply::Content {
        text: "I cannot produce JSON today.".into(),
        chunk: 0,
        finish: None,
    });
    let out = run(&ws, &broken);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

/// Standard output that cannot be written (`> /dev/full`) is a clear error
/// and exit 1 on every command, never a panic; a reader that goes away
/// (`| head -1`) ends the command quietly.
#[test]
fn a_stdout_that_cannot_be_written_is_an_error_and_a_closed_pipe_is_quiet() {
    use std::io::BufRead;
    let ws = Workspace::new();
    ws.import_sample();
    let commands: &[&[&str]] = &[
        &["list", "items"],
        &["report"],
        &["report", "--format", "json"],
        &["export"],
        &["runs"],
        &["list", "personas"],
        &["--help"],
    ];
    for args in commands {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let out = ws
            .cmd()
            .args(*args)
            .stdout(full)
            .output()
            .expect("spawn jury");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("cannot write to standard output") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
    // `jury list items | head -1`.
    let mut child = ws
        .cmd()
        .args(["list", "items"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn jury");
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("one line");
    assert!(!first.is_empty());
    let out = child.wait_with_output().expect("wait");
    let err = text(&out.stderr);
    assert!(err.is_empty(), "a closed pipe is quiet: {err}");
    use std::os::unix::process::ExitStatusExt;
    assert!(
        out.status.success() || out.status.signal() == Some(libc::SIGPIPE),
        "{:?}",
        out.status
    );
}
