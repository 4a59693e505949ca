//! The wide export's columns (`label:WHO`, `label:WHO:SCALE`, `note:WHO`,
//! `judge:NAME:confidence`) cannot collide: a person or persona name with
//! `:` and a blank `--who` are refused where they enter (`--who`,
//! `JURY_USER`, an imported label's `who`, an imported persona), and a name
//! already stored with `:` is escaped in the column names.
#![cfg(feature = "tui")]

use crate::common;

use common::{Workspace, generated_workspace, jsonl, text};
use serde_json::json;

fn label_line(who: &str, cls: &str, value: serde_json::Value, note: &str) -> String {
    json!({"itemId": "g-000000", "classificationId": cls, "perspectiveId": "classification",
           "personaId": "tester", "value": value, "who": who, "note": note})
    .to_string()
}

#[test]
fn a_colon_or_a_blank_name_is_refused_where_it_enters() {
    let ws = generated_workspace(2, 2);
    // An imported label's who, named with its file, line and field.
    let p = ws.write(
        "labels.jsonl",
        format!(
            "{}\n{}\n",
            label_line("alice", "urgency", json!(4), "mine"),
            label_line("alice:likert", "urgency", json!(1), "not alice's")
        ),
    );
    let out = ws.run(&["import", p.to_str().expect("utf-8 path")]);
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{}", text(&out.stdout));
    assert!(
        err.contains("labels.jsonl") && err.contains("line 2") && err.contains("who"),
        "{err}"
    );
    assert!(err.contains("'alice:likert' cannot name a person"), "{err}");

    // --who, JURY_USER and a blank --who.
    for (args, env) in [
        (vec!["--who", "bob:likert"], None),
        (vec!["--who", ""], None),
        (vec!["--who", "   "], None),
        (vec![], Some("carol:agreement")),
    ] {
        let mut c = ws.cmd();
        c.args(["label", "g-000000", "urgency", "3"]).args(&args);
        if let Some(u) = env {
            c.env("JURY_USER", u);
        }
        let out = c.output().expect("spawn jury");
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{args:?} {env:?} was taken");
        assert!(
            err.contains("cannot name a person") || err.contains("empty or blank"),
            "{args:?} {env:?}: {err}"
        );
    }

    // A persona id with ':'.
    let p = ws.write(
        "persona.json",
        json!({"id": "ana:likert", "name": "Ana", "definition": "Ana reads mail."}).to_string(),
    );
    let out = ws.run(&["import", p.to_str().expect("utf-8 path")]);
    let err = text(&out.stderr);
    assert!(!out.status.success(), "{}", text(&out.stdout));
    assert!(err.contains("cannot be a persona id"), "{err}");
    // Nothing of it was stored.
    let wide = ws.ok(&["export", "--format", "wide-jsonl"]);
    assert!(!wide.contains("likert\""), "{wide}");
}

/// A store from before names with ':' were refused: alice labelled on two
/// scales (`label:alice:likert`, `label:alice:agreement`) and a person named
/// `alice:likert` each keep a column of their own.
#[test]
fn a_stored_name_with_a_colon_is_escaped_and_takes_no_one_s_column() {
    let ws: Workspace = generated_workspace(2, 2);
    let p = ws.write(
        "labels.jsonl",
        format!(
            "{}\n{}\n",
            label_line("alice", "urgency", json!(4), "alice's likert"),
            label_line("alice", "work-pers", json!("DISAGREE"), "alice's agree")
        ),
    );
    ws.ok(&["import", p.to_str().expect("utf-8 path")]);
    // Written as an older jury did, past today's check.
    let db = rusqlite::Connection::open(&ws.db).expect("open store");
    db.execute(
        "INSERT INTO labels (item_id, classification_id, perspective_id, persona_id, who, scale, value, note, created_at)
         SELECT item_id, classification_id, perspective_id, persona_id, 'alice:likert', scale, '1', 'not alice''s', created_at
         FROM labels WHERE who = 'alice' AND scale = 'likert'",
        [],
    )
    .expect("insert a legacy label");
    drop(db);
    let rows = jsonl(&ws.ok(&["export", "--format", "wide-jsonl"]));
    let row = rows
        .iter()
        .find(|r| r["item_id"] == "g-000000" && r["classification_id"] == "urgency")
        .expect("the labelled row");
    assert_eq!(row["label:alice:likert"], 4, "{row}");
    assert_eq!(row["note:alice:likert"], "alice's likert", "{row}");
    assert_eq!(row["label:alice\\:likert"], 1, "{row}");
    assert_eq!(row["note:alice\\:likert"], "not alice's", "{row}");
    // The CSV header names each column once.
    let csv = ws.ok(&["export", "--format", "wide"]);
    let header: Vec<&str> = csv.lines().next().expect("a header").split(',').collect();
    let mut unique = header.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), header.len(), "{header:?}");
}
