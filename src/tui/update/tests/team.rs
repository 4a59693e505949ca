//! A team on one store: my queue puts what `jury assign` gave me first and
//! what another person has open last; the item open from my queue takes a
//! lease, given back when I label it or move on; and the others' labels
//! and notes on an item assigned to me stay hidden until I label the row.

use crate::domain::*;
use crate::store::Lease;
use crate::tui::app::{App, Filter};
use crate::tui::fixtures::*;
use crate::tui::msg::{Effect, Msg};

/// Labelling as alice: k-001..k-003 with rows urgency and work-pers; bob
/// labelled k-001 and k-003's urgency, with a note on k-003.
fn team_app(assigned: &[&str]) -> App {
    let mut data = loaded();
    let mut noted = label("k-003", "urgency", "bob", Value::Likert(5));
    noted.note = "bob thinks it is urgent".into();
    data.labels = vec![
        label("k-001", "urgency", "bob", Value::Likert(4)),
        label("k-001", "work-pers", "bob", Value::Likert(4)),
        noted,
    ];
    let mut app = app_with(data);
    app.set_team(assigned.iter().map(|s| s.to_string()), &[]);
    app
}

fn moves(fx: &[Effect]) -> Vec<(Option<String>, Option<String>)> {
    fx.iter()
        .filter_map(|f| match f {
            Effect::MoveLease { release, take, .. } => Some((release.clone(), take.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn my_queue_lists_what_is_assigned_to_me_first_then_the_rest() {
    let mut app = team_app(&["k-003", "k-002"]);
    // Other filters keep the file order.
    assert_eq!(listed(&app), ["k-001", "k-002", "k-003"]);
    choose_filter(&mut app, Filter::NotMine);
    assert_eq!(listed(&app), ["k-002", "k-003", "k-001"]);
    let s = screen(&app);
    assert!(s.contains("0 of 2 assigned done · 2 left"), "{s}");
    // Without assignments: as today.
    let mut alone = team_app(&[]);
    choose_filter(&mut alone, Filter::NotMine);
    assert_eq!(listed(&alone), ["k-001", "k-002", "k-003"]);
    assert!(screen(&alone).contains("0 of 3 done · 3 left"));
}

/// A person with assigned work left starts on their queue, its first item
/// focused; one whose assigned items are all labelled, or who has none,
/// starts as before (all items, the first one).
#[test]
fn with_assigned_work_left_the_workbench_opens_on_my_queue() {
    let mut app = team_app(&["k-003", "k-002"]);
    assert!(app.open_on_my_queue());
    assert_eq!(app.list.filter, Filter::NotMine);
    assert_eq!(listed(&app), ["k-002", "k-003", "k-001"]);
    assert_eq!(app.current_item().map(|i| i.id.as_str()), Some("k-002"));
    assert!(screen(&app).contains("0 of 2 assigned done · 2 left"));

    let mut alone = team_app(&[]);
    assert!(!alone.open_on_my_queue());
    assert_eq!(alone.list.filter, Filter::All);

    // alice labelled both rows of k-002, her only assigned item: done.
    let mut data = loaded();
    data.labels = vec![
        label("k-002", "urgency", "alice", Value::Likert(4)),
        label("k-002", "work-pers", "alice", Value::Likert(4)),
    ];
    let mut finished = app_with(data);
    finished.set_team(["k-002".to_string()], &[]);
    assert!(!finished.open_on_my_queue());
    assert_eq!(finished.list.filter, Filter::All);
}

/// Team roles often share a start (`study7_dana`, `study7_eli`): a long
/// name is cut in its middle, so the people stay told apart.
#[test]
fn long_names_that_share_a_start_stay_apart_on_the_row() {
    let mut data = loaded();
    data.labels = vec![
        label("k-001", "urgency", "jury_t_123_456_dana", Value::Likert(4)),
        label("k-001", "urgency", "jury_t_123_456_eli", Value::Likert(1)),
    ];
    let app = app_with(data);
    let s = screen(&app);
    assert!(s.contains("others: jury_t…_dana 4"), "{s}");
    assert!(s.contains("jury_t…6_eli 1"), "{s}");
}

#[test]
fn an_item_someone_else_has_open_goes_last_and_the_next_item_skips_it() {
    let mut app = team_app(&["k-002", "k-003"]);
    let lease = Lease {
        item_id: "k-002".into(),
        who: "bob".into(),
        expires_at: "2026-11-22T10:05:00.000Z".into(),
    };
    app.set_team(["k-002".to_string(), "k-003".to_string()], &[lease]);
    choose_filter(&mut app, Filter::NotMine);
    assert_eq!(listed(&app), ["k-003", "k-001", "k-002"]);
}

#[test]
fn the_item_open_from_my_queue_is_leased_and_given_back_when_labelled() {
    let mut app = team_app(&["k-002", "k-003"]);
    // Outside my queue nothing is leased.
    assert!(moves(&key(&mut app, 'j')).is_empty());
    let mut fx = Vec::new();
    for _ in 0..16 {
        fx.extend(key(&mut app, 'f'));
        if app.list.filter == Filter::NotMine {
            break;
        }
    }
    assert_eq!(app.current_item().unwrap().id, "k-002");
    let m = moves(&fx);
    assert_eq!(m.last(), Some(&(None, Some("k-002".to_string()))), "{fx:?}");
    // The lease runs for the configured time from the clock update read.
    let now = chrono::DateTime::parse_from_rfc3339("2026-11-22T10:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    app.data.team.lease_for = std::time::Duration::from_secs(120);
    let fx = crate::tui::update::update(
        &mut app,
        Msg::Key(crossterm::event::KeyEvent::from(
            crossterm::event::KeyCode::Char('j'),
        )),
        now,
    );
    match fx.iter().find(|f| matches!(f, Effect::MoveLease { .. })) {
        Some(Effect::MoveLease {
            who,
            release,
            take,
            now,
            until,
        }) => {
            assert_eq!(who, "alice");
            assert_eq!(release.as_deref(), Some("k-002"));
            assert_eq!(take.as_deref(), Some("k-003"));
            assert_eq!(now, "2026-11-22T10:00:00.000Z");
            assert_eq!(until, "2026-11-22T10:02:00.000Z");
        }
        other => panic!("no lease move: {other:?}"),
    }
    // Labelling both rows of k-003 gives its lease back (auto-advance is
    // off: the cursor stays, the item no longer needs me).
    assert_eq!(app.list.row, 0);
    assert!(moves(&key(&mut app, '2')).is_empty());
    key(&mut app, ']');
    let fx = key(&mut app, '3');
    assert_eq!(moves(&fx), [(Some("k-003".to_string()), None)], "{fx:?}");
    assert_eq!(app.data.team.held, None);
}

#[test]
fn someone_elses_lease_is_said_and_reorders_my_queue() {
    let mut app = team_app(&["k-002", "k-003"]);
    choose_filter(&mut app, Filter::NotMine);
    let bob = Lease {
        item_id: "k-002".into(),
        who: "bob".into(),
        expires_at: "2026-11-22T10:05:00.000Z".into(),
    };
    update(
        &mut app,
        Msg::LeaseMoved {
            item: Some("k-002".into()),
            result: Ok((Some(bob.clone()), vec![bob])),
        },
    );
    assert!(
        message(&app).contains("bob has k-002 open (leased until 10:05 UTC)"),
        "{}",
        message(&app)
    );
    // The cursor stays on k-002; it went to the end of the queue.
    assert_eq!(app.current_item().unwrap().id, "k-002");
    assert_eq!(listed(&app), ["k-003", "k-001", "k-002"]);
}

#[test]
fn others_labels_and_notes_on_an_item_assigned_to_me_stay_hidden_until_i_label() {
    let mut app = team_app(&["k-003"]);
    // k-001 is not assigned to me: bob's labels show as always.
    let s = screen(&app);
    assert!(s.contains("others: bob 4"), "{s}");
    key(&mut app, 'j');
    key(&mut app, 'j');
    assert_eq!(app.current_item().unwrap().id, "k-003");
    let s = screen(&app);
    assert!(!s.contains("bob"), "{s}");
    let key3 = ComboKey::new("k-003", "urgency", "classification");
    assert!(app.others_hidden(&key3, false));
    // Blind review off, and still hidden: the assignment is what hides them.
    assert!(!app.choices.blind);
    key(&mut app, '2');
    let s = screen(&app);
    assert!(s.contains("others: bob 5"), "{s}");
    assert!(s.contains("bob thinks it is urgent"), "{s}");
}

#[test]
fn the_history_popup_hides_the_others_changes_until_i_label() {
    use crate::store::{EventKind, LabelEvent, Slot};
    let mut app = team_app(&["k-003"]);
    let key3 = ComboKey::new("k-003", "urgency", "classification");
    let bob = LabelEvent {
        slot: Slot {
            key: key3.clone(),
            persona_id: "kenton".into(),
            who: "bob".into(),
            scale: Scale::Likert,
        },
        value: Some(Value::Likert(5)),
        note: "bob thinks it is urgent".into(),
        replaced_judge_value: None,
        created_at: "2026-11-22T10:00:00.000Z".into(),
        blind: false,
        tags: Vec::new(),
        kind: EventKind::Set,
    };
    let (shown, _) = app.visible_history(&key3, vec![bob.clone()], Vec::new());
    assert!(shown.is_empty());
    app.data
        .labels
        .get_mut("k-003")
        .unwrap()
        .push(crate::tui::app::LabelEntry {
            label: label("k-003", "urgency", "alice", Value::Likert(2)),
            state: crate::tui::app::SaveState::Saved,
        });
    let (shown, _) = app.visible_history(&key3, vec![bob], Vec::new());
    assert_eq!(shown.len(), 1);
}
