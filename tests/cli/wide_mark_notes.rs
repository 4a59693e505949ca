//! The wide export carries each mark's note (`mark_note:WHO`, beside
//! `mark:WHO`) and has a `tags:WHO` column only for a person whose labels
//! carry a tag (issue 31).
#![cfg(feature = "tui")]

use crate::common;

use common::{generated_workspace, jsonl};
use jury::domain::{ComboKey, MarkKind};
use jury::store::{MarkEventKind, MarkSlot};

/// A CSV line's cells; the cells this test reads hold no comma or quote.
fn cells(line: &str) -> Vec<&str> {
    line.split(',').collect()
}

#[test]
fn a_mark_s_note_has_a_column_and_only_used_tag_columns_are_written() {
    let ws = generated_workspace(2, 1);
    // alice tags her label, bob labels with no tag.
    ws.ok(&[
        "label",
        "g-000000",
        "urgency",
        "4",
        "--persona",
        "tester",
        "--who",
        "alice",
        "--tag",
        "persona-misread",
    ]);
    ws.ok(&[
        "label",
        "g-000000",
        "urgency",
        "2",
        "--persona",
        "tester",
        "--who",
        "bob",
    ]);
    // carol marks the same row with a note; a name stored with ':' (from
    // before such names were refused) marks another, with no note.
    let mark = |item: &str, who: &str, note: &str| {
        let slot = MarkSlot {
            key: ComboKey::new(item, "urgency", "classification"),
            persona_id: "tester".into(),
            who: who.into(),
        };
        ws.store()
            .record_mark(
                &slot,
                Some((MarkKind::Unsure, note)),
                &jury::store::now(),
                MarkEventKind::Mark,
            )
            .expect("record a mark");
    };
    mark("g-000000", "carol", "ask Kenton about the date");
    mark("g-000001", "dan:old", "");

    let rows = jsonl(&ws.ok(&["export", "--format", "wide-jsonl"]));
    let row = rows
        .iter()
        .find(|r| r["item_id"] == "g-000000")
        .expect("the labelled row");
    assert_eq!(row["mark:carol"], "unsure", "{row}");
    assert_eq!(row["mark_note:carol"], "ask Kenton about the date", "{row}");
    assert_eq!(row["tags:alice"], "persona-misread", "{row}");
    let keys: Vec<&String> = row.as_object().expect("an object").keys().collect();
    assert!(!keys.iter().any(|k| k.starts_with("tags:bob")), "{keys:?}");
    // A mark with no note: its note cell is empty, its column name escaped.
    let other = rows
        .iter()
        .find(|r| r["item_id"] == "g-000001")
        .expect("the marked row");
    assert_eq!(other["mark:dan\\:old"], "unsure", "{other}");
    assert!(other["mark_note:dan\\:old"].is_null(), "{other}");

    let csv = ws.ok(&["export", "--format", "wide"]);
    let mut lines = csv.lines();
    let header = cells(lines.next().expect("a header"));
    let line = lines
        .map(cells)
        .find(|c| c[0] == "g-000000")
        .expect("the labelled row in CSV");
    let at = |name: &str| header.iter().position(|h| *h == name);
    let note = at("mark_note:carol").expect("a mark_note:carol column");
    assert_eq!(line[note], "ask Kenton about the date", "{header:?}");
    assert_eq!(at("mark:carol"), Some(note - 1), "{header:?}");
    assert!(at("mark_note:dan\\:old").is_some(), "{header:?}");
    assert!(at("tags:alice").is_some(), "{header:?}");
    assert!(
        !header.iter().any(|h| h.starts_with("tags:bob")),
        "{header:?}"
    );
}
