//! Position bias for mode 1: `--shuffle-seed` moves items between places in
//! their requests across repeat runs, every verdict records where its item
//! stood, and `jury report` says whether a verdict depends on it — for a
//! judge that favours the first item of each request, and not for one that
//! answers the same wherever the item stands.
#![cfg(feature = "tui")]

use crate::common;
use common::*;
use jury::protocol::awag::request::undelimit;
use jury::testserver::Reply;
use serde_json::Value;

/// The demo judge, but every classification of the request's first item gets
/// Likert 5 and every later item Likert 1.
fn favours_the_first(req: &jury::testserver::RecordedRequest) -> Reply {
    jury::testserver::demo_judge::reply(req, std::time::Duration::ZERO).reshaped(24, |args| {
        let mut a: Value = serde_json::from_str(&args).expect("demo judge JSON");
        for (i, item) in a["resultItems"]
            .as_array_mut()
            .into_iter()
            .flatten()
            .enumerate()
        {
            for e in item["evaluations"].as_array_mut().into_iter().flatten() {
                for p in e["perspectives"].as_array_mut().into_iter().flatten() {
                    p["evaluationLikert"] = if i == 0 { 5 } else { 1 }.into();
                }
            }
        }
        a.to_string()
    })
}

/// `jury run` in mode 1 for the generated persona, `batch` items per
/// request, shuffled with `seed`.
fn mode1_args<'a>(batch: &'a str, seed: &'a str) -> Vec<&'a str> {
    vec![
        "run",
        "--mode",
        "1",
        "--persona",
        "tester",
        "--perspective",
        "classification",
        "--model",
        "m",
        "--batch-size",
        batch,
        "--shuffle-seed",
        seed,
    ]
}

/// Three mode 1 runs of 24 items in requests of 6, each with its own shuffle.
fn three_shuffled_runs(srv: &ServerRt, ws: &Workspace) {
    for seed in ["1", "2", "3"] {
        let args = mode1_args("6", seed);
        assert_success(&ws.run_with(&srv.url(), &args), &args);
    }
}

fn position_bias(ws: &Workspace) -> Value {
    let out = ws.ok(&[
        "report",
        "--format",
        "json",
        "--bootstrap",
        "500",
        "--seed",
        "1",
    ]);
    let r: Value = serde_json::from_str(&out).expect("report JSON");
    let list = r["position_bias"].as_array().expect("position_bias list");
    assert_eq!(list.len(), 1, "{list:#?}");
    list[0].clone()
}

#[test]
fn shuffled_repeats_record_positions_and_the_report_catches_a_biased_judge() {
    let ws = generated_workspace(24, 2);
    let srv = ServerRt::start(favours_the_first);
    three_shuffled_runs(&srv, &ws);

    // Every verdict knows its place; each request of six really held six
    // items, and the shuffles put items in different first places.
    let rows: Vec<Value> = ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
        .collect();
    assert_eq!(rows.len(), 3 * 24 * 2);
    assert!(rows.iter().all(|r| r["request_items"] == 6), "{rows:#?}");
    let first_of_run = |run: i64| -> Vec<String> {
        let mut v: Vec<String> = rows
            .iter()
            .filter(|r| r["run_id"] == run && r["position"] == 0)
            .map(|r| r["item_id"].as_str().unwrap().to_string())
            .collect();
        v.sort();
        v.dedup();
        v
    };
    assert_eq!(first_of_run(1).len(), 4);
    assert_ne!(first_of_run(1), first_of_run(2));
    assert_ne!(first_of_run(2), first_of_run(3));
    let p = position_bias(&ws);
    assert_eq!(p["judge"], "awag mode 1 · m");
    assert_eq!(p["placed_verdicts"], 144);
    assert!(p["moved_combinations"].as_u64().unwrap() > 20, "{p:#}");
    assert_eq!(p["by_third"][0]["part"], "first");
    assert!(
        p["by_third"][0]["mean_score"].as_f64().unwrap() > 2.0,
        "{p:#}"
    );
    assert_eq!(p["by_third"][2]["mean_score"], 1.0);
    assert!(p["mean_shift_late_minus_early"].as_f64().unwrap() < 0.0);
    assert!(p["ci95"][1].as_f64().unwrap() < 0.0, "{p:#}");
    assert_eq!(p["depends_on_position"], true);

    let table = ws.ok(&["report"]);
    assert!(table.contains("position bias"), "{table}");
    assert!(table.contains("awag mode 1 · m"), "{table}");
}

#[test]
fn a_judge_that_ignores_position_is_not_flagged() {
    let ws = generated_workspace(24, 2);
    let srv = ServerRt::demo();
    three_shuffled_runs(&srv, &ws);
    let p = position_bias(&ws);
    assert!(p["moved_combinations"].as_u64().unwrap() > 20, "{p:#}");
    assert_eq!(p["changed"], 0);
    assert_eq!(p["mean_shift_late_minus_early"], 0.0);
    assert_eq!(p["depends_on_position"], false);
}

#[test]
fn the_same_seed_gives_the_same_order_and_resume_ignores_the_shuffle() {
    let ws = generated_workspace(12, 1);
    let srv = ServerRt::demo();
    let base = mode1_args("4", "9");
    assert_success(&ws.run_with(&srv.url(), &base), &base);
    assert_success(&ws.run_with(&srv.url(), &base), &base);
    let sent: Vec<String> = srv
        .completions()
        .iter()
        .map(|r| {
            let msg = r.last_user_message().unwrap();
            let m: Value = serde_json::from_str(undelimit(&msg).unwrap()).unwrap();
            m["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["itemId"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    assert_eq!(sent.len(), 6);
    let mut first: Vec<&String> = sent[..3].iter().collect();
    let mut second: Vec<&String> = sent[3..].iter().collect();
    first.sort();
    second.sort();
    assert_eq!(first, second, "same seed, same requests");
    assert!(
        !sent.contains(&"g-000000,g-000001,g-000002,g-000003".to_string()),
        "the shuffle moved items: {sent:?}"
    );
    // --resume with another seed: everything is already judged.
    let mut resume = mode1_args("4", "10");
    resume.push("--resume");
    let out = ws.run_with(&srv.url(), &resume);
    assert_success(&out, &resume);
    assert_eq!(srv.completions().len(), 6, "nothing left to send");
}
