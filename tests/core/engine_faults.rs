//! The engine (library API) against a fake server that misbehaves: malformed
//! arguments, truncated streams, out-of-range and missing entries, 429/500,
//! `finish_reason: length`, refusals, quota exhaustion and cancellation.

use crate::common;

use jury::domain::{ComboKey, FailureKind, Mode, RunStatus};
use jury::engine::{EngineEvent, spawn_run};
use jury::store::Store;
use jury::testserver::{RecordedRequest, Reply, TestServer, demo_judge};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::time::Duration;

use common::{asked_keys, config, correct_args, request, run, store_with};

/// Correct arguments with the first entry's Likert set to 7 and the second removed.
fn partly_bad(req: &RecordedRequest) -> String {
    let mut v: Value = serde_json::from_str(&correct_args(req)).unwrap();
    let list = v["resultItems"].as_array_mut().unwrap();
    list[0]["evaluationLikert"] = json!(7);
    if list.len() > 1 {
        list.remove(1);
    }
    v.to_string()
}

fn all_keys(store: &Store) -> HashSet<ComboKey> {
    store
        .items()
        .unwrap()
        .iter()
        .flat_map(|i| {
            i.classifications
                .iter()
                .map(move |c| ComboKey::new(&i.id, &c.id, "classification"))
        })
        .collect()
}

fn status_reply(code: u16, headers: &[(&str, &str)], body: Value) -> Reply {
    Reply::Status {
        code,
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        body: body.to_string(),
    }
}

/// The fault schedule, by request sequence number modulo 33 (so every kind
/// happens at least twice in the first 66 requests): 3 % malformed JSON
/// arguments, 3 % truncated streams, 3 % a Likert 7 plus a missing entry,
/// 6 % 429 with `retry-after: 0`, 3 % 500; the rest answered correctly.
fn faulty(req: &RecordedRequest) -> Reply {
    match req.seq % 33 {
        5 => Reply::tool(
            "get_evaluations",
            "{\"resultItems\": [{\"id\": {\"itemId\": oops",
        ),
        12 => {
            let args = correct_args(req);
            Reply::Truncated {
                cut_at: args.len() / 2,
                arguments: args,
            }
        }
        19 => Reply::tool("get_evaluations", partly_bad(req)),
        8 | 25 => status_reply(
            429,
            &[("retry-after", "0")],
            json!({"error": {"message": "slow down", "type": "rate_limit_exceeded"}}),
        ),
        30 => status_reply(
            500,
            &[],
            json!({"error": {"message": "boom", "type": "server_error"}}),
        ),
        _ => demo_judge::reply(req, Duration::ZERO),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_leave_valid_verdicts_once_and_record_the_rest() {
    let (_dir, db) = store_with(200, 3);
    let server = TestServer::start(faulty).await.unwrap();
    let (outcome, events) = run(config(&db, server.base_url()), request(Mode::Two, 10, 4)).await;

    assert!(
        matches!(events.last(), Some(EngineEvent::RunFinished { .. })),
        "last event: {:?}",
        events.last()
    );
    assert_eq!(outcome.status, RunStatus::Done, "{:?}", outcome.note);
    let store = Store::open(&db).unwrap();
    let wanted = all_keys(&store);
    assert_eq!(wanted.len(), 600);
    let verdicts = store.verdicts_for_run(outcome.run_id).unwrap();
    let got: HashSet<ComboKey> = verdicts.iter().map(|v| v.key.clone()).collect();
    assert_eq!(got.len(), verdicts.len(), "a combination has two verdicts");
    assert!(got.is_subset(&wanted));
    assert!(
        got.len() * 100 >= wanted.len() * 99,
        "only {} of {} verdicts",
        got.len(),
        wanted.len()
    );
    for v in &verdicts {
        assert!(
            matches!(v.value, jury::domain::Value::Likert(1..=5)),
            "{v:?}"
        );
        assert!(!v.text.is_empty());
    }
    let failures = store.failures(Some(outcome.run_id)).unwrap();
    let failed_keys: HashSet<&ComboKey> = failures.iter().flat_map(|f| f.keys.iter()).collect();
    for k in wanted.difference(&got) {
        assert!(
            failed_keys.contains(k),
            "{k:?} has neither a verdict nor a failure"
        );
    }
    let kinds: Vec<FailureKind> = failures.iter().map(|f| f.kind).collect();
    assert!(kinds.contains(&FailureKind::Malformed), "{kinds:?}");
    assert!(kinds.contains(&FailureKind::Invalid), "{kinds:?}");
    for f in failures.iter().filter(|f| f.kind == FailureKind::Malformed) {
        assert!(
            f.raw_response.contains("oops"),
            "the raw answer is kept: {f:?}"
        );
    }
    // Every fault kind was really served, and retried.
    let reqs = server.requests();
    assert!(reqs.len() >= 66, "only {} requests", reqs.len());
    let verdict_events = events
        .iter()
        .filter(|e| matches!(e, EngineEvent::Verdict { .. }))
        .count();
    assert_eq!(verdict_events, verdicts.len(), "events and store disagree");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, EngineEvent::Retrying { .. })),
        "no retry event for the 429/500/truncation"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partly_bad_answer_keeps_its_verdicts_and_retries_only_the_missing() {
    let (_dir, db) = store_with(4, 3);
    let server = TestServer::start(|r| {
        if r.seq == 0 {
            Reply::tool("get_evaluations", partly_bad(r))
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    })
    .await
    .unwrap();
    let (outcome, _) = run(config(&db, server.base_url()), request(Mode::Two, 12, 1)).await;
    assert_eq!(outcome.status, RunStatus::Done);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let first = asked_keys(&reqs[0]);
    let retry = asked_keys(&reqs[1]);
    assert_eq!(first.len(), 12);
    assert_eq!(
        retry,
        first[..2].to_vec(),
        "the retry must ask for exactly the Likert-7 entry and the missing one"
    );
    let store = Store::open(&db).unwrap();
    let verdicts = store.verdicts_for_run(outcome.run_id).unwrap();
    assert_eq!(verdicts.len(), 12);
    let failures = store.failures(Some(outcome.run_id)).unwrap();
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].kind, FailureKind::Invalid);
    assert_eq!(failures[0].keys, first[..2].to_vec());
    assert!(
        failures[0].reason.contains("likert") || failures[0].reason.contains("Likert"),
        "{}",
        failures[0].reason
    );
    assert!(
        failures[0]
            .reason
            .contains("no answer for this combination"),
        "{}",
        failures[0].reason
    );
    // The 10 valid ones came from the first answer (same request latency group).
    let by_key: HashMap<&ComboKey, _> = verdicts.iter().map(|v| (&v.key, v)).collect();
    for k in &first[2..] {
        assert!(by_key.contains_key(k));
    }
}

async fn never_scored(reply: fn(&RecordedRequest) -> Reply, kind: FailureKind) {
    let (_dir, db) = store_with(2, 3);
    let server = TestServer::start(reply).await.unwrap();
    let (outcome, events) = run(config(&db, server.base_url()), request(Mode::Two, 6, 1)).await;
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, EngineEvent::Verdict { .. })),
        "{kind:?} was scored"
    );
    let store = Store::open(&db).unwrap();
    assert!(
        store.verdicts_for_run(outcome.run_id).unwrap().is_empty(),
        "{kind:?} was stored as a verdict"
    );
    let failures = store.failures(Some(outcome.run_id)).unwrap();
    assert!(!failures.is_empty());
    assert!(
        failures.iter().all(|f| f.kind == kind),
        "{:?}",
        failures.iter().map(|f| f.kind).collect::<Vec<_>>()
    );
    let covered: HashSet<&ComboKey> = failures.iter().flat_map(|f| &f.keys).collect();
    assert_eq!(
        covered.len(),
        6,
        "every combination has its {kind:?} failure"
    );
    assert_eq!(outcome.progress.failed, 6);
    assert_eq!(outcome.progress.verdicts, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn content_filter_and_refusals_are_failures_of_their_own() {
    // (A `length` cut keeps its complete entries: tests/reliability/misbehaving_servers.rs.)
    never_scored(
        |r| Reply::ToolCall {
            name: "get_evaluations".into(),
            arguments: correct_args(r),
            chunk: 40,
            finish: Some("content_filter".into()),
            usage: Some((10, 10)),
        },
        FailureKind::ContentFilter,
    )
    .await;
    never_scored(
        |_| Reply::Refusal {
            text: "I cannot help with evaluating this.".into(),
        },
        FailureKind::Refusal,
    )
    .await;
}

fn quota_after_two(r: &RecordedRequest) -> Reply {
    if r.seq < 2 {
        demo_judge::reply(r, Duration::ZERO)
    } else {
        status_reply(
            429,
            &[("retry-after", "0")],
            json!({"error": {"message": "You exceeded your current quota.", "type": "insufficient_quota", "code": "insufficient_quota"}}),
        )
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insufficient_quota_stops_quickly_and_resume_completes_the_rest() {
    let (_dir, db) = store_with(40, 3);
    let server = TestServer::start(quota_after_two).await.unwrap();
    let (outcome, events) = run(config(&db, server.base_url()), request(Mode::Two, 10, 2)).await;
    assert_eq!(outcome.status, RunStatus::Failed);
    let note = outcome.note.clone().unwrap_or_default();
    assert!(note.contains("quota"), "{note}");
    match events.last() {
        Some(EngineEvent::RunFinished { note: Some(n), .. }) => assert!(n.contains("quota")),
        other => panic!("{other:?}"),
    }
    let quota_answers = server.request_count() - 2;
    assert!(
        quota_answers <= 2,
        "a retry storm: {quota_answers} requests after the quota ran out (12 batches)"
    );
    let store = Store::open(&db).unwrap();
    let first: Vec<ComboKey> = store
        .verdicts_for_run(outcome.run_id)
        .unwrap()
        .into_iter()
        .map(|v| v.key)
        .collect();
    assert_eq!(first.len(), 20, "the two answered batches are kept");
    assert_eq!(
        store.run(outcome.run_id).unwrap().unwrap().status,
        RunStatus::Failed
    );

    // Credit added: resume asks only for the rest.
    let good = TestServer::start(|r| demo_judge::reply(r, Duration::ZERO))
        .await
        .unwrap();
    let mut req = request(Mode::Two, 10, 2);
    req.resume = true;
    let (second, events) = run(config(&db, good.base_url()), req).await;
    assert_eq!(second.status, RunStatus::Done);
    assert!(
        matches!(
            events.first(),
            Some(EngineEvent::RunStarted {
                total: 100,
                skipped: 20,
                ..
            })
        ),
        "{:?}",
        events.first()
    );
    assert_eq!(good.request_count(), 10);
    let rest: Vec<ComboKey> = store
        .verdicts_for_run(second.run_id)
        .unwrap()
        .into_iter()
        .map(|v| v.key)
        .collect();
    let mut union: HashSet<ComboKey> = first.iter().cloned().collect();
    for k in &rest {
        assert!(union.insert(k.clone()), "{k:?} judged again on resume");
    }
    assert_eq!(union, all_keys(&store));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_mid_run_keeps_what_arrived() {
    let (_dir, db) = store_with(30, 3);
    let server = TestServer::start(|r| demo_judge::reply(r, Duration::from_millis(40)))
        .await
        .unwrap();
    let mut h = spawn_run(config(&db, server.base_url()), request(Mode::Two, 3, 2));
    let mut verdict_events = 0;
    let mut finished = None;
    while let Some(e) = h.events.recv().await {
        match e {
            EngineEvent::Verdict { .. } => {
                verdict_events += 1;
                if verdict_events == 6 {
                    h.cancel.cancel();
                }
            }
            EngineEvent::RunFinished { status, note, .. } => finished = Some((status, note)),
            _ => {}
        }
    }
    let outcome = h.join.await.unwrap().unwrap();
    assert_eq!(outcome.status, RunStatus::Cancelled);
    assert_eq!(
        finished,
        Some((RunStatus::Cancelled, Some("cancelled".into())))
    );
    let store = Store::open(&db).unwrap();
    let kept = store.verdicts_for_run(outcome.run_id).unwrap();
    assert_eq!(
        kept.len(),
        verdict_events,
        "every verdict shown as saved is in the store"
    );
    assert!(
        kept.len() >= 6 && kept.len() < 90,
        "{} verdicts",
        kept.len()
    );
    assert_eq!(
        store.run(outcome.run_id).unwrap().unwrap().status,
        RunStatus::Cancelled
    );
    assert!(
        server.request_count() < 30,
        "the run kept sending after cancel: {}",
        server.request_count()
    );
}
