//! Knowing where I am: the queue's progress counts the items that left it,
//! `F` cycles the filters backwards, a store without owners opens on the
//! persona its labels and runs use, and the status bar sums several runs.

use crate::domain::*;
use crate::tui::app::{ActiveRun, App, Filter};
use crate::tui::fixtures::*;
use crate::tui::msg::Msg;

fn status_line(app: &App) -> String {
    screen(app)
        .lines()
        .find(|l| l.trim_start_matches('"').starts_with(" persona"))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn not_labelled_by_me_counts_the_items_done_that_left_the_list() {
    // queue_data: alice labelled both rows of k-002 (done); k-001, k-003 left.
    let mut app = app_with(queue_data());
    choose_filter(&mut app, Filter::NotMine);
    key(&mut app, 'g');
    assert_eq!(listed(&app), ["k-001", "k-003"]);
    let s = screen(&app);
    assert!(s.contains("1 of 3 done · 2 left"), "{s}");
    assert!(status_line(&app).contains("1 of 3 done · 2 left"));
    // k-001 labelled through: done, though still listed until the list is
    // read again.
    let fx: Vec<_> = ['4', ']', '4']
        .into_iter()
        .flat_map(|c| key(&mut app, c))
        .collect();
    assert_eq!(fx.len(), 2, "{fx:?}");
    assert!(screen(&app).contains("2 of 3 done · 1 left"));
    // Read again (f round to the same filter): k-001 leaves, the count stays.
    key(&mut app, 'F');
    key(&mut app, 'f');
    assert_eq!(app.list.filter, Filter::NotMine);
    assert_eq!(listed(&app), ["k-003"]);
    assert!(screen(&app).contains("2 of 3 done · 1 left"));
    // An undo of a label on an item no longer listed: one more left.
    key(&mut app, 'u');
    assert!(
        screen(&app).contains("1 of 3 done · 2 left"),
        "{}",
        screen(&app)
    );
    // A search narrows the scope too; the other filters keep "N/M by me".
    search(&mut app, "k-00");
    assert!(screen(&app).contains("of 3 done"));
    search(&mut app, "Invoice");
    assert!(
        screen(&app).contains("0 of 1 done · 1 left"),
        "{}",
        screen(&app)
    );
    key(&mut app, 'f');
    assert!(screen(&app).contains("0/0 labelled by me") || !screen(&app).contains("done ·"));
    // At 80 columns the border is short: "1/3 done".
    let mut app = app_with(queue_data());
    app.chrome.size = (80, 24);
    choose_filter(&mut app, Filter::NotMine);
    search(&mut app, "-by:nobody-at-all");
    let s = screen(&app);
    assert!(s.contains("1/3 done"), "{s}");
}

#[test]
fn capital_f_cycles_the_filters_backwards() {
    let mut app = app_with(queue_data());
    let mut seen = vec![app.list.filter];
    // Ten filters (the last, "to adjudicate"): ten presses come back round.
    for _ in 0..10 {
        key(&mut app, 'F');
        seen.push(app.list.filter);
    }
    let mut forward = vec![Filter::All];
    let mut f = Filter::All;
    for _ in 0..10 {
        f = f.next();
        forward.push(f);
    }
    forward.reverse();
    assert_eq!(seen, forward, "F is f undone");
    // One `f` too many past my queue: one `F` back, and said so.
    choose_filter(&mut app, Filter::NotMine);
    key(&mut app, 'f');
    key(&mut app, 'F');
    assert_eq!(app.list.filter, Filter::NotMine);
    assert!(
        message(&app).contains("not labelled by me"),
        "{}",
        message(&app)
    );
    // Blind review skips the judge's filters backwards too.
    key(&mut app, 'b');
    choose_filter(&mut app, Filter::MarkedByMe);
    key(&mut app, 'F');
    assert_eq!(app.list.filter, Filter::NotMine);
    // `?` lists it, bound to F.
    use crate::tui::input::action::Action;
    assert_eq!(app.chrome.keymap.hint(Action::CycleFilterBack), "F");
    assert!(Action::ALL.contains(&Action::CycleFilterBack));
}

#[test]
fn a_store_without_owners_opens_on_the_persona_its_labels_and_runs_use() {
    let mut data = queue_data();
    // ana-skeptic comes first alphabetically; every label and verdict is
    // under kenton.
    data.personas.insert(
        0,
        Persona {
            id: "ana-skeptic".into(),
            name: "Ana".into(),
            definition: serde_json::json!({}),
        },
    );
    let app = app_with(data.clone());
    assert_eq!(app.persona_id(), "kenton");
    assert!(status_line(&app).contains("persona kenton"));
    // Nothing labelled or judged: the first persona.
    data.labels.clear();
    data.verdicts.clear();
    let app = app_with(data.clone());
    assert_eq!(app.persona_id(), "ana-skeptic");
    // More under ana: ana.
    data.labels = vec![
        Label {
            persona_id: "ana-skeptic".into(),
            ..label("k-001", "urgency", "bob", Value::Likert(2))
        },
        label("k-002", "urgency", "bob", Value::Likert(2)),
        Label {
            persona_id: "ana-skeptic".into(),
            ..label("k-003", "urgency", "bob", Value::Likert(2))
        },
    ];
    assert_eq!(app_with(data).persona_id(), "ana-skeptic");
}

fn ended(tag: u64, verdicts: u64, failed: u64, status: RunStatus) -> ActiveRun {
    ActiveRun {
        tag,
        run_id: Some(tag as i64),
        protocol: Protocol::Awag,
        mode: Some(Mode::Two),
        items: 10,
        progress: crate::engine::Progress {
            run_id: tag as i64,
            total: verdicts + failed,
            verdicts,
            failed,
            ..Default::default()
        },
        finished: true,
        cancelled: status == RunStatus::Cancelled,
        note: None,
        ended: Some(status),
        batch: None,
    }
}

#[test]
fn the_status_bar_sums_several_runs_not_only_the_last() {
    let mut app = app();
    app.runs.active.push(ended(1, 28, 0, RunStatus::Done));
    app.runs.last_ended = Some(1);
    assert!(status_line(&app).contains("last run 1 done: 28/28 verdicts"));
    for (tag, v) in [(2, 100), (3, 110), (4, 117), (5, 128)] {
        app.runs.active.push(ended(tag, v, 0, RunStatus::Done));
    }
    app.runs.last_ended = Some(5);
    let s = status_line(&app);
    assert!(s.contains("5 runs done: 483 verdicts"), "{s}");
    assert!(!s.contains("last run"), "{s}");
    app.runs.active.push(ended(6, 2, 3, RunStatus::Cancelled));
    app.chrome.size = (160, 45);
    let s = status_line(&app);
    assert!(
        s.contains("6 runs ended, 1 not done: 485 verdicts, 3 failed"),
        "{s}"
    );
    // While one goes, its progress as before.
    update(&mut app, Msg::Tick);
}

/// A `jury run` in another process on the same store: the status bar says
/// how far it got, as the store watcher reads it from the store (a run of
/// this session is not said twice), and stops saying it once it ended.
#[test]
fn the_status_bar_shows_a_run_of_another_process_live() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = sample_store(&dir.path().join("s.db"));
    let spec = kenton_spec(Mode::Two, "demo");
    let elsewhere = store.create_run(&spec, 100_002).unwrap();
    let mine = store.create_run(&spec, 12).unwrap();
    for _ in 0..3 {
        store.add_run_usage(elsewhere, None, None).unwrap();
    }
    let running = store.running_runs().unwrap();
    assert_eq!(running.len(), 2, "{running:?}");
    let mut app = app();
    app.chrome.size = (160, 45);
    app.runs.active.push(ended(1, 12, 0, RunStatus::Done));
    app.runs.active[0].run_id = Some(mine);
    update(&mut app, Msg::RunsRunning(running));
    let s = status_line(&app);
    assert!(
        s.contains(&format!(
            "run {elsewhere} elsewhere: 3 requests, 100002 planned"
        )),
        "{s}"
    );
    assert!(!s.contains(&format!("run {mine} elsewhere")), "{s}");
    store.finish_run(elsewhere, RunStatus::Done, None).unwrap();
    update(&mut app, Msg::RunsRunning(store.running_runs().unwrap()));
    assert!(!status_line(&app).contains("elsewhere"));
}
