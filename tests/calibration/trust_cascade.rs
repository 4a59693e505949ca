//! `jury trust --cascade` on the paper's own judges (issue #34 §2): the
//! calibration judgements of Mistral-7B, GPT-3.5-turbo and GPT-4-turbo on
//! 500 pairwise items from "Trust or Escalate" (Jung, Brahman and Choi, ICLR
//! 2025), kept beside the project in `../shared/external/trust-or-escalate/`
//! (never copied into it), imported through `jury import` as any other
//! tool's verdicts, people's labels on a seeded half only; the cascade
//! calibrated on that half (α 0.15, δ 0.1) must agree with people at ≥ 0.85
//! on the other half.
//!
//! The files hold pairwise preferences, not classifications, so the test
//! converts them (in memory, into the workspace's temporary folder):
//! - each line is an item `toe-NNN` with one classification `preference`
//!   whose selection is `first` (the first answer is the better one);
//! - a judge's verdict is AGREE when its larger probability is the first
//!   answer's (the first of equal ones, as the paper's `torch.max`),
//!   DISAGREE otherwise; its confidence is that probability over their sum;
//! - people's label is AGREE when `preferences.human` is 1, DISAGREE when 2,
//!   given by `paper` and recorded as sampled (the split is random).
//!
//! So a judge agrees with people exactly when it prefers the answer people
//! preferred, as in the paper.

use crate::common::Workspace;
use crate::trust_grid::{SEED, data_dir, split};
use jury::analytics::cascade::{calibrate_cascade, keeper};
use serde_json::{Value, json};
use std::path::Path;

const JUDGES: [&str; 3] = ["mistral-7b-instruct", "gpt-3.5-turbo", "gpt-4-turbo"];
const ALPHA: f64 = 0.15;
const DELTA: f64 = 0.1;

/// One line of a judge's file: its instruction (to check the files line
/// up), its preferred answer (1 or 2), the confidence, and people's answer.
struct Line {
    instruction: String,
    top: u64,
    confidence: f64,
    human: u64,
}

fn read(path: &Path) -> Vec<(Line, Value)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| {
            let r: Value = serde_json::from_str(l).expect("a JSON line");
            let probs: Vec<f64> = r["probs"]
                .as_array()
                .expect("probs")
                .iter()
                .map(|p| p.as_f64().expect("a probability"))
                .collect();
            let mut top = 0;
            for (i, p) in probs.iter().enumerate() {
                if *p > probs[top] {
                    top = i;
                }
            }
            let sum: f64 = probs.iter().sum();
            let line = Line {
                instruction: r["instruction"].as_str().expect("instruction").to_string(),
                top: top as u64 + 1,
                confidence: probs[top] / sum,
                human: r["preferences"]["human"]
                    .as_u64()
                    .expect("preferences.human"),
            };
            (line, r)
        })
        .collect()
}

fn agreement(v: bool) -> &'static str {
    if v { "AGREE" } else { "DISAGREE" }
}

fn jsonl(rows: impl Iterator<Item = Value>) -> String {
    rows.map(|r| format!("{r}\n")).collect()
}

#[test]
fn the_cascade_of_the_papers_judges_agrees_with_people_on_the_held_out_half() {
    let Some(dir) = data_dir() else { return };
    let files: Vec<Vec<(Line, Value)>> = JUDGES
        .iter()
        .map(|j| read(&dir.join(format!("{j}.calibration.jsonl"))))
        .collect();
    let n = files[0].len();
    assert_eq!(n, 500);
    for f in &files {
        assert_eq!(f.len(), n);
        for (a, b) in f.iter().zip(&files[0]) {
            assert_eq!(a.0.instruction, b.0.instruction, "the files line up");
            assert_eq!(a.0.human, b.0.human);
        }
    }
    let (cal, test) = split(n, SEED);

    let ws = Workspace::new();
    let persona = json!({"id": "reader", "name": "Reader", "definition": {"type": "Annotator"}});
    let perspective = json!({"id": "classification", "name": "Classification",
        "text": "Is the first answer the better one?"});
    let items = jsonl(files[0].iter().enumerate().map(|(i, (_, r))| {
        json!({"itemId": format!("toe-{i:03}"), "title": r["instruction"],
            "summary": format!("Answer 1:\n{}\n\nAnswer 2:\n{}", r["outputs"][0].as_str().unwrap_or(""),
                r["outputs"][1].as_str().unwrap_or("")),
            "classifications": [{"name": "preference", "desc": "The first answer is the better one",
                "available": ["first", "second"], "selected": "first"}]})
    }));
    let labels = jsonl(cal.iter().map(|&i| {
        json!({"itemId": format!("toe-{i:03}"), "classificationId": "preference",
            "perspectiveId": "classification", "personaId": "reader",
            "value": agreement(files[0][i].0.human == 1), "who": "paper", "sampled": true})
    }));
    let mut paths = vec![
        ws.write("personas.json", json!([persona]).to_string()),
        ws.write("perspectives.json", json!([perspective]).to_string()),
        ws.write("items.jsonl", items),
        ws.write("labels.jsonl", labels),
    ];
    for (j, f) in JUDGES.iter().zip(&files) {
        paths.push(ws.write(
            &format!("{j}.verdicts.jsonl"),
            jsonl(f.iter().enumerate().map(|(i, (l, _))| {
                json!({"judge": j, "item_id": format!("toe-{i:03}"), "classification_id": "preference",
                    "perspective_id": "classification", "persona_id": "reader",
                    "value": agreement(l.top == 1), "scale": "agreement", "confidence": l.confidence})
            })),
        ));
    }
    let mut args = vec!["import"];
    args.extend(paths.iter().map(|p| p.to_str().expect("path")));
    let out = ws.ok(&args);
    for j in JUDGES {
        assert!(
            out.contains(&format!("500 verdict(s) from judge '{j}'")),
            "{out}"
        );
    }

    let report: Value = serde_json::from_str(&ws.ok(&[
        "trust",
        "--cascade",
        &JUDGES.join(","),
        "--alpha",
        "0.15",
        "--delta",
        "0.1",
        "--format",
        "json",
    ]))
    .expect("json");
    let c = &report["cascades"][0];
    assert_eq!(c["classification"], "preference");
    assert_eq!(c["n_judged"], 500);
    assert_eq!(c["n_calibration"], 250);
    let stages = c["stages"].as_array().expect("stages");
    assert_eq!(stages.len(), 3);
    let thresholds: Vec<Option<f64>> = stages.iter().map(|s| s["threshold"].as_f64()).collect();

    // Every item, and the held-out half: who keeps it, and does it agree.
    let decide = |i: usize| -> Option<(usize, bool)> {
        let cs: Vec<Option<f64>> = files.iter().map(|f| Some(f[i].0.confidence)).collect();
        keeper(&cs, &thresholds).map(|j| (j, files[j][i].0.top == files[j][i].0.human))
    };
    for (j, s) in stages.iter().enumerate() {
        let kept = (0..n)
            .filter(|&i| decide(i).is_some_and(|d| d.0 == j))
            .count();
        assert_eq!(s["n_kept"], kept, "{s}");
    }
    let held: Vec<(usize, bool)> = test.iter().filter_map(|&i| decide(i)).collect();
    let coverage = held.len() as f64 / test.len() as f64;
    let agree = held.iter().filter(|d| d.1).count() as f64 / held.len().max(1) as f64;
    let mut lines = vec![format!(
        "cascade {}: keeps {:.1} % of the held-out half at agreement {agree:.3} (per judge {:?}; people {:.1} %)",
        JUDGES.join(" → "),
        100.0 * coverage,
        (0..3)
            .map(|j| held.iter().filter(|d| d.0 == j).count())
            .collect::<Vec<_>>(),
        100.0 * (1.0 - coverage)
    )];
    // Each judge alone (calibrated on the same half at δ), on the same half.
    for (j, s) in stages.iter().enumerate() {
        let alone = s["alone"]["threshold"].as_f64();
        let kept: Vec<bool> = test
            .iter()
            .filter(|&&i| alone.is_some_and(|t| files[j][i].0.confidence >= t))
            .map(|&i| files[j][i].0.top == files[j][i].0.human)
            .collect();
        lines.push(format!(
            "{} alone: threshold {}, keeps {:.1} % of the held-out half at agreement {}",
            JUDGES[j],
            alone.map_or("none".to_string(), |t| format!("{t:.4}")),
            100.0 * kept.len() as f64 / test.len() as f64,
            if kept.is_empty() {
                "-".to_string()
            } else {
                format!(
                    "{:.3}",
                    kept.iter().filter(|a| **a).count() as f64 / kept.len() as f64
                )
            }
        ));
    }
    // For comparison, not held to anything: the paper's code calibrates
    // each judge at δ itself (no δ/J), which keeps more and guarantees less.
    let units: Vec<Vec<Option<(f64, bool)>>> = cal
        .iter()
        .map(|&i| {
            files
                .iter()
                .map(|f| Some((f[i].0.confidence, f[i].0.top == f[i].0.human)))
                .collect()
        })
        .collect();
    let paper: Vec<Option<f64>> = calibrate_cascade(&units, 3, ALPHA, DELTA * 3.0, 30)
        .iter()
        .map(|t| t.threshold)
        .collect();
    let by_paper: Vec<bool> = test
        .iter()
        .filter_map(|&i| {
            let cs: Vec<Option<f64>> = files.iter().map(|f| Some(f[i].0.confidence)).collect();
            keeper(&cs, &paper).map(|j| files[j][i].0.top == files[j][i].0.human)
        })
        .collect();
    lines.push(format!(
        "each judge at δ (the paper's code, no end-to-end guarantee): keeps {:.1} % at agreement {:.3}",
        100.0 * by_paper.len() as f64 / test.len() as f64,
        by_paper.iter().filter(|a| **a).count() as f64 / by_paper.len().max(1) as f64
    ));
    eprintln!("{}", lines.join("\n"));
    assert!(
        agree >= 1.0 - ALPHA,
        "the cascade's held-out agreement {agree:.3} is below {}:\n{}",
        1.0 - ALPHA,
        lines.join("\n")
    );
    assert!(coverage > 0.3, "{}", lines.join("\n"));
}

/// Two judges each sure and right on its own half of 200 items: alone each
/// keeps half; as a cascade they keep all, and people get none. Names are
/// resolved by a unique part; an unknown or ambiguous one is refused.
#[test]
fn a_cascade_of_two_judges_keeps_what_each_is_sure_of() {
    let ws = crate::common::generated_workspace(200, 1);
    let row = |judge: &str, i: usize, value: &str, confidence: f64| {
        json!({"judge": judge, "item_id": format!("g-{i:06}"), "classification_id": "urgency",
            "perspective_id": "classification", "persona_id": "tester",
            "value": value, "scale": "agreement", "confidence": confidence})
    };
    let first = jsonl((0..200).map(|i| {
        if i < 100 {
            row("local-small", i, "AGREE", 0.99)
        } else {
            row("local-small", i, "DISAGREE", 0.6)
        }
    }));
    let second = jsonl((0..200).map(|i| {
        if i >= 100 {
            row("remote-large", i, "AGREE", 0.95)
        } else {
            row("remote-large", i, "DISAGREE", 0.5)
        }
    }));
    let labels = jsonl((0..200).map(|i| {
        json!({"itemId": format!("g-{i:06}"), "classificationId": "urgency",
            "perspectiveId": "classification", "personaId": "tester",
            "value": "AGREE", "who": "alice", "sampled": true})
    }));
    let paths = [
        ws.write("small.jsonl", first),
        ws.write("large.jsonl", second),
        ws.write("labels.jsonl", labels),
    ];
    let mut args = vec!["import"];
    args.extend(paths.iter().map(|p| p.to_str().expect("path")));
    ws.ok(&args);

    let report: Value =
        serde_json::from_str(&ws.ok(&["trust", "--cascade", "small,LARGE", "--format", "json"]))
            .expect("json");
    assert_eq!(
        report["judges"],
        json!(["awag mode 3 · local-small", "awag mode 3 · remote-large"])
    );
    let c = &report["cascades"][0];
    let stages = c["stages"].as_array().expect("stages");
    assert_eq!(
        (stages[0]["n_kept"].as_u64(), stages[1]["n_kept"].as_u64()),
        (Some(100), Some(100)),
        "{c}"
    );
    assert_eq!(c["people"], 0.0, "{c}");
    assert_eq!(c["agreement"], 1.0, "{c}");
    for s in stages {
        assert_eq!(s["alone"]["kept"], 0.5, "{s}");
    }
    let table = ws.ok(&["trust", "--cascade", "small,large"]);
    assert!(
        table.contains("1. awag mode 3 · local-small") && table.contains("people"),
        "{table}"
    );

    for bad in ["small,nobody", "small", "a,small"] {
        let out = ws.run(&["trust", "--cascade", bad]);
        assert!(!out.status.success(), "--cascade {bad} was accepted");
        let err = crate::common::text(&out.stderr);
        assert!(err.contains("--cascade"), "{bad}: {err}");
    }
}
