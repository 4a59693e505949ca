//! Others' labels, notes and marks, live: a check goes out once a tick, one
//! at a time; an answer that did not move the marker, or answers an older
//! one, changes nothing; one that moved it brings the others' work on the
//! changed items and keeps mine (pending labels, an open note editor), and
//! blind double-coding still hides what arrives.

use crate::domain::*;
use crate::store::{ChangeMarker, Changed, Tail};
use crate::tui::app::{App, InputKind, Popup, SaveState, mark};
use crate::tui::fixtures::*;
use crate::tui::msg::{Effect, Msg};

fn marker(last_id: i64) -> ChangeMarker {
    ChangeMarker {
        labels: Tail::new(last_id, last_id),
        marks: Tail::default(),
    }
}

/// The store's answer: `items` read again, holding `labels` and `marks`.
fn changed(to: i64, items: &[&str], labels: Vec<Label>, marks: Vec<RowMark>) -> Changed {
    Changed {
        marker: marker(to),
        items: Some(items.iter().map(|s| s.to_string()).collect()),
        labels,
        marks,
    }
}

fn watched(app: &mut App, since: i64, answer: Changed) -> Vec<Effect> {
    update(
        app,
        Msg::StoreWatched {
            since: marker(since),
            result: Ok(answer),
        },
    )
}

fn noted(item: &str, c: &str, who: &str, v: u8, note: &str) -> Label {
    Label {
        note: note.into(),
        ..label(item, c, who, Value::Likert(v))
    }
}

fn bobs_mark(item: &str) -> RowMark {
    RowMark {
        key: ComboKey::new(item, "urgency", "classification"),
        persona_id: "kenton".into(),
        who: "bob".into(),
        mark: MarkKind::Unsure,
        note: "ask Kenton".into(),
        created_at: "2026-11-22T10:00:00.000Z".into(),
    }
}

fn others_on(app: &App, item: &str) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = app
        .data
        .labels
        .get(item)
        .into_iter()
        .flatten()
        .filter(|e| e.label.who != "alice")
        .map(|e| (e.label.who.clone(), e.label.value.as_text()))
        .collect();
    v.sort();
    v
}

#[test]
fn one_check_goes_out_per_tick_and_none_while_one_is_out() {
    let mut app = app();
    app.data.live.marker = marker(7);
    let fx = update(&mut app, Msg::WatchTick);
    assert_eq!(fx, [Effect::WatchStore { since: marker(7) }]);
    // The store is slow: the next ticks do not pile checks up.
    assert!(update(&mut app, Msg::WatchTick).is_empty());
    assert!(update(&mut app, Msg::WatchTick).is_empty());
    // A failed check is asked again at the next tick, and says nothing.
    update(
        &mut app,
        Msg::StoreWatched {
            since: marker(7),
            result: Err("connection refused".into()),
        },
    );
    assert_eq!(app.chrome.message, None);
    let fx = update(&mut app, Msg::WatchTick);
    assert_eq!(fx, [Effect::WatchStore { since: marker(7) }]);
}

#[test]
fn an_unchanged_or_stale_marker_changes_nothing() {
    let mut app = app();
    app.data.live.marker = marker(7);
    let before = screen(&app);
    // Unchanged: the store's marker is the one asked about.
    update(&mut app, Msg::WatchTick);
    let same = Changed {
        marker: marker(7),
        items: Some(Vec::new()),
        ..Changed::default()
    };
    assert!(watched(&mut app, 7, same).is_empty());
    assert!(app.data.labels.is_empty());
    // Stale: an answer to a check from marker 5, while 7 is held (what it
    // brings, the workbench holds already or will read from 7).
    let stale = changed(
        9,
        &["k-001"],
        vec![label("k-001", "urgency", "bob", Value::Likert(4))],
        vec![],
    );
    watched(&mut app, 5, stale);
    assert!(app.data.labels.is_empty());
    assert_eq!(app.data.live.marker, marker(7));
    assert_eq!(screen(&app), before);
    assert!(!app.data.live.asked);
}

#[test]
fn a_moved_marker_brings_the_others_labels_notes_and_marks_and_keeps_mine() {
    let mut app = app();
    app.choices.auto_advance = crate::config::AutoAdvance::Off;
    app.data.live.marker = marker(7);
    // I label k-001's urgency (the writer has not answered) and start a
    // note on it.
    let fx = key(&mut app, '2');
    assert!(fx.iter().any(|f| matches!(f, Effect::SaveLabel { .. })));
    key(&mut app, 'n');
    for c in "half a tho".chars() {
        key(&mut app, c);
    }
    // The store, read while my write was on its way: bob's label with a
    // note on the same row, his mark on k-002; my label not there yet.
    let answer = changed(
        9,
        &["k-001", "k-002"],
        vec![noted("k-001", "urgency", "bob", 4, "ring the stores")],
        vec![bobs_mark("k-002")],
    );
    update(&mut app, Msg::WatchTick);
    watched(&mut app, 7, answer);
    assert_eq!(app.data.live.marker, marker(9));
    assert_eq!(others_on(&app, "k-001"), [("bob".into(), "4".into())]);
    // Mine is still there, still waiting for the writer.
    let mine: Vec<&SaveState> = app.data.labels["k-001"]
        .iter()
        .filter(|e| e.label.who == "alice")
        .map(|e| &e.state)
        .collect();
    assert!(matches!(mine[..], [SaveState::Pending(_)]), "{mine:?}");
    assert_eq!(app.data.row_marks["k-002"][0].who, "bob");
    // What I was typing is untouched.
    match &app.chrome.popup {
        Some(Popup::Input {
            kind: InputKind::Note,
            area,
            ..
        }) => assert_eq!(area.lines().join("\n"), "half a tho"),
        _ => panic!("the note editor closed"),
    }
    crate::tui::fixtures::code(&mut app, crossterm::event::KeyCode::Esc);
    let s = screen(&app);
    assert!(s.contains("others: bob 4"), "{s}");
    assert!(s.contains("ring the stores"), "{s}");
    // The list's marks follow: k-001 has someone's note.
    assert!(app.shown_note(0));

    // Bob takes his label back (an undo in his workbench): it goes.
    update(&mut app, Msg::WatchTick);
    watched(&mut app, 9, changed(10, &["k-001"], vec![], vec![]));
    assert!(others_on(&app, "k-001").is_empty());
    assert!(!screen(&app).contains("others: bob"));
    assert_eq!(
        app.data.labels["k-001"].len(),
        1,
        "my label stays when bob's goes"
    );
}

#[test]
fn every_item_is_taken_again_when_the_store_says_everything() {
    let mut data = loaded();
    data.labels = vec![
        label("k-001", "urgency", "bob", Value::Likert(4)),
        label("k-002", "urgency", "alice", Value::Likert(1)),
    ];
    let mut app = app_with(data);
    let everything = Changed {
        marker: marker(3),
        items: None,
        labels: vec![
            label("k-002", "urgency", "alice", Value::Likert(5)),
            label("k-003", "urgency", "carol", Value::Likert(2)),
        ],
        marks: vec![],
    };
    watched(&mut app, 0, everything);
    // Bob's label is no longer in the store, carol's is new; my own label
    // is as this session holds it, not as the store answered.
    assert!(others_on(&app, "k-001").is_empty());
    assert_eq!(others_on(&app, "k-003"), [("carol".into(), "2".into())]);
    assert_eq!(app.data.labels["k-002"][0].label.value, Value::Likert(1));
    assert_ne!(app.data.marks[2] & mark::LABELLED, 0);
    assert_eq!(app.data.marks[0] & mark::LABELLED, 0);
}

#[test]
fn labels_that_arrive_live_on_an_item_assigned_to_me_stay_hidden_until_i_label() {
    let mut app = app();
    app.choices.auto_advance = crate::config::AutoAdvance::Off;
    app.set_team(["k-003".to_string()], &[]);
    key(&mut app, 'j');
    key(&mut app, 'j');
    assert_eq!(app.current_item().unwrap().id, "k-003");
    update(&mut app, Msg::WatchTick);
    watched(
        &mut app,
        0,
        changed(
            2,
            &["k-003"],
            vec![noted(
                "k-003",
                "urgency",
                "bob",
                5,
                "bob thinks it is urgent",
            )],
            vec![],
        ),
    );
    // In the data, and nowhere on my screen: the row, the notes, the list.
    assert_eq!(others_on(&app, "k-003"), [("bob".into(), "5".into())]);
    let s = screen(&app);
    assert!(!s.contains("bob"), "{s}");
    assert_eq!(app.shown_marks(2) & (mark::LABELLED | mark::DISAGREE), 0);
    assert!(!app.shown_note(2));
    // Once I labelled the row, they appear.
    key(&mut app, '2');
    let s = screen(&app);
    assert!(s.contains("others: bob 5"), "{s}");
    assert!(s.contains("bob thinks it is urgent"), "{s}");
}

/// The loop redraws after a watcher's answer only when it found something:
/// once a second a quiet store costs a check, not a frame.
#[test]
fn a_quiet_answer_asks_for_no_redraw() {
    let quiet = Msg::StoreWatched {
        since: marker(3),
        result: Ok(changed(3, &[], vec![], vec![])),
    };
    assert!(quiet.changes_nothing());
    let failed = Msg::StoreWatched {
        since: marker(3),
        result: Err("connection refused".into()),
    };
    assert!(failed.changes_nothing());
    let moved = Msg::StoreWatched {
        since: marker(3),
        result: Ok(changed(4, &["k-001"], vec![], vec![])),
    };
    assert!(!moved.changes_nothing());
    assert!(!Msg::Tick.changes_nothing());
}
