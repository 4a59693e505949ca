//! `h`: the row's label history from the store, sanitised, newest first.

use super::*;

#[test]
fn h_asks_the_store_for_the_rows_history_and_shows_it_sanitised() {
    let mut app = app();
    let k1 = ComboKey::new("k-001", "urgency", "classification");
    let fx = key(&mut app, 'h');
    assert_eq!(fx, vec![Effect::LoadLabelHistory(k1.clone())]);
    let slot = jury::store::Slot {
        key: k1.clone(),
        persona_id: "kenton".into(),
        who: "mal\u{1b}[31mlory".into(),
        scale: Scale::Likert,
    };
    let ev = |v: Option<Value>, kind: &str, at: &str| jury::store::LabelEvent {
        slot: slot.clone(),
        value: v,
        note: String::new(),
        replaced_judge_value: Some(Value::Likert(5)),
        created_at: at.into(),
        blind: false,
        kind: jury::store::EventKind::parse(kind).expect("a label event kind"),
        tags: Vec::new(),
    };
    update(
        &mut app,
        Msg::LabelHistory {
            key: k1,
            result: Ok(vec![
                ev(None, "undo", "2026-11-24T04:00:02.000Z"),
                ev(Some(Value::Likert(2)), "set", "2026-11-24T04:00:01.000Z"),
            ]),
            marks: Vec::new(),
        },
    );
    let Some(Popup::History { title, lines }) = &app.chrome.popup else {
        panic!("no history popup");
    };
    assert!(title.contains("urgency · k-001"), "{title}");
    assert_eq!(lines.len(), 2);
    assert!(lines[0].contains("retracted") && lines[0].contains("[undo]"));
    assert!(lines[1].contains("likert 2") && lines[1].contains("replaced judge 5"));
    assert!(lines.iter().all(|l| !l.contains('\u{1b}')), "{lines:?}");
    // Any key closes it.
    key(&mut app, 'j');
    assert!(app.chrome.popup.is_none());
}

#[test]
fn the_history_popup_lists_newest_first() {
    let mut app = app();
    key(&mut app, 'h');
    let slot = |who: &str| jury::store::Slot {
        key: ComboKey::new("k-001", "urgency", "classification"),
        persona_id: "kenton".into(),
        who: who.into(),
        scale: Scale::Likert,
    };
    let ev =
        |who: &str, v: Option<Value>, judge: Option<Value>, kind: &str, at: &str, note: &str| {
            jury::store::LabelEvent {
                slot: slot(who),
                value: v,
                note: note.into(),
                replaced_judge_value: judge,
                created_at: at.into(),
                blind: false,
                kind: jury::store::EventKind::parse(kind).expect("a label event kind"),
                tags: Vec::new(),
            }
        };
    update(
        &mut app,
        Msg::LabelHistory {
            key: ComboKey::new("k-001", "urgency", "classification"),
            result: Ok(vec![
                ev("alice", None, None, "undo", "2026-11-24T04:10:00.000Z", ""),
                ev(
                    "alice",
                    Some(Value::Likert(2)),
                    Some(Value::Likert(5)),
                    "set",
                    "2026-11-24T04:05:00.000Z",
                    "the judge\u{1b}[2J missed the deadline",
                ),
                ev(
                    "bob",
                    Some(Value::Likert(4)),
                    None,
                    "import",
                    "2026-11-23T09:00:00.000Z",
                    "",
                ),
            ]),
            marks: Vec::new(),
        },
    );
    let s = screen(&app);
    assert!(!s.contains('\u{1b}'));
    insta::assert_snapshot!("history_popup", s);
}
