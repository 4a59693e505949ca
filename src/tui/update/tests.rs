//! Update driven by messages, its state and effects looked at: no
//! terminal, no I/O (a few also look at the screen drawn after).

use crate::domain::*;
use crate::tui::app::{Filter, Pane, SaveState, mark};
use crate::tui::fixtures::*;
use crate::tui::msg::{Effect, Msg};
use crossterm::event::KeyCode;

// Adjudication: the queue filter, `=` and a value key, undo.
mod adjudicate;
mod agreement_heads;
mod escalations;
mod escalations_untrusted;
// A label under "needs a person" is the judge's choice only while a judge is trusted.
mod needs_person_selection;
// Come back later (unsure/skip marks) and tags on labels.
mod marks;
// Notes as first-class text, and the search reaching the body and reasoning.
mod notes;
// What is left for me and keeping moving: the queue filter, negated search
// terms, the focus after a label, and undo across items.
mod queue;
// Every key lands where the eye is: focus on item change, keys per label.
mod keys_per_label;
// `T` and marks right after a label.
mod after_label_keys;
// The queue's progress, F, the persona in use, several runs in the status bar.
mod where_i_am;
// Marks' notes in the search; every term named.
mod search_terms;
// Assignments, leases and blind double-coding.
mod team;
// Others' labels, notes and marks taken live from the store.
mod live;
// The store away (a PostgreSQL restart, a network cut) and back.
mod away;
// An Esc and a key read together (Alt+key) are both taken.
mod escape_then;

/// The one label (or note) saved; how its combination was chosen
/// (`MarkSampled`) is recorded beside it and looked at apart.
fn saved_label(fx: &[Effect]) -> (u64, Label) {
    let fx: Vec<Effect> = fx
        .iter()
        .filter(|f| !matches!(f, Effect::MarkSampled { .. }))
        .cloned()
        .collect();
    match fx.as_slice() {
        [Effect::SaveLabel { req, label }] | [Effect::SaveNote { req, label }] => {
            (*req, label.clone())
        }
        other => panic!("expected one SaveLabel, got {other:?}"),
    }
}

#[test]
fn blind_labels_work_before_any_verdict() {
    let mut app = app();
    // Mode 2: Likert.
    let (req, l) = saved_label(&key(&mut app, '4'));
    assert_eq!(l.value, Value::Likert(4));
    assert_eq!(l.key, ComboKey::new("k-001", "urgency", "classification"));
    assert_eq!(l.persona_id, "kenton");
    assert_eq!(l.who, "alice");
    assert_eq!(l.replaced_judge_value, None);
    assert!(!l.blind, "no verdict existed to hide");
    // Not yet saved: pending until the store answers.
    let e = app.my_label(&l.key, Scale::Likert).unwrap();
    assert_eq!(e.state, SaveState::Pending(req));
    update(
        &mut app,
        Msg::LabelSaved {
            req,
            result: Ok(()),
        },
    );
    assert_eq!(
        app.my_label(&l.key, Scale::Likert).unwrap().state,
        SaveState::Saved
    );
    assert!(app.data.marks[0] & mark::LABELLED != 0);
    // a/d on a Likert row store nothing (see the test below).
    assert!(key(&mut app, 'd').is_empty());
    // Mode 3: 1–5 become AGREE/DISAGREE, 3 is refused with a message.
    key(&mut app, 'm');
    assert_eq!(app.choices.mode, Mode::Three);
    let (_, l) = saved_label(&key(&mut app, '5'));
    assert_eq!(l.value, Value::Agreement(Agreement::Agree));
    assert!(key(&mut app, '3').is_empty());
    assert!(app.chrome.message.as_ref().unwrap().1.contains("undecided"));
}

/// `a`/`d` on a Likert row (modes 1 and 2) would store an AGREE/DISAGREE
/// label the row never shows, and the report would count it as a group of
/// its own: refused, with a message naming the keys the row takes.
#[test]
fn a_and_d_on_a_likert_row_are_refused_and_say_which_keys_it_takes() {
    for mode_presses in [0, 2] {
        let mut app = app();
        for _ in 0..mode_presses {
            key(&mut app, 'm');
        }
        assert_eq!(app.choices.mode.scale(), Scale::Likert);
        for k in ['a', 'd'] {
            let fx = key(&mut app, k);
            assert!(fx.is_empty(), "{k} in mode {}: {fx:?}", app.choices.mode);
            let (level, m) = app.chrome.message.clone().expect("a message");
            assert_eq!(level, crate::tui::app::Level::Warning, "{m}");
            assert!(m.contains("1–5") && m.contains("mode 3"), "{m}");
        }
        assert!(app.data.labels.is_empty(), "nothing stored");
        assert_eq!(app.data.marks[0] & mark::LABELLED, 0);
    }
    // In mode 3 they label the row.
    let mut app = app();
    key(&mut app, 'm');
    let (_, l) = saved_label(&key(&mut app, 'd'));
    assert_eq!(l.value, Value::Agreement(Agreement::Disagree));
}

#[test]
fn a_failed_write_stays_unsaved_and_can_be_retried() {
    let mut app = app();
    let (req, l) = saved_label(&key(&mut app, '2'));
    update(
        &mut app,
        Msg::LabelSaved {
            req,
            result: Err("the database is busy".into()),
        },
    );
    let e = app.my_label(&l.key, Scale::Likert).unwrap();
    assert!(matches!(e.state, SaveState::Unsaved(_)));
    assert_eq!(
        e.label.value,
        Value::Likert(2),
        "the value is kept, not lost"
    );
    assert_eq!(app.unsaved_count(), 1);
    let s = screen(&app);
    assert!(s.contains("UNSAVED") && s.contains("NOT saved"), "{s}");
    let (req2, l2) = saved_label(&key(&mut app, 's'));
    assert_eq!(l2.value, Value::Likert(2));
    update(
        &mut app,
        Msg::LabelSaved {
            req: req2,
            result: Ok(()),
        },
    );
    assert_eq!(app.unsaved_count(), 0);
}

#[test]
fn a_late_answer_for_an_older_write_does_not_mark_the_newer_one_saved() {
    let mut app = app();
    let (r1, _) = saved_label(&key(&mut app, '2'));
    let (r2, l) = saved_label(&key(&mut app, '5'));
    update(
        &mut app,
        Msg::LabelSaved {
            req: r1,
            result: Ok(()),
        },
    );
    assert_eq!(
        app.my_label(&l.key, Scale::Likert).unwrap().state,
        SaveState::Pending(r2)
    );
    update(
        &mut app,
        Msg::LabelSaved {
            req: r2,
            result: Ok(()),
        },
    );
    assert_eq!(
        app.my_label(&l.key, Scale::Likert).unwrap().state,
        SaveState::Saved
    );
}

#[test]
fn blind_review_hides_the_judge_until_labelled() {
    let mut data = loaded();
    data.verdicts.push(verdict(
        1,
        "k-001",
        "urgency",
        Mode::Two,
        Value::Likert(1),
        "Urgent: a 2pm deadline.",
    ));
    let mut app = app_with(data);
    key(&mut app, 'b');
    let s = screen(&app);
    assert!(s.contains("J hidden") && !s.contains("2pm deadline"), "{s}");
    let (_, l) = saved_label(&key(&mut app, '2'));
    assert_eq!(
        l.replaced_judge_value, None,
        "the person did not see the judge"
    );
    assert!(l.blind, "a verdict existed and was hidden");
    let s = screen(&app);
    assert!(s.contains("J 1") && s.contains("2pm deadline"), "{s}");
    // Changing the label now, with the judge in view, is no longer blind.
    let (_, l) = saved_label(&key(&mut app, '3'));
    assert!(!l.blind);
    assert_eq!(l.replaced_judge_value, Some(Value::Likert(1)));
}

#[test]
fn notes_need_a_label_then_save_with_it() {
    let mut app = app();
    assert!(key(&mut app, 'n').is_empty());
    assert!(app.chrome.popup.is_none());
    let (req, _) = saved_label(&key(&mut app, '4'));
    update(
        &mut app,
        Msg::LabelSaved {
            req,
            result: Ok(()),
        },
    );
    key(&mut app, 'n');
    assert!(app.chrome.popup.is_some());
    for c in "kettles!".chars() {
        key(&mut app, c);
    }
    let (_, l) = saved_label(&code(&mut app, KeyCode::Enter));
    assert_eq!(l.note, "kettles!");
    assert_eq!(l.value, Value::Likert(4));
}

#[test]
fn keys_move_focus_rows_mode_filter_and_search() {
    let mut app = app();
    key(&mut app, 'j');
    assert_eq!(app.current_item().unwrap().id, "k-002");
    code(&mut app, KeyCode::Tab);
    assert_eq!(app.chrome.focus, Pane::Item);
    code(&mut app, KeyCode::Tab);
    assert_eq!(app.chrome.focus, Pane::Verdicts);
    key(&mut app, 'j');
    assert_eq!(app.list.row, 1);
    key(&mut app, 'm');
    assert_eq!(app.choices.mode, Mode::Three);
    key(&mut app, 'f');
    assert_eq!(app.list.filter, Filter::Unjudged);
    key(&mut app, '/');
    for c in "invoice".chars() {
        key(&mut app, c);
    }
    assert_eq!(app.list.filtered.len(), 1);
    code(&mut app, KeyCode::Enter);
    assert_eq!(app.current_item().unwrap().id, "k-003");
    code(&mut app, KeyCode::Esc);
    assert_eq!(app.list.search, "");
    assert_eq!(app.list.filtered.len(), 3);
    // R counts what judging the filtered list would send (tests/tui_runs_flow.rs
    // has the confirmation); Enter starts at once.
    let fx = key(&mut app, 'R');
    assert!(
        matches!(&fx[..], [Effect::PlanRuns(plans)] if plans[0].item_ids.len() == 3 && plans[0].mode() == Some(Mode::Three) && plans[0].resume)
    );
    let fx = code(&mut app, KeyCode::Enter);
    assert!(matches!(&fx[..], [Effect::StartRun { plan, .. }] if plan.resume));
    // Esc never cancels a run (tests/tui_runs_flow.rs: x does, asking first).
    assert!(code(&mut app, KeyCode::Esc).is_empty());
    assert!(app.running());
    // q with a run going asks first, as x does; yes cancels it and quits.
    assert!(key(&mut app, 'q').is_empty());
    assert!(!app.chrome.quit);
    assert!(matches!(
        app.chrome.popup,
        Some(crate::tui::app::Popup::QuitWithRuns { .. })
    ));
    assert!(
        key(&mut app, 'y')
            .iter()
            .any(|f| matches!(f, Effect::CancelRun { .. }))
    );
    assert!(app.chrome.quit);
}

#[test]
fn pickers_choose_persona_and_all_perspectives() {
    let mut data = loaded();
    data.perspectives.push(Perspective {
        id: "sender".into(),
        name: "Sender".into(),
        text: "As the sender".into(),
    });
    let mut app = app_with(data);
    assert_eq!(app.rows().len(), 2);
    key(&mut app, 'v');
    key(&mut app, 'j');
    key(&mut app, 'j');
    code(&mut app, KeyCode::Enter);
    assert_eq!(app.rows().len(), 4, "2 classifications × 2 perspectives");
    let fx = code(&mut app, KeyCode::Enter);
    assert!(
        matches!(&fx[..], [Effect::StartRun { plan, .. }] if plan.spec.perspective_ids().len() == 2)
    );
    key(&mut app, 'p');
    code(&mut app, KeyCode::Enter);
    assert_eq!(app.persona_id(), "kenton");
}

#[test]
fn personas_view_edits_and_creates() {
    let mut app = app();
    key(&mut app, 'P');
    key(&mut app, 'N');
    assert!(app.chrome.popup.is_some());
    // ctrl-s saves the JSON in the editor.
    let fx = update(
        &mut app,
        Msg::Key(crossterm::event::KeyEvent::new(
            KeyCode::Char('s'),
            crossterm::event::KeyModifiers::CONTROL,
        )),
    );
    let [Effect::SavePersona(p)] = &fx[..] else {
        panic!("{fx:?}")
    };
    assert_eq!(p.id, "new-persona");
    update(&mut app, Msg::PersonaSaved(Ok(p.clone())));
    assert_eq!(app.data.personas.len(), 2);
}

#[test]
fn agreement_rows_count_judge_vs_human() {
    let mut data = loaded();
    data.verdicts.push(verdict(
        1,
        "k-001",
        "urgency",
        Mode::Two,
        Value::Likert(1),
        "urgent",
    ));
    data.verdicts.push(verdict(
        1,
        "k-002",
        "urgency",
        Mode::Two,
        Value::Likert(5),
        "not urgent",
    ));
    let mut app = app_with(data);
    saved_label(&key(&mut app, '2'));
    key(&mut app, 'j');
    saved_label(&key(&mut app, '2'));
    key(&mut app, 'A');
    let s = screen(&app);
    assert!(s.contains("urgency"), "{s}");
    let rows = crate::tui::update::agreement_rows(&app);
    assert_eq!((rows[0].n, rows[0].agree), (2, 1));
    assert!(app.data.marks[1] & mark::DISAGREE != 0);
}

#[test]
fn prompt_view_shows_the_request() {
    let mut app = app();
    key(&mut app, 'W');
    let crate::tui::app::View::Prompt { text, .. } = &app.chrome.view else {
        panic!()
    };
    assert!(text.contains("get_evaluations"), "{text}");
    assert!(text.contains("k-001"));
}

#[test]
fn incremental_stream_sanitising_matches_the_whole() {
    use crate::tui::app::{MAX_VERDICT_CHARS, Stream};
    let full =
        "The item \x1b[2J says \u{202E}urgent\u{202C}; the classifier said 'not'. ".repeat(200);
    let mut s = Stream::new(1);
    let mut end = 0;
    while end < full.len() {
        end = (end + 7).min(full.len());
        while !full.is_char_boundary(end) {
            end += 1;
        }
        s.set(&full[..end]);
    }
    assert_eq!(
        s.text,
        crate::sanitize::for_display(&full, MAX_VERDICT_CHARS)
    );
    // A text that does not extend the previous one starts over.
    s.set("different");
    assert_eq!(s.text, "different");
}

#[test]
fn labels_are_stamped_with_the_time_update_is_given() {
    // The event loop reads the clock and passes it in: a test chooses the
    // time, and moves it on without sleeping.
    use crossterm::event::{KeyEvent, KeyModifiers};
    let mut app = app();
    let t0 = chrono::DateTime::parse_from_rfc3339("2031-05-04T10:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    let press = |app: &mut crate::tui::app::App, c: char, at| {
        crate::tui::update::update(
            app,
            Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
            at,
        )
    };
    let (_, l) = saved_label(&press(&mut app, '4', t0));
    assert_eq!(l.created_at, "2031-05-04T10:00:00.000Z");
    let later = t0 + chrono::Duration::seconds(90);
    let (_, l) = saved_label(&press(&mut app, '2', later));
    assert_eq!(l.value, Value::Likert(2));
    assert_eq!(l.created_at, "2031-05-04T10:01:30.000Z");
    assert_eq!(
        app.my_label(&l.key, Scale::Likert)
            .unwrap()
            .label
            .created_at,
        "2031-05-04T10:01:30.000Z",
        "the label on screen carries the given time too"
    );
}

/// `G` in the prompt and help views shows the last page of the
/// text (not a blank one past its end), and `g` comes back to the top from
/// anywhere.
#[test]
fn g_and_shift_g_in_text_views_land_on_the_first_and_last_page() {
    use crate::tui::app::View;
    use crossterm::event::{KeyEvent, KeyModifiers};
    let mut app = app();
    app.chrome.size = (120, 32);
    for open in ['W', '?'] {
        key(&mut app, open);
        key(&mut app, 'G');
        let s = screen(&app);
        let body: Vec<&str> = s.lines().skip(1).take(28).collect();
        let blank = body
            .iter()
            .filter(|l| {
                l.trim_matches(|c: char| c == '"' || c == '│' || c == ' ')
                    .is_empty()
            })
            .count();
        assert!(blank < 10, "{open}: G shows a mostly blank page:\n{s}");
        let last = match &app.chrome.view {
            View::Prompt { scroll, .. } | View::Help { scroll } => *scroll,
            v => panic!("{v:?}"),
        };
        assert!(last > 0, "{open}: the text is longer than a page");
        key(&mut app, 'k');
        let (View::Prompt { scroll, .. } | View::Help { scroll }) = &app.chrome.view else {
            panic!()
        };
        assert_eq!(*scroll, last - 1, "{open}: one line up from the last page");
        key(&mut app, 'g');
        let (View::Prompt { scroll, .. } | View::Help { scroll }) = &app.chrome.view else {
            panic!()
        };
        assert_eq!(*scroll, 0, "{open}: g is the top");
        update(
            &mut app,
            Msg::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
        );
    }
}

/// Quitting with runs going asks as the cancel key does: not at all when
/// one run has only a few combinations left (quitting cancels it), else the
/// prompt; `n` stays with the runs going, `q` again or `y` quits.
#[test]
fn quitting_with_runs_going_asks_as_the_cancel_key_does() {
    let started = |app: &mut crate::tui::App, total: u64| {
        let fx = code(app, KeyCode::Enter);
        assert!(matches!(&fx[..], [Effect::StartRun { .. }]), "{fx:?}");
        let tag = app.runs.active.last().unwrap().tag;
        update(
            app,
            Msg::Engine {
                tag,
                event: crate::engine::EngineEvent::RunStarted {
                    run_id: 1,
                    total,
                    skipped: 0,
                },
            },
        );
        tag
    };
    // A lone run with 5 left: quits at once, cancelling it.
    let mut app = app();
    let tag = started(&mut app, 5);
    assert!(key(&mut app, 'q').contains(&Effect::CancelRun { tag }));
    assert!(app.chrome.quit);
    // More left: asks; n stays and says so; q again quits.
    let mut app = crate::tui::fixtures::app();
    let tag = started(&mut app, 6);
    assert!(key(&mut app, 'q').is_empty());
    assert!(!app.chrome.quit);
    assert!(key(&mut app, 'n').is_empty());
    assert!(app.chrome.popup.is_none() && !app.chrome.quit);
    assert!(
        app.chrome
            .message
            .as_ref()
            .unwrap()
            .1
            .contains("not quitting")
    );
    assert!(app.running());
    key(&mut app, 'q');
    assert!(key(&mut app, 'q').contains(&Effect::CancelRun { tag }));
    assert!(app.chrome.quit);
}

/// `w` swaps in the columns a narrow screen left out, only in the agreement
/// and runs views and only when some gave way; elsewhere it says where it works.
#[test]
fn the_columns_key_acts_where_columns_gave_way() {
    let mut app = app();
    app.chrome.size = (80, 24);
    key(&mut app, 'w');
    assert_eq!(app.chrome.column_page, 0);
    let said = app.chrome.message.clone().unwrap().1;
    assert!(said.contains("agreement and runs"), "{said}");
    key(&mut app, 'U');
    // Each set of the columns that gave way in turn, then the first again.
    let pages = crate::tui::layout::columns::pages(crate::tui::layout::columns::RUNS, 78);
    assert!(pages.len() >= 2, "{pages:?}");
    for page in 1..pages.len() {
        key(&mut app, 'w');
        assert_eq!(app.chrome.column_page, page);
    }
    key(&mut app, 'w');
    assert_eq!(app.chrome.column_page, 0);
    // A view opens on its first columns.
    key(&mut app, 'w');
    code(&mut app, KeyCode::Esc);
    key(&mut app, 'U');
    assert_eq!(app.chrome.column_page, 0);
    // From 120 columns every column shows: nothing to swap.
    update(&mut app, Msg::Resize(160, 45));
    key(&mut app, 'w');
    assert_eq!(app.chrome.column_page, 0);
    let said = app.chrome.message.clone().unwrap().1;
    assert!(said.contains("every column"), "{said}");
}

fn stored_run(id: i64) -> Run {
    Run {
        id,
        spec: kenton_spec(Mode::Two, "gpt-4o-mini"),
        status: RunStatus::Done,
        created_at: format!("2026-11-24T0{id}:00:00.000Z"),
        finished_at: Some(format!("2026-11-24T0{id}:00:42.000Z")),
        total: 1,
        verdicts: 1,
        failures: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        cached_tokens: 0,
        requests: 1,
        usage_unknown: 0,
        cost_usd: None,
        note: None,
        structured: None,
        record_note: None,
    }
}

/// The runs view lists the newest first, selects it on the first read, and
/// keeps the selected run selected when a new one arrives above it.
#[test]
fn the_runs_view_lists_the_newest_first_and_keeps_the_selected_run() {
    use crate::tui::app::{RunsView, View};
    let ids = |app: &crate::tui::App| match &app.chrome.view {
        View::Runs(RunsView::Loaded { runs, cursor, .. }) => (
            runs.iter().map(|r| r.run.id).collect::<Vec<_>>(),
            runs[*cursor].run.id,
        ),
        _ => panic!("the runs view"),
    };
    let mut app = app();
    key(&mut app, 'U');
    let read = |n: i64| Msg::RunsLoaded(Ok(((1..=n).map(stored_run).collect(), vec![])));
    update(&mut app, read(3));
    assert_eq!(ids(&app), (vec![3, 2, 1], 3));
    key(&mut app, 'j');
    assert_eq!(ids(&app), (vec![3, 2, 1], 2));
    update(&mut app, read(4));
    assert_eq!(ids(&app), (vec![4, 3, 2, 1], 2));
    // Its start and how long it took are read once, with the runs.
    match &app.chrome.view {
        View::Runs(RunsView::Loaded { runs, .. }) => {
            assert_eq!(runs[0].started, "2026-11-24 04:00");
            assert_eq!(runs[0].took, Some(std::time::Duration::from_secs(42)));
        }
        _ => panic!("the runs view"),
    }
}
