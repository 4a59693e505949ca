//! Adjudication from a shell: three people label with disagreements, the
//! queue lists exactly the disputes with every label and note, `jury
//! adjudicate` gives the reference, and report, estimate, trust and the
//! exports change accordingly and say where the reference came from.

use crate::common;

use common::{ServerRt, Workspace, generated_workspace, text};
use serde_json::Value as Json;

fn label(ws: &Workspace, item: &str, value: &str, who: &str) {
    let note = format!("{who} thinks {value}");
    ws.ok(&[
        "label", item, "urgency", value, "--who", who, "--note", &note,
    ]);
}

/// Four items judged (mode 2, Likert) and labelled by alice, bob and carol:
/// g0 5/1/2 (a majority DISAGREE), g1 4/2 (a tie), g2 4/5 (agree: a Likert
/// 4 and 5 are the same answer), g3 alice alone.
fn study() -> Workspace {
    let ws = generated_workspace(4, 1);
    let server = ServerRt::demo();
    let out = ws.run_with(
        &server.url(),
        &[
            "run",
            "--mode",
            "2",
            "--persona",
            "tester",
            "--perspective",
            "classification",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    for (item, values) in [
        ("g-000000", &["5", "1", "2"][..]),
        ("g-000001", &["4", "2"][..]),
        ("g-000002", &["4", "5"][..]),
        ("g-000003", &["2"][..]),
    ] {
        for (v, who) in values.iter().zip(["alice", "bob", "carol"]) {
            label(&ws, item, v, who);
        }
    }
    ws
}

fn queue(ws: &Workspace) -> Vec<Json> {
    serde_json::from_str::<Json>(&ws.ok(&["adjudicate", "--list", "--json"]))
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn report(ws: &Workspace) -> Json {
    serde_json::from_str(&ws.ok(&["report", "--format", "json"])).unwrap()
}

#[test]
fn three_people_disagree_one_adjudication_changes_the_reference_everywhere() {
    let ws = study();
    // The queue: the two disputes, every person's label and note.
    let q = queue(&ws);
    let items: Vec<&str> = q.iter().map(|d| d["item_id"].as_str().unwrap()).collect();
    assert_eq!(items, ["g-000000", "g-000001"], "{q:#?}");
    let people: Vec<(&str, i64, &str)> = q[0]["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["who"].as_str().unwrap(),
                l["value"].as_i64().unwrap(),
                l["note"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        people,
        [
            ("alice", 5, "alice thinks 5"),
            ("bob", 1, "bob thinks 1"),
            ("carol", 2, "carol thinks 2")
        ]
    );
    let listed = ws.ok(&["adjudicate", "--list"]);
    assert!(
        listed.contains("2 combination(s) people disagree on"),
        "{listed}"
    );
    assert!(listed.contains("bob thinks 1"), "{listed}");

    // Before: no reference comparison; estimate says 1 tie left out.
    let before = report(&ws);
    assert_eq!(before["judge_vs_reference"], serde_json::json!([]));
    assert!(before["reference"].is_null());
    let est = ws.ok(&["estimate"]);
    assert!(
        est.contains(
            "reference: 0 adjudicated, 2 majority of people, 1 one person's, 1 tie or undecided left out"
        ),
        "{est}"
    );

    // dana settles the tie on g1; a value off the people's scale is refused.
    let bad = ws.run(&[
        "adjudicate",
        "g-000001",
        "urgency",
        "AGREE",
        "--who",
        "dana",
    ]);
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains("likert scale"),
        "{}",
        text(&bad.stderr)
    );
    let none = ws.run(&["adjudicate", "g-000003", "work-pers", "4"]);
    assert!(!none.status.success());
    let said = ws.ok(&[
        "adjudicate",
        "g-000001",
        "urgency",
        "4",
        "--who",
        "dana",
        "--note",
        "the deadline is real",
    ]);
    assert!(said.contains("adjudicated g-000001/urgency as 4"), "{said}");
    assert!(said.contains("by dana"), "{said}");
    let q = queue(&ws);
    assert_eq!(q.len(), 1);
    assert_eq!(q[0]["item_id"], "g-000000");

    // After: estimate counts the adjudicated combination instead of the tie.
    let est = ws.ok(&["estimate"]);
    assert!(
        est.contains(
            "reference: 1 adjudicated, 2 majority of people, 1 one person's, 0 ties or undecided left out"
        ),
        "{est}"
    );
    let est: Json = serde_json::from_str(&ws.ok(&["estimate", "--format", "json"])).unwrap();
    let e = est
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["classification"] == "urgency")
        .unwrap();
    assert_eq!(e["n"], 4, "{e:#}");
    assert_eq!(e["reference"]["adjudicated"], 1, "{e:#}");
    assert_eq!(e["reference"]["majority"], 2, "{e:#}");
    assert_eq!(e["left_out"]["people_undecided"], 0, "{e:#}");

    // The report compares the judge with the reference and says where it came from.
    let after = report(&ws);
    assert_eq!(after["reference"]["adjudicated"], 1, "{after:#}");
    assert_eq!(after["reference"]["majority"], 2);
    assert_eq!(after["reference"]["one_person"], 1);
    assert_eq!(after["reference"]["ties_left_out"], 0);
    let jr = after["judge_vs_reference"].as_array().unwrap();
    assert_eq!(jr.len(), 1, "{jr:#?}");
    assert_eq!(jr[0]["right"], "reference");
    assert_eq!(jr[0]["n"], 4);
    // Judge vs each person is unchanged by an adjudication.
    assert_eq!(after["judge_vs_human"], before["judge_vs_human"]);
    let table = ws.ok(&["report"]);
    assert!(table.contains("reference: 1 adjudicated"), "{table}");

    let trust = ws.ok(&["trust"]);
    assert!(trust.contains("reference: 1 adjudicated"), "{trust}");

    // Exports carry the adjudication as its own kind, and a wide column.
    let rows = ws.export_rows();
    let a: Vec<&Json> = rows
        .iter()
        .filter(|r| r["kind"] == "adjudication")
        .collect();
    assert_eq!(a.len(), 1);
    assert_eq!(a[0]["item_id"], "g-000001");
    assert_eq!(a[0]["value"], 4);
    assert_eq!(a[0]["who"], "dana");
    assert_eq!(a[0]["text"], "the deadline is real");
    assert_eq!(rows.iter().filter(|r| r["kind"] == "label").count(), 8);
    let csv = ws.ok(&["export", "--format", "csv"]);
    assert!(csv.lines().any(|l| l.starts_with("adjudication,")), "{csv}");
    let wide = common::jsonl(&ws.ok(&["export", "--format", "wide-jsonl"]));
    let g1 = wide.iter().find(|r| r["item_id"] == "g-000001").unwrap();
    assert_eq!(g1["adjudicated"], 4, "{g1:#}");
    assert_eq!(g1["adjudicated_by"], "dana");
    let g0 = wide.iter().find(|r| r["item_id"] == "g-000000").unwrap();
    assert!(g0["adjudicated"].is_null());
}
