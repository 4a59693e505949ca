//! "Come back later" marks (`l` unsure, `z` skip: a note, no label) and
//! tags on labels (`T`): what the keys store, what the filter and search
//! keep, what `u` takes back, and that a mark is never counted as a label.

use crate::domain::*;
use crate::store::MarkEvent;
use crate::tui::app::{App, Filter, InputKind, Popup, mark};
use crate::tui::fixtures::*;
use crate::tui::msg::{Effect, Msg};
use crossterm::event::KeyCode;

fn k1() -> ComboKey {
    ComboKey::new("k-001", "urgency", "classification")
}

/// `l` (or `z`), the note typed, Enter: the effects of the submit.
fn mark_with(app: &mut App, k: char, note: &str) -> Vec<Effect> {
    assert!(key(app, k).is_empty());
    assert!(
        matches!(
            app.chrome.popup,
            Some(Popup::Input {
                kind: InputKind::MarkNote(_),
                ..
            })
        ),
        "{k} opens the note editor"
    );
    for c in note.chars() {
        key(app, c);
    }
    code(app, KeyCode::Enter)
}

#[test]
fn l_marks_the_row_unsure_with_a_note_and_it_is_never_a_label() {
    let mut app = app();
    let fx = mark_with(&mut app, 'l', "sarcasm?");
    match &fx[..] {
        [
            Effect::SaveMark {
                slot,
                mark: Some((MarkKind::Unsure, note)),
                kind: crate::store::MarkEventKind::Mark,
                ..
            },
        ] => {
            assert_eq!(slot.key, k1());
            assert_eq!(
                (slot.persona_id.as_str(), slot.who.as_str()),
                ("kenton", "alice")
            );
            assert_eq!(note, "sarcasm?");
        }
        other => panic!("expected one SaveMark, got {other:?}"),
    }
    let m = app.my_mark(&k1(), "kenton").expect("marked");
    assert_eq!((m.mark, m.note.as_str()), (MarkKind::Unsure, "sarcasm?"));
    // No label, no progress, not "labelled by anyone".
    assert!(app.data.labels.values().all(Vec::is_empty));
    assert_eq!(app.data.marks[0] & (mark::LABELLED | mark::DONE), 0);
    assert_eq!(app.list.labelled, 0);
    assert!(message(&app).contains("marked unsure"), "{}", message(&app));
    // The filter lists the marked item only.
    choose_filter(&mut app, Filter::MarkedByMe);
    assert_eq!(app.list.filter.name(), "marked unsure/skip by me");
    assert_eq!(listed(&app), ["k-001"]);
    choose_filter(&mut app, Filter::Labelled);
    assert!(listed(&app).is_empty(), "a mark is not a label");
}

#[test]
fn z_marks_skip_and_u_takes_the_mark_back() {
    let mut app = app();
    mark_with(&mut app, 'z', "");
    assert_eq!(app.my_mark(&k1(), "kenton").unwrap().mark, MarkKind::Skip);
    let fx = key(&mut app, 'u');
    assert!(
        matches!(
            &fx[..],
            [Effect::SaveMark {
                mark: None,
                kind: crate::store::MarkEventKind::Undo,
                ..
            }]
        ),
        "{fx:?}"
    );
    assert!(app.my_mark(&k1(), "kenton").is_none());
    assert_eq!(app.data.marks[0] & mark::MARKED, 0);
    assert!(message(&app).contains("undone: skip"), "{}", message(&app));
    // Nothing left to undo.
    assert!(key(&mut app, 'u').is_empty());
}

#[test]
fn a_label_settles_the_mark_and_u_walks_label_then_mark_back() {
    let mut app = app();
    mark_with(&mut app, 'l', "later");
    let fx = key(&mut app, '4');
    assert!(matches!(&fx[..], [Effect::SaveLabel { .. }]), "{fx:?}");
    assert!(app.my_mark(&k1(), "kenton").is_none(), "labelled: settled");
    // The newest change is the label's: u undoes it first.
    let fx = key(&mut app, 'u');
    assert!(matches!(&fx[..], [Effect::UndoLabel { .. }]), "{fx:?}");
    // Then the mark's.
    let fx = key(&mut app, 'u');
    assert!(matches!(&fx[..], [Effect::SaveMark { .. }]), "{fx:?}");
}

#[test]
fn a_labelled_row_is_not_marked() {
    let mut app = app();
    key(&mut app, '4');
    assert!(key(&mut app, 'l').is_empty());
    assert!(app.chrome.popup.is_none());
    assert!(
        message(&app).contains("has your label"),
        "{}",
        message(&app)
    );
}

#[test]
fn t_toggles_tags_on_the_label_and_u_takes_a_toggle_back() {
    let mut app = app();
    // Before a label: nothing to tag.
    assert!(key(&mut app, 'T').is_empty());
    assert!(message(&app).contains("label this row first"));
    key(&mut app, '2');
    key(&mut app, 'T');
    assert!(matches!(app.chrome.popup, Some(Popup::Tags { .. })));
    let fx = code(&mut app, KeyCode::Enter);
    let [Effect::SaveLabel { label, .. }] = &fx[..] else {
        panic!("{fx:?}")
    };
    assert_eq!(label.tags, ["persona-misread"]);
    assert_eq!(label.value, Value::Likert(2), "the value stays");
    key(&mut app, 'j');
    let fx = code(&mut app, KeyCode::Enter);
    let [Effect::SaveLabel { label, .. }] = &fx[..] else {
        panic!("{fx:?}")
    };
    assert_eq!(label.tags, ["injection-worked", "persona-misread"]);
    assert!(
        matches!(app.chrome.popup, Some(Popup::Tags { .. })),
        "stays open"
    );
    code(&mut app, KeyCode::Esc);
    assert!(app.chrome.popup.is_none());
    let fx = key(&mut app, 'u');
    let [Effect::UndoLabel { undo, .. }] = &fx[..] else {
        panic!("{fx:?}")
    };
    assert_eq!(undo.restore.as_ref().unwrap().tags, ["persona-misread"]);
    let tags = &app.my_label(&k1(), Scale::Likert).unwrap().label.tags;
    assert_eq!(tags, &["persona-misread"]);
}

#[test]
fn tag_terms_keep_and_drop_items_by_their_labels_tags() {
    let mut data = loaded();
    let mut l = label("k-002", "urgency", "bob", Value::Likert(1));
    l.tags = vec!["ignored-context".into()];
    data.labels.push(l);
    let mut app = app_with(data);
    search(&mut app, "tag:ignored-context");
    assert_eq!(listed(&app), ["k-002"]);
    search(&mut app, "-tag:Ignored-Context");
    assert_eq!(listed(&app), ["k-001", "k-003"]);
    search(&mut app, "tag:nope");
    assert_eq!(listed(&app).len(), 3, "an unknown tag is left out");
    assert!(
        app.list.query.errors[0].contains("persona-misread, injection-worked, ignored-context"),
        "{:?}",
        app.list.query.errors
    );
}

#[test]
fn h_lists_mark_changes_beside_label_changes_newest_first() {
    let mut app = app();
    use crate::store::{EventKind, MarkEventKind};
    let ev = |mark: Option<MarkKind>, kind: MarkEventKind, at: &str| MarkEvent {
        slot: crate::store::MarkSlot {
            key: k1(),
            persona_id: "kenton".into(),
            who: "alice".into(),
        },
        mark,
        note: "why\u{1b}[31m".into(),
        created_at: at.into(),
        kind,
    };
    let mut l = crate::store::LabelEvent {
        slot: crate::store::Slot {
            key: k1(),
            persona_id: "kenton".into(),
            who: "alice".into(),
            scale: Scale::Likert,
        },
        value: Some(Value::Likert(2)),
        note: String::new(),
        replaced_judge_value: None,
        created_at: "2026-11-24T04:00:02.000Z".into(),
        blind: false,
        tags: vec!["persona-misread".into()],
        kind: EventKind::Set,
    };
    l.blind = false;
    update(
        &mut app,
        Msg::LabelHistory {
            key: k1(),
            result: Ok(vec![l]),
            marks: vec![
                ev(None, MarkEventKind::Labelled, "2026-11-24T04:00:02.000Z"),
                ev(
                    Some(MarkKind::Unsure),
                    MarkEventKind::Mark,
                    "2026-11-24T04:00:01.000Z",
                ),
            ],
        },
    );
    let Some(Popup::History { lines, .. }) = &app.chrome.popup else {
        panic!("no history popup")
    };
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines[0].contains("likert 2") && lines[0].contains("#persona-misread"),
        "{lines:?}"
    );
    assert!(
        lines[2].contains("marked unsure") && lines[2].contains("[mark]"),
        "{lines:?}"
    );
    assert!(lines.iter().all(|l| !l.contains('\u{1b}')), "sanitised");
}
