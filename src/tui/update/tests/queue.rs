//! The annotator's queue: the "not labelled by me" filter beside the ones
//! that count anyone's label, and search terms turned around with `-`.

use crate::domain::*;
use crate::tui::app::{App, Filter, PerspectiveSel, Term};
use crate::tui::fixtures::*;
use crate::tui::msg::Effect;

fn filter(app: &mut App, f: Filter) {
    for _ in 0..16 {
        if app.list.filter == f {
            return;
        }
        key(app, 'f');
    }
    panic!("f never reached {f:?}");
}

fn message(app: &App) -> String {
    app.chrome
        .message
        .as_ref()
        .map(|(_, m)| m.clone())
        .unwrap_or_default()
}

fn saved(fx: &[Effect]) -> Label {
    match fx {
        [Effect::SaveLabel { label, .. }] | [Effect::SaveNote { label, .. }] => label.clone(),
        other => panic!("expected one saved label, got {other:?}"),
    }
}

/// Where the cursor and focus are: (item id, row).
fn at(app: &App) -> (String, usize) {
    let id = app.current_item().map(|i| i.id.clone()).unwrap_or_default();
    (id, app.list.row)
}

#[test]
fn not_labelled_by_me_lists_what_is_left_for_me_whoever_else_labelled() {
    let mut data = queue_data();
    // k-003: alice labelled one row of two.
    data.labels
        .push(label("k-003", "urgency", "alice", Value::Likert(2)));
    data.perspectives.push(Perspective {
        id: "sender".into(),
        name: "Sender".into(),
        text: "As the sender".into(),
    });
    let mut app = app_with(data);
    // Anyone's label: every item has one; no item has none.
    filter(&mut app, Filter::Labelled);
    assert_eq!(app.list.filter.name(), "labelled by anyone");
    assert_eq!(listed(&app), ["k-001", "k-002", "k-003"]);
    filter(&mut app, Filter::Unlabelled);
    assert_eq!(app.list.filter.name(), "unlabelled by anyone");
    assert!(listed(&app).is_empty());
    // Mine: bob's labels leave k-001 for me; k-003 is half done.
    key(&mut app, 'f');
    assert_eq!(app.list.filter, Filter::NotMine);
    assert_eq!(listed(&app), ["k-001", "k-003"]);
    // Named in full where the list's border may cut it (80 columns).
    assert_eq!(message(&app), "filter: not labelled by me (2 of 3 items)");
    let s = screen(&app);
    assert!(s.contains("not labelled by me"), "{s}");
    assert!(s.contains("0/2 labelled by me"), "{s}");
    // Finishing k-003 counts at once; the item stays listed until the list
    // is made again (as with judge≠human), so the cursor does not jump.
    key(&mut app, 'j');
    key(&mut app, ']');
    assert_eq!(at(&app), ("k-003".to_string(), 1));
    saved(&key(&mut app, '4'));
    assert_eq!(app.list.labelled, 1);
    assert_eq!(listed(&app), ["k-001", "k-003"]);
    app.refilter();
    assert_eq!(listed(&app), ["k-001"]);
    // Every perspective shown: no item has my label from "sender", so the
    // list is made again from the rows now in view.
    app.choices.perspective = PerspectiveSel::All;
    app.refresh_all_marks();
    assert_eq!(listed(&app), ["k-001", "k-002", "k-003"]);
    assert_eq!(app.list.labelled, 0);
    // The kept session names the filter by a key that does not change with
    // its wording; one kept before the wording changed still reads.
    let kept = crate::tui::update::session::capture(&app);
    assert_eq!(kept.filter.as_deref(), Some("not-mine"));
    let mut again = app_with(queue_data());
    crate::tui::update::session::restore(&mut again, &kept);
    assert_eq!(again.list.filter, Filter::NotMine);
    let old = crate::tui::app::SessionState {
        filter: Some("unlabelled".into()),
        ..kept
    };
    crate::tui::update::session::restore(&mut again, &old);
    assert_eq!(again.list.filter, Filter::Unlabelled);
}

/// `-x` keeps exactly the items `x` drops, for every kind of term and for a
/// free word; a `-` alone is a word; a bad negated term is named as typed.
#[test]
fn a_leading_minus_turns_every_term_around() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = crate::store::Store::open(&dir.path().join("w.db")).unwrap();
    let mut data = queue_data();
    store.upsert_persona(&data.personas[0]).unwrap();
    for l in &data.labels {
        store.upsert_label(l).unwrap();
    }
    store
        .upsert_label(&label("k-003", "urgency", "bob", Value::Likert(2)))
        .unwrap();
    store
        .make_split(crate::domain::SplitRule::new(0.5, 3).unwrap(), "bob", false)
        .unwrap();
    data.split = store.split().unwrap();
    let mut app = app_with(data);
    let all = ["k-001", "k-002", "k-003"];
    for term in [
        "by:bob",
        "by:alice",
        "judge:urgency=2",
        "split:test",
        "split:train",
        "urgency=not",
        "invoice",
        "conf<0.5",
    ] {
        search(&mut app, term);
        assert!(
            app.list.query.errors.is_empty(),
            "{term}: {:?}",
            app.list.query
        );
        let kept = listed(&app);
        search(&mut app, &format!("-{term}"));
        assert!(
            app.list.query.errors.is_empty(),
            "-{term}: {:?}",
            app.list.query
        );
        let rest: Vec<&str> = all
            .iter()
            .copied()
            .filter(|id| !kept.iter().any(|k| k == id))
            .collect();
        assert_eq!(listed(&app), rest, "-{term} against {term}: {kept:?}");
    }
    // The cases the brief names, by value.
    search(&mut app, "-by:alice");
    assert_eq!(listed(&app), ["k-001", "k-003"]);
    search(&mut app, "-judge:urgency=2");
    assert_eq!(listed(&app), ["k-001", "k-002"]);
    search(&mut app, "-urgency=not");
    assert_eq!(listed(&app), ["k-002"]);
    // Terms combine, negated or not, and the list's border says them.
    search(&mut app, "-by:alice -judge:urgency=2 kettles");
    assert_eq!(listed(&app), ["k-001"]);
    assert_eq!(
        app.list.query.terms,
        [
            Term::Not(Box::new(Term::By("alice".into()))),
            Term::Not(Box::new(Term::Judge {
                cls: "urgency".into(),
                text: "2".into(),
                values: vec![Value::Likert(2), Value::Score(2)],
            })),
        ]
    );
    let s = screen(&app);
    assert!(s.contains("-by:alice"), "{s}");
    // A dash alone is a word (every id holds one), not a negation.
    search(&mut app, "-");
    assert_eq!(listed(&app), all);
    // A bad negated term is named as typed and left out.
    search(&mut app, "-urgency=maybe -lunch");
    assert_eq!(app.list.query.errors.len(), 1);
    assert!(
        app.list.query.errors[0].starts_with("-urgency=maybe: urgency has no value"),
        "{:?}",
        app.list.query.errors
    );
    assert_eq!(listed(&app), ["k-001", "k-003"]);
}

#[test]
fn case_insensitive_search_finds_words_anywhere_and_only_there() {
    use crate::tui::app::contains_ci;
    for (hay, needle, want) in [
        ("Stock-out on BM-440", "bm-440", true),
        ("Stock-out on BM-440", "stock", true),
        ("Stock-out on BM-440", "440", true),
        ("Stock-out on BM-440", "4400", false),
        ("Stock-out on BM-440", "", true),
        ("ab", "abc", false),
        ("aab", "ab", true),
        ("Zoë's kettle", "zoë", true),
        ("Zoë's kettle", "kettles", false),
        ("", "a", false),
    ] {
        assert_eq!(contains_ci(hay, needle), want, "{hay:?} {needle:?}");
    }
}
