//! Small screens and the first minutes: the agreement view, the verdict pane
//! and the runs view at 80×24 (and 160×45), claim rows before any claim is
//! configured, the "no endpoint" popup, quitting with runs in flight, and
//! the run's end said once. TestBackend screens and insta snapshots.
#![cfg(feature = "tui")]

mod tui_common;
use tui_common::*;

use crossterm::event::KeyCode;
use jury::domain::*;
use jury::report::GroupFigures;
use jury::tui::app::App;
use jury::tui::msg::{Effect, Msg};

fn sized(app: &mut App, w: u16, h: u16) {
    update(app, Msg::Resize(w, h));
}

/// The sample workspace with a mode 2 run answering every labelled row with
/// a Likert value that varies by item, so the figures differ.
fn judged_workspace() -> (tempfile::TempDir, jury::store::Store) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = jury::store::Store::open(&dir.path().join("j.db")).unwrap();
    jury::import::import_sample(&mut store, "me").unwrap();
    let spec = RunSpec {
        protocol: Protocol::Awag,
        mode: Some(Mode::Two),
        persona_id: "kenton".into(),
        perspective_ids: vec!["classification".into()],
        model: "demo".into(),
        prompt_hash: "h".into(),
        params: serde_json::Value::Null,
    };
    let run = store.create_run(&spec, 0).unwrap();
    let mut vs = Vec::new();
    let mut ids: Vec<String> = store.labelled_item_ids().unwrap().into_iter().collect();
    ids.sort();
    for (n, id) in ids.iter().enumerate() {
        for l in store.labels_for_item(id).unwrap() {
            let value = Value::Likert((n % 5 + 1) as u8);
            let mut v = verdict(run, id, &l.key.classification_id, Mode::Two, value, "ok");
            v.key = l.key.clone();
            v.persona_id = l.persona_id.clone();
            v.model = "demo".into();
            vs.push(v);
        }
    }
    store.insert_verdicts(&vs).unwrap();
    (dir, store)
}

/// The agreement view on the judged workspace, its figures computed as
/// `jury report` computes them (1000 resamples, as the workbench asks).
fn agreement(w: u16, h: u16) -> (App, Vec<GroupFigures>) {
    let (_dir, store) = judged_workspace();
    let report = jury::report::Report::build(&store, None, Some(1000), 42, &mut ()).unwrap();
    let mut app = app_with(jury::tui::load(&store).unwrap());
    sized(&mut app, w, h);
    key(&mut app, 'A');
    update(&mut app, Msg::AgreementLoaded(Ok(report.groups.clone())));
    update(&mut app, Msg::AgreementCells(report.cells()));
    (app, report.groups)
}

fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

/// The text of the screen's columns `from..to` (chars), row by row, joined
/// by spaces with runs of spaces made one: a sentence wrapped over several
/// rows of a pane reads as one.
fn pane_text(s: &str, from: usize, to: usize) -> String {
    let joined: Vec<String> = s
        .lines()
        .map(|l| {
            l.trim_matches('"')
                .chars()
                .skip(from)
                .take(to.saturating_sub(from))
                .collect::<String>()
        })
        .collect();
    joined
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where the pane whose top border shows `title` starts and ends (chars).
fn pane_columns(s: &str, title: &str) -> (usize, usize) {
    let top = s.lines().next().unwrap().trim_matches('"');
    let at = top.find(title).expect(title);
    let start = top[..at].chars().count();
    // The border corner before the title.
    let left = top[..at]
        .rfind('┌')
        .map(|b| top[..b].chars().count())
        .unwrap_or(start);
    let right = top[at..]
        .find('┐')
        .map(|b| top[..at + b].chars().count())
        .unwrap_or(top.chars().count());
    (left + 1, right)
}

// ----- the agreement view -----

// ----- the verdict pane -----

fn long_values() -> jury::tui::app::Loaded {
    let mut data = loaded();
    for it in &mut data.items {
        it.classifications.push(cls(
            "work-logistics",
            "Travel, rooms, deliveries?",
            &["logistics-and-travel-arrangements", "not"],
            "logistics-and-travel-arrangements",
        ));
    }
    let label = |c: &str, v: Value, who: &str| Label {
        key: ComboKey::new("k-001", c, "classification"),
        persona_id: "kenton".into(),
        value: v,
        note: String::new(),
        who: who.into(),
        created_at: "2026-11-22T10:00:00.000Z".into(),
        replaced_judge_value: None,
        blind: false,
    };
    data.labels = vec![
        label("urgency", Value::Likert(4), "alice"),
        label("work-logistics", Value::Likert(2), "alice"),
    ];
    data
}

// ----- no ⏎ on screen -----

#[test]
fn text_with_newlines_shows_no_return_sign() {
    let mut data = loaded();
    data.items[0].title = "Stock-out\non BM-440".into();
    data.labels = vec![Label {
        key: ComboKey::new("k-001", "urgency", "classification"),
        persona_id: "kenton".into(),
        value: Value::Likert(4),
        note: "see\nbelow".into(),
        who: "alice".into(),
        created_at: "2026-11-22T10:00:00.000Z".into(),
        replaced_judge_value: None,
        blind: false,
    }];
    let mut app = app_with(data);
    let s = screen(&app);
    assert!(!s.contains('⏎'), "{s}");
    assert!(s.contains("Stock-out on BM-440"), "{s}");
    assert!(s.contains("see below"), "{s}");
    // The agreement view's sides and notes come from the store and the report.
    let (mut agree, mut groups) = agreement(160, 45);
    groups[0].right = "alice\nsmith".into();
    update(&mut agree, Msg::AgreementLoaded(Ok(groups)));
    update(
        &mut agree,
        Msg::AgreementNotes(vec!["self-consistency · demo\nmodel".into()]),
    );
    let s = screen(&agree);
    assert!(!s.contains('⏎'), "{s}");
    assert!(s.contains("alice smith"), "{s}");
    // The label history popup.
    key(&mut app, 'h');
    update(
        &mut app,
        Msg::LabelHistory {
            key: ComboKey::new("k-001", "urgency", "classification"),
            result: Ok(vec![]),
        },
    );
    assert!(!screen(&app).contains('⏎'));
}

// ----- claims before any is configured -----

fn claim_label(item: &str, claim: &str, value: Value, who: &str) -> Label {
    Label {
        key: ComboKey::new(item, claim, "proposition"),
        persona_id: "-".into(),
        value,
        note: String::new(),
        who: who.into(),
        created_at: "2026-11-22T10:00:00.000Z".into(),
        replaced_judge_value: None,
        blind: false,
    }
}

// ----- the "no endpoint" popup -----

// ----- the runs view -----

fn stored_run(id: i64, created: &str, finished: Option<&str>, status: RunStatus) -> Run {
    Run {
        id,
        spec: RunSpec {
            protocol: Protocol::Awag,
            mode: Some(Mode::Two),
            persona_id: "kenton".into(),
            perspective_ids: vec!["classification".into()],
            model: "gpt-4o-mini".into(),
            prompt_hash: format!("{id}f3a9c1d2e4b5a6978"),
            params: serde_json::json!({"temperature": 0.0, "batch_size": 10}),
        },
        status,
        created_at: created.into(),
        finished_at: finished.map(str::to_string),
        total: 10,
        verdicts: 9,
        failures: 1,
        prompt_tokens: 900,
        completion_tokens: 120,
        cached_tokens: 0,
        requests: 2,
        usage_unknown: 0,
        cost_usd: Some(0.0012),
        note: None,
        structured: Some("tools".into()),
    }
}

fn runs_view(w: u16, h: u16) -> App {
    let mut app = app();
    sized(&mut app, w, h);
    assert_eq!(key(&mut app, 'U'), vec![Effect::LoadRuns]);
    // The store gives them oldest first.
    let runs = vec![
        stored_run(
            3,
            "2026-11-24T04:00:00.000Z",
            Some("2026-11-24T04:01:05.000Z"),
            RunStatus::Done,
        ),
        stored_run(
            4,
            "2026-11-24T05:30:00.000Z",
            Some("2026-11-24T07:32:10.000Z"),
            RunStatus::Cancelled,
        ),
        stored_run(5, "2026-11-24T09:15:00.000Z", None, RunStatus::Failed),
    ];
    update(&mut app, Msg::RunsLoaded(Ok((runs, vec![]))));
    app
}

// ----- quitting with runs in flight, and a run's end said once -----

fn one_run_going(app: &mut App, total: u64) -> u64 {
    let fx = code(app, KeyCode::Enter);
    assert!(
        fx.iter().any(|e| matches!(e, Effect::StartRun { .. })),
        "{fx:?}"
    );
    let tag = app.runs.active[0].tag;
    update(
        app,
        Msg::Engine {
            tag,
            event: jury::engine::EngineEvent::RunStarted {
                run_id: 7,
                total,
                skipped: 0,
            },
        },
    );
    tag
}

