//! `jury trust` end to end on a store built through the binary.

use super::*;

/// Labels (as an import file) for `(item, classification, value)`.
pub(crate) fn import_labels(ws: &Workspace, labels: &[(String, String, &str)]) {
    let lines: Vec<String> = labels
        .iter()
        .map(|(item, cls, value)| {
            json!({"itemId": item, "classificationId": cls, "perspectiveId": "classification",
                   "personaId": "tester", "value": value, "who": "alice"})
            .to_string()
        })
        .collect();
    let p = ws.write("labels.jsonl", lines.join("\n") + "\n");
    ws.ok(&["import", p.to_str().expect("path")]);
}

pub(crate) fn opposite(v: &str) -> &'static str {
    if v == "AGREE" { "DISAGREE" } else { "AGREE" }
}

#[test]
fn trust_finds_the_threshold_and_its_coverage_end_to_end() {
    let ws = common::generated_workspace(40, 2);
    let srv = ServerRt::demo();
    let out = ws.run_with(&srv.url(), &run_args(&["--confidence", "logprobs"]));
    common::assert_success(&out, &["run"]);
    let rows = verdict_rows(&ws);
    assert_eq!(rows.len(), 80);
    // By classification: (item, judge's value, confidence).
    let mut by_cls: BTreeMap<String, Vec<(String, String, f64)>> = BTreeMap::new();
    for r in &rows {
        by_cls
            .entry(r["classification_id"].as_str().unwrap().to_string())
            .or_default()
            .push((
                r["item_id"].as_str().unwrap().to_string(),
                r["value"].as_str().unwrap().to_string(),
                r["confidence"].as_f64().unwrap(),
            ));
    }
    let mut cls = by_cls.keys().cloned();
    let (good, bad) = (cls.next().unwrap(), cls.next().unwrap());
    // `good`: people label 30 of the 40 combinations, agreeing with the
    // judge on the 24 most confident and disagreeing on the 6 least; `bad`:
    // people disagree with the judge on 30.
    let mut g = by_cls[&good].clone();
    g.sort_by(|a, b| b.2.total_cmp(&a.2));
    let mut labels = Vec::new();
    let mut calibration = Vec::new();
    for (k, (item, value, c)) in g.iter().take(30).enumerate() {
        let agree = k < 24;
        labels.push((
            item.clone(),
            good.clone(),
            if agree {
                value.as_str()
            } else {
                opposite(value)
            },
        ));
        calibration.push((*c, agree));
    }
    for (item, value, _) in by_cls[&bad].iter().take(30) {
        labels.push((item.clone(), bad.clone(), opposite(value)));
    }
    import_labels(&ws, &labels);
    // α = 0.25: the first candidate (10 pairs, all agreeing) passes; the
    // walk down stops among the disagreements.
    let (alpha, delta) = (0.25, 0.1);
    // The expected threshold by the procedure (checked against scipy in the
    // library's tests) on the pairs this test made; coverage over all 40.
    let want = jury::analytics::trust::trust_threshold(&calibration, alpha, delta, 10);
    let want_t = want
        .threshold
        .unwrap_or_else(|| panic!("a threshold on the made data: {calibration:?}"));
    let all: Vec<f64> = by_cls[&good].iter().map(|x| x.2).collect();
    let want_cov = jury::analytics::trust::coverage(&all, want_t).unwrap();
    let args = [
        "trust",
        "--alpha",
        "0.25",
        "--delta",
        "0.1",
        "--min-calibration",
        "10",
        "--format",
        "json",
    ];
    let got: Value = serde_json::from_str(&ws.ok(&args)).expect("json");
    assert_eq!(got["refused_confidences"], 0);
    let got = got["thresholds"].as_array().expect("an array");
    assert_eq!(got.len(), 2, "{got:?}");
    let row = |c: &str| got.iter().find(|r| r["classification"] == c).expect(c);
    let g_row = row(&good);
    assert_eq!(g_row["perspective"], "classification");
    assert_eq!(g_row["persona"], "tester");
    assert!(
        g_row["judge"].as_str().unwrap().contains("mode 3"),
        "{g_row}"
    );
    assert_eq!(g_row["alpha"], 0.25);
    assert_eq!(g_row["delta"], 0.1);
    assert_eq!(g_row["n_calibration"], 30);
    assert_eq!(g_row["threshold"].as_f64(), Some(want_t));
    assert_eq!(g_row["coverage"].as_f64(), Some(want_cov));
    assert!(want_cov > 0.0 && want_cov < 1.0, "{want_cov}");
    let b_row = row(&bad);
    assert!(b_row["threshold"].is_null(), "{b_row}");
    assert_eq!(b_row["coverage"], 0.0);
    // The table says it plainly.
    let table = ws.ok(&[
        "trust",
        "--alpha",
        "0.25",
        "--delta",
        "0.1",
        "--min-calibration",
        "10",
    ]);
    assert!(table.contains("no threshold meets it"), "{table}");
    assert!(table.contains("random sample"), "{table}");
    assert!(table.contains(&format!("threshold {want_t:.4}")), "{table}");
    // The HTML report heads with the same verdicts (at its fixed α = δ = 0.1
    // and 30 calibration pairs: `bad` has none that qualify).
    let html_path = ws.path("r.html");
    ws.ok(&[
        "report",
        "--format",
        "html",
        "--out",
        html_path.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(
        html.contains("Which verdicts can stand without a person"),
        "no trust section"
    );
    assert!(
        html.contains(&format!(
            "{bad}: no confidence threshold guarantees 90 % agreement"
        )),
        "{html}"
    );
    // No label so far is recorded as sampled: the table says the
    // guarantee assumes a random sample.
    assert_eq!(g_row["calibration_sampled"], 0);
    assert_eq!(g_row["calibration_chosen"], 30);
    assert!(
        table.contains("30 of 30 calibration labels not recorded as sampled"),
        "{table}"
    );
    // The escalation queue: the unlabelled combinations of `good` below its
    // threshold, and every unlabelled one of `bad` (no threshold).
    let mut needs = args.to_vec();
    needs.push("--needs-person");
    let queue: Value = serde_json::from_str(&ws.ok(&needs)).expect("json");
    let mut got: Vec<(String, String)> = queue
        .as_array()
        .expect("an array")
        .iter()
        .map(|r| {
            assert_eq!(r["persona"], "tester", "{r}");
            let s = |f: &str| r[f].as_str().expect(f).to_string();
            (s("classification"), s("item"))
        })
        .collect();
    got.sort();
    let mut want: Vec<(String, String)> = g
        .iter()
        .skip(30)
        .filter(|x| x.2 < want_t)
        .map(|x| (good.clone(), x.0.clone()))
        .chain(
            by_cls[&bad]
                .iter()
                .skip(30)
                .map(|x| (bad.clone(), x.0.clone())),
        )
        .collect();
    want.sort();
    assert_eq!(got, want);
    let mut table_args = args[..args.len() - 2].to_vec();
    table_args.push("--needs-person");
    let table = ws.ok(&table_args);
    assert!(
        table.starts_with(&format!("{} combination(s) need a person", want.len())),
        "{table}"
    );
    assert!(
        table.contains("no judge is trusted for this classification"),
        "{table}"
    );
    // Ten of them given in the workbench's random sample order (as it
    // records them): counted, and --sampled-only calibrates on them alone.
    {
        let mut store = ws.store();
        for (item, _, _) in g.iter().take(10) {
            let key = ComboKey::new(item, &good, "classification");
            store
                .mark_sampled(&key, "tester", "alice", Some(7))
                .expect("mark");
        }
    }
    let got: Value = serde_json::from_str(&ws.ok(&args)).expect("json");
    let g_row = got["thresholds"]
        .as_array()
        .and_then(|a| a.iter().find(|r| r["classification"] == good.as_str()))
        .expect("good")
        .clone();
    assert_eq!(g_row["calibration_sampled"], 10);
    assert_eq!(g_row["calibration_chosen"], 20);
    let mut only = args.to_vec();
    only.push("--sampled-only");
    let got: Value = serde_json::from_str(&ws.ok(&only)).expect("json");
    let g_row = got["thresholds"]
        .as_array()
        .and_then(|a| a.iter().find(|r| r["classification"] == good.as_str()))
        .expect("good")
        .clone();
    assert_eq!(g_row["n_calibration"], 10);
    assert_eq!(g_row["calibration_chosen"], 0);
}
