//! `jury run --batch` against a hostile Files and Batches API (the test
//! server's faults): a create whose answer never came, duplicate and
//! malformed answer lines, failing polls and downloads, a redirect, a
//! `completed` batch that does not add up, a cancel that hangs. Each is
//! created once and read once: one batch, no direct request, every verdict.
#![cfg(feature = "tui")]

use super::batch_runs::{
    batch_run, batch_server, direct_requests, looked_at_a_batch, spawn_batch_run, summary,
    verdicts, wait_while_running,
};
use crate::common;
use common::{Workspace, text};
use jury::testserver::{BatchScript, Call, Failure, Faults, Tail};
use serde_json::Value;

/// Downloads of the server's files.
fn downloads(srv: &common::ServerRt) -> usize {
    srv.server
        .requests()
        .iter()
        .filter(|r| r.method == "GET" && r.path.contains("/files/"))
        .count()
}

fn run_record(ws: &Workspace) -> Value {
    let runs: Value = serde_json::from_str(&ws.ok(&["runs", "--json"])).expect("runs");
    runs[0].clone()
}

/// The server made the batch but the connection dropped before its
/// answer: jury finds it by its request file instead of stopping (and a
/// resume creating a second one).
#[test]
fn a_create_whose_answer_never_came_is_found_not_made_again() {
    let (srv, api) = batch_server(BatchScript::default());
    api.set_faults(Faults {
        drop_create_answers: 1,
        ..Faults::default()
    });
    let ws = Workspace::sample();
    let out = batch_run(&ws, &srv, &[]);
    common::assert_success(&out, &["run --batch (create answer dropped)"]);
    assert_eq!(summary(&out)["verdicts"], 15);
    assert_eq!(api.created().len(), 1, "one batch");
    assert_eq!(direct_requests(&srv), 0);
    let err = text(&out.stderr);
    assert!(!err.contains("nothing is sent again"), "{err}");
}

/// Later lines for a request already answered (an error line, a 200 line
/// that is no completion, a line that is not JSON, a second answer) are
/// noted and left: the first valid answer stands, paid once. One malformed
/// later line used to turn every verdict into a failure.
#[test]
fn duplicate_and_malformed_answer_lines_never_replace_the_first() {
    let (clean_srv, _) = batch_server(BatchScript::default());
    let clean = Workspace::sample();
    let clean_out = batch_run(&clean, &clean_srv, &[]);
    common::assert_success(&clean_out, &["run --batch"]);

    let (srv, api) = batch_server(BatchScript::default());
    api.set_faults(Faults {
        tail: vec![
            Tail::ErrorLine,
            Tail::Malformed,
            Tail::Garbage,
            Tail::SecondAnswer("{\"resultItems\": []}".into()),
        ],
        ..Faults::default()
    });
    let ws = Workspace::sample();
    let out = batch_run(&ws, &srv, &[]);
    common::assert_success(&out, &["run --batch (duplicate lines)"]);
    let s = summary(&out);
    assert_eq!(s["verdicts"], 15, "{s}");
    assert_eq!(s["failure_records"], 0, "{s}");
    assert_eq!(api.created().len(), 1, "no follow-up batch");
    assert_eq!(verdicts(&ws), verdicts(&clean));
    // Paid once: the same tokens and cost as the clean run.
    let c = summary(&clean_out);
    for k in ["prompt_tokens", "completion_tokens", "requests", "cost_usd"] {
        assert_eq!(s[k], c[k], "{k}: {s} vs {c}");
    }
    assert!(
        text(&out.stderr).contains("the first valid answer of each was kept"),
        "{}",
        text(&out.stderr)
    );
}

/// 503s and 429s on the status polls and a dropped connection on the
/// download are tried again: the wait goes on to the answers. One 503 used
/// to end a 24-hour wait as "bad endpoint configuration".
#[test]
fn failing_polls_and_downloads_are_tried_again() {
    for failure in [Failure::Unavailable, Failure::TooMany, Failure::Dropped] {
        let (srv, api) = batch_server(BatchScript {
            polls_in_progress: 1,
            ..BatchScript::default()
        });
        api.set_faults(Faults {
            failing_looks: 2,
            failing_downloads: 1,
            failure,
            ..Faults::default()
        });
        let ws = Workspace::sample();
        let out = batch_run(&ws, &srv, &[]);
        common::assert_success(&out, &[&format!("run --batch ({failure:?})")]);
        assert_eq!(summary(&out)["verdicts"], 15);
        assert_eq!(api.created().len(), 1);
        assert_eq!(direct_requests(&srv), 0);
        assert!(
            text(&out.stderr).contains("trying again in"),
            "{}",
            text(&out.stderr)
        );
    }
}

/// A 503, a 429 or a dropped connection on the upload of the request file
/// is tried again: the run goes on to one batch and every verdict. One 503
/// used to end the run before any batch was made.
#[test]
fn a_failing_upload_is_tried_again_and_one_batch_is_made() {
    for failure in [Failure::Unavailable, Failure::TooMany, Failure::Dropped] {
        let (srv, api) = batch_server(BatchScript::default());
        api.set_faults(Faults {
            failing_uploads: 2,
            failure,
            ..Faults::default()
        });
        let ws = Workspace::sample();
        let out = batch_run(&ws, &srv, &[]);
        common::assert_success(&out, &[&format!("run --batch (upload {failure:?})")]);
        assert_eq!(summary(&out)["verdicts"], 15);
        assert_eq!(api.created().len(), 1, "one batch");
        assert_eq!(
            super::batch_runs::uploads(&srv),
            3,
            "two failed uploads, then one"
        );
        assert_eq!(direct_requests(&srv), 0);
        let err = text(&out.stderr);
        assert!(err.contains("trying the upload again in"), "{err}");
    }
}

/// A failure that waiting does not fix (here a redirect to another origin
/// on the status poll, never followed) ends the wait with the batch left
/// running and how to resume; the resume reads the same batch.
#[test]
fn a_lasting_failure_leaves_the_batch_running_and_resume_reads_it() {
    let elsewhere = common::ServerRt::demo();
    let (srv, api) = batch_server(BatchScript::default());
    api.set_faults(Faults {
        redirect: Some((Call::Look, format!("{}/batches/x", elsewhere.url()))),
        ..Faults::default()
    });
    let ws = Workspace::sample();
    let out = batch_run(&ws, &srv, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let note = summary(&out)["note"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(note.contains("does not follow"), "{note}");
    assert!(
        note.contains("left running on the server") && note.contains("--batch --resume"),
        "{note}"
    );
    assert!(elsewhere.server.requests().is_empty(), "not followed");

    api.set_faults(Faults::default());
    let out = batch_run(&ws, &srv, &["--resume"]);
    common::assert_success(&out, &["run --batch --resume"]);
    assert_eq!(api.created().len(), 1, "the same batch");
    assert_eq!(verdicts(&ws).len(), 15);
    assert_eq!(direct_requests(&srv), 0);
}

/// A 307 to another port on the upload is not followed: the request file
/// never reaches the other server, and the run says why.
#[test]
fn a_redirect_on_upload_sends_nothing_elsewhere() {
    let elsewhere = common::ServerRt::demo();
    let (srv, api) = batch_server(BatchScript::default());
    api.set_faults(Faults {
        redirect: Some((Call::Upload, format!("{}/files", elsewhere.url()))),
        ..Faults::default()
    });
    let ws = Workspace::sample();
    let out = batch_run(&ws, &srv, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        summary(&out)["note"]
            .as_str()
            .is_some_and(|n| n.contains("does not follow")),
        "{}",
        text(&out.stdout)
    );
    assert!(
        elsewhere.server.requests().is_empty(),
        "nothing re-sent there"
    );
    assert!(api.created().is_empty());
}

/// A batch that says `completed` without an output file, or with counts
/// that do not add up, is looked at again and reported; nothing is sent
/// again (it used to go out in two follow-up batches, paid again).
#[test]
fn a_completed_batch_that_does_not_add_up_is_reported_not_sent_again() {
    for faults in [
        Faults {
            completed_without_output: true,
            ..Faults::default()
        },
        Faults {
            counts_off: true,
            ..Faults::default()
        },
    ] {
        let (srv, api) = batch_server(BatchScript::default());
        api.set_faults(faults.clone());
        let ws = Workspace::sample();
        let out = batch_run(&ws, &srv, &[]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{faults:?}: {}",
            text(&out.stderr)
        );
        let note = summary(&out)["note"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(
            note.contains("says it is completed, but") && note.contains("--resume"),
            "{note}"
        );
        assert_eq!(api.created().len(), 1, "{faults:?}: nothing sent again");
        assert_eq!(direct_requests(&srv), 0);
        assert_eq!(ws.store().failures(None).expect("failures").len(), 0);
    }
}

/// SIGTERM with `--batch-on-interrupt cancel` while the server never
/// answers the cancel: jury gives up on it within seconds and leaves the
/// batch, saying it may still be running (it used to wait for the HTTP
/// timeout, ten minutes).
#[test]
fn a_cancel_on_sigterm_that_hangs_leaves_the_batch() {
    let (srv, api) = batch_server(BatchScript {
        polls_in_progress: 100_000,
        ..BatchScript::default()
    });
    api.set_faults(Faults {
        cancel_delay: Some(std::time::Duration::from_secs(3600)),
        ..Faults::default()
    });
    let ws = Workspace::sample();
    let mut child = spawn_batch_run(&ws, &srv, &["--batch-on-interrupt", "cancel"]);
    wait_while_running(&mut child, "the batch was looked at", || {
        looked_at_a_batch(&srv)
    });
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill -TERM");
    assert!(sent.success());
    // Generous: the old code waited ten minutes for the cancel's answer.
    let start = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > std::time::Duration::from_secs(120) {
            let _ = child.kill();
            panic!("jury still waits for the cancel after two minutes");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("jury");
    let note = summary(&out)["note"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        note.contains("cancelling failed") && note.contains("may still be running"),
        "{note}"
    );
    assert_eq!(api.created().len(), 1);
    assert_eq!(downloads(&srv), 0);
    assert_eq!(run_record(&ws)["status"], "cancelled");
}

/// Measurement, not a check (`cargo test --test cli -- --ignored
/// a_large_output_file`): the peak memory of `jury run --batch` whose
/// output file carries a 300 MB line, read through `/usr/bin/time`. The
/// file goes to disk and is read a line at a time (an overlong line is
/// skipped as it is read), so the peak stays far below the file's size.
#[test]
#[ignore]
fn a_large_output_file_is_read_in_bounded_memory() {
    let (srv, api) = batch_server(BatchScript::default());
    api.set_faults(Faults {
        output_padding: 300 << 20,
        ..Faults::default()
    });
    let ws = Workspace::sample();
    let jury = ws.cmd().get_program().to_owned();
    let out = std::process::Command::new("/usr/bin/time")
        .args(["-f", "peak-rss-kb %M"])
        .arg(jury)
        .envs(ws.cmd().get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
        .env("OPENAI_BASE_URL", srv.url())
        .args(common::RUN_AS_KENTON)
        .args([
            "--mode",
            "1",
            "--items",
            super::batch_runs::ITEMS,
            "--batch-size",
            "2",
        ])
        .args(["--batch", "--batch-poll", "1", "--json"])
        .output()
        .expect("time jury");
    let err = text(&out.stderr);
    let peak = err
        .lines()
        .find_map(|l| l.strip_prefix("peak-rss-kb "))
        .unwrap_or("?");
    eprintln!("peak RSS with a 300 MB output file: {peak} kB");
    assert!(out.status.success(), "{err}");
}
