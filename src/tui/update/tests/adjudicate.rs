//! Adjudication in the workbench: the "to adjudicate" filter lists the
//! items people disagree on; `=` then a value key gives the reference
//! label (an adjudication, never one's own label); `u` undoes it.

use super::*;
use crate::tui::app::App;

fn k(item: &str) -> ComboKey {
    ComboKey::new(item, "urgency", "classification")
}

fn noted(item: &str, who: &str, v: u8, note: &str) -> Label {
    Label {
        note: note.into(),
        ..label(item, "urgency", who, Value::Likert(v))
    }
}

/// bob and carol: agree on k-001 (4 and 5), disagree on k-002 (5 and 1);
/// bob alone on k-003. alice (this session) labelled nothing.
fn disputed() -> App {
    let mut data = loaded();
    data.labels = vec![
        noted("k-001", "bob", 4, ""),
        noted("k-001", "carol", 5, ""),
        noted("k-002", "bob", 5, "the boss asked"),
        noted("k-002", "carol", 1, "just lunch"),
        noted("k-003", "bob", 2, ""),
    ];
    let mut app = app_with(data);
    // Wide enough for the whole row: the labels, the notes, the reference.
    app.chrome.size = (180, 32);
    app
}

fn listed(app: &App) -> Vec<String> {
    app.list
        .filtered
        .iter()
        .map(|&i| app.data.items[i as usize].id.to_string())
        .collect()
}

#[test]
fn the_to_adjudicate_filter_lists_only_what_people_disagree_on() {
    let mut app = disputed();
    choose_filter(&mut app, Filter::Adjudicate);
    assert_eq!(app.list.filter.name(), "to adjudicate");
    assert_eq!(listed(&app), ["k-002"]);
    // Every person's label and note is on the focused row, blind or not.
    app.choices.blind = true;
    let s = screen(&app);
    assert!(s.contains("bob 5"), "{s}");
    assert!(s.contains("carol 1"), "{s}");
    assert!(s.contains("just lunch"), "{s}");
    assert!(s.contains("⚖ to adjudicate"), "{s}");
}

/// On an assigned item only the assigned people's labels make a
/// disagreement: k-001 given to bob and dan (bob 4, dan 1) is one though
/// carol agrees with bob; k-002 given to bob alone is none.
#[test]
fn the_to_adjudicate_filter_counts_the_people_assigned() {
    let mut app = disputed();
    app.data
        .labels
        .get_mut("k-001")
        .unwrap()
        .push(crate::tui::app::LabelEntry {
            label: noted("k-001", "dan", 1, ""),
            state: SaveState::Saved,
        });
    let people = |who: &[&str]| who.iter().map(|w| w.to_string()).collect();
    app.data
        .team
        .people
        .insert("k-001".into(), people(&["bob", "dan"]));
    app.data
        .team
        .people
        .insert("k-002".into(), people(&["bob"]));
    choose_filter(&mut app, Filter::Adjudicate);
    assert_eq!(listed(&app), ["k-001"]);
    // Without assignments, every label counts, as before.
    app.data.team.people.clear();
    app.refilter();
    assert_eq!(listed(&app), ["k-001", "k-002"]);
}

#[test]
fn equals_then_a_value_key_adjudicates_and_the_item_leaves_the_queue() {
    let mut app = disputed();
    choose_filter(&mut app, Filter::Adjudicate);
    assert!(key(&mut app, '=').is_empty());
    assert!(app.data.adjudicate_next);
    let fx = key(&mut app, '2');
    match &fx[..] {
        [Effect::SaveAdjudication(a)] => {
            assert_eq!(a.key, k("k-002"));
            assert_eq!(a.persona_id, "kenton");
            assert_eq!(a.value, Value::Likert(2));
            assert_eq!(a.who, "alice");
            assert!(!a.created_at.is_empty());
        }
        other => panic!("expected one SaveAdjudication, got {other:?}"),
    }
    // No label of alice's: an adjudication is its own kind.
    assert!(
        app.data.labels["k-002"]
            .iter()
            .all(|e| e.label.who != "alice")
    );
    assert!(!app.data.adjudicate_next);
    let i = app.data.index_of["k-002"] as usize;
    assert!(!app.data.disputed(i));
    assert!(screen(&app).contains("⚖ ref 2 (alice)"));
    // The queue made again holds nothing.
    key(&mut app, 'f');
    choose_filter(&mut app, Filter::Adjudicate);
    assert!(listed(&app).is_empty());
    // The next value key labels again as usual.
    app.list.filter = Filter::All;
    app.refilter();
    let fx = key(&mut app, '4');
    assert!(
        fx.iter().any(|f| matches!(f, Effect::SaveLabel { .. })),
        "{fx:?}"
    );
}

#[test]
fn u_undoes_the_adjudication_and_the_dispute_is_back() {
    let mut app = disputed();
    choose_filter(&mut app, Filter::Adjudicate);
    key(&mut app, '=');
    key(&mut app, '2');
    let fx = key(&mut app, 'u');
    match &fx[..] {
        [
            Effect::UndoAdjudication {
                undoes,
                restore: None,
                ..
            },
        ] => assert_eq!(undoes.value, Value::Likert(2)),
        other => panic!("expected one UndoAdjudication, got {other:?}"),
    }
    let i = app.data.index_of["k-002"] as usize;
    assert!(app.data.disputed(i));
    assert!(
        app.data
            .adjudication(&k("k-002"), "kenton", Scale::Likert)
            .is_none()
    );
}

#[test]
fn a_second_adjudication_undone_brings_the_first_back() {
    let mut app = disputed();
    choose_filter(&mut app, Filter::Adjudicate);
    key(&mut app, '=');
    key(&mut app, '2');
    key(&mut app, '=');
    key(&mut app, '5');
    let fx = key(&mut app, 'u');
    let Some(Effect::UndoAdjudication {
        restore: Some(r), ..
    }) = fx.first()
    else {
        panic!("{fx:?}")
    };
    assert_eq!(r.value, Value::Likert(2));
    // The first undo expects the restored one now (same time stamp).
    let step = app.data.adjudication_undo.last().unwrap();
    assert_eq!(step.after.created_at, r.created_at);
}

#[test]
fn equals_on_a_row_people_agree_on_is_refused_and_other_keys_leave_it() {
    let mut app = disputed();
    // k-001: bob 4, carol 5, the same answer.
    assert_eq!(app.current_item().map(|i| i.id.as_str()), Some("k-001"));
    key(&mut app, '=');
    assert!(!app.data.adjudicate_next);
    let said = app.chrome.message.as_ref().map(|m| m.1.clone());
    assert!(
        said.as_deref()
            .is_some_and(|m| m.contains("nothing to adjudicate")),
        "{said:?}"
    );
    // On the disputed item, `=` then a move: the move happens, the next
    // value key is a label.
    choose_filter(&mut app, Filter::Adjudicate);
    key(&mut app, '=');
    key(&mut app, 'j');
    assert!(!app.data.adjudicate_next);
    let fx = key(&mut app, '3');
    assert!(
        fx.iter().any(|f| matches!(f, Effect::SaveLabel { .. })),
        "{fx:?}"
    );
    // Esc leaves too, and says so.
    key(&mut app, '=');
    code(&mut app, KeyCode::Esc);
    assert!(!app.data.adjudicate_next);
}
