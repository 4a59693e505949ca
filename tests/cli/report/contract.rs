//! The JSON contract, the other formats, grouping and reproducibility, and
//! agreement with the exported pairs.

use super::*;

fn group<'a>(r: &'a Value, comparison: &str, left: &str, right: &str, scale: &str) -> &'a Value {
    r[comparison]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["left"] == left && g["right"] == right && g["scale"] == scale)
        .unwrap_or_else(|| panic!("no {comparison} group {left} vs {right} on {scale} in {r:#}"))
}

#[test]
fn json_contract_formats_grouping_and_reproducibility() {
    let ws = judged();
    let r = report_json(&ws, &[]);
    for c in [
        "judge_vs_human",
        "human_vs_human",
        "mode_vs_mode",
        "persona_vs_persona",
        "model_vs_model",
        "prompt_vs_prompt",
        "run_vs_run",
    ] {
        assert!(r[c].is_array(), "{c} missing");
    }
    let g = group(
        &r,
        "mode_vs_mode",
        "awag mode 1 · demo",
        "awag mode 2 · demo",
        "likert",
    );
    assert_eq!(g["n"], 330);
    for f in [
        "percent_agreement",
        "cohen_kappa",
        "weighted_kappa_quadratic",
        "krippendorff_alpha",
        "spearman",
    ] {
        assert!(
            g[f].get("value").is_some() && g[f].get("ci95").is_some(),
            "{f}: {g}"
        );
    }
    let m = g["confusion_matrix"].as_array().unwrap();
    assert_eq!(m.len(), 5);
    let total: u64 = m
        .iter()
        .flat_map(|r| r.as_array().unwrap())
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(total, 330);
    // Human vs human on the Likert scale: alice/bob and carol overlap on k-001.
    let hh = r["human_vs_human"].as_array().unwrap();
    assert!(
        hh.iter()
            .any(|g| g["scale"] == "likert" && g["right"] == "carol"),
        "{hh:?}"
    );
    // Judge vs human carries the classifier's accuracy on both sides and EvalGen.
    let jh = group(
        &r,
        "judge_vs_human",
        "awag mode 3 · demo",
        "alice",
        "agreement",
    );
    assert!(
        jh["classifier_accuracy"]["left"]["accuracy"].is_number(),
        "{jh}"
    );
    assert!(jh["evalgen"]["n"].as_u64().unwrap() > 0, "{jh}");
    // Same seed, same report.
    assert_eq!(report_json(&ws, &[]), r);
    // --by classification splits a group by classification.
    let by = report_json(&ws, &["--by", "classification"]);
    let parts: Vec<&Value> = by["mode_vs_mode"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["left"] == "awag mode 1 · demo" && g["right"] == "awag mode 2 · demo")
        .collect();
    let classifications: std::collections::BTreeSet<String> = ws
        .export_rows()
        .iter()
        .filter(|r| r["kind"] == "verdict" && r["mode"] == 1)
        .map(|r| r["classification_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        parts.len(),
        classifications.len(),
        "one group per classification"
    );
    for c in &classifications {
        let prefix = format!("{c} · ");
        assert!(
            parts
                .iter()
                .any(|g| g["group"].as_str().unwrap().starts_with(&prefix)),
            "{c}"
        );
    }
    assert_eq!(
        parts.iter().map(|g| g["n"].as_u64().unwrap()).sum::<u64>(),
        330
    );
    // The table, Markdown and CSV show the same n.
    let table = ws.ok(&["report", "--bootstrap", "0"]);
    assert!(
        table.contains("mode_vs_mode") && table.contains("330"),
        "{table}"
    );
    let md = ws.ok(&["report", "--format", "md", "--bootstrap", "0"]);
    assert!(
        md.lines()
            .any(|l| l.starts_with("| mode_vs_mode") && l.contains("| 330")),
        "{md}"
    );
    let csv = ws.ok(&["report", "--format", "csv", "--bootstrap", "0"]);
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let n_col = header.iter().position(|h| *h == "n").unwrap();
    assert!(
        csv.lines()
            .any(|l| l.starts_with("mode_vs_mode") && l.split(',').nth(n_col) == Some("330")),
        "{csv}"
    );
}

/// Judge-vs-human pairs rebuilt from the export alone: the latest verdict
/// per judge and combination against each label on the same scale.
fn pairs_from_export(rows: &[Value], mode: u64, who: &str) -> Vec<(u8, u8)> {
    let key = |r: &Value| {
        format!(
            "{}|{}|{}|{}",
            r["item_id"], r["classification_id"], r["perspective_id"], r["persona_id"]
        )
    };
    let mut latest: HashMap<String, &Value> = HashMap::new();
    for r in rows
        .iter()
        .filter(|r| r["kind"] == "verdict" && r["mode"] == mode)
    {
        let k = key(r);
        let newer = latest.get(&k).is_none_or(|o| {
            (o["created_at"].as_str(), o["run_id"].as_i64())
                < (r["created_at"].as_str(), r["run_id"].as_i64())
        });
        if newer {
            latest.insert(k, r);
        }
    }
    let mut pairs = Vec::new();
    for l in rows
        .iter()
        .filter(|r| r["kind"] == "label" && r["who"] == who && r["scale"] == "likert")
    {
        if let Some(v) = latest.get(&key(l)).filter(|v| v["scale"] == "likert") {
            let idx = |x: &Value| (x.as_u64().unwrap() - 1) as u8;
            pairs.push((idx(&v["value"]), idx(&l["value"])));
        }
    }
    pairs
}

#[test]
fn the_report_agrees_with_the_exported_pairs() {
    let ws = judged();
    let r = report_json(&ws, &[]);
    let rows = ws.export_rows();
    for (mode, who) in [(1, "alice"), (2, "bob"), (2, "carol")] {
        let pairs = pairs_from_export(&rows, mode, who);
        assert!(!pairs.is_empty(), "no pairs for mode {mode} vs {who}");
        let f = Figures::compute(&pairs, 5, true, 0, 7).unwrap();
        let g = group(
            &r,
            "judge_vs_human",
            &format!("awag mode {mode} · demo"),
            who,
            "likert",
        );
        assert_eq!(
            g["n"].as_u64().unwrap() as usize,
            f.n,
            "mode {mode} vs {who}"
        );
        let same = |name: &str, v: Option<f64>| {
            let got = g[name]["value"].as_f64();
            match (got, v) {
                (Some(a), Some(b)) => assert!((a - b).abs() < 1e-12, "{name}: {a} vs {b}"),
                (a, b) => assert_eq!(a, b, "{name}"),
            }
        };
        same("percent_agreement", f.percent_agreement.value);
        same("cohen_kappa", f.cohen_kappa.value);
        same("weighted_kappa_quadratic", f.weighted_kappa_quadratic.value);
        same("krippendorff_alpha", f.krippendorff_alpha.value);
        same("spearman", f.spearman.value);
        let matrix: Vec<Vec<u64>> = serde_json::from_value(g["confusion_matrix"].clone()).unwrap();
        assert_eq!(matrix, f.confusion_matrix);
    }
}

#[test]
fn an_empty_store_says_there_is_nothing_to_compare() {
    let ws = Workspace::new();
    ws.import_sample();
    let out = ws.run(&["report", "--format", "table"]);
    assert!(out.status.success());
    let t = text(&out.stdout);
    // Sample labels by two people give human-vs-human rows; nothing else.
    assert!(t.contains("human_vs_human"), "{t}");
    assert!(!t.contains("judge_vs_human"), "{t}");
    let ws = Workspace::new();
    let out = ws.run(&["report"]);
    assert!(out.status.success());
    assert!(
        text(&out.stdout).contains("nothing to compare yet"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn reading_on_two_connections_pairs_exactly_as_reading_on_one() {
    let ws = judged();
    // A second person's labels and a repeat run, so every comparison and the
    // run-vs-run and position data have something on both sides of the split.
    let srv = ServerRt::demo();
    let args = kenton_run("1", &["--shuffle-seed", "4"]);
    assert_success(&ws.run_with(&srv.url(), &args), &args);
    let store = ws.store();
    let runs = store.runs().unwrap();
    let one = jury::report::pairs::Builder::read_with_runs(&store, &runs, i64::MAX)
        .unwrap()
        .finish_with_positions();
    let two = jury::report::pairs::Builder::read_with_runs(&store, &runs, 0)
        .unwrap()
        .finish_with_positions();
    assert!(one.0.values().map(Vec::len).sum::<usize>() > 1000);
    assert!(!one.1.is_empty());
    assert_eq!(one.0, two.0);
    assert_eq!(one.1, two.1);
}

#[test]
fn stage_timings_only_with_jury_debug() {
    let ws = judged();
    let quiet = ws.run(&["report", "--format", "json", "--bootstrap", "50"]);
    assert_success(&quiet, &["report"]);
    assert!(quiet.stderr.is_empty(), "{}", text(&quiet.stderr));
    let timed = ws
        .cmd()
        .env("JURY_DEBUG", "1")
        .args(["report", "--format", "json", "--bootstrap", "50"])
        .output()
        .unwrap();
    let err = text(&timed.stderr);
    assert!(
        err.contains("jury report: read verdicts and labels:"),
        "{err}"
    );
    assert!(err.contains("jury report: figures:"), "{err}");
    assert_eq!(timed.stdout, quiet.stdout, "timing changes nothing else");
}
