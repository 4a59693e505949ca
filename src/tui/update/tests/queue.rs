//! The annotator's queue: the "not labelled by me" filter beside the ones
//! that count anyone's label, search terms turned around with `-`, the
//! focus moving on after a label (`auto_advance`), `n` right after a label,
//! and `u` showing the label it undid.

use crate::config::AutoAdvance;
use crate::domain::*;
use crate::tui::app::{App, Filter, Level, PerspectiveSel, Term};
use crate::tui::fixtures::*;
use crate::tui::msg::Effect;
use crossterm::event::KeyCode;

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
    choose_filter(&mut app, Filter::Labelled);
    assert_eq!(app.list.filter.name(), "labelled by anyone");
    assert_eq!(listed(&app), ["k-001", "k-002", "k-003"]);
    choose_filter(&mut app, Filter::Unlabelled);
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
    // Of the 3 items, k-002 is done (it left the list): 1 of 3.
    assert!(s.contains("1 of 3 done · 2 left"), "{s}");
    // Finishing k-003 counts at once; the item stays listed until the list
    // is made again (as with judge≠human), so the cursor does not jump.
    key(&mut app, 'j');
    key(&mut app, ']');
    assert_eq!(at(&app), ("k-003".to_string(), 1));
    saved(&key(&mut app, '4'));
    assert_eq!(app.list.labelled, 1);
    assert_eq!(listed(&app), ["k-001", "k-003"]);
    assert_eq!(app.list.queue_progress(), Some((2, 3)));
    app.refilter();
    assert_eq!(listed(&app), ["k-001"]);
    assert_eq!(
        app.list.queue_progress(),
        Some((2, 3)),
        "k-003 left, still done"
    );
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

fn advancing(mode: AutoAdvance) -> App {
    let mut app = app_with(queue_data());
    app.choices.auto_advance = mode;
    app
}

#[test]
fn after_a_label_the_focus_moves_to_the_next_row_without_my_label_and_stays_on_the_item() {
    let mut data = queue_data();
    data.perspectives.push(Perspective {
        id: "sender".into(),
        name: "Sender".into(),
        text: "As the sender".into(),
    });
    // k-001's urgency from "sender" (row 1 once both are shown) is mine.
    data.labels.push(Label {
        key: ComboKey::new("k-001", "urgency", "sender"),
        ..label("k-001", "urgency", "alice", Value::Likert(3))
    });
    let mut app = app_with(data);
    app.choices.auto_advance = AutoAdvance::Row;
    app.choices.perspective = PerspectiveSel::All;
    app.refresh_all_marks();
    assert_eq!(app.row_count(), 4);
    let l = saved(&key(&mut app, '2'));
    assert_eq!(l.key, ComboKey::new("k-001", "urgency", "classification"));
    // Row 1 holds my label already: on to row 2.
    assert_eq!(at(&app), ("k-001".into(), 2));
    saved(&key(&mut app, '5'));
    assert_eq!(at(&app), ("k-001".into(), 3));
    // The last row: the focus stays on it, on this item.
    saved(&key(&mut app, '5'));
    assert_eq!(at(&app), ("k-001".into(), 3));
    // A refused key moves nothing.
    key(&mut app, '[');
    assert!(key(&mut app, 'a').is_empty());
    assert_eq!(at(&app), ("k-001".into(), 2));
    // Relabelling a row when no later row needs me: the focus stays.
    saved(&key(&mut app, '4'));
    assert_eq!(at(&app), ("k-001".into(), 2));
}

#[test]
fn item_mode_moves_on_to_the_next_listed_item_that_still_needs_me() {
    let mut data = queue_data();
    // k-003's urgency is mine: the row to start there is work-pers.
    data.labels
        .push(label("k-003", "urgency", "alice", Value::Likert(2)));
    let mut app = app_with(data);
    app.choices.auto_advance = AutoAdvance::Item;
    saved(&key(&mut app, '2'));
    assert_eq!(at(&app), ("k-001".into(), 1));
    saved(&key(&mut app, '3'));
    // k-002 is done (mine): skipped; k-003 opens on its row without my label.
    assert_eq!(at(&app), ("k-003".into(), 1));
    assert_eq!(message(&app), "next item without your label: k-003");
    assert!(screen(&app).contains("next item without your label: k-003"));
    saved(&key(&mut app, '5'));
    assert_eq!(at(&app), ("k-003".into(), 1));
    assert!(
        message(&app).starts_with("nothing left for you here"),
        "{}",
        message(&app)
    );
    // From the last item it looks from the top again.
    let mut app = advancing(AutoAdvance::Item);
    key(&mut app, 'G');
    saved(&key(&mut app, '2'));
    saved(&key(&mut app, '2'));
    assert_eq!(at(&app), ("k-001".into(), 0));
    assert_eq!(message(&app), "next item without your label: k-001");
    // Within an item the focus only moves forward: labelling k-001's last
    // row first leaves its first row for later and moves on to k-003; done
    // there, back to k-001, on the row still without my label.
    let mut app = advancing(AutoAdvance::Item);
    key(&mut app, ']');
    saved(&key(&mut app, '2'));
    assert_eq!(at(&app), ("k-003".into(), 0));
    saved(&key(&mut app, '2'));
    saved(&key(&mut app, '2'));
    assert_eq!(at(&app), ("k-001".into(), 0));
    // When only the current item is left, the message says so and the
    // focus stays.
    key(&mut app, ']');
    saved(&key(&mut app, '3'));
    assert_eq!(at(&app), ("k-001".into(), 1));
    assert_eq!(
        message(&app),
        "no other listed item needs you; this one still has a row without your label"
    );
}

#[test]
fn off_keeps_the_focus_where_it_was() {
    let mut app = advancing(AutoAdvance::Off);
    saved(&key(&mut app, '2'));
    assert_eq!(at(&app), ("k-001".into(), 0));
    saved(&key(&mut app, '4'));
    assert_eq!(at(&app), ("k-001".into(), 0));
    assert_eq!(app.chrome.message, None);
}

/// Check rows (another protocol) count as the progress counts them: on a
/// protocol input (no classifications) they are what is labelled, and the
/// focus walks them; beside classifications they are labelled when a person
/// chooses to, and the focus passes them by.
#[test]
fn check_rows_are_walked_where_they_count_towards_the_progress() {
    let check = |item: &str, claim: &str| Verdict {
        key: ComboKey::new(item, claim, "proposition"),
        persona_id: crate::domain::PersonaRef::NONE_ID.into(),
        protocol: Protocol::Proposition,
        mode: None,
        value: Value::Bool(true),
        ..verdict(
            4,
            item,
            "urgency",
            Mode::Two,
            Value::Likert(1),
            "asks for a call",
        )
    };
    let mut data = queue_data();
    let mut input = item("p-001", "", "Call me when you land.");
    input.classifications.clear();
    data.items.push(input);
    data.verdicts.push(check("k-001", "claim-urgent"));
    data.verdicts.push(check("p-001", "claim-urgent"));
    data.verdicts.push(check("p-001", "claim-money"));
    let mut app = app_with(data);
    // Check rows show once their claims are configured.
    app.data.claims = crate::tui::app::claims::parse(
        "[[claim]]\nid = \"claim-urgent\"\nclaim = \"It asks for something now.\"\n\
         [[claim]]\nid = \"claim-money\"\nclaim = \"It is about money.\"\n",
    )
    .unwrap();
    app.choices.auto_advance = AutoAdvance::Item;
    assert_eq!(app.row_count(), 3);
    // k-001's last AwAg row: on to the next item, past the check row.
    key(&mut app, ']');
    saved(&key(&mut app, '2'));
    assert_eq!(at(&app), ("k-003".into(), 0));
    // A check row labelled by choice: then on as after any label.
    key(&mut app, 'g');
    assert_eq!(at(&app), ("k-001".into(), 0));
    key(&mut app, ']');
    key(&mut app, ']');
    assert_eq!(at(&app), ("k-001".into(), 2));
    let l = saved(&key(&mut app, 'a'));
    assert_eq!(l.value, Value::Bool(true));
    assert_eq!(at(&app), ("k-003".into(), 0));
    // A protocol input: its check rows one after the other.
    key(&mut app, 'G');
    assert_eq!(at(&app), ("p-001".into(), 0));
    saved(&key(&mut app, 'd'));
    assert_eq!(at(&app), ("p-001".into(), 1));
    saved(&key(&mut app, 'a'));
    assert_eq!(at(&app).0, "k-001");
}

#[test]
fn n_right_after_a_label_notes_that_label_then_moves_on_again() {
    let mut app = advancing(AutoAdvance::Item);
    saved(&key(&mut app, '4'));
    assert_eq!(at(&app), ("k-001".into(), 1));
    key(&mut app, 'n');
    assert!(app.chrome.popup.is_some(), "{}", message(&app));
    assert_eq!(at(&app), ("k-001".into(), 0));
    for c in "kettles".chars() {
        key(&mut app, c);
    }
    let l = saved(&code(&mut app, KeyCode::Enter));
    assert_eq!(l.key, ComboKey::new("k-001", "urgency", "classification"));
    assert_eq!((l.note.as_str(), l.value), ("kettles", Value::Likert(4)));
    assert_eq!(at(&app), ("k-001".into(), 1));
    // The item's last row: the focus went to the next item; `n` goes back.
    saved(&key(&mut app, '2'));
    assert_eq!(at(&app), ("k-003".into(), 0));
    key(&mut app, 'n');
    assert_eq!(at(&app), ("k-001".into(), 1));
    code(&mut app, KeyCode::Esc);
    assert!(app.chrome.popup.is_none());
    assert_eq!(at(&app), ("k-001".into(), 1));
    // Once another key came between, `n` is about the focused row again.
    let mut app = advancing(AutoAdvance::Row);
    saved(&key(&mut app, '4'));
    key(&mut app, 'j');
    key(&mut app, 'k');
    assert_eq!(at(&app), ("k-001".into(), 1));
    key(&mut app, 'n');
    assert!(app.chrome.popup.is_none());
    assert_eq!(app.chrome.message.as_ref().unwrap().0, Level::Warning);
    assert_eq!(at(&app), ("k-001".into(), 1));
}

#[test]
fn u_on_a_label_of_another_item_goes_there_and_says_what_it_undid() {
    let mut app = advancing(AutoAdvance::Item);
    saved(&key(&mut app, '4'));
    saved(&key(&mut app, '2'));
    assert_eq!(at(&app), ("k-003".into(), 0));
    let fx = key(&mut app, 'u');
    assert!(matches!(&fx[..], [Effect::UndoLabel { .. }]), "{fx:?}");
    assert_eq!(at(&app), ("k-001".into(), 1));
    assert_eq!(
        message(&app),
        "undone: work-pers · k-001 2 → no label · now showing k-001"
    );
    let s = screen(&app);
    assert!(s.contains("now showing k-001"), "{s}");
    // On the same item: the focus goes to the row.
    key(&mut app, 'j');
    key(&mut app, 'k');
    key(&mut app, ']');
    key(&mut app, 'u');
    assert_eq!(at(&app), ("k-001".into(), 0));
    assert_eq!(message(&app), "undone: urgency · k-001 4 → no label");
    // An item the list does not hold: said, and the cursor stays.
    let mut app = advancing(AutoAdvance::Item);
    saved(&key(&mut app, '4'));
    search(&mut app, "lunch");
    assert_eq!(listed(&app), ["k-002"]);
    key(&mut app, 'u');
    assert_eq!(at(&app).0, "k-002");
    assert_eq!(
        message(&app),
        "undone: urgency · k-001 4 → no label (k-001 is not listed: the filter or search hides it)"
    );
}

#[test]
fn auto_advance_comes_from_config_toml_and_a_bad_value_is_located() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    let settings = |text: &str| {
        std::fs::write(&path, text).unwrap();
        let file = crate::config::load_file(&path)?;
        crate::config::Settings::resolve_with(
            &crate::config::Overrides::default(),
            file,
            Some(path.clone()),
        )
    };
    let s = settings("model = \"m\"\n").unwrap();
    assert_eq!(s.auto_advance, AutoAdvance::Item, "the default");
    let (app, _) = crate::tui::build_app(&s, loaded());
    assert_eq!(app.choices.auto_advance, AutoAdvance::Item);
    for (text, want) in [
        ("auto_advance = \"item\"\n", AutoAdvance::Item),
        ("auto_advance = \"off\"\n", AutoAdvance::Off),
        ("auto_advance = \"row\"\n", AutoAdvance::Row),
    ] {
        let s = settings(text).unwrap();
        let (app, warnings) = crate::tui::build_app(&s, loaded());
        assert_eq!(app.choices.auto_advance, want, "{text}");
        assert!(warnings.is_empty(), "{warnings:?}");
    }
    let e = settings("model = \"m\"\nauto_advance = \"next-item\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with(&path.display().to_string()), "{e}");
    assert!(
        e.contains("line 2, column 16: auto_advance: unknown variant")
            && e.contains("expected one of `row`, `item`, `off`"),
        "{e}"
    );
    assert!(!e.contains("next-item"), "{e}");
}
