//! A team on one store, on screen at 80×24 and 160×45: my queue with the
//! items assigned to me first and its border counting them ("N of M
//! assigned done · K left"), bob's label and note hidden on the item
//! assigned to me until I label the row, then shown.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::domain::*;
use jury::tui::app::{App, Filter};

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 45)];

/// Labelling as alice, k-003 and k-002 assigned to her; bob labelled
/// k-003's urgency with a note and k-001 whole.
fn team() -> App {
    let mut data = loaded();
    let mut noted = label("k-003", "urgency", "bob", Value::Likert(5));
    noted.note = "overdue invoices are urgent for us".into();
    data.labels = vec![
        label("k-001", "urgency", "bob", Value::Likert(4)),
        label("k-001", "work-pers", "bob", Value::Likert(4)),
        noted,
    ];
    let mut app = app_with(data);
    app.set_team(["k-003".to_string(), "k-002".to_string()], &[]);
    choose_filter(&mut app, Filter::NotMine);
    app
}

fn screen_at(app: &mut App, (w, h): (u16, u16)) -> String {
    app.chrome.size = (w, h);
    app.scroll_list_to_cursor();
    screen(app)
}

#[test]
fn my_queue_with_assigned_items_first_hides_bobs_label_until_i_label() {
    for size in SIZES {
        let mut app = team();
        assert_eq!(listed(&app), ["k-002", "k-003", "k-001"]);
        key(&mut app, 'j');
        assert_eq!(app.current_item().unwrap().id, "k-003");
        let s = screen_at(&mut app, size);
        assert!(!s.contains("bob"), "{s}");
        assert!(!s.contains("overdue invoices are urgent"), "{s}");
        // No "labelled" or note mark from bob in the list either.
        assert!(s.contains("│     k-003 Invoice"), "{s}");
        let progress = if size.0 >= 160 {
            "0 of 2 assigned done · 2 left"
        } else {
            "0/2 assigned"
        };
        assert!(s.contains(progress), "{s}");
        insta::assert_snapshot!(format!("team_hidden_{}x{}", size.0, size.1), s);
    }
}

#[test]
fn bobs_label_and_note_appear_once_i_labelled_the_row() {
    for size in SIZES {
        let mut app = team();
        key(&mut app, 'j');
        key(&mut app, '2');
        let s = screen_at(&mut app, size);
        assert!(s.contains("others: bob 5"), "{s}");
        assert!(s.contains("✎ bob: overdue invoices"), "{s}");
        insta::assert_snapshot!(format!("team_shown_{}x{}", size.0, size.1), s);
    }
}

/// Runs `fx` and hands the lease answers back to `app`.
async fn run_leases(
    app: &mut App,
    exec: &mut jury::tui::effects::Executor,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<jury::tui::msg::Msg>,
    fx: Vec<jury::tui::msg::Effect>,
) {
    for f in fx {
        if matches!(f, jury::tui::msg::Effect::MoveLease { .. }) {
            exec.run(f);
            let msg = tokio::time::timeout(std::time::Duration::from_secs(20), rx.recv())
                .await
                .expect("an answer in time")
                .expect("channel open");
            assert!(
                matches!(msg, jury::tui::msg::Msg::LeaseMoved { .. }),
                "{msg:?}"
            );
            update(app, msg);
        }
    }
}

/// Alice and bob, both assigned k-002 and k-003, on one SQLite store
/// through the real executor: alice's queue leases k-002; bob's is told
/// she has it open, puts it last, and his own lease goes to k-003.
#[tokio::test]
async fn the_store_keeps_the_lease_and_the_next_person_is_told_and_moves_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("team.db");
    {
        let mut s = jury::store::Store::open(&db).unwrap();
        let d = loaded();
        s.upsert_all(&d.items, &d.personas, &d.perspectives, &[])
            .unwrap();
    }
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut exec = jury::tui::effects::Executor::new(
        db.clone(),
        jury::tui::effects::EngineLink { config: None },
        tx,
    );
    let mine = ["k-002".to_string(), "k-003".to_string()];
    let mut alice = app_with(loaded());
    alice.set_team(mine.clone(), &[]);
    let mut fx = Vec::new();
    while alice.list.filter != Filter::NotMine {
        fx.extend(key(&mut alice, 'f'));
    }
    run_leases(&mut alice, &mut exec, &mut rx, fx).await;
    let now = jury::store::now();
    let held = jury::store::Store::open(&db)
        .unwrap()
        .leases_of_others("bob", &now)
        .unwrap();
    assert_eq!(held.len(), 1);
    assert_eq!(
        (held[0].item_id.as_str(), held[0].who.as_str()),
        ("k-002", "alice")
    );

    let mut bob = App::new(
        loaded(),
        jury::tui::input::keymap::Keymap::default_map(),
        jury::tui::theme::Theme::builtin("dark"),
        "gpt-4o-mini",
        "bob",
    );
    bob.set_team(mine, &[]);
    let mut fx = Vec::new();
    while bob.list.filter != Filter::NotMine {
        fx.extend(key(&mut bob, 'f'));
    }
    run_leases(&mut bob, &mut exec, &mut rx, fx).await;
    assert!(
        message(&bob).contains("alice has k-002 open"),
        "{}",
        message(&bob)
    );
    assert_eq!(listed(&bob), ["k-003", "k-001", "k-002"]);
    // Bob moves on to his next item: the lease he asks for is k-003's.
    let fx = key(&mut bob, 'g');
    let fx = if fx.is_empty() {
        key(&mut bob, 'k')
    } else {
        fx
    };
    run_leases(&mut bob, &mut exec, &mut rx, fx).await;
    assert_eq!(bob.current_item().unwrap().id, "k-003");
    let held = jury::store::Store::open(&db)
        .unwrap()
        .leases_of_others("carol", &now)
        .unwrap();
    let who: Vec<(&str, &str)> = held
        .iter()
        .map(|l| (l.item_id.as_str(), l.who.as_str()))
        .collect();
    assert_eq!(who, [("k-002", "alice"), ("k-003", "bob")]);
}
