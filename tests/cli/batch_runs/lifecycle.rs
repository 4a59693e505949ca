//! A batch run from start to end: verdicts as a streamed run's, an expired
//! batch and its follow-up, kill -9 while a batch is in flight and the resume
//! that waits for the same batch.

use super::*;

#[test]
fn a_batch_run_gives_the_verdicts_of_a_streamed_run() {
    let (srv, api) = batch_server(BatchScript {
        polls_in_progress: 1,
        ..BatchScript::default()
    });
    let ws = Workspace::sample();
    let out = batch_run(&ws, &srv, &[]);
    common::assert_success(&out, &["run --batch"]);
    let s = summary(&out);
    assert_eq!(s["status"], "done", "{s}");
    assert_eq!(s["verdicts"], 15, "three items × five classifications: {s}");
    assert_eq!(api.created().len(), 1);
    assert_eq!(
        direct_requests(&srv),
        0,
        "a batch run sends nothing directly"
    );
    // Every line of the uploaded file is a non-streamed chat request.
    let uploaded = srv
        .server
        .requests()
        .into_iter()
        .find(|r| r.path.ends_with("/files"))
        .expect("an upload");
    assert!(
        uploaded
            .header("content-type")
            .is_some_and(|c| c.starts_with("multipart/form-data"))
    );

    let streamed = Workspace::sample();
    let srv2 = ServerRt::demo();
    let out = streamed.judge(
        &srv2.url(),
        None,
        &[
            "--mode",
            "1",
            "--items",
            ITEMS,
            "--batch-size",
            "2",
            "--json",
        ],
    );
    common::assert_success(&out, &["run"]);
    assert_eq!(verdicts(&ws), verdicts(&streamed));
    // Its tokens at the batch price: half the model's (gpt-4o-mini, $0.15
    // and $0.60 per million).
    let tokens = |k: &str| s[k].as_f64().expect("tokens");
    let half = (tokens("prompt_tokens") * 0.15 + tokens("completion_tokens") * 0.60) / 2e6;
    let cost = s["cost_usd"].as_f64().expect("a batch cost");
    assert!(
        half > 0.0 && (cost - half).abs() < 1e-12,
        "{cost} vs {half}"
    );

    // `jury runs` says how the batch went.
    let runs = ws.ok(&["runs"]);
    assert!(
        runs.contains("batch batch_")
            && runs.contains("completed, 2/2 answered, 0 failed; answers read"),
        "{runs}"
    );
}

#[test]
fn an_expired_batch_keeps_what_came_and_resume_completes_it() {
    let (srv, api) = batch_server(BatchScript {
        expire_after: Some(1),
        expire_first_only: true,
        ..BatchScript::default()
    });
    let ws = Workspace::sample();
    // One batch only: no follow-up batch asks for what it left.
    let out = batch_run(&ws, &srv, &["--max-attempts", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let s = summary(&out);
    // The first request (two items) was answered before the batch expired.
    assert_eq!(s["verdicts"], 10, "{s}");
    assert_eq!(s["failed"], 5, "{s}");
    let failures = ws.store().failures(None).expect("failures");
    assert!(
        failures.iter().any(|f| f.reason.contains("batch_expired")),
        "{failures:?}"
    );

    let out = batch_run(&ws, &srv, &["--resume"]);
    common::assert_success(&out, &["run --batch --resume"]);
    let s = summary(&out);
    assert_eq!(
        s["verdicts"], 5,
        "only the missing item is asked again: {s}"
    );
    assert_eq!(api.created().len(), 2);
    assert_eq!(verdicts(&ws).len(), 15);
    assert_eq!(direct_requests(&srv), 0);
}

#[test]
fn kill_9_while_the_batch_is_in_flight_then_resume_waits_for_the_same_batch() {
    let (srv, api) = batch_server(BatchScript {
        polls_in_progress: 3,
        ..BatchScript::default()
    });
    let ws = Workspace::sample();
    let mut child = spawn_batch_run(&ws, &srv, &[]);
    wait_while_running(&mut child, "the batch was looked at", || {
        looked_at_a_batch(&srv)
    });
    child.kill().expect("kill -9");
    let _ = child.wait();
    assert_eq!(api.created().len(), 1);

    let out = batch_run(&ws, &srv, &["--resume"]);
    common::assert_success(&out, &["run --batch --resume"]);
    let s = summary(&out);
    assert_eq!(s["verdicts"], 15, "{s}");
    assert_eq!(
        api.created().len(),
        1,
        "the open batch is waited for, not sent again"
    );
    assert_eq!(uploads(&srv), 1, "one upload");
    assert_eq!(direct_requests(&srv), 0);
    assert_eq!(verdicts(&ws).len(), 15);
}

/// What an expired batch left unanswered goes out again in a follow-up
/// batch of the same run (no direct request, nothing asked twice), and the
/// run ends with every verdict.
#[test]
fn an_expired_batch_is_followed_up_by_a_batch_of_what_it_left() {
    let (srv, api) = batch_server(BatchScript {
        expire_after: Some(1),
        expire_first_only: true,
        ..BatchScript::default()
    });
    let ws = Workspace::sample();
    let out = batch_run(&ws, &srv, &[]);
    common::assert_success(&out, &["run --batch (an expiring first batch)"]);
    let s = summary(&out);
    assert_eq!(s["verdicts"], 15, "{s}");
    assert_eq!(s["failed"], 0, "{s}");
    assert!(
        text(&out.stderr).contains("in a follow-up batch (attempt 2 of 3)"),
        "{}",
        text(&out.stderr)
    );
    let created = api.created();
    assert_eq!(created.len(), 2, "the batch and one follow-up");
    assert_eq!(direct_requests(&srv), 0);
    assert_eq!(verdicts(&ws).len(), 15);
    // The follow-up asked only for what the first left: one request of two
    // items' entries, under a new custom id.
    let batches =
        serde_json::from_str::<Value>(&ws.ok(&["runs", "--json"])).expect("runs")[0]["batches"]
            .clone();
    assert_eq!(batches.as_array().map(Vec::len), Some(2), "{batches}");
    assert_eq!(batches[1]["request_counts"]["total"], 1, "{batches}");
}

/// kill -9 while the follow-up batch is in flight: `--resume` waits for
/// that follow-up (nothing is uploaded or created again) and completes the run.
#[test]
fn kill_9_during_a_follow_up_batch_then_resume_waits_for_it() {
    let (srv, api) = batch_server(BatchScript {
        expire_after: Some(1),
        expire_first_only: true,
        polls_in_progress: 3,
    });
    let ws = Workspace::sample();
    let mut child = spawn_batch_run(&ws, &srv, &[]);
    // Killed once it has looked at the follow-up batch: it is waiting on it.
    wait_while_running(&mut child, "the follow-up batch was looked at", || {
        api.created().len() == 2
            && srv.server.requests().iter().any(|r| {
                r.method == "GET" && api.created().get(1).is_some_and(|id| r.path.ends_with(id))
            })
    });
    child.kill().expect("kill -9");
    let _ = child.wait();
    assert_eq!(uploads(&srv), 2);

    let out = batch_run(&ws, &srv, &["--resume"]);
    common::assert_success(&out, &["run --batch --resume"]);
    // The answered lines of the first batch are not failures of the resume.
    assert_eq!(summary(&out)["failure_records"], 0, "{}", text(&out.stdout));
    let failures = ws.store().failures(None).expect("failures");
    assert!(failures.is_empty(), "{failures:?}");
    assert_eq!(
        api.created().len(),
        2,
        "the follow-up is waited for, not sent again"
    );
    assert_eq!(uploads(&srv), 2, "nothing uploaded again");
    assert_eq!(direct_requests(&srv), 0);
    assert_eq!(verdicts(&ws).len(), 15);
}
