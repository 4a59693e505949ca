//! Repeated runs: a confidence from agreement between repeats, `--repeats K`,
//! and the majority as the verdict the estimate uses.

use super::*;

#[test]
fn repeated_runs_give_a_confidence_when_reading() {
    let ws = common::generated_workspace(5, 1);
    let srv = ServerRt::demo();
    for seed in ["1", "2"] {
        let out = ws.run_with(&srv.url(), &run_args(&["--shuffle-seed", seed]));
        common::assert_success(&out, &[seed]);
    }
    // No confidence is stored: it comes from the two runs agreeing.
    assert!(verdict_rows(&ws).iter().all(|r| r["confidence"].is_null()));
    let got: Value = serde_json::from_str(&ws.ok(&[
        "trust", "--alpha", "0.1", "--delta", "0.1", "--format", "json",
    ]))
    .expect("json");
    let row = &got["thresholds"][0];
    assert_eq!(row["confidence_source"], "repeats", "{row}");
    assert_eq!(row["n_judged"], 5);
    // Without a verdict with a confidence, trust says how to get one.
    let empty = common::generated_workspace(1, 1);
    let said = empty.ok(&["trust", "--alpha", "0.1", "--delta", "0.1"]);
    assert!(said.contains("no verdict has a confidence"), "{said}");
}

/// `--repeats K` at a temperature above 0: K runs of one configuration,
/// whose majority share `jury trust` reads as the confidence; at
/// temperature 0 it is refused before anything is sent.
#[test]
fn repeats_k_runs_the_configuration_k_times() {
    let ws = common::generated_workspace(4, 1);
    let srv = ServerRt::demo();
    let out = ws.run_with(&srv.url(), &run_args(&["--repeats", "3"]));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("temperature above 0"),
        "{}",
        text(&out.stderr)
    );
    assert!(srv.completions().is_empty());
    let out = ws.run_with(
        &srv.url(),
        &run_args(&[
            "--repeats",
            "3",
            "--temperature",
            "0.7",
            "--confidence",
            "repeats",
        ]),
    );
    common::assert_success(&out, &["--repeats 3"]);
    let runs: Value = serde_json::from_str(&ws.ok(&["runs", "--json"])).expect("runs");
    assert_eq!(runs.as_array().map(Vec::len), Some(3), "{runs}");
    assert_eq!(verdict_rows(&ws).len(), 12);
    let got: Value = serde_json::from_str(&ws.ok(&[
        "trust", "--alpha", "0.1", "--delta", "0.1", "--format", "json",
    ]))
    .expect("json");
    assert_eq!(
        got["thresholds"][0]["confidence_source"], "repeats",
        "{got}"
    );
    assert_eq!(got["thresholds"][0]["n_judged"], 4);
}

/// With `confidence = "repeats"` in the config, the majority of a
/// configuration's repeated verdicts is the one `jury estimate` uses (and
/// `jury trust` reads its share); without it, the latest stands as before.
#[test]
fn with_repeats_the_majority_is_the_verdict_the_estimate_uses() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let ws = common::generated_workspace(6, 1);
    // Runs 1 and 2 answer as the demo judge; run 3 (requests from the
    // third on, one request per run) says DISAGREE everywhere.
    let seen = AtomicUsize::new(0);
    let srv = ServerRt::start(move |r| {
        let reply = jury::testserver::demo_judge::reply(r, std::time::Duration::ZERO);
        if r.method != "POST" || seen.fetch_add(1, Ordering::SeqCst) < 2 {
            return reply;
        }
        reply.reshaped(0, |args| args.replace("\"AGREE\"", "\"DISAGREE\""))
    });
    for seed in ["1", "2", "3"] {
        let out = ws.run_with(
            &srv.url(),
            &run_args(&["--shuffle-seed", seed, "--batch-size", "50"]),
        );
        common::assert_success(&out, &[seed]);
    }
    assert_eq!(srv.completions().len(), 3);
    let judge_alone = |config: Option<&str>| -> f64 {
        let mut cmd = ws.cmd();
        if let Some(c) = config {
            cmd.env("JURY_CONFIG", ws.write("config.toml", c));
        }
        let out = cmd
            .args(["estimate", "--format", "json"])
            .output()
            .expect("jury");
        common::assert_success(&out, &["estimate"]);
        let es: Value = serde_json::from_slice(&out.stdout).expect("json");
        es[0]["judge_alone"].as_f64().expect("the judge's share")
    };
    let first_runs: f64 = {
        let rows = verdict_rows(&ws);
        let run1: Vec<&Value> = rows.iter().filter(|r| r["run_id"] == 1).collect();
        run1.iter().filter(|r| r["value"] == "AGREE").count() as f64 / run1.len() as f64
    };
    assert!(first_runs > 0.0, "the demo judge agreed somewhere");
    // The latest run (all DISAGREE) stands without the setting.
    assert_eq!(judge_alone(None), 0.0);
    // The majority (runs 1 and 2) stands with it.
    assert_eq!(judge_alone(Some("confidence = \"repeats\"\n")), first_runs);
    // The export carries each verdict's share among its repeats (of the
    // value it gave), computed when reading: 2/3 for runs 1 and 2 where run
    // 3 flipped, 1/3 for run 3 there, 1 where all three agree.
    let out = ws
        .cmd()
        .env(
            "JURY_CONFIG",
            ws.write("config.toml", "confidence = \"repeats\"\n"),
        )
        .args(["export", "--format", "jsonl"])
        .output()
        .expect("jury");
    common::assert_success(&out, &["export"]);
    let rows: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a row"))
        .filter(|r| r["kind"] == "verdict")
        .collect();
    assert_eq!(rows.len(), 18);
    for r in &rows {
        let same = rows
            .iter()
            .filter(|o| o["item_id"] == r["item_id"] && o["value"] == r["value"])
            .count();
        assert_eq!(r["confidence"].as_f64(), Some(same as f64 / 3.0), "{r}");
        assert_eq!(r["confidence_source"], "repeats");
    }
    assert!(
        rows.iter()
            .any(|r| r["confidence"].as_f64() == Some(2.0 / 3.0))
    );
    // Without the setting, nothing is made up.
    assert!(verdict_rows(&ws).iter().all(|r| r["confidence"].is_null()));
}
