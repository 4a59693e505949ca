//! Safe data in the pure update and on TestBackend: the quit prompt over
//! unsaved labels, the replay offer at start, and bracketed paste.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use crossterm::event::KeyCode;
use jury::domain::*;
use jury::tui::app::{InputKind, Popup, QuitPrompt, SaveState};
use jury::tui::msg::{Effect, Msg};

fn one_save(fx: &[Effect]) -> (u64, Label) {
    match fx {
        [Effect::SaveLabel { req, label }] | [Effect::SaveNote { req, label }] => {
            (*req, label.clone())
        }
        other => panic!("expected one SaveLabel, got {other:?}"),
    }
}

const BUSY: &str = "the database is busy: another process holds the write lock";

/// A label the store refused.
fn app_with_unsaved() -> jury::tui::app::App {
    let mut app = app();
    let (req, _) = one_save(&key(&mut app, '2'));
    update(
        &mut app,
        Msg::LabelSaved {
            req,
            result: Err(BUSY.into()),
        },
    );
    assert_eq!(app.unsaved_count(), 1);
    app
}

#[test]
fn quit_with_everything_saved_quits_at_once() {
    let mut app = app();
    let (req, _) = one_save(&key(&mut app, '2'));
    update(
        &mut app,
        Msg::LabelSaved {
            req,
            result: Ok(()),
        },
    );
    // Nothing to retry: only the session goes to the writer.
    let fx = key(&mut app, 'q');
    assert!(
        fx.iter().all(|f| matches!(f, Effect::SaveSession { .. })),
        "{fx:?}"
    );
    assert!(app.chrome.quit);
}

#[test]
fn quit_retries_unsaved_labels_then_asks_and_keeps_them() {
    let mut app = app_with_unsaved();
    // q: no quit yet; the label goes to the writer again.
    let (req, label) = one_save(&key(&mut app, 'q'));
    assert!(!app.chrome.quit);
    assert_eq!(label.value, Value::Likert(2));
    assert!(matches!(
        app.chrome.popup,
        Some(Popup::Quit(QuitPrompt::Saving))
    ));
    insta::assert_snapshot!("quit_saving", screen(&app));
    // Still refused: the prompt says how many and asks; the labels go to the recovery file.
    let fx = update(
        &mut app,
        Msg::LabelSaved {
            req,
            result: Err(BUSY.into()),
        },
    );
    match fx.as_slice() {
        [Effect::KeepUnsaved(ls)] => {
            assert_eq!(ls.len(), 1);
            assert_eq!(ls[0].value, Value::Likert(2));
        }
        other => panic!("expected KeepUnsaved, got {other:?}"),
    }
    assert!(!app.chrome.quit);
    update(
        &mut app,
        Msg::UnsavedKept(Ok("/data/jury/jury.db.unsaved-labels.jsonl".into())),
    );
    let s = screen(&app);
    insta::assert_snapshot!("quit_prompt", s);
    assert!(s.contains("1 label(s) NOT saved") && s.contains("q quit anyway"));
    // Other keys do nothing; q quits.
    assert!(key(&mut app, 'j').is_empty());
    assert!(!app.chrome.quit && app.chrome.popup.is_some());
    key(&mut app, 'q');
    assert!(app.chrome.quit);
}

#[test]
fn the_prompt_says_when_the_labels_could_not_be_kept_either() {
    let mut app = app_with_unsaved();
    let (req, _) = one_save(&key(&mut app, 'q'));
    update(
        &mut app,
        Msg::LabelSaved {
            req,
            result: Err("disk full".into()),
        },
    );
    update(
        &mut app,
        Msg::UnsavedKept(Err("/data/x.jsonl: No space left on device".into())),
    );
    let s = screen(&app);
    assert!(
        s.contains("could NOT be kept")
            && s.contains("quitting loses them")
            && s.contains("No space left on device")
            && s.contains("q quit anyway"),
        "{s}"
    );
}

#[test]
fn esc_stays_and_retry_from_the_prompt_quits_once_saved() {
    let mut app = app_with_unsaved();
    let (req, _) = one_save(&key(&mut app, 'q'));
    update(
        &mut app,
        Msg::LabelSaved {
            req,
            result: Err(BUSY.into()),
        },
    );
    // esc: back to work, nothing lost.
    code(&mut app, KeyCode::Esc);
    assert!(app.chrome.popup.is_none() && !app.chrome.quit);
    assert_eq!(app.unsaved_count(), 1);
    // q again, and this time the lock is gone.
    let (req, _) = one_save(&key(&mut app, 'q'));
    let fx = update(
        &mut app,
        Msg::LabelSaved {
            req,
            result: Err(BUSY.into()),
        },
    );
    assert!(matches!(fx.as_slice(), [Effect::KeepUnsaved(_)]));
    let (req, _) = one_save(&key(&mut app, 'r'));
    assert!(matches!(
        app.chrome.popup,
        Some(Popup::Quit(QuitPrompt::Saving))
    ));
    update(
        &mut app,
        Msg::LabelSaved {
            req,
            result: Ok(()),
        },
    );
    assert!(app.chrome.quit, "quits once everything is saved");
}

fn recovered(v: u8, at: &str) -> Label {
    Label {
        key: ComboKey::new("k-002", "urgency", "classification"),
        persona_id: "kenton".into(),
        value: Value::Likert(v),
        note: "from last time".into(),
        who: "alice".into(),
        created_at: at.into(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    }
}

#[test]
fn the_replay_offer_writes_the_labels_and_clears_the_file_once_saved() {
    let mut app = app();
    let labels = jury::tui::update::quit::still_unsaved(
        &app,
        vec![recovered(5, "2026-11-20T10:00:00.000Z")],
    );
    app.chrome.popup = Some(Popup::Replay {
        labels,
        path: "/data/jury/jury.db.unsaved-labels.jsonl".into(),
    });
    let s = screen(&app);
    insta::assert_snapshot!("replay_offer", s);
    assert!(s.contains("k-002 · urgency · kenton · alice = 5"));
    let (req, l) = one_save(&key(&mut app, 'r'));
    assert_eq!(l, recovered(5, "2026-11-20T10:00:00.000Z"));
    assert!(app.chrome.popup.is_none());
    let e = &app.data.labels["k-002"][0];
    assert_eq!(e.state, SaveState::Pending(req));
    let fx = update(
        &mut app,
        Msg::LabelSaved {
            req,
            result: Ok(()),
        },
    );
    assert_eq!(fx, vec![Effect::ClearUnsaved]);
    assert!(!app.data.replaying);
}

#[test]
fn the_replay_can_wait_or_be_discarded() {
    let mut app = app();
    let offer = |app: &mut jury::tui::app::App| {
        app.chrome.popup = Some(Popup::Replay {
            labels: vec![recovered(5, "2026-11-20T10:00:00.000Z")],
            path: "/x.jsonl".into(),
        })
    };
    offer(&mut app);
    assert!(key(&mut app, 'k').is_empty());
    assert!(app.chrome.popup.is_none() && !app.data.labels.contains_key("k-002"));
    assert!(
        app.chrome
            .message
            .as_ref()
            .unwrap()
            .1
            .contains("offered again")
    );
    offer(&mut app);
    assert_eq!(key(&mut app, 'x'), vec![Effect::ClearUnsaved]);
}

#[test]
fn recovered_labels_the_store_already_holds_newer_are_not_offered() {
    let mut data = loaded();
    data.labels = vec![recovered(3, "2026-11-21T10:00:00.000Z")];
    let app = app_with(data);
    let older = recovered(5, "2026-11-20T10:00:00.000Z");
    let newer = recovered(1, "2026-11-22T10:00:00.000Z");
    assert!(jury::tui::update::quit::still_unsaved(&app, vec![older]).is_empty());
    assert_eq!(
        jury::tui::update::quit::still_unsaved(&app, vec![newer.clone()]),
        vec![newer]
    );
}

// ----- bracketed paste -----

#[test]
fn a_paste_goes_whole_into_the_note_and_is_saved_with_it() {
    let mut app = app();
    let (req, _) = one_save(&key(&mut app, '2'));
    update(
        &mut app,
        Msg::LabelSaved {
            req,
            result: Ok(()),
        },
    );
    key(&mut app, 'n');
    let text = "judge is wrong\r\na\nd\n4\nP\nq\x1b[31m end";
    assert!(update(&mut app, Msg::Paste(text.into())).is_empty());
    assert_eq!(app.choices.persona, 0);
    let Some(Popup::Input {
        kind: InputKind::Note,
        area,
        ..
    }) = &app.chrome.popup
    else {
        panic!("the note editor stays open");
    };
    assert_eq!(
        area.lines().join("\n"),
        "judge is wrong\na\nd\n4\nP\nq[31m end",
        "line ends kept, the escape character dropped"
    );
    let (_, l) = one_save(&code(&mut app, KeyCode::Enter));
    assert_eq!(l.note, "judge is wrong\na\nd\n4\nP\nq[31m end");
    assert_eq!(l.value, Value::Likert(2));
    // Opened again, the note shows every line.
    key(&mut app, 'n');
    let Some(Popup::Input { area, .. }) = &app.chrome.popup else {
        panic!("note editor");
    };
    assert_eq!(area.lines().len(), 6);
}

#[test]
fn a_paste_with_no_text_field_is_refused_and_changes_nothing() {
    let mut app = app();
    let fx = update(&mut app, Msg::Paste("a\nd\n4\nP\nq\n".into()));
    assert!(fx.is_empty());
    assert!(!app.chrome.quit && app.chrome.popup.is_none() && app.data.labels.is_empty());
    let s = screen(&app);
    assert!(s.contains("paste ignored"), "{s}");
    // Nor in a picker.
    key(&mut app, 'p');
    assert!(update(&mut app, Msg::Paste("x".into())).is_empty());
    assert!(matches!(app.chrome.popup, Some(Popup::Picker { .. })));
    assert!(
        app.chrome
            .message
            .as_ref()
            .unwrap()
            .1
            .contains("paste ignored")
    );
}

#[test]
fn a_paste_into_search_is_one_line() {
    let mut app = app();
    key(&mut app, '/');
    update(&mut app, Msg::Paste("Lunch\non".into()));
    assert_eq!(app.list.search, "Lunch on");
    assert_eq!(app.list.filtered.len(), 1);
}
