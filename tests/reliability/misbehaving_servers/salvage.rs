//! Answers cut off half-way (§2) and a context overflow (§13.5): complete
//! entries are kept, only the rest is asked for again, in smaller batches.

use super::*;

fn entries_asked(reqs: &[RecordedRequest]) -> usize {
    reqs.iter()
        .filter(|r| r.method == "POST")
        .map(|r| asked_keys(r).len())
        .sum()
}

// ---- 2. salvage from cut-off answers ----------------------------------------

/// 30 % of answers cut at half length: every entry complete before the cut
/// is kept, only the rest is asked for again (whole-batch retry measured 1.55).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cut_off_answers_keep_complete_entries_and_ask_only_for_the_rest() {
    let (_dir, db) = store_with(100, 3);
    let server = TestServer::start(|r| {
        if r.seq % 10 < 3 {
            cut(r, 0.5)
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    })
    .await
    .unwrap();
    let (outcome, _) = run(config(&db, server.base_url()), request(Mode::Two, 10, 4)).await;
    assert_eq!(outcome.status, RunStatus::Done, "{:?}", outcome.note);
    // A batch cut at every one of its 3 attempts may still lack a few.
    assert!(outcome.progress.verdicts >= 290, "{:?}", outcome.progress);
    assert_eq!(outcome.progress.verdicts + outcome.progress.failed, 300);
    let asked = entries_asked(&server.requests());
    let ratio = asked as f64 / 300.0;
    assert!(
        ratio <= 1.3,
        "entries requested / needed = {ratio:.3} ({asked} for 300)"
    );
    let store = Store::open(&db).unwrap();
    let failures = store.failures(Some(outcome.run_id)).unwrap();
    assert!(!failures.is_empty());
    for f in &failures {
        assert_eq!(f.kind, FailureKind::Truncated);
        assert!(
            f.reason.contains("arrived complete and were kept"),
            "{}",
            f.reason
        );
        // The record lists only what is asked for again, never a kept entry.
        assert!(f.keys.len() < 10, "{:?}", f.keys);
    }
}

/// Every attempt cut: what arrived complete is still kept (was: nothing).
/// Attempts that keep new entries are free; the ones that keep nothing (a
/// lone entry cut before its end) use up the allowance, and the total is
/// bounded by the allowance plus the batch's size.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_every_attempt_is_cut_the_complete_entries_are_still_kept() {
    let (_dir, db) = store_with(4, 3);
    let server = TestServer::start(|r| cut(r, 0.7)).await.unwrap();
    let (outcome, _) = run(config(&db, server.base_url()), request(Mode::Two, 12, 1)).await;
    let reqs = server.requests();
    assert!(reqs.len() <= 12 + 3, "{} requests", reqs.len());
    assert!(outcome.progress.verdicts >= 10, "{:?}", outcome.progress);
    // Each retry asks only for what is still missing.
    for pair in reqs.windows(2) {
        let (before, after): (HashSet<_>, HashSet<_>) = (
            asked_keys(&pair[0]).into_iter().collect(),
            asked_keys(&pair[1]).into_iter().collect(),
        );
        assert!(after.is_subset(&before));
    }
    // The last three kept nothing (the same entry, asked three times).
    let last: Vec<HashSet<_>> = reqs[reqs.len() - 3..]
        .iter()
        .map(|r| asked_keys(r).into_iter().collect())
        .collect();
    assert!(last[0] == last[1] && last[1] == last[2], "{last:?}");
    let judged: HashSet<_> = Store::open(&db)
        .unwrap()
        .verdicts_for_run(outcome.run_id)
        .unwrap()
        .into_iter()
        .map(|v| v.key)
        .collect();
    assert_eq!(judged.len() as u64, outcome.progress.verdicts);
    assert_eq!(judged.len() + last[2].len(), 12);
}

/// Answers cut half-way whenever more than two entries are asked for: every
/// attempt delivers new entries, so the batch goes on past `max_attempts`
/// until all are judged (was: three attempts, then 2 of 10 without a verdict).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attempts_that_deliver_new_entries_do_not_use_up_the_allowance() {
    let (_dir, db) = store_with(10, 1);
    let server = TestServer::start(|r| {
        if asked_keys(r).len() > 2 {
            cut(r, 0.5)
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    })
    .await
    .unwrap();
    let (outcome, _) = run(config(&db, server.base_url()), request(Mode::Two, 10, 1)).await;
    let reqs = server.requests();
    assert_eq!(outcome.status, RunStatus::Done, "{:?}", outcome.note);
    assert_eq!(
        (outcome.progress.verdicts, outcome.progress.failed),
        (10, 0),
        "{} requests",
        reqs.len()
    );
    assert!(reqs.len() > 3 && reqs.len() <= 10 + 3, "{}", reqs.len());
}

/// `finish_reason: length` keeps the complete entries and asks for the rest
/// in smaller requests; `max_tokens` is sized to the batch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_length_cut_keeps_complete_entries_and_asks_again_in_smaller_batches() {
    let (_dir, db) = store_with(4, 2);
    let server = TestServer::start(|r| {
        let args = correct_args(r);
        let half: String = args.chars().take(args.chars().count() * 6 / 10).collect();
        if asked_keys(r).len() > 2 {
            Reply::ToolCall {
                name: "get_evaluations".into(),
                arguments: half,
                chunk: 30,
                finish: Some("length".into()),
                usage: Some((100, 50)),
            }
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    })
    .await
    .unwrap();
    let (outcome, _) = run(config(&db, server.base_url()), request(Mode::Two, 8, 1)).await;
    assert_eq!(outcome.progress.verdicts, 8, "{:?}", outcome.note);
    let reqs = server.requests();
    assert_eq!(reqs[0].body["max_tokens"], json!(200 + 300 * 8));
    let sizes: Vec<usize> = reqs.iter().map(|r| asked_keys(r).len()).collect();
    assert_eq!(sizes[0], 8);
    assert!(sizes[1..].iter().all(|n| *n < 8), "{sizes:?}");
    let store = Store::open(&db).unwrap();
    let failures = store.failures(Some(outcome.run_id)).unwrap();
    assert_eq!(failures[0].kind, FailureKind::Length);
    assert!(
        failures[0].reason.contains("max_tokens 2600"),
        "{}",
        failures[0].reason
    );
}

// ---- 13.5 context overflow -----------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_context_overflow_splits_the_batch_and_is_never_resent_as_is() {
    let (_dir, db) = store_with(4, 2);
    let overflow = json!({"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error"}});
    let o2 = overflow.clone();
    let server = TestServer::start(move |r| {
        if asked_keys(r).len() > 2 {
            status(400, &[], o2.clone())
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    })
    .await
    .unwrap();
    let (outcome, _) = run(config(&db, server.base_url()), request(Mode::Two, 8, 1)).await;
    assert_eq!(outcome.status, RunStatus::Done);
    assert_eq!(outcome.progress.verdicts, 8);
    let asked: Vec<Vec<_>> = server.requests().iter().map(asked_keys).collect();
    let sizes: Vec<usize> = asked.iter().map(Vec::len).collect();
    assert_eq!(sizes, vec![8, 4, 2, 2, 4, 2, 2], "halves until it fits");
    let distinct: HashSet<_> = asked.iter().collect();
    assert_eq!(distinct.len(), asked.len(), "no request was sent twice");

    // One entry that cannot fit is a failure that says so.
    let (_dir2, db2) = store_with(1, 1);
    let server = TestServer::start(move |_| status(400, &[], overflow.clone()))
        .await
        .unwrap();
    let (outcome, _) = run(config(&db2, server.base_url()), request(Mode::Two, 8, 1)).await;
    assert_eq!(server.request_count(), 1);
    assert_eq!(outcome.progress.verdicts, 0);
    let f = Store::open(&db2)
        .unwrap()
        .failures(Some(outcome.run_id))
        .unwrap();
    assert!(f[0].reason.contains("does not fit"), "{}", f[0].reason);
}
