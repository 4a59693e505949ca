//! The session kept on quit and brought back through a real store, with
//! quiet fallbacks and no write per keystroke.

use super::*;

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
        vec![Effect::LoadAgreement {
            req: agreement_req(&again),
            scope: jury::report::Scope {
                estimates: true,
                ..jury::report::Scope::on(Some(Side::Test))
            },
        }],
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
