//! The held-out split in the workbench: with a held-out split in the store,
//! every verdict row says which side its (item, classification) is on, the
//! side `jury export` gives it.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::domain::{ComboKey, Label, Side, SplitRule, Value};

#[test]
fn verdict_rows_show_the_split_side_read_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = jury::store::Store::open(&dir.path().join("s.db")).unwrap();
    let data = loaded();
    store.upsert_persona(&data.personas[0]).unwrap();
    // Labels on both classifications of the three items, then the split.
    let mut labels = Vec::new();
    for item in &data.items {
        for c in &item.classifications {
            labels.push(Label {
                key: ComboKey {
                    item_id: item.id.clone(),
                    classification_id: c.id.clone(),
                    perspective_id: "classification".into(),
                },
                persona_id: "kenton".into(),
                value: Value::Likert(2),
                note: String::new(),
                who: "tester".into(),
                created_at: "2026-11-24T00:00:00Z".into(),
                replaced_judge_value: None,
                blind: false,
                tags: Vec::new(),
            });
        }
    }
    for l in &labels {
        store.upsert_label(l).unwrap();
    }
    store
        .make_split(SplitRule::new(0.5, 3).unwrap(), "tester", false)
        .unwrap();
    let split = store.split().unwrap().unwrap();
    // What the workbench reads at start carries it.
    let read = jury::tui::load(&store).unwrap();
    assert_eq!(read.split.as_ref().map(|s| s.fixed()), Some(6));

    let mut with_split = data.clone();
    with_split.split = Some(split.clone());
    let mut app = app_with(with_split);
    app.chrome.size = (160, 30);
    let s = screen(&app);
    for c in ["urgency", "work-pers"] {
        let side = split.side_of("k-001", c);
        let row = s
            .lines()
            .find(|l| l.contains(&format!("{c}  classifier:")))
            .unwrap_or_else(|| panic!("no {c} row:\n{s}"));
        assert!(
            row.contains(&format!("  {}", side.as_str())),
            "{c} ({side:?}): {row}"
        );
    }
    // Half held out, stratified: both sides appear among the six pairs.
    let split = &split;
    let sides: Vec<Side> = data
        .items
        .iter()
        .flat_map(|i| {
            i.classifications
                .iter()
                .map(move |c| split.side_of(&i.id, &c.id))
        })
        .collect();
    assert!(sides.contains(&Side::Test) && sides.contains(&Side::Train));

    // Without a split nothing is said.
    let mut plain = app_with(data);
    plain.chrome.size = (160, 30);
    let s = screen(&plain);
    let row = s
        .lines()
        .find(|l| l.contains("urgency  classifier:"))
        .unwrap();
    assert!(!row.contains("train") && !row.contains("test"), "{row}");
}

/// A split an earlier jury made by (item, classification) pair, with an
/// item on both sides: `L` says so and how to remake it, and starts nothing.
#[test]
fn a_pair_level_split_is_named_and_l_builds_nothing_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let mut store = jury::store::Store::open(&db).unwrap();
    let data = loaded();
    store.upsert_persona(&data.personas[0]).unwrap();
    for item in &data.items {
        for c in &item.classifications {
            store
                .upsert_label(&Label {
                    key: ComboKey {
                        item_id: item.id.clone(),
                        classification_id: c.id.clone(),
                        perspective_id: "classification".into(),
                    },
                    persona_id: "kenton".into(),
                    value: Value::Likert(2),
                    note: String::new(),
                    who: "tester".into(),
                    created_at: "2026-11-24T00:00:00Z".into(),
                    replaced_judge_value: None,
                    blind: false,
                    tags: Vec::new(),
                })
                .unwrap();
        }
    }
    store
        .make_split(SplitRule::new(0.5, 3).unwrap(), "tester", false)
        .unwrap();
    let made = store.split().unwrap().unwrap();
    assert!(made.mixed_items().is_empty(), "made by item");
    // As a pair-level split stored it: k-001's urgency on the other side.
    let other = match made.side_of("k-001", "urgency") {
        Side::Test => "train",
        Side::Train => "test",
    };
    drop(store);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE split_members SET side = ?1 WHERE item_id = 'k-001' AND classification_id = 'urgency'",
        [other],
    )
    .unwrap();
    drop(conn);
    let split = jury::store::Store::open(&db)
        .unwrap()
        .split()
        .unwrap()
        .unwrap();
    assert_eq!(split.mixed_items(), ["k-001".to_string()]);
    assert_eq!(split.item_side("k-001"), Side::Test, "never an example");

    let mut with_split = data.clone();
    with_split.split = Some(split);
    let mut app = app_with(with_split);
    let fx = key(&mut app, 'L');
    assert!(fx.is_empty(), "{fx:?}");
    let (_, m) = app.chrome.message.clone().expect("a message");
    assert!(
        m.contains("made by (item, classification) pair")
            && m.contains("k-001")
            && m.contains("jury split --replace --holdout 0.5 --seed 3"),
        "{m}"
    );
}
