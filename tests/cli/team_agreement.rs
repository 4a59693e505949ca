//! Three people (alice, bob, carol) label overlapping items with labels
//! missing: `jury report` shows their Fleiss κ and Krippendorff's α per
//! classification beside each pair, the human ceiling from α, and — as do
//! `jury estimate` and `jury trust` — warns where they agree less than
//! `min_human_agreement`, naming the classification and the pairs.
#![cfg(feature = "tui")]

use crate::common;
use common::*;
use jury::analytics::{AlphaMetric, KappaWeights, UnitCounts};
use serde_json::Value;

/// The sample's items, personas and perspectives, without its labels.
fn items_only() -> Workspace {
    let ws = Workspace::new();
    let data = ws.path("data");
    std::fs::create_dir(&data).unwrap();
    for f in ["items.jsonl", "personas.json", "perspectives.json"] {
        std::fs::copy(sample_data().join(f), data.join(f)).unwrap();
    }
    ws.ok(&["import", data.to_str().unwrap()]);
    ws
}

/// Per item 1..=12 on urgency: alice gives v, bob mostly v, carol the
/// reverse; each skips some items. On work-pers all three agree.
fn urgency(i: usize) -> [Option<u8>; 3] {
    let v = (i % 5) as u8 + 1;
    let alice = (i != 12).then_some(v);
    let bob = (!i.is_multiple_of(3)).then_some(if i == 4 {
        v.saturating_sub(1).max(1)
    } else {
        v
    });
    let carol = (i.is_multiple_of(2)).then_some(6 - v);
    [alice, bob, carol]
}

fn labelled() -> Workspace {
    let ws = items_only();
    let people = ["alice", "bob", "carol"];
    for i in 1..=12 {
        let item = format!("k-{i:03}");
        for (who, v) in people.iter().zip(urgency(i)) {
            if let Some(v) = v {
                let v = v.to_string();
                let args = ["label", &item, "urgency", &v, "--persona", "kenton"];
                ws.ok(&[&args[..], &["--who", who]].concat());
            }
        }
        if i <= 6 {
            let v = ((i % 3) * 2 + 1).to_string();
            for who in people {
                let args = ["label", &item, "work-pers", &v, "--persona", "kenton"];
                ws.ok(&[&args[..], &["--who", who]].concat());
            }
        }
    }
    ws
}

fn report_json(ws: &Workspace) -> Value {
    let out = ws.ok(&[
        "report",
        "--format",
        "json",
        "--bootstrap",
        "200",
        "--seed",
        "7",
    ]);
    serde_json::from_str(&out).unwrap()
}

#[test]
fn three_people_with_missing_labels_get_fleiss_kappa_alpha_and_a_warning() {
    let ws = labelled();
    let v = report_json(&ws);
    let people = v["people_agreement"].as_array().unwrap();
    let urg = people
        .iter()
        .find(|p| p["classification"] == "urgency")
        .expect("urgency among the people's figures");
    assert_eq!(urg["people"], serde_json::json!(["alice", "bob", "carol"]));
    assert_eq!(urg["scale"], "likert");
    assert_eq!(urg["all"]["metric"], "ordinal");
    assert_eq!(urg["all"]["units"], 12);
    let rows: Vec<Vec<u8>> = (1..=12)
        .map(|i| urgency(i).iter().flatten().map(|v| v - 1).collect())
        .collect();
    let pairable = rows.iter().filter(|r| r.len() >= 2).count();
    assert_eq!(urg["all"]["pairable_units"], pairable);
    // The same figures the reference test checks against irrCAC and
    // krippendorff, on these labels.
    let counts = UnitCounts::new(&rows, 5).unwrap();
    let alpha = counts.krippendorff_alpha(AlphaMetric::Ordinal).unwrap();
    let kappa = counts.fleiss_kappa(KappaWeights::Unweighted).unwrap();
    let got_alpha = urg["all"]["krippendorff_alpha"]["value"].as_f64().unwrap();
    let got_kappa = urg["all"]["fleiss_kappa"]["value"].as_f64().unwrap();
    assert!((got_alpha - alpha).abs() < 1e-12, "{got_alpha} vs {alpha}");
    assert!((got_kappa - kappa).abs() < 1e-12, "{got_kappa} vs {kappa}");
    assert!(alpha < 0.667, "the design makes carol disagree: {alpha}");
    // Each pair on the items both labelled.
    let pairs = urg["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 3);
    let ab = &pairs[0];
    assert_eq!(
        (ab["left"].as_str(), ab["right"].as_str()),
        (Some("alice"), Some("bob"))
    );
    let both = (1..=12)
        .filter(|&i| matches!(urgency(i), [Some(_), Some(_), _]))
        .count();
    assert_eq!(ab["n"], both);
    // All three agree on work-pers: no warning there.
    let wp = people
        .iter()
        .find(|p| p["classification"] == "work-pers")
        .unwrap();
    assert_eq!(wp["all"]["krippendorff_alpha"]["value"], 1.0);
    let warnings: Vec<&str> = v["low_human_agreement"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = warnings[0];
    assert!(w.contains("urgency (likert)"), "{w}");
    assert!(w.contains("alice–carol") && w.contains("bob–carol"), "{w}");
    assert!(!w.contains("alice–bob") && !w.contains("work-pers"), "{w}");
    assert_eq!(v["min_human_agreement"], 0.667);

    // The text, Markdown and HTML reports say the same.
    let table = ws.ok(&["report", "--bootstrap", "50"]);
    assert!(
        table.contains("warning: people agree less than min_human_agreement 0.667 on urgency"),
        "{table}"
    );
    assert!(
        table.contains("Fleiss κ") && table.contains("alice – carol"),
        "{table}"
    );
    let md = ws.ok(&["report", "--format", "md", "--bootstrap", "50"]);
    assert!(md.contains("> **Warning:** people agree less than"), "{md}");
    let html = ws.ok(&["report", "--format", "html", "--bootstrap", "50"]);
    assert!(html.contains("id=\"people-agreement\"") && html.contains("<b>Warning:</b>"));

    // estimate and trust warn before their figures.
    for cmd in ["estimate", "trust"] {
        let out = ws.run(&[cmd]);
        assert_success(&out, &[cmd]);
        let err = text(&out.stderr);
        assert!(
            err.contains("jury: warning: people agree less than"),
            "{cmd}: {err}"
        );
        assert!(
            err.contains("urgency") && err.contains("alice–carol"),
            "{cmd}: {err}"
        );
    }
}

#[test]
fn the_threshold_is_config_and_a_bad_one_is_refused_by_line() {
    let ws = labelled();
    let cfg = ws.write("config.toml", "min_human_agreement = -1.0\n");
    let out = ws
        .cmd()
        .env("JURY_CONFIG", &cfg)
        .args(["estimate"])
        .output()
        .unwrap();
    assert_success(&out, &["estimate"]);
    assert!(
        !text(&out.stderr).contains("warning"),
        "{}",
        text(&out.stderr)
    );
    let out = ws
        .cmd()
        .env("JURY_CONFIG", &cfg)
        .args(["report", "--format", "json", "--bootstrap", "0"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["low_human_agreement"], serde_json::json!([]));
    let bad = ws.write("bad.toml", "who = \"a\"\nmin_human_agreement = 2\n");
    let out = ws
        .cmd()
        .env("JURY_CONFIG", &bad)
        .args(["report"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("bad.toml") && err.contains("line 2") && err.contains("min_human_agreement"),
        "{err}"
    );
}

/// Beside a judge, the human ceiling is the people's α on the judge's
/// combinations, from all three of them.
#[test]
fn the_judges_human_ceiling_is_alpha_over_all_three_people() {
    let ws = labelled();
    let srv = ServerRt::demo();
    let out = ws.judge(&srv.url(), None, &["--mode", "2", "--model", "demo"]);
    assert_success(&out, &["run"]);
    let v = report_json(&ws);
    let judged = v["judge_vs_human"].as_array().unwrap();
    let c = judged
        .iter()
        .filter_map(|g| g.get("human_ceiling"))
        .find(|c| c["people"] == 3)
        .expect("a judge group with all three people in its ceiling");
    assert!(c["krippendorff_alpha"]["value"].is_number(), "{c}");
    assert!(c["fleiss_kappa"]["value"].is_number(), "{c}");
    assert!(c["units"].as_u64().unwrap() >= 2, "{c}");
    // The text and HTML name α as the ceiling.
    let table = ws.ok(&["report", "--bootstrap", "50"]);
    assert!(table.contains("ceiling: α "), "{table}");
    let html = ws.ok(&["report", "--format", "html", "--bootstrap", "50"]);
    assert!(html.contains("human ceiling α"));
}
