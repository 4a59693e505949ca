//! Notes in every export: the row export's label rows carry the note as
//! `text` (JSON lines and CSV), and the wide export a `note:WHO` column
//! beside each `label:WHO` (CSV and JSON lines). The HTML report's table of
//! disagreements carries them too (`report_html_page.rs`).
#![cfg(feature = "tui")]

use crate::common;

use common::{generated_workspace, jsonl};
use serde_json::{Value, json};

/// A note with the characters a spreadsheet or terminal would misread.
const NOTE: &str = "rang Priya, \"today\"\nbefore lunch \u{1b}[2J";
const FORMULA: &str = "=HYPERLINK(\"http://x\")";

fn labelled() -> common::Workspace {
    let ws = generated_workspace(3, 2);
    let labels = [
        ("alice", "g-000000", "urgency", json!(4), NOTE),
        ("alice", "g-000000", "work-pers", json!("DISAGREE"), FORMULA),
        ("bob", "g-000001", "urgency", json!(2), ""),
    ];
    let lines: Vec<String> = labels
        .iter()
        .map(|(who, item, cls, v, note)| {
            json!({"itemId": item, "classificationId": cls, "perspectiveId": "classification",
                   "personaId": "tester", "value": v, "who": who, "note": note})
            .to_string()
        })
        .collect();
    let p = ws.write("labels.jsonl", lines.join("\n") + "\n");
    ws.ok(&["import", p.to_str().unwrap()]);
    ws
}

fn csv_rows(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let header = r.headers().unwrap().iter().map(str::to_string).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(str::to_string).collect())
        .collect();
    (header, rows)
}

#[test]
fn the_row_export_carries_each_note_as_the_label_row_s_text() {
    let ws = labelled();
    let rows = jsonl(&ws.ok(&["export"]));
    let note_of = |item: &str, cls: &str| -> Value {
        rows.iter()
            .find(|r| r["kind"] == "label" && r["item_id"] == item && r["classification_id"] == cls)
            .unwrap_or_else(|| panic!("no label row {item} {cls}: {rows:?}"))["text"]
            .clone()
    };
    assert_eq!(note_of("g-000000", "urgency"), json!(NOTE));
    assert_eq!(note_of("g-000000", "work-pers"), json!(FORMULA));
    // The CSV: the same text, escapes shown and the formula defused, and it
    // reads back exactly.
    let csv = ws.ok(&["export", "--format", "csv"]);
    assert!(!csv.contains('\u{1b}'), "{csv}");
    let (header, rows) = csv_rows(&csv);
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (kind, cls, text) = (col("kind"), col("classification_id"), col("text"));
    let cell = |c: &str| -> String {
        rows.iter()
            .find(|r| r[kind] == "label" && r[cls] == c && r[col("who")] == "alice")
            .unwrap()[text]
            .clone()
    };
    assert!(cell("work-pers").starts_with("'="), "{}", cell("work-pers"));
    assert_eq!(jury::report::csv::from_text_cell(&cell("urgency")), NOTE);
    assert_eq!(
        jury::report::csv::from_text_cell(&cell("work-pers")),
        FORMULA
    );
}

#[test]
fn the_wide_export_has_a_note_column_beside_each_label_column() {
    let ws = labelled();
    let rows = jsonl(&ws.ok(&["export", "--format", "wide-jsonl"]));
    let keys: Vec<&String> = rows[0].as_object().unwrap().keys().collect();
    for k in [
        "note:alice:likert",
        "note:alice:agreement",
        "note:bob",
        "label:bob",
    ] {
        assert!(keys.iter().any(|c| *c == k), "{k} in {keys:?}");
    }
    let cell = |item: &str, cls: &str, col: &str| -> Value {
        rows.iter()
            .find(|r| r["item_id"] == item && r["classification_id"] == cls)
            .unwrap_or_else(|| panic!("no row {item} {cls}"))[col]
            .clone()
    };
    assert_eq!(
        cell("g-000000", "urgency", "note:alice:likert"),
        json!(NOTE)
    );
    assert_eq!(
        cell("g-000000", "work-pers", "note:alice:agreement"),
        json!(FORMULA)
    );
    // No note, or no label: null.
    assert_eq!(cell("g-000001", "urgency", "note:bob"), Value::Null);
    assert_eq!(cell("g-000001", "urgency", "label:bob"), json!(2));
    assert_eq!(cell("g-000000", "urgency", "note:bob"), Value::Null);

    // The CSV: each note column follows its label column; the cells read
    // back to the notes, escapes shown and formulas defused.
    let csv = ws.ok(&["export", "--format", "wide"]);
    assert!(!csv.contains('\u{1b}'), "{csv}");
    let (header, rows) = csv_rows(&csv);
    assert_eq!(header.len(), keys.len());
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(at("note:alice:likert"), at("label:alice:likert") + 1);
    assert_eq!(at("note:bob"), at("label:bob") + 1);
    let row = rows
        .iter()
        .find(|r| r[0] == "g-000000" && r[1] == "urgency")
        .unwrap();
    assert_eq!(
        jury::report::csv::from_text_cell(&row[at("note:alice:likert")]),
        NOTE
    );
    let row = rows
        .iter()
        .find(|r| r[0] == "g-000000" && r[1] == "work-pers")
        .unwrap();
    assert!(row[at("note:alice:agreement")].starts_with("'="), "{row:?}");
}
