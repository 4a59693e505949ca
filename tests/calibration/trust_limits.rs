//! `jury trust` says the real limit: α is reachable only from
//! `⌈ln δ / ln(1 − α)⌉` calibration pairs, the walk starts there, and when
//! the labels are too few it names the limit and how many labels lift it —
//! never blaming a judge whose most confident answers all agreed. Levels
//! outside (0, 1), or absurdly small, are refused; the defaults are the
//! workbench's α = δ = 0.1.
#![cfg(feature = "tui")]

use crate::common;
use crate::confidence::{import_labels, run_args, verdict_rows};
use common::{ServerRt, text};
use serde_json::Value;

/// 60 combinations of one classification judged with token probabilities;
/// people agree with the judge on the first `labelled`.
fn judged_and_agreed(labelled: usize) -> (common::Workspace, Vec<(String, String, String)>) {
    let ws = common::generated_workspace(60, 1);
    let srv = ServerRt::demo();
    let out = ws.run_with(&srv.url(), &run_args(&["--confidence", "logprobs"]));
    common::assert_success(&out, &["run"]);
    let rows: Vec<(String, String, String)> = verdict_rows(&ws)
        .iter()
        .map(|r| {
            let s = |f: &str| r[f].as_str().expect(f).to_string();
            (s("item_id"), s("classification_id"), s("value"))
        })
        .collect();
    assert_eq!(rows.len(), 60);
    agree_on(&ws, &rows[..labelled]);
    (ws, rows)
}

fn agree_on(ws: &common::Workspace, rows: &[(String, String, String)]) {
    let labels: Vec<(String, String, &str)> = rows
        .iter()
        .map(|(item, cls, v)| (item.clone(), cls.clone(), v.as_str()))
        .collect();
    import_labels(ws, &labels);
}

fn json(ws: &common::Workspace, args: &[&str]) -> Value {
    let mut a = vec!["trust", "--format", "json"];
    a.extend_from_slice(args);
    let v: Value = serde_json::from_str(&ws.ok(&a)).expect("json");
    v["thresholds"][0].clone()
}

/// α 0.05 at δ 0.1 takes 45 pairs without a disagreement. 40 labels that
/// all agree: the limit is named with the 5 labels that lift it, and the
/// judge is not blamed. 50: the walk starts at 45 (not at
/// --min-calibration 30, where the first step could never pass) and finds
/// a threshold.
#[test]
fn alpha_out_of_reach_names_the_limit_and_the_labels_that_lift_it() {
    let (ws, rows) = judged_and_agreed(40);
    let t = json(&ws, &["--alpha", "0.05"]);
    assert!(t["threshold"].is_null(), "{t}");
    assert_eq!(t["n_calibration"], 40);
    assert_eq!(t["reachable_from"], 45, "{t}");
    assert_eq!(t["start"], 45, "{t}");
    assert_eq!(t["pairs_needed"], 45, "{t}");
    let table = ws.ok(&["trust", "--alpha", "0.05"]);
    assert!(table.contains("cannot reach α 0.05"), "{table}");
    assert!(table.contains("it takes 45 pairs"), "{table}");
    assert!(table.contains("label at least 5 more"), "{table}");
    assert!(!table.contains("disagree with people"), "{table}");
    agree_on(&ws, &rows[40..50]);
    let t = json(&ws, &["--alpha", "0.05"]);
    assert_eq!(t["n_calibration"], 50);
    assert!(t["threshold"].is_number(), "{t}");
    assert_eq!(t["disagreements"], 0);
    assert!(t["upper_bound"].as_f64().expect("a bound") <= 0.05, "{t}");
    assert!(t["coverage"].as_f64().expect("coverage") > 0.0, "{t}");
}

/// A larger --min-calibration still rules: the walk starts at the larger
/// of it and the reachable count, and the message names --min-calibration.
#[test]
fn min_calibration_above_the_reachable_count_starts_the_walk() {
    let (ws, _) = judged_and_agreed(40);
    let t = json(&ws, &["--min-calibration", "50"]);
    assert_eq!(
        (t["reachable_from"].as_u64(), t["start"].as_u64()),
        (Some(22), Some(50))
    );
    assert!(t["threshold"].is_null(), "{t}");
    let table = ws.ok(&["trust", "--min-calibration", "50"]);
    assert!(
        table.contains("fewer than --min-calibration 50: label at least 10 more"),
        "{table}"
    );
    // The defaults are the workbench's: α = δ = 0.1.
    let t = json(&ws, &[]);
    assert_eq!(
        (t["alpha"].as_f64(), t["delta"].as_f64()),
        (Some(0.1), Some(0.1))
    );
    assert!(t["threshold"].is_number(), "{t}");
}

/// Stored confidences outside [0, 1] or not finite are refused at read
/// (their verdicts count as having none): `jury trust` says how many, in
/// its text and its JSON (before, only `jury estimate` said it).
#[test]
fn trust_says_how_many_stored_confidences_were_refused_at_read() {
    let (ws, _) = judged_and_agreed(40);
    let v: Value = serde_json::from_str(&ws.ok(&["trust", "--format", "json"])).expect("json");
    assert_eq!(v["refused_confidences"], 0, "{v}");
    let conn = rusqlite::Connection::open(&ws.db).expect("store");
    let changed = conn
        .execute(
            "UPDATE verdicts SET confidence = CASE WHEN rowid % 2 = 0 THEN 1.5 ELSE -0.25 END \
             WHERE rowid IN (SELECT rowid FROM verdicts ORDER BY rowid LIMIT 3)",
            [],
        )
        .expect("update");
    assert_eq!(changed, 3);
    drop(conn);
    let v: Value = serde_json::from_str(&ws.ok(&["trust", "--format", "json"])).expect("json");
    assert_eq!(v["refused_confidences"], 3, "{v}");
    assert_eq!(v["thresholds"][0]["n_judged"], 57, "{v}");
    for args in [&["trust"][..], &["trust", "--needs-person"][..]] {
        let table = ws.ok(args);
        assert!(
            table.contains(
                "3 stored confidence(s) outside [0, 1] or not finite were refused at read"
            ),
            "{args:?}: {table}"
        );
    }
}

#[test]
fn levels_outside_the_unit_interval_or_absurdly_small_are_refused() {
    let ws = common::generated_workspace(1, 1);
    for (flag, value) in [
        ("--alpha", "1e-16"),
        ("--alpha", "0"),
        ("--alpha", "1"),
        ("--alpha", "-0.1"),
        ("--alpha", "NaN"),
        ("--alpha", "inf"),
        ("--delta", "1e-7"),
        ("--delta", "0"),
        ("--delta", "1.5"),
    ] {
        // `--alpha=-0.1`: a negative value is not read as a flag.
        let out = ws.run(&["trust", &format!("{flag}={value}")]);
        assert!(!out.status.success(), "{flag} {value} was taken");
        let err = text(&out.stderr);
        assert!(err.contains(&format!("{flag} {value}")), "{err}");
        assert!(
            err.contains("between 0 and 1") && err.contains("at least 1e-6"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    // The smallest level taken gives numbers, not NaN.
    let t = jury::analytics::trust::trust_threshold(&[(0.9, true); 40], 1e-6, 1e-6, 30);
    assert_eq!(t.threshold, None);
    assert!(t.reachable_from > 10_000_000, "{t:?}");
    ws.ok(&["trust", "--alpha", "1e-6", "--delta", "1e-6"]);
}

/// `⌈ln δ / ln(1 − α)⌉` and the bounds on either side of it, against
/// scipy (`tests/reference/trust_or_escalate.py`): with no disagreement the
/// bound passes α from that many pairs and not one fewer.
#[test]
fn alpha_is_reachable_from_ln_delta_over_ln_one_minus_alpha_pairs() {
    use jury::analytics::trust::{clopper_pearson_upper, pairs_to_reach, reachable_from};
    const SCIPY: &[(f64, f64, usize, f64, f64)] = &[
        (0.05, 0.1, 45, 0.04988149268185629, 0.05098576395752708),
        (0.1, 0.1, 22, 0.0993719797887215, 0.10384949805339538),
        (0.15, 0.1, 15, 0.1423041014091059, 0.15165710175592792),
        (0.1, 0.01, 44, 0.09937197978872148, 0.10156146276509806),
    ];
    for &(alpha, delta, m, at, below) in SCIPY {
        assert_eq!(reachable_from(alpha, delta), m, "α {alpha} δ {delta}");
        assert!((clopper_pearson_upper(0, m, delta) - at).abs() < 1e-10);
        assert!((clopper_pearson_upper(0, m - 1, delta) - below).abs() < 1e-10);
        assert_eq!(pairs_to_reach(0.0, alpha, delta), Some(m));
    }
    // At a disagreement rate of α or more no number of labels reaches it;
    // below, the count found passes and one fewer (at that rate) does not.
    assert_eq!(pairs_to_reach(0.1, 0.1, 0.1), None);
    let m = pairs_to_reach(0.05, 0.1, 0.1).expect("reachable");
    let k = |m: usize| (0.05 * m as f64).ceil() as usize;
    assert!(clopper_pearson_upper(k(m), m, 0.1) <= 0.1, "{m}");
    assert!(clopper_pearson_upper(k(m - 1), m - 1, 0.1) > 0.1, "{m}");
}
