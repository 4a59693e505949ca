//! Label history through the real store: every label change is kept as an
//! event; an undo is one more event, and an undone label is not the current
//! label in `jury export`, `jury report` or the agreement view's figures.
#![cfg(feature = "tui")]

use crate::common;

use common::{ServerRt, Workspace, generated_workspace, text};
use jury::domain::{ComboKey, Label, Scale, Value};
use jury::store::{LabelUndo, Slot};
use serde_json::Value as Json;

fn label(item: &str, v: u8, at: &str) -> Label {
    Label {
        key: ComboKey::new(item, "urgency", "classification"),
        persona_id: "tester".into(),
        value: Value::Likert(v),
        note: String::new(),
        who: "tester".into(),
        created_at: at.into(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    }
}

/// The current labels `jury export` gives for (item, urgency).
fn exported(ws: &Workspace, item: &str) -> Vec<Json> {
    ws.export_rows()
        .into_iter()
        .filter(|r| {
            r["kind"] == "label" && r["item_id"] == item && r["classification_id"] == "urgency"
        })
        .collect()
}

/// n of the judge-vs-human groups (one classification here) in `jury report --format json`.
fn report_n(ws: &Workspace) -> u64 {
    let doc: Json = serde_json::from_str(&ws.ok(&["report", "--format", "json"])).unwrap();
    let groups = doc["judge_vs_human"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    groups.iter().map(|g| g["n"].as_u64().unwrap_or(0)).sum()
}

#[test]
fn undo_restores_or_retracts_through_the_store_and_keeps_every_event() {
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
    let mut s = ws.store();
    let (a, b) = ("g-000000", "g-000001");
    s.upsert_label(&label(a, 2, "2026-11-24T04:00:00.000Z"))
        .unwrap();
    s.upsert_label(&label(b, 1, "2026-11-24T04:00:01.000Z"))
        .unwrap();
    s.upsert_label(&label(b, 5, "2026-11-24T04:00:02.000Z"))
        .unwrap();
    assert_eq!(report_n(&ws), 2);
    assert_eq!(exported(&ws, b)[0]["value"], 5);

    // Undo b's change: its earlier answer comes back as the current one.
    let slot = Slot::of(&label(b, 5, ""));
    s.undo_label(&LabelUndo {
        slot: slot.clone(),
        restore: Some(label(b, 1, "2026-11-24T04:00:01.000Z")),
        at: "2026-11-24T04:00:03.000Z".into(),
        undoes: Box::new(label(b, 5, "2026-11-24T04:00:02.000Z")),
    })
    .unwrap();
    let rows = exported(&ws, b);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["value"], 1);

    // Undo a's first label: retracted, gone from export and report.
    s.undo_label(&LabelUndo {
        slot: Slot::of(&label(a, 2, "")),
        restore: None,
        at: "2026-11-24T04:00:04.000Z".into(),
        undoes: Box::new(label(a, 2, "2026-11-24T04:00:00.000Z")),
    })
    .unwrap();
    assert!(exported(&ws, a).is_empty());
    assert_eq!(report_n(&ws), 1, "the retracted label is not compared");
    assert!(s.labels_for_item(a).unwrap().is_empty());

    // Nothing was deleted from the history: b has set 1, set 5, undo → 1.
    let h = s.label_history(&slot.key).unwrap();
    let vs: Vec<(Option<Value>, &str)> = h
        .iter()
        .filter(|e| e.slot.key.item_id == b)
        .map(|e| (e.value, e.kind.as_str()))
        .collect();
    assert_eq!(
        vs,
        vec![
            (Some(Value::Likert(1)), "undo"),
            (Some(Value::Likert(5)), "set"),
            (Some(Value::Likert(1)), "set"),
        ],
        "newest first"
    );
    let ha = s
        .label_history(&ComboKey::new(a, "urgency", "classification"))
        .unwrap();
    assert_eq!(ha.len(), 2);
    assert_eq!((ha[0].value, ha[0].kind.as_str()), (None, "undo"));
    assert_eq!(ha[0].slot.scale, Scale::Likert);
    drop(s);

    // A store reopened (a new process) reads the same history.
    let again = jury::store::Store::open(&ws.db).unwrap();
    assert_eq!(again.label_history(&slot.key).unwrap(), h);
}

#[test]
fn labels_from_before_the_history_become_its_first_event() {
    // A store written before label_events: migrating copies every label in
    // as its first event, so a row's history starts complete.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    // Version 9: the last one before label history (migration 10).
    let before = 9;
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        for sql in &jury::store::migrations()[..before] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", before as i64)
            .unwrap();
        conn.execute_batch(
            "INSERT INTO labels (item_id, classification_id, perspective_id, persona_id, who, scale, value, replaced_judge_value, created_at)
               VALUES ('i', 'urgency', 'classification', 'p', 'ann', 'likert', '2', '4', '2026-01-01T00:00:00.000Z');",
        )
        .unwrap();
    }
    let s = jury::store::Store::open(&path).unwrap();
    let h = s
        .label_history(&ComboKey::new("i", "urgency", "classification"))
        .unwrap();
    assert_eq!(h.len(), 1);
    assert_eq!(h[0].value, Some(Value::Likert(2)));
    assert_eq!(h[0].replaced_judge_value, Some(Value::Likert(4)));
    assert_eq!(h[0].slot.who, "ann");
    assert_eq!(h[0].kind, "set");
    assert!(
        s.workbench_session("ann").unwrap().is_none(),
        "no session kept yet"
    );
}

/// The workbench labels, `jury label` from a shell changes the same label
/// (value and note), then the workbench's undo arrives: it reverts nothing,
/// says what the label is now, and the newer label and its note stay.
#[test]
fn an_undo_never_reverts_a_label_changed_since() {
    let ws = generated_workspace(2, 1);
    let mut s = ws.store();
    let item = "g-000000";
    let mine = label(item, 2, "2026-11-24T04:00:00.000Z");
    s.upsert_label(&mine).unwrap();
    let out = ws.run(&[
        "label",
        item,
        "urgency",
        "4",
        "--persona",
        "tester",
        "--who",
        "tester",
        "--note",
        "checked with the sender",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let e = s
        .undo_label(&LabelUndo {
            slot: Slot::of(&mine),
            restore: None,
            at: "2026-11-24T04:00:09.000Z".into(),
            undoes: Box::new(mine.clone()),
        })
        .expect_err("the label changed since: no undo");
    let said = e.to_string();
    assert!(
        said.contains("changed since")
            && said.contains("now 4")
            && said.contains("checked with the sender"),
        "{said}"
    );
    let rows = exported(&ws, item);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["value"], 4);
    assert_eq!(rows[0]["text"], "checked with the sender");
    let kinds: Vec<String> = s
        .label_history(&mine.key)
        .unwrap()
        .into_iter()
        .map(|e| e.kind.as_str().to_string())
        .collect();
    assert_eq!(kinds, ["set", "set"], "no undo event was written");

    // An undo of the change that is still current goes through.
    let current = s.labels_for_item(item).unwrap().remove(0);
    s.undo_label(&LabelUndo {
        slot: Slot::of(&current),
        restore: Some(mine.clone()),
        at: "2026-11-24T04:00:10.000Z".into(),
        undoes: Box::new(current.clone()),
    })
    .unwrap();
    assert_eq!(exported(&ws, item)[0]["value"], 2);
}
