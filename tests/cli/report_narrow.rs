//! `jury report`'s table fits a 120-column terminal whatever the names
//! (`--wide` keeps one row per group), and no two groups share a name — a
//! judge-vs-human group read through the Likert → AGREE/DISAGREE mapping says
//! so, in the table and as `scale_mapped` in JSON.
#![cfg(feature = "tui")]

use crate::common;

use common::Workspace;
use serde_json::Value;
use std::collections::BTreeSet;

fn judged() -> Workspace {
    let ws = Workspace::sample_judged(&["2", "3"], &["--limit", "20"]);
    // Likert and AGREE labels from one person on judged items: mode 3's
    // verdicts meet both, on the same scale and through the mapping.
    for (i, v) in ["4", "2", "5", "1"].iter().enumerate() {
        ws.ok(&[
            "label",
            &format!("k-00{}", i + 1),
            "urgency",
            v,
            "--who",
            "carol",
        ]);
    }
    for (i, v) in ["AGREE", "DISAGREE"].iter().enumerate() {
        ws.ok(&[
            "label",
            &format!("k-00{}", i + 5),
            "urgency",
            v,
            "--who",
            "carol",
        ]);
    }
    ws
}

#[test]
fn the_table_fits_120_columns_and_no_two_groups_share_a_name() {
    let ws = judged();
    let table = ws.ok(&["report"]);
    for l in table.lines() {
        assert!(
            l.chars().count() <= 120,
            "{} columns: {l}",
            l.chars().count()
        );
    }
    // Group headings are the lines that start with a comparison's name.
    let headings: Vec<&str> = table
        .lines()
        .filter(|l| l.contains("_vs_") && l.contains(" · "))
        .collect();
    let unique: BTreeSet<&str> = headings.iter().copied().collect();
    assert_eq!(
        unique.len(),
        headings.len(),
        "two groups share a name:\n{table}"
    );
    assert!(table.contains("agreement (mapped)"), "{table}");

    let wide = ws.ok(&["report", "--wide"]);
    assert!(wide.lines().next().unwrap().starts_with("comparison"));
    assert!(
        wide.lines().any(|l| l.chars().count() > 120),
        "--wide keeps every column on one row"
    );

    let json: Value = serde_json::from_str(&ws.ok(&["report", "--format", "json"])).unwrap();
    let mut names = BTreeSet::new();
    let mut mapped = 0;
    for (comparison, groups) in json.as_object().unwrap() {
        let Some(groups) = groups.as_array() else {
            continue;
        };
        for g in groups {
            if g.get("scale_mapped").is_none() {
                continue; // not a comparison group (self-consistency etc.)
            }
            mapped += usize::from(g["scale_mapped"] == true);
            let key = format!(
                "{comparison}|{}|{}|{}",
                g["group"], g["scale"], g["scale_mapped"]
            );
            assert!(names.insert(key.clone()), "duplicate group {key}");
        }
    }
    assert!(mapped > 0, "a mapped group is marked in JSON");
}
