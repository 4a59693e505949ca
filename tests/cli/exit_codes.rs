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
    // Quiet means no error: all 94 lines may fit in the pipe's buffer before
    // the reader goes away, and then the count `jury list` ends with on
    // stderr is said as on any run (a race the test used to lose under load).
    assert!(
        err.trim().is_empty() || err.trim() == "94 items",
        "a closed pipe is quiet: {err}"
    );
    use std::os::unix::process::ExitStatusExt;
    assert!(
        out.status.success() || out.status.signal() == Some(libc::SIGPIPE),
        "{:?}",
        out.status
    );
}

/// `> /dev/full` on every command that writes to standard output, in every
/// format: a clear error and exit 1, never a panic (exit 101) nor a silent 0.
#[test]
fn every_command_says_when_standard_output_cannot_be_written() {
    let ws = Workspace::new();
    ws.import_sample();
    let srv = ServerRt::demo();
    let url = srv.url();
    let items = sample_data().join("items.jsonl");
    let items = items.to_str().expect("utf-8");
    let fewshot = ws.path("fewshot-out");
    let batch = ws.path("requests.jsonl");
    let fewshot = fewshot.to_str().expect("utf-8");
    let awag: &[&str] = &[
        "--mode",
        "2",
        "--persona",
        "kenton",
        "--perspective",
        "classification",
    ];
    let batch = batch.to_str().expect("utf-8");
    let mut commands: Vec<Vec<&str>> = vec![
        [&["run"][..], awag, &["--limit", "3"]].concat(),
        [&["run"][..], awag, &["--limit", "3", "--json"]].concat(),
        [&["run"][..], awag, &["--limit", "3", "--dry-run"]].concat(),
        [
            &["batch", "export", "--out", batch][..],
            awag,
            &["--limit", "2"],
        ]
        .concat(),
        [&["prompt", "--item", "k-001"][..], awag].concat(),
        [&["prompt", "--item", "k-001", "--json"][..], awag].concat(),
    ];
    for args in [
        &["import", items][..],
        &["label", "k-001", "urgency", "3", "--persona", "kenton"],
        &["report", "--format", "csv"],
        &["report", "--format", "md"],
        &["report", "--format", "html"],
        &["report", "--rank"],
        &["estimate"],
        &["estimate", "--format", "json"],
        &["estimate", "--format", "csv"],
        &["trust", "--alpha", "0.1", "--delta", "0.1"],
        &[
            "trust",
            "--alpha",
            "0.1",
            "--delta",
            "0.1",
            "--needs-person",
        ],
        &["export", "--format", "csv"],
        &["export", "--format", "awag"],
        &["export", "--format", "wide"],
        &["export", "--format", "wide-jsonl"],
        &["export", "--format", "rubric-results"],
        &["runs", "--json"],
        &["failures"],
        // (With no failure, `failures --json` writes no line at all.)
        &["failures", "1"],
        &["list", "perspectives"],
        &["list", "items", "--json"],
        &["split", "--holdout", "0.3"],
        &["split"],
        &["split", "--json"],
        &["fewshot", "--from-labels", "--out", fewshot],
        &["doctor", "--skip-endpoint"],
        &["doctor", "--model", "jury-demo-judge"],
        &["--version"],
        &["help"],
        &["run", "--help"],
    ] {
        commands.push(args.to_vec());
    }
    for args in &commands {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let out = ws
            .cmd()
            .env("OPENAI_BASE_URL", &url)
            .env("OPENAI_API_KEY", "sk-test")
            .args(args)
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

    // The demo judge says where it listens before it serves: unwritten, it
    // stops instead of serving on unseen.
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let mut child = ws
        .cmd()
        .args(["demo-judge", "--port", "0"])
        .stdout(full)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn the demo judge");
    let mut ended = None;
    for _ in 0..600 {
        if let Some(status) = child.try_wait().expect("try_wait") {
            ended = Some(status);
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let Some(status) = ended else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the demo judge served on although it could not say where");
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut err)
        .expect("stderr");
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("cannot write to standard output"), "{err}");
}
