//! `u` walks back this session's label changes; a refused undo or retraction
//! puts the label back and says so; an undone label leaves the agreement
//! counts.

use super::*;

fn saved(app: &mut jury::tui::app::App, fx: &[Effect]) {
    for f in fx {
        let req = match f {
            Effect::SaveLabel { req, .. } | Effect::UndoLabel { req, .. } => *req,
            _ => continue,
        };
        update(
            app,
            Msg::LabelSaved {
                req,
                result: Ok(()),
            },
        );
    }
}

fn undo_of(fx: &[Effect]) -> jury::store::LabelUndo {
    match fx {
        [Effect::UndoLabel { undo, .. }] => undo.clone(),
        other => panic!("expected one UndoLabel, got {other:?}"),
    }
}

#[test]
fn u_walks_back_this_sessions_label_changes_across_items() {
    let mut app = app();
    let k1 = ComboKey::new("k-001", "urgency", "classification");
    let k2 = ComboKey::new("k-002", "urgency", "classification");
    let fx = key(&mut app, '4');
    saved(&mut app, &fx);
    let fx = key(&mut app, '2');
    saved(&mut app, &fx);
    key(&mut app, 'j'); // next item
    let fx = key(&mut app, '5');
    saved(&mut app, &fx);

    // 1: k-002's label was new: the undo retracts it.
    let fx = key(&mut app, 'u');
    let u = undo_of(&fx);
    assert_eq!(u.slot.key, k2);
    assert_eq!(u.restore, None);
    assert!(message(&app).contains("k-002"), "{}", message(&app));
    assert!(message(&app).contains("no label"), "{}", message(&app));
    assert!(app.data.my_label(&k2, "kenton", Scale::Likert).is_none());
    saved(&mut app, &fx);
    assert!(app.data.undo_pending.is_empty());

    // 2: on k-001, from another item: back to 4, saved through the writer.
    let fx = key(&mut app, 'u');
    let u = undo_of(&fx);
    assert_eq!(u.slot.key, k1);
    let back = u.restore.clone().unwrap();
    assert_eq!(back.value, Value::Likert(4));
    assert!(message(&app).contains("back to 4"), "{}", message(&app));
    let e = app.data.my_label(&k1, "kenton", Scale::Likert).unwrap();
    assert_eq!(e.label.value, Value::Likert(4));
    assert!(matches!(e.state, SaveState::Pending(_)));
    saved(&mut app, &fx);
    assert_eq!(
        app.data
            .my_label(&k1, "kenton", Scale::Likert)
            .unwrap()
            .state,
        SaveState::Saved
    );

    // 3: the first label: retracted; 4: nothing left, said so.
    let u = undo_of(&key(&mut app, 'u'));
    assert_eq!((u.slot.key.clone(), u.restore), (k1.clone(), None));
    assert!(key(&mut app, 'u').is_empty());
    assert!(message(&app).contains("nothing to undo"));
}

#[test]
fn a_refused_retraction_puts_the_label_back() {
    let mut app = app();
    let k1 = ComboKey::new("k-001", "urgency", "classification");
    let fx = key(&mut app, '3');
    saved(&mut app, &fx);
    let fx = key(&mut app, 'u');
    let Effect::UndoLabel { req, .. } = &fx[0] else {
        panic!("{fx:?}")
    };
    update(
        &mut app,
        Msg::LabelSaved {
            req: *req,
            result: Err("database is locked".into()),
        },
    );
    let e = app.data.my_label(&k1, "kenton", Scale::Likert).unwrap();
    assert_eq!(e.label.value, Value::Likert(3));
    assert!(matches!(app.chrome.message, Some((Level::Error, _))));
    assert_eq!(app.data.undo.len(), 1, "it can be undone again");
}

/// Each undo names the label it reverts (the store refuses it when the
/// label changed since); after an undo that restored an answer, the next
/// undo of the same label expects the answer that undo wrote.
#[test]
fn each_undo_names_the_label_it_reverts() {
    let mut app = app();
    let fx = key(&mut app, '4');
    saved(&mut app, &fx);
    let fx = key(&mut app, '2');
    let Effect::SaveLabel { label: two, .. } = &fx[0] else {
        panic!("{fx:?}")
    };
    let two = two.clone();
    saved(&mut app, &fx);
    let fx = key(&mut app, 'u');
    let first = undo_of(&fx);
    assert_eq!(*first.undoes, two);
    saved(&mut app, &fx);
    let second = undo_of(&key(&mut app, 'u'));
    assert_eq!(Some(*second.undoes), first.restore);
}

/// The store refused the undo: the label changed since (`jury label` from
/// a shell). The workbench shows the label the store holds now, says what
/// changed, and does not offer the spent step again.
#[test]
fn a_refused_undo_shows_the_newer_label_and_says_so() {
    let mut app = app();
    let k1 = ComboKey::new("k-001", "urgency", "classification");
    let fx = key(&mut app, '3');
    saved(&mut app, &fx);
    let fx = key(&mut app, 'u');
    let Effect::UndoLabel { req, undo } = &fx[0] else {
        panic!("{fx:?}")
    };
    let newer = Label {
        value: Value::Likert(5),
        note: "from the shell".into(),
        created_at: "2026-11-24T05:00:00.000Z".into(),
        ..(*undo.undoes).clone()
    };
    update(
        &mut app,
        Msg::UndoRefused {
            req: *req,
            current: Some(newer.clone()),
            why: "not undone: the label changed since (now 5 by kenton)".into(),
        },
    );
    let e = app.data.my_label(&k1, "kenton", Scale::Likert).unwrap();
    assert_eq!(e.label, newer);
    assert_eq!(e.state, SaveState::Saved);
    assert!(message(&app).contains("changed since"), "{}", message(&app));
    assert!(matches!(app.chrome.message, Some((Level::Warning, _))));
    assert!(app.data.undo.is_empty());
    assert!(app.data.undo_pending.is_empty());
}

#[test]
fn an_undone_label_leaves_the_agreement_counts() {
    let mut data = loaded();
    data.verdicts.push(verdict(
        1,
        "k-001",
        "urgency",
        Mode::Two,
        Value::Likert(4),
        "Not urgent.",
    ));
    let mut app = app_with(data);
    let fx = key(&mut app, '2');
    saved(&mut app, &fx);
    let n = |app: &jury::tui::app::App| -> usize {
        jury::tui::update::agreement_rows(app)
            .iter()
            .map(|r| r.n)
            .sum()
    };
    assert_eq!(n(&app), 1);
    let fx = key(&mut app, 'u');
    saved(&mut app, &fx);
    assert_eq!(n(&app), 0, "the retracted label is not compared");
    assert!(app.data.marks[0] & jury::tui::app::mark::LABELLED == 0);
}
