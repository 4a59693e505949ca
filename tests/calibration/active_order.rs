//! The active order from a shell (issue #33): `jury sample --order active`
//! on verdicts with token-probability confidences, labels for its draws
//! imported with `sample_order`, `pi`, `sample_seed` and `sample_draw`,
//! kept through `jury export`, and weighed by `jury estimate`'s active line
//! beside the uniform PPI++ and labels-alone lines (which leave them out).

use crate::common;
use crate::confidence::run_args;
use common::ServerRt;
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn sample(ws: &common::Workspace, args: &[&str]) -> Vec<Value> {
    let mut a = vec!["sample", "--format", "jsonl"];
    a.extend_from_slice(args);
    let out = ws.ok(&a);
    out.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn active_draws_are_printed_imported_exported_and_weighed_by_the_estimate() {
    let ws = common::generated_workspace(60, 2);
    let srv = ServerRt::demo();
    let out = ws.run_with(&srv.url(), &run_args(&["--confidence", "logprobs"]));
    common::assert_success(&out, &["run"]);
    let draws = sample(&ws, &["--order", "active", "--n", "40", "--seed", "7"]);
    assert_eq!(draws.len(), 40);
    // Each draw names its combination, its probability within its
    // classification (120 combinations in 2 classifications of 60) and the order.
    for (k, d) in draws.iter().enumerate() {
        assert_eq!(d["draw"], json!(k + 1));
        assert_eq!(d["sample_order"], "active");
        assert_eq!(d["sample_seed"], 7);
        let pi = d["pi"].as_f64().unwrap();
        assert!((0.3 / 60.0 - 1e-12..1.0).contains(&pi), "{pi}");
    }
    // The same seed gives the same order.
    assert_eq!(
        sample(&ws, &["--order", "active", "--n", "40", "--seed", "7"]),
        draws
    );
    // People label every drawn combination (once), disagreeing with the
    // classifier on every third; a combination drawn twice counts twice.
    let mut by_combo: BTreeMap<(String, String), (Value, u32)> = BTreeMap::new();
    for d in &draws {
        let k = (
            d["item_id"].as_str().unwrap().to_string(),
            d["classification_id"].as_str().unwrap().to_string(),
        );
        by_combo.entry(k).or_insert_with(|| (d.clone(), 0)).1 += 1;
    }
    let lines: Vec<String> = by_combo
        .iter()
        .enumerate()
        .map(|(i, ((item, cls), (d, count)))| {
            json!({"itemId": item, "classificationId": cls, "perspectiveId": "classification",
                   "personaId": "tester", "who": "alice",
                   "value": if i % 3 == 0 { "DISAGREE" } else { "AGREE" },
                   "sample_order": "active", "pi": d["pi"], "sample_seed": 7,
                   "sample_draw": d["draw"], "sample_draws": count})
            .to_string()
        })
        .collect();
    let p = ws.write("drawn.jsonl", lines.join("\n") + "\n");
    ws.ok(&["import", p.to_str().unwrap()]);

    // Exported as imported: order, probability (full precision), draws.
    let rows: Vec<Value> = ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "label")
        .collect();
    assert_eq!(rows.len(), by_combo.len());
    for r in &rows {
        let k = (
            r["item_id"].as_str().unwrap().to_string(),
            r["classification_id"].as_str().unwrap().to_string(),
        );
        let (d, count) = &by_combo[&k];
        assert_eq!(r["sample_order"], "active");
        assert_eq!(r["pi"], d["pi"]);
        assert_eq!(r["sample_draw"], d["draw"]);
        assert_eq!(r["sample_draws"], json!(count));
        assert_eq!(r["sample_seed"], 7);
    }

    // The estimate: an active line per classification from its draws; the
    // uniform lines leave the active labels out (read as unlabelled).
    let est: Value = serde_json::from_str(&ws.ok(&["estimate", "--format", "json"])).unwrap();
    let es: Vec<&Value> = est
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["classification"] != "all classifications")
        .collect();
    assert_eq!(es.len(), 2);
    let mut draws_seen = 0;
    for e in &es {
        let a = &e["active"];
        let (lo, hi, th) = (
            a["ci"][0].as_f64().unwrap(),
            a["ci"][1].as_f64().unwrap(),
            a["estimate"].as_f64().unwrap(),
        );
        assert!(lo < th && th < hi, "{a}");
        assert_eq!(a["n"], a["n_active"]);
        draws_seen += a["n"].as_u64().unwrap();
        assert_eq!(e["n"], 0, "PPI++ uses no active label: {e}");
        assert!(e["left_out"]["judge_selected"].as_u64().unwrap() > 0);
    }
    assert_eq!(draws_seen, 40);
    let table = ws.ok(&["estimate"]);
    assert!(table.contains("active: "), "{table}");
    assert!(table.contains("of the active order"), "{table}");

    // Even when asked to count labels the judge selected, the uniform
    // lines never use an active label unweighted.
    let est: Value =
        serde_json::from_str(&ws.ok(&["estimate", "--format", "json", "--include-judge-selected"]))
            .unwrap();
    assert!(est.as_array().unwrap().iter().all(|e| e["n"] == 0), "{est}");
    // jury trust says it calibrates without them.
    let trust = ws.ok(&["trust"]);
    assert!(
        trust.contains(&format!(
            "calibrated without the {} label(s) given in the active order",
            by_combo.len()
        )),
        "{trust}"
    );

    // The plan: per classification and judge, labels still needed for
    // ±0.05 under each scheme, from what each line uses now.
    let plan: Value = serde_json::from_str(
        &ws.ok(&["plan", "--width", "0.05", "--format", "json", "--at", "30"]),
    )
    .unwrap();
    let rows = plan.as_array().unwrap();
    assert_eq!(rows.len(), 2, "{plan}");
    let mut active_now = 0;
    for r in rows {
        for k in [
            "classification",
            "judge",
            "labels_alone",
            "uniform",
            "active",
        ] {
            assert!(r.get(k).is_some(), "{k} in {r}");
        }
        assert_eq!(r["labels_now"]["uniform"], 0);
        active_now += r["labels_now"]["active"].as_u64().unwrap();
        assert!(r["active"].as_u64().unwrap() > 0, "{r}");
        assert!(r["width_at"]["active"].as_f64().unwrap() > 0.05, "{r}");
    }
    assert_eq!(active_now, 40);
    let one = ws.ok(&[
        "plan",
        "--classification",
        rows[0]["classification"].as_str().unwrap(),
    ]);
    assert!(
        one.contains("at 50 more labels the width would be ±"),
        "{one}"
    );
    let out = ws.run(&["plan", "--classification", "nonesuch"]);
    assert!(!out.status.success());
    let out = ws.run(&["plan", "--width", "0"]);
    assert!(!out.status.success());

    // The next draws follow the recorded ones.
    let next = sample(&ws, &["--order", "active", "--n", "3", "--seed", "7"]);
    assert!(next[0]["draw"].as_u64().unwrap() > 40, "{:?}", next[0]);
}

#[test]
fn active_labels_without_pi_or_with_a_bad_one_are_refused_with_file_line_and_field() {
    let ws = common::generated_workspace(2, 1);
    let lines = [
        json!({"itemId": "g-000000", "classificationId": "urgency", "perspectiveId": "classification",
               "personaId": "tester", "value": "AGREE", "who": "alice"}),
        json!({"itemId": "g-000001", "classificationId": "urgency", "perspectiveId": "classification",
               "personaId": "tester", "value": "AGREE", "who": "alice",
               "sample_order": "active", "pi": 1.5}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let p = ws.write("bad.jsonl", text);
    let out = ws.run(&["import", p.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.jsonl") && err.contains("line 2") && err.contains("pi"),
        "{err}"
    );
    // All or nothing: the good first line was not written either.
    assert!(
        ws.export_rows().iter().all(|r| r["kind"] != "label"),
        "half an import"
    );
}
