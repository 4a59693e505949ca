//! `kill -9` at every stage of a batch run (after the upload, after the
//! create before its answer, while waiting, while downloading, as the
//! answers are read), then each kind of resume (`jury run --batch
//! --resume`, a plain `jury run --resume`): the server ends with one batch
//! for the request file, no direct request for a combination the batch
//! holds, and every verdict once.
#![cfg(feature = "tui")]

use crate::common;

use common::{RUN_AS_KENTON, ServerRt, Workspace, text};
use jury::testserver::{BatchApi, BatchScript, Call, Faults, RecordedRequest};
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const ITEMS: &str = "k-001,k-002,k-003";
const FLAGS: [&str; 8] = [
    "--mode",
    "1",
    "--items",
    ITEMS,
    "--batch-size",
    "2",
    "--batch-poll",
    "1",
];

/// Where the process is when it is killed: the faults that hold it there,
/// and the request that shows it got there.
struct Stage {
    name: &'static str,
    faults: Faults,
    reached: fn(&RecordedRequest) -> bool,
}

fn stages() -> Vec<Stage> {
    let create = |r: &RecordedRequest| r.method == "POST" && r.path.ends_with("/batches");
    let download = |r: &RecordedRequest| r.path.ends_with("/content");
    vec![
        Stage {
            name: "after the upload (the create never reached the server)",
            faults: Faults {
                stall: Some(Call::Create),
                ..Faults::default()
            },
            reached: create,
        },
        Stage {
            name: "after the create, before its answer",
            faults: Faults {
                slow_answer: Some(Call::Create),
                ..Faults::default()
            },
            reached: create,
        },
        Stage {
            name: "while waiting",
            faults: Faults::default(),
            reached: |r| r.method == "GET" && r.path.contains("/batches/"),
        },
        Stage {
            name: "while downloading",
            faults: Faults {
                slow_answer: Some(Call::Download),
                ..Faults::default()
            },
            reached: download,
        },
        Stage {
            name: "as the answers are read",
            faults: Faults::default(),
            reached: download,
        },
    ]
}

fn server() -> (ServerRt, Arc<BatchApi>) {
    let api = BatchApi::new(
        BatchScript {
            polls_in_progress: 2,
            ..BatchScript::default()
        },
        |r| jury::testserver::demo_judge::reply(r, Duration::ZERO),
    );
    let a = api.clone();
    (ServerRt::start(move |r| a.reply(r)), api)
}

fn jury(ws: &Workspace, srv: &ServerRt, extra: &[&str]) -> std::process::Command {
    let mut c = ws.cmd();
    c.env("OPENAI_BASE_URL", srv.url())
        .args(RUN_AS_KENTON)
        .args(FLAGS)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// `jury run --batch`, killed once the server saw what `stage` waits for.
fn killed_at(stage: &Stage, ws: &Workspace, srv: &ServerRt) {
    let mut child: Child = jury(ws, srv, &["--batch", "--json"])
        .spawn()
        .expect("spawn jury");
    let start = Instant::now();
    while !srv.server.requests().iter().any(stage.reached) {
        if child.try_wait().expect("wait").is_some() {
            let out = child.wait_with_output().expect("jury");
            panic!("{}: jury ended first: {}", stage.name, text(&out.stderr));
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "{}: never got there",
            stage.name
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("kill -9");
    let _ = child.wait();
}

fn direct(srv: &ServerRt) -> usize {
    srv.server
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .count()
}

#[test]
fn kill_9_at_every_stage_then_each_resume_makes_one_batch_and_no_direct_request() {
    for resume in [&["--batch", "--resume"][..], &["--resume"][..]] {
        for stage in stages() {
            let what = format!("{} then {}", stage.name, resume.join(" "));
            let (srv, api) = server();
            api.set_faults(stage.faults.clone());
            let ws = Workspace::sample();
            killed_at(&stage, &ws, &srv);
            api.set_faults(Faults::default());
            let out = jury(&ws, &srv, resume).output().expect("jury");
            common::assert_success(&out, &[&what]);
            assert_eq!(api.created().len(), 1, "{what}: one batch");
            assert_eq!(direct(&srv), 0, "{what}: nothing judged directly");
            let verdicts = ws.store().verdicts_for_run(1).expect("verdicts").len();
            assert_eq!(verdicts, 15, "{what}: every verdict once");
            let failures = ws.store().failures(None).expect("failures");
            assert!(failures.is_empty(), "{what}: {failures:?}");
        }
    }
}
