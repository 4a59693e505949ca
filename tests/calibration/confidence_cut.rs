//! Verdicts kept from an answer cut off before its end (finish reason
//! `length`, a connection closed early, jury's idle timeout) carry the
//! confidence a whole answer with the same tokens gives them; a kept entry
//! whose value's token came without its probabilities has none.
#![cfg(feature = "tui")]

use crate::common::{self, ServerRt, Workspace};
use jury::provider::logprobs::TokenLogprob;
use jury::testserver::{Ending, RecordedRequest, Reply, demo_judge};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Five combinations, asked in one request.
const ITEMS: usize = 5;

/// The demo judge's tokens for `req`: its answer, each value's first token
/// with its alternatives.
fn judge_tokens(req: &RecordedRequest) -> Vec<TokenLogprob> {
    match demo_judge::reply(req, Duration::ZERO) {
        Reply::Logprobs { tokens, .. } => tokens,
        other => panic!("the demo judge did not answer with token probabilities: {other:?}"),
    }
}

/// How many of `tokens` spell the answer into its fourth entry: three
/// entries complete, the fourth begun.
fn into_fourth_entry(tokens: &[TokenLogprob]) -> usize {
    let mut text = String::new();
    for (n, t) in tokens.iter().enumerate() {
        text.push_str(&t.token);
        if text.matches("\"itemId\"").count() == 4 {
            return n + 1;
        }
    }
    panic!("the answer has fewer than four entries: {text}");
}

/// Where the `n`-th value's token (0-based) is: the tokens that carry
/// alternatives.
fn value_token(tokens: &[TokenLogprob], n: usize) -> usize {
    tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.top.len() > 1)
        .nth(n)
        .map(|(i, _)| i)
        .expect("a value token")
}

/// The item of each of the first three entries of the demo judge's whole
/// answer to `req`.
fn first_three_items(req: &RecordedRequest) -> Vec<String> {
    let text: String = judge_tokens(req).iter().map(|t| t.token.as_str()).collect();
    let v: Value = serde_json::from_str(&text).expect("the whole answer is JSON");
    v["resultItems"]
        .as_array()
        .expect("resultItems")
        .iter()
        .take(3)
        .map(|e| e["id"]["itemId"].as_str().expect("itemId").to_string())
        .collect()
}

fn run_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec![
        "run",
        "--persona",
        "tester",
        "--perspective",
        "classification",
        "--mode",
        "3",
        "--confidence",
        "logprobs",
    ];
    a.extend_from_slice(extra);
    a
}

/// Each verdict's confidence by item (None: stored without one), and the
/// failures' reasons.
fn confidences(ws: &Workspace) -> (HashMap<String, Option<f64>>, Vec<String>) {
    let rows = ws.export_rows();
    let sure = rows
        .iter()
        .filter(|r| r["kind"] == "verdict")
        .map(|r| {
            (
                r["item_id"].as_str().expect("item_id").to_string(),
                r["confidence"].as_f64(),
            )
        })
        .collect();
    let failures = rows
        .iter()
        .filter(|r| r["kind"] == "failure")
        .map(|r| r["reason"].as_str().expect("reason").to_string())
        .collect();
    (sure, failures)
}

/// What one run through the binary gave: the first request, the requests
/// after it, the confidences, the failures' reasons.
struct Ran {
    first: RecordedRequest,
    later: Vec<RecordedRequest>,
    confidence: HashMap<String, Option<f64>>,
    failures: Vec<String>,
}

/// A run whose first answer is `first(tokens)` (the demo judge's tokens for
/// it), every later one the demo judge's whole answer.
fn run(extra: &[&str], first: impl Fn(Vec<TokenLogprob>) -> Reply + Send + Sync + 'static) -> Ran {
    let ws = common::generated_workspace(ITEMS, 1);
    let posts = AtomicUsize::new(0);
    let srv = ServerRt::start(move |r| {
        if r.method == "POST" && posts.fetch_add(1, Ordering::SeqCst) == 0 {
            return first(judge_tokens(r));
        }
        demo_judge::reply(r, Duration::ZERO)
    });
    let out = ws.run_with(&srv.url(), &run_args(extra));
    common::assert_success(&out, extra);
    let mut asked = srv.completions().into_iter();
    let first = asked.next().expect("a request");
    let (confidence, failures) = confidences(&ws);
    Ran {
        first,
        later: asked.collect(),
        confidence,
        failures,
    }
}

/// Runs with the first answer cut as `cut` makes it and with the whole
/// answer, and checks that the same request was sent, that the cut's
/// failure names `cause` and the three entries complete before it, which
/// were kept (never asked again); returns their confidences: (item, cut,
/// whole).
fn cut_and_whole(
    extra: &[&str],
    cause: &str,
    cut: impl Fn(Vec<TokenLogprob>) -> Reply + Send + Sync + 'static,
) -> Vec<(String, Option<f64>, f64)> {
    let whole = run(extra, Reply::logprobs);
    let got = run(extra, cut);
    // The same entries asked in the same order (the boundary markers differ).
    assert!(
        judge_tokens(&got.first) == judge_tokens(&whole.first),
        "both first answers are spelled by the same tokens"
    );
    assert_eq!(common::asked_keys(&got.first).len(), ITEMS);
    assert!(whole.failures.is_empty(), "{:?}", whole.failures);
    assert!(
        got.failures
            .iter()
            .any(|r| r.contains(cause)
                && r.contains("3 of 5 entries arrived complete and were kept")),
        "{cause}: {:?}",
        got.failures
    );
    let kept = first_three_items(&got.first);
    for r in &got.later {
        for k in common::asked_keys(r) {
            assert!(
                !kept.contains(&k.item_id),
                "{} was kept from the cut answer, yet asked again",
                k.item_id
            );
        }
    }
    assert_eq!(got.confidence.len(), ITEMS, "{:?}", got.confidence);
    kept.into_iter()
        .map(|item| {
            let w = whole.confidence[&item].expect("the whole answer's verdict has a confidence");
            assert!(w > 0.0 && w <= 1.0, "{item}: {w}");
            (item.clone(), got.confidence[&item], w)
        })
        .collect()
}

fn assert_same_as_whole(got: &[(String, Option<f64>, f64)]) {
    for (item, cut, whole) in got {
        assert_eq!(
            *cut,
            Some(*whole),
            "{item}: the cut answer's confidence against the whole one's"
        );
    }
}

#[test]
fn a_length_cut_keeps_each_complete_entrys_confidence() {
    for extra in [&[][..], &["--no-stream"][..]] {
        let got = cut_and_whole(extra, "max_tokens", |mut tokens| {
            tokens.truncate(into_fourth_entry(&tokens));
            Reply::Logprobs {
                tokens,
                with_probs: None,
                end: Ending::Finish("length".into()),
            }
        });
        assert_same_as_whole(&got);
    }
}

#[test]
fn a_stream_closed_early_keeps_each_complete_entrys_confidence() {
    let got = cut_and_whole(&[], "the server cut the answer off", |mut tokens| {
        tokens.truncate(into_fourth_entry(&tokens));
        Reply::Logprobs {
            tokens,
            with_probs: None,
            end: Ending::Closed,
        }
    });
    assert_same_as_whole(&got);
}

#[test]
fn an_answer_cut_by_the_idle_timeout_keeps_each_complete_entrys_confidence() {
    let idle = ["--idle-timeout", "0.5"];
    let got = cut_and_whole(&idle, "jury's idle timeout cut the answer", |mut tokens| {
        tokens.truncate(into_fourth_entry(&tokens));
        Reply::Logprobs {
            tokens,
            with_probs: None,
            // Far past the idle timeout: jury cuts it, not the server.
            end: Ending::Stalled(Duration::from_secs(300)),
        }
    });
    assert_same_as_whole(&got);
}

#[test]
fn a_kept_entry_whose_value_came_without_probabilities_has_no_confidence() {
    let got = cut_and_whole(&[], "the server cut the answer off", |mut tokens| {
        // The third entry's value and all after it as bare content.
        let with_probs = value_token(&tokens, 2);
        tokens.truncate(into_fourth_entry(&tokens));
        Reply::Logprobs {
            tokens,
            with_probs: Some(with_probs),
            end: Ending::Closed,
        }
    });
    assert_same_as_whole(&got[..2]);
    let (item, cut, _) = &got[2];
    assert_eq!(*cut, None, "{item}: no probabilities arrived for its value");
}
