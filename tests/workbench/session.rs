//! Undo and label history, the session kept across a restart, compare by
//! persona and by model — pure update tests.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::domain::*;
use jury::tui::app::{Level, Popup, SaveState};
use jury::tui::msg::{Effect, Msg};

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

fn message(app: &jury::tui::app::App) -> String {
    app.chrome.message.clone().map(|m| m.1).unwrap_or_default()
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

fn two_personas() -> jury::tui::app::Loaded {
    let mut data = loaded();
    data.personas.push(Persona {
        id: "maren".into(),
        name: "Maren, buyer".into(),
        definition: serde_json::json!({"type": "professional"}),
    });
    data
}

fn kept_state(fx: &[Effect]) -> Option<(String, String)> {
    fx.iter().find_map(|f| match f {
        Effect::SaveSession { who, state } => Some((who.clone(), state.clone())),
        _ => None,
    })
}

#[test]
fn the_session_is_kept_on_quit_and_comes_back_through_a_real_store() {
    let mut app = app_with(two_personas());
    // Persona maren (picker: down, enter), mode 3, filter unjudged, order
    // judge≠human first, search "k-00", blind review, item k-003.
    key(&mut app, 'p');
    key(&mut app, 'j');
    code(&mut app, crossterm::event::KeyCode::Enter);
    key(&mut app, 'm');
    key(&mut app, 'f');
    key(&mut app, 'o');
    key(&mut app, '/');
    for c in "k-00".chars() {
        key(&mut app, c);
    }
    code(&mut app, crossterm::event::KeyCode::Enter);
    key(&mut app, 'G');
    key(&mut app, 'C'); // opens compare
    key(&mut app, 'C'); // by persona
    code(&mut app, crossterm::event::KeyCode::Esc);
    key(&mut app, 'A');
    key(&mut app, 't'); // agreement on the held-out test side
    code(&mut app, crossterm::event::KeyCode::Esc);
    // Blind review last: it refuses compare and agreement while on.
    key(&mut app, 'b');
    let before = jury::tui::update::session::capture(&app);
    assert_eq!(before.persona.as_deref(), Some("maren"));
    assert_eq!(before.item.as_deref(), Some("k-003"));
    let fx = key(&mut app, 'q');
    let (who, state) = kept_state(&fx).expect("kept on quit");
    assert_eq!(who, "alice");

    // Through a real SQLite file, and a new process's store.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    jury::store::Store::open(&db)
        .unwrap()
        .save_workbench_session(&who, &state)
        .unwrap();
    let read = jury::store::Store::open(&db)
        .unwrap()
        .workbench_session("alice")
        .unwrap()
        .unwrap();
    assert!(
        jury::store::Store::open(&db)
            .unwrap()
            .workbench_session("bob")
            .unwrap()
            .is_none()
    );

    let mut again = app_with(two_personas());
    jury::tui::update::session::restore(
        &mut again,
        &jury::tui::update::session::parse(&read).unwrap(),
    );
    assert_eq!(jury::tui::update::session::capture(&again), before);
    assert_eq!(again.persona_id(), "maren");
    assert_eq!(again.choices.mode, Mode::Three);
    assert!(again.choices.blind);
    assert_eq!(again.list.search, "k-00");
    assert_eq!(again.list.filter, jury::tui::app::Filter::Unjudged);
    assert_eq!(again.current_item().unwrap().id, "k-003");
    assert_eq!(again.choices.split_side, Some(Side::Test));
    // Blind review refuses the agreement view: off, A, back, on again.
    key(&mut again, 'b');
    assert_eq!(
        key(&mut again, 'A'),
        vec![Effect::LoadAgreement(jury::report::Scope {
            estimates: true,
            ..jury::report::Scope::on(Some(Side::Test))
        })],
        "the agreement view opens on the side left"
    );
    code(&mut again, crossterm::event::KeyCode::Esc);
    key(&mut again, 'b');
    again.chrome.message = None;
    assert_eq!(
        screen(&again),
        screen(&{
            let mut a = app;
            a.chrome.quit = false;
            a.chrome.message = None;
            a
        })
    );
}

#[test]
fn a_deleted_persona_or_item_falls_back_quietly() {
    let mut app = app_with(two_personas());
    key(&mut app, 'p');
    key(&mut app, 'j');
    code(&mut app, crossterm::event::KeyCode::Enter);
    key(&mut app, 'G');
    key(&mut app, 'm');
    let state = jury::tui::update::session::capture(&app);
    assert_eq!(state.item.as_deref(), Some("k-003"));
    // Maren and k-003 are gone by the next start.
    let mut data = loaded();
    data.items.pop();
    let mut again = app_with(data);
    jury::tui::update::session::restore(&mut again, &state);
    assert_eq!(again.persona_id(), "kenton");
    assert_eq!(again.current_item().unwrap().id, "k-001");
    assert_eq!(
        again.choices.mode,
        Mode::Three,
        "what still exists comes back"
    );
    assert!(again.chrome.message.is_none(), "quietly");
    // Garbage is no session.
    assert!(jury::tui::update::session::parse("{not json").is_none());
    let odd =
        jury::tui::update::session::parse(r#"{"mode": 9, "filter": "nope", "extra": 1}"#).unwrap();
    let mut third = tui_common::app();
    jury::tui::update::session::restore(&mut third, &odd);
    assert_eq!(third.choices.mode, Mode::Two);
    assert_eq!(
        third.choices.perspective,
        jury::tui::app::PerspectiveSel::One(0),
        "a field not kept keeps its default"
    );
    // All perspectives come back as all.
    let mut fourth = tui_common::app();
    key(&mut fourth, 'v');
    key(&mut fourth, 'j');
    code(&mut fourth, crossterm::event::KeyCode::Enter);
    assert_eq!(
        fourth.choices.perspective,
        jury::tui::app::PerspectiveSel::All
    );
    let kept = jury::tui::update::session::capture(&fourth);
    let mut fifth = tui_common::app();
    jury::tui::update::session::restore(&mut fifth, &kept);
    assert_eq!(
        fifth.choices.perspective,
        jury::tui::app::PerspectiveSel::All
    );
}

#[test]
fn the_session_is_kept_once_the_keys_are_calm_not_per_keystroke() {
    let mut app = app();
    for c in ['j', 'm', 'f'] {
        assert!(
            kept_state(&key(&mut app, c)).is_none(),
            "not on a keystroke"
        );
    }
    assert!(app.chrome.session.wants_tick());
    let mut kept = 0;
    for _ in 0..jury::tui::update::session::CALM_TICKS * 3 {
        kept += kept_state(&update(&mut app, Msg::Tick)).iter().count();
    }
    assert_eq!(kept, 1, "once, after a calm moment");
    assert!(
        !app.chrome.session.wants_tick(),
        "then the loop stops ticking"
    );
    // A key that changes nothing kept: no write.
    key(&mut app, '?');
    key(&mut app, '?');
    code(&mut app, crossterm::event::KeyCode::Esc);
    for _ in 0..jury::tui::update::session::CALM_TICKS {
        assert!(kept_state(&update(&mut app, Msg::Tick)).is_none());
    }
}

/// k-001 judged in mode 2 as kenton by two models, as maren by one, and in
/// mode 3 as kenton; alice labelled urgency 4 as kenton.
fn judged_three_ways() -> jury::tui::app::App {
    let mut data = two_personas();
    data.personas.push(Persona {
        id: "tomasz".into(),
        name: "Tomasz, developer".into(),
        definition: serde_json::json!({"type": "professional"}),
    });
    let mut v = |run, cls: &str, mode, value, text: &str, persona: &str, model: &str| {
        let mut x = verdict(run, "k-001", cls, mode, value, text);
        x.persona_id = persona.into();
        x.model = model.into();
        data.verdicts.push(x);
    };
    v(
        1,
        "urgency",
        Mode::Two,
        Value::Likert(4),
        "Kenton: not urgent, agreed.",
        "kenton",
        "gpt-4o-mini",
    );
    v(
        1,
        "work-pers",
        Mode::Two,
        Value::Likert(2),
        "Kenton: it is work.",
        "kenton",
        "gpt-4o-mini",
    );
    v(
        2,
        "urgency",
        Mode::Two,
        Value::Likert(1),
        "Maren: this is urgent.",
        "maren",
        "gpt-4o-mini",
    );
    v(
        3,
        "urgency",
        Mode::Two,
        Value::Likert(5),
        "Llama: clearly not urgent.",
        "kenton",
        "llama-3-8b",
    );
    v(
        4,
        "urgency",
        Mode::Three,
        Value::Agreement(Agreement::Disagree),
        "Mode 3 disagrees.",
        "kenton",
        "gpt-4o-mini",
    );
    data.labels.push(Label {
        key: ComboKey::new("k-001", "urgency", "classification"),
        persona_id: "kenton".into(),
        value: Value::Likert(4),
        note: String::new(),
        who: "alice".into(),
        created_at: "2026-11-24T04:00:00.000Z".into(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    });
    app_with(data)
}

fn started(fx: &[Effect]) -> Vec<(String, Mode)> {
    fx.iter()
        .filter_map(|f| match f {
            Effect::StartRun { plan, .. } => Some((
                plan.persona_id().to_string(),
                plan.mode().expect("compare starts AwAg runs"),
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn compare_by_mode_shows_the_label_mapped_on_the_agreement_column() {
    let mut app = judged_three_ways();
    key(&mut app, 'c');
    let s = screen(&app);
    assert!(s.contains("compare by mode"), "{s}");
    // Likert 4 read against mode 3's AGREE/DISAGREE column: mapped, marked.
    assert!(s.contains("H AGREE mapped"), "{s}");
    assert!(s.contains("read as AGREE/DISAGREE"), "{s}");
    insta::assert_snapshot!("compare_by_mode", s);
}

#[test]
fn compare_by_persona_has_a_column_per_persona_with_verdicts_and_judges_the_missing() {
    let mut app = judged_three_ways();
    key(&mut app, 'c');
    key(&mut app, 'C');
    assert_eq!(
        app.choices.compare_axis,
        jury::tui::app::CompareAxis::Persona
    );
    let cols: Vec<String> = app.compare_columns().into_iter().map(|c| c.title).collect();
    assert_eq!(cols, vec!["kenton", "maren"], "tomasz has no verdict here");
    let s = screen(&app);
    assert!(s.contains("personas differ"), "{s}");
    insta::assert_snapshot!("compare_by_persona", s);
    // r: maren lacks work-pers, tomasz everything; kenton is complete.
    let fx = key(&mut app, 'r');
    assert_eq!(
        started(&fx),
        vec![("maren".into(), Mode::Two), ("tomasz".into(), Mode::Two)]
    );
    assert_eq!(app.persona_id(), "kenton", "the chosen persona stays");
}

#[test]
fn compare_by_model_has_a_column_per_model_that_judged_the_item() {
    let mut app = judged_three_ways();
    key(&mut app, 'c');
    key(&mut app, 'C');
    key(&mut app, 'C');
    let cols: Vec<String> = app.compare_columns().into_iter().map(|c| c.title).collect();
    assert_eq!(cols, vec!["gpt-4o-mini", "llama-3-8b"]);
    let s = screen(&app);
    assert!(s.contains("Llama: clearly not urgent."), "{s}");
    insta::assert_snapshot!("compare_by_model", s);
    // r: the configured model has judged every row: nothing to start, and
    // the message says other models cannot be started from here.
    let fx = key(&mut app, 'r');
    assert!(started(&fx).is_empty());
    assert!(message(&app).contains("no model list"), "{}", message(&app));
    // In mode 1 nothing judged this item: no columns, said so; r judges
    // with the configured model.
    key(&mut app, 'm');
    key(&mut app, 'm');
    assert_eq!(app.choices.mode, Mode::One);
    assert!(app.compare_columns().is_empty());
    assert!(screen(&app).contains("no model has judged this item"));
    assert_eq!(
        started(&key(&mut app, 'r')),
        vec![("kenton".into(), Mode::One)]
    );
    // Back to mode columns.
    key(&mut app, 'C');
    assert_eq!(app.choices.compare_axis, jury::tui::app::CompareAxis::Mode);
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
