//! Every key lands where the eye is: when the item changes the focus goes to
//! the first row that still needs me; `row` and `item` auto-advance measured
//! in keys per label over a 40-item session (the default is chosen by it);
//! label keys typed faster than the writer answers all land.

use crate::config::AutoAdvance;
use crate::domain::*;
use crate::tui::app::{App, SaveState};
use crate::tui::fixtures::*;
use crate::tui::msg::{Effect, Msg};

/// Where the cursor and focus are: (item id, row).
fn at(app: &App) -> (String, usize) {
    let id = app.current_item().map(|i| i.id.clone()).unwrap_or_default();
    (id, app.list.row)
}

/// `n` items with `rows` classifications each, no labels.
fn session(n: usize, rows: usize) -> crate::tui::app::Loaded {
    let mut data = loaded();
    let template = data.items[0].clone();
    data.items = (1..=n)
        .map(|i| {
            let mut it = template.clone();
            it.id = format!("s-{i:03}");
            it.classifications = (0..rows)
                .map(|c| cls(&format!("c{c}"), "Right?", &["yes", "no"], "yes"))
                .collect();
            it
        })
        .collect();
    data
}

/// What a keen annotator does, looking at the screen before each key: the
/// focused row needs me → a label; else a later row of this item does → `]`;
/// an earlier one → `[`; else the next item, `j`. Returns (keys, labels,
/// labels that overwrote one of mine).
fn label_everything(app: &mut App) -> (usize, usize, usize) {
    let (mut keys, mut labels, mut overwrote) = (0, 0, 0);
    for _ in 0..10_000 {
        let needs = app.rows_needing_me();
        let row = app.list.row;
        let c = if needs.get(row).copied().unwrap_or(false) {
            labels += 1;
            char::from(b'1' + (labels % 5) as u8)
        } else if needs[row..].iter().any(|&n| n) {
            ']'
        } else if needs.iter().any(|&n| n) {
            '['
        } else if app.list.cursor + 1 < app.list.filtered.len() {
            'j'
        } else {
            return (keys, labels, overwrote);
        };
        keys += 1;
        let before = labels_of_mine(app);
        let fx = key(app, c);
        if c.is_ascii_digit() {
            assert!(matches!(&fx[..], [Effect::SaveLabel { .. }]), "{c}: {fx:?}");
            if labels_of_mine(app) == before {
                overwrote += 1;
            }
        }
    }
    panic!("the session never ended");
}

fn labels_of_mine(app: &App) -> usize {
    app.data
        .labels
        .values()
        .flatten()
        .filter(|e| e.label.who == "alice")
        .count()
}

/// The measurement behind `auto_advance`'s default: a 40-item session
/// labelled through, at 2 and at 5 rows an item (the sample data has 5).
/// `item` costs one key per label; `row` one `j` more per item.
#[test]
fn keys_per_label_over_a_40_item_session_row_against_item() {
    let mut per = Vec::new();
    for rows in [2, 5] {
        for mode in [AutoAdvance::Row, AutoAdvance::Item] {
            let mut app = app_with(session(40, rows));
            app.choices.auto_advance = mode;
            let (keys, labels, overwrote) = label_everything(&mut app);
            assert_eq!(labels, 40 * rows, "{mode:?}");
            assert_eq!(
                overwrote, 0,
                "{mode:?}: a label key landed on a labelled row"
            );
            let k = keys as f64 / labels as f64;
            eprintln!(
                "{rows} rows × 40 items, auto_advance = {}: {keys} keys for {labels} labels = {k:.2} keys per label",
                mode.as_str()
            );
            per.push((rows, mode, keys));
        }
    }
    // `item`: exactly one key per label; `row`: one `j` per item after the first.
    assert_eq!(
        per,
        [
            (2, AutoAdvance::Row, 80 + 39),
            (2, AutoAdvance::Item, 80),
            (5, AutoAdvance::Row, 200 + 39),
            (5, AutoAdvance::Item, 200),
        ]
    );
    assert_eq!(
        crate::config::AutoAdvance::default(),
        AutoAdvance::Item,
        "the default is the cheaper one"
    );
}

/// The session: from k-001 with the focus on its last row, `j` went
/// to k-002 on that same row, and `5 5 4` overwrote it. Now the focus goes
/// to the first row that still needs me on every item change.
#[test]
fn a_new_item_opens_on_the_first_row_that_still_needs_me() {
    let mut data = session(4, 3);
    // s-002's first row is mine already; s-003 is done.
    let mine = |item: &str, c: &str| Label {
        persona_id: "kenton".into(),
        ..label(item, c, "alice", Value::Likert(3))
    };
    data.labels = vec![
        mine("s-002", "c0"),
        mine("s-003", "c0"),
        mine("s-003", "c1"),
        mine("s-003", "c2"),
    ];
    let mut app = app_with(data);
    app.choices.auto_advance = AutoAdvance::Row;
    key(&mut app, ']');
    key(&mut app, ']');
    assert_eq!(at(&app), ("s-001".into(), 2));
    // `j`: s-002 on its first row without my label, not on row 2.
    key(&mut app, 'j');
    assert_eq!(at(&app), ("s-002".into(), 1));
    // Three label keys: rows 1 and 2, then the last row again (row mode
    // stays on the item) — none lands on row 0, which was mine.
    for c in ['5', '5'] {
        key(&mut app, c);
    }
    assert_eq!(at(&app), ("s-002".into(), 2));
    // A done item keeps the row (reading across items); the next opens on 0.
    key(&mut app, 'j');
    assert_eq!(at(&app), ("s-003".into(), 2));
    key(&mut app, 'j');
    assert_eq!(at(&app), ("s-004".into(), 0));
    // A search that changes the item: the same.
    key(&mut app, ']');
    search(&mut app, "s-002");
    assert_eq!(at(&app).0, "s-002");
    search(&mut app, "s-001");
    assert_eq!(at(&app), ("s-001".into(), 0));
}

/// `1 3 5 5` and more typed before any write is answered: each key is its
/// own label on the row the focus showed, none lost or merged, and every one
/// shows saved once the writer answers (in order, as it does, or not).
#[test]
fn label_keys_typed_faster_than_writes_complete_all_land() {
    for mode in [AutoAdvance::Row, AutoAdvance::Item] {
        let mut app = app_with(session(6, 2));
        app.choices.auto_advance = mode;
        let keys = "13554321";
        let mut sent = Vec::new();
        for c in keys.chars() {
            let shown = at(&app);
            let row = app.rows().get(shown.1).and_then(|r| app.combo(r));
            let fx = key(&mut app, c);
            let [Effect::SaveLabel { req, label }] = &fx[..] else {
                panic!("{c}: {fx:?}");
            };
            assert_eq!(label.key.item_id, shown.0, "{mode:?} {c}");
            assert_eq!(Some(&label.key), row.as_ref(), "{mode:?} {c}");
            assert_eq!(label.value, Value::Likert(c as u8 - b'0'));
            sent.push((*req, label.clone()));
        }
        let reqs: std::collections::BTreeSet<u64> = sent.iter().map(|s| s.0).collect();
        assert_eq!(reqs.len(), keys.len(), "one write per key");
        // The writer answers late, all at once, the last one first.
        for (req, _) in sent.iter().rev() {
            update(
                &mut app,
                Msg::LabelSaved {
                    req: *req,
                    result: Ok(()),
                },
            );
        }
        let mine: Vec<_> = app.data.labels.values().flatten().collect();
        if mode == AutoAdvance::Item {
            // Eight keys, two rows an item: four items, each row once.
            assert_eq!(mine.len(), 8, "{mode:?}");
        }
        assert!(
            mine.iter().all(|e| e.state == SaveState::Saved),
            "{mode:?}: {:?}",
            mine.iter().map(|e| &e.state).collect::<Vec<_>>()
        );
        // Every label holds the value of the last key that landed on its row.
        for e in &mine {
            let last = sent
                .iter()
                .rev()
                .find(|(_, l)| l.key == e.label.key)
                .map(|(_, l)| l.value);
            assert_eq!(Some(e.label.value), last, "{mode:?}");
        }
    }
}
