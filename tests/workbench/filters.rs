//! Progress ("37/200 labelled") and the search field's typed terms, as pure
//! update tests and TestBackend snapshots.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use crossterm::event::KeyCode;
use jury::domain::*;
use jury::tui::app::{App, Filter, Term};
use jury::tui::msg::Msg;

/// Three items; k-002 is urgent by the classifier; the judge said Likert 2
/// on k-003's urgency in mode 2; bob labelled k-001.
fn workspace() -> App {
    let mut data = loaded();
    data.items[1].classifications[0].selected = Some("urgent".into());
    data.verdicts = vec![
        verdict(1, "k-003", "urgency", Mode::Two, Value::Likert(2), "no"),
        verdict(2, "k-001", "urgency", Mode::Two, Value::Likert(5), "yes"),
        verdict(
            3,
            "k-001",
            "urgency",
            Mode::Three,
            Value::Agreement(Agreement::Disagree),
            "no",
        ),
    ];
    data.labels = vec![
        label("k-001", "urgency", "bob", Value::Likert(4)),
        label("k-001", "work-pers", "bob", Value::Likert(4)),
    ];
    app_with(data)
}

fn listed(app: &App) -> Vec<String> {
    app.list
        .filtered
        .iter()
        .map(|&i| app.data.items[i as usize].id.to_string())
        .collect()
}

/// Opens the search, clears it, types `text` key by key and submits.
fn search(app: &mut App, text: &str) {
    key(app, '/');
    for _ in 0..80 {
        code(app, KeyCode::Backspace);
    }
    for c in text.chars() {
        key(app, c);
    }
    code(app, KeyCode::Enter);
}

#[test]
fn progress_counts_items_whose_shown_rows_i_labelled() {
    let mut app = workspace();
    // bob's labels are not alice's progress.
    assert_eq!(app.list.labelled, 0);
    assert!(screen(&app).contains("0/3 labelled"), "{}", screen(&app));
    // One row of two: not yet labelled.
    key(&mut app, '4');
    assert_eq!(app.list.labelled, 0);
    key(&mut app, ']');
    key(&mut app, '2');
    assert_eq!(app.list.labelled, 1);
    let s = screen(&app);
    // In the list title and in the status bar.
    assert_eq!(s.matches("1/3 labelled").count(), 2, "{s}");
    // Under the current filter: the judged items are k-001 and k-003.
    key(&mut app, 'f');
    key(&mut app, 'f');
    assert_eq!(app.list.filter, Filter::Judged);
    assert_eq!(app.list.labelled, 1);
    assert!(screen(&app).contains("1/2 labelled"));
    // A perspective no row was labelled from: nothing is labelled under it.
    let mut data = loaded();
    data.perspectives.push(Perspective {
        id: "tone".into(),
        name: "Tone".into(),
        text: "Is the tone right?".into(),
    });
    let mut app = app_with(data);
    key(&mut app, '4');
    key(&mut app, ']');
    key(&mut app, '4');
    assert_eq!(app.list.labelled, 1);
    // All perspectives: the tone rows of k-001 are still open.
    key(&mut app, 'v');
    code(&mut app, KeyCode::Down);
    code(&mut app, KeyCode::Down);
    code(&mut app, KeyCode::Enter);
    assert_eq!(app.active_perspectives().len(), 2);
    assert_eq!(app.list.labelled, 0);
}

#[test]
fn terms_filter_by_classifier_judge_annotator_and_combine() {
    let mut app = workspace();
    search(&mut app, "urgency=urgent");
    assert_eq!(listed(&app), ["k-002"]);
    assert_eq!(
        app.list.query.terms,
        [Term::Classifier {
            cls: "urgency".into(),
            value: "urgent".into()
        }]
    );
    search(&mut app, "URGENCY=not");
    assert_eq!(listed(&app), ["k-001", "k-003"]);
    // The judge's value in the mode shown (mode 2: Likert).
    search(&mut app, "judge:urgency=2");
    assert_eq!(listed(&app), ["k-003"]);
    // Mode 3 reads the mode-3 verdicts: the list follows the mode.
    search(&mut app, "judge:urgency=disagree");
    assert!(listed(&app).is_empty());
    key(&mut app, 'm');
    assert_eq!(app.choices.mode, Mode::Three);
    assert_eq!(listed(&app), ["k-001"]);
    key(&mut app, 'm');
    key(&mut app, 'm');
    // Who labelled, with free text and the coarse filter.
    search(&mut app, "by:bob");
    assert_eq!(listed(&app), ["k-001"]);
    search(&mut app, "by:alice");
    assert!(listed(&app).is_empty());
    search(&mut app, "urgency=not invoice");
    assert_eq!(listed(&app), ["k-003"]);
    search(&mut app, "urgency=not");
    key(&mut app, 'f'); // unjudged
    assert_eq!(app.list.filter, Filter::Unjudged);
    assert!(listed(&app).is_empty());
    key(&mut app, 'f'); // judged
    assert_eq!(listed(&app), ["k-001", "k-003"]);
    // The title says what filters the list.
    let s = screen(&app);
    assert!(s.contains("judged "), "{s}");
    assert!(s.contains("0/2 by me · urgency=not"), "{s}");
}

#[test]
fn a_bad_term_says_why_and_the_rest_still_filters() {
    let mut app = workspace();
    key(&mut app, '/');
    for c in "invoice urgenc".chars() {
        key(&mut app, c);
    }
    // Without `=` it is free text.
    assert!(listed(&app).is_empty());
    // Typing on: each partial term is named, never a panic.
    for (c, why) in [
        ('=', "no classification \"urgenc\""),
        ('x', "no classification \"urgenc\""),
    ] {
        key(&mut app, c);
        assert_eq!(app.list.query.errors.len(), 1);
        assert!(
            app.list.query.errors[0].contains(why),
            "{:?}",
            app.list.query
        );
        // The free text still filters.
        assert_eq!(listed(&app), ["k-003"]);
    }
    let s = screen(&app);
    assert!(s.contains("urgenc=x: no classification"), "{s}");
    assert!(s.contains("/invoice · ⚠"), "{s}");
    search(&mut app, "urgency=");
    assert!(app.list.query.errors[0].contains("give a value (urgent, not)"));
    search(&mut app, "urgency=maybe");
    assert!(app.list.query.errors[0].contains("urgency has no value \"maybe\""));
    search(&mut app, "judge:urgency=often");
    assert!(app.list.query.errors[0].contains("is no judge value"));
    search(&mut app, "split:test");
    assert!(app.list.query.errors[0].contains("no held-out split"));
    // Submitted with a bad term: the status line says why.
    assert!(
        app.chrome
            .message
            .as_ref()
            .is_some_and(|(_, m)| m.contains("no held-out split"))
    );
    assert_eq!(app.list.filtered.len(), 3);
    search(&mut app, "by:");
    assert!(app.list.query.errors[0].contains("give a name"));
}

#[test]
fn split_term_keeps_the_items_on_that_side() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = jury::store::Store::open(&dir.path().join("w.db")).unwrap();
    let mut data = loaded();
    store.upsert_persona(&data.personas[0]).unwrap();
    for item in &data.items {
        for c in &item.classifications {
            store
                .upsert_label(&label(&item.id, &c.id, "bob", Value::Likert(2)))
                .unwrap();
        }
    }
    store
        .make_split(SplitRule::new(0.5, 3).unwrap(), "bob", false)
        .unwrap();
    let split = store.split().unwrap().unwrap();
    data.split = Some(split.clone());
    let mut app = app_with(data.clone());
    for side in [Side::Test, Side::Train] {
        search(&mut app, &format!("split:{}", side.as_str()));
        assert!(app.list.query.errors.is_empty(), "{:?}", app.list.query);
        // Exactly the items with a classification on that side.
        let want: Vec<String> = data
            .items
            .iter()
            .filter(|it| {
                it.classifications
                    .iter()
                    .any(|c| split.side_of(&it.id, &c.id) == side)
            })
            .map(|it| it.id.clone())
            .collect();
        assert!(!want.is_empty());
        assert_eq!(listed(&app), want);
    }
}

#[test]
fn a_judge_term_follows_new_verdicts() {
    let mut app = workspace();
    search(&mut app, "judge:urgency=4");
    assert!(listed(&app).is_empty());
    // A run of this session (its verdicts are taken in).
    search(&mut app, "");
    let tag = code(&mut app, KeyCode::Enter)
        .iter()
        .find_map(|e| match e {
            jury::tui::msg::Effect::StartRun { tag, .. } => Some(*tag),
            _ => None,
        })
        .expect("a run starts");
    // A verdict streams in: the term reads it (the list is rebuilt on the
    // next filter change, as for every mark).
    let v = verdict(9, "k-002", "urgency", Mode::Two, Value::Likert(4), "ok");
    update(
        &mut app,
        Msg::Engine {
            tag,
            event: jury::engine::EngineEvent::Verdict {
                run_id: 9,
                verdict: Box::new(v),
            },
        },
    );
    search(&mut app, "judge:urgency=4");
    assert_eq!(listed(&app), ["k-002"]);
    // A later verdict replaces it.
    let mut v = verdict(10, "k-002", "urgency", Mode::Two, Value::Likert(1), "no");
    v.created_at = "2026-11-23T10:00:00.000Z".into();
    update(
        &mut app,
        Msg::Engine {
            tag,
            event: jury::engine::EngineEvent::Verdict {
                run_id: 10,
                verdict: Box::new(v),
            },
        },
    );
    search(&mut app, "judge:urgency=4");
    assert!(listed(&app).is_empty());
    search(&mut app, "judge:urgency=1");
    assert_eq!(listed(&app), ["k-002"]);
}

/// The `≠` marks and the judge≠human filter follow the judge configuration
/// in view: a mode-2 verdict that disagrees with a label marks the item in
/// mode 2 only; with no mode-3 verdict, mode 3 marks nothing and the filter
/// keeps nothing; a verdict of another persona never marks.
#[test]
fn marks_and_the_disagreement_filter_follow_the_mode_and_persona_in_view() {
    use jury::tui::app::mark;
    let mut data = loaded();
    data.personas.push(Persona {
        id: "maren".into(),
        name: "Maren".into(),
        definition: serde_json::json!({"type": "personal"}),
    });
    // Mode 2 (Likert) disagrees with bob on k-001; maren's judge disagrees
    // with bob's maren label on k-002; nothing was judged in mode 3.
    let mut maren = verdict(2, "k-002", "urgency", Mode::Two, Value::Likert(5), "yes");
    maren.persona_id = "maren".into();
    data.verdicts = vec![
        verdict(1, "k-001", "urgency", Mode::Two, Value::Likert(5), "yes"),
        maren,
    ];
    let mut maren_label = label("k-002", "urgency", "bob", Value::Likert(1));
    maren_label.persona_id = "maren".into();
    data.labels = vec![
        label("k-001", "urgency", "bob", Value::Likert(1)),
        maren_label,
    ];
    let mut app = app_with(data);
    assert_eq!(app.choices.mode, Mode::Two);
    let marked = |app: &App| -> Vec<String> {
        (0..app.data.items.len())
            .filter(|&i| app.data.marks[i] & mark::DISAGREE != 0)
            .map(|i| app.data.items[i].id.to_string())
            .collect()
    };
    // Kenton in view: k-002's disagreement is maren's, not in view.
    assert_eq!(marked(&app), ["k-001"]);
    while app.list.filter != Filter::Disagreements {
        key(&mut app, 'f');
    }
    assert_eq!(listed(&app), ["k-001"]);
    let row_marked = |app: &App| {
        screen(app)
            .lines()
            .any(|l| l.contains("k-001") && l.contains('≠') && !l.contains("judge≠human"))
    };
    assert!(row_marked(&app), "{}", screen(&app));
    // Mode 3: no verdicts there, so no mark and nothing listed.
    key(&mut app, 'm');
    assert_eq!(app.choices.mode, Mode::Three);
    assert!(marked(&app).is_empty(), "{:?}", marked(&app));
    assert!(listed(&app).is_empty(), "{:?}", listed(&app));
    assert!(!row_marked(&app), "{}", screen(&app));
    // Back to mode 2 (via mode 1, Likert but not judged either).
    key(&mut app, 'm');
    assert!(marked(&app).is_empty());
    key(&mut app, 'm');
    assert_eq!(listed(&app), ["k-001"]);
}

/// The judge's confidence: shown beside its value in the verdict pane, and
/// `conf<0.7` / `conf>=0.9` keep the items whose latest shown verdict has
/// such a confidence (verdicts without one match neither).
#[test]
fn conf_terms_filter_by_the_judges_confidence_and_the_pane_shows_it() {
    let sure = |value: f64| {
        Some(Confidence {
            value,
            source: ConfidenceSource::Logprobs,
            expected_score: Some(4.2),
        })
    };
    let mut data = loaded();
    let mut unsure = verdict(1, "k-003", "urgency", Mode::Two, Value::Likert(2), "no");
    unsure.confidence = sure(0.62);
    let mut confident = verdict(2, "k-001", "urgency", Mode::Two, Value::Likert(5), "yes");
    confident.confidence = sure(0.93);
    // An older verdict of k-001's urgency, unsure: the latest stands.
    let mut older = verdict(2, "k-001", "urgency", Mode::Two, Value::Likert(2), "no");
    older.confidence = sure(0.5);
    older.created_at = "2000-01-01T00:00:00.000Z".into();
    // k-002: judged, no confidence.
    let plain = verdict(3, "k-002", "urgency", Mode::Two, Value::Likert(4), "yes");
    data.verdicts = vec![older, unsure, confident, plain];
    let mut app = app_with(data);
    search(&mut app, "conf<0.7");
    assert_eq!(listed(&app), ["k-003"]);
    assert!(
        app.list.query.errors.is_empty(),
        "{:?}",
        app.list.query.errors
    );
    search(&mut app, "conf>=0.9");
    assert_eq!(listed(&app), ["k-001"]);
    assert!(screen(&app).contains("conf 0.93"), "{}", screen(&app));
    search(&mut app, "conf>0.95");
    assert!(listed(&app).is_empty());
    search(&mut app, "conf<=1");
    assert_eq!(listed(&app), ["k-001", "k-003"]);
    // A bound that is no probability is left out and named.
    search(&mut app, "conf<high");
    assert_eq!(app.list.query.errors.len(), 1);
    assert!(app.list.query.errors[0].contains("conf<high"));
}
