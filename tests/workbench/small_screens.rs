//! Small screens and the first minutes: the agreement view, the verdict pane
//! and the runs view at 80×24 (and 160×45), claim rows before any claim is
//! configured, the "no endpoint" popup, quitting with runs in flight, and
//! the run's end said once. TestBackend screens and insta snapshots.
#![cfg(feature = "tui")]

use crate::tui_common;
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

#[test]
fn the_agreement_table_keeps_sides_n_agreement_and_kappa_at_80_columns() {
    let (mut app, groups) = agreement(80, 24);
    let s = screen(&app);
    let header = lines(&s)
        .into_iter()
        .find(|l| l.contains("sides"))
        .unwrap_or_else(|| panic!("a header:\n{s}"));
    for want in ["sides", " n", "agree", "kappa"] {
        assert!(header.contains(want), "{want}: {header}\n{s}");
    }
    // The first group's row carries its kappa.
    let kappa = format!("{:.2}", groups[0].figures.cohen_kappa.value.unwrap());
    let row = lines(&s)
        .into_iter()
        .find(|l| l.contains("alice") && l.contains(&kappa))
        .unwrap_or_else(|| panic!("kappa {kappa} on the first row:\n{s}"));
    assert!(row.chars().count() <= 82, "{row}");
    // The other columns are a key away.
    assert!(!header.contains("people agree"), "{header}");
    key(&mut app, 'w');
    let wide = screen(&app);
    let header = lines(&wide)
        .into_iter()
        .find(|l| l.contains("sides"))
        .unwrap_or_else(|| panic!("a header:\n{wide}"));
    for want in ["alpha", "base L/R", "acc L/R", "people agree"] {
        assert!(header.contains(want), "{want}: {header}\n{wide}");
    }
    insta::assert_snapshot!("agreement_80x24", s);
    insta::assert_snapshot!("agreement_80x24_other_columns", wide);
    // Back again; and from 120 columns every column shows at once.
    key(&mut app, 'w');
    assert_eq!(screen(&app), s);
    sized(&mut app, 120, 30);
    let all = screen(&app);
    let header = lines(&all)
        .into_iter()
        .find(|l| l.contains("sides"))
        .unwrap();
    for want in [
        "agree",
        "kappa",
        "alpha",
        "base L/R",
        "acc L/R",
        "people agree",
    ] {
        assert!(header.contains(want), "{want}: {header}\n{all}");
    }
}

#[test]
fn the_confusion_matrix_never_wraps_at_80_columns() {
    let (mut app, groups) = agreement(80, 24);
    // Each group in turn: its matrix's header holds every value name on one
    // row, and each matrix row holds its name and all its counts.
    for (gi, g) in groups.iter().enumerate() {
        let s = screen(&app);
        let k = g.figures.k;
        let names: Vec<String> = g.scale.values().iter().map(|v| v.as_text()).collect();
        if names.len() == k {
            let head = names.join(" ");
            let found = lines(&s).iter().any(|l| {
                l.split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .contains(&head)
            });
            assert!(found, "group {gi}: the header {head:?} on one row:\n{s}");
        }
        for (r, row) in g.figures.confusion_matrix.iter().enumerate() {
            let name = names.get(r).cloned().unwrap_or_else(|| r.to_string());
            let want: Vec<String> = std::iter::once(name)
                .chain(row.iter().map(|c| c.to_string()))
                .collect();
            let want = want.join(" ");
            let found = lines(&s).iter().any(|l| {
                l.trim_matches('"')
                    .trim_matches('│')
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .starts_with(&want)
            });
            assert!(found, "group {gi}: matrix row {want:?} on one row:\n{s}");
        }
        key(&mut app, 'j');
    }
}

#[test]
fn the_group_table_says_how_many_rows_are_below() {
    let (_dir, store) = judged_workspace();
    let report = jury::report::Report::build(&store, None, Some(50), 42, &mut ()).unwrap();
    let mut app = app_with(jury::tui::load(&store).unwrap());
    sized(&mut app, 80, 24);
    key(&mut app, 'A');
    // Three times the groups: more than 80×24 shows.
    let mut groups = report.groups.clone();
    groups.extend(report.groups.clone());
    groups.extend(report.groups.clone());
    let n = groups.len();
    update(&mut app, Msg::AgreementLoaded(Ok(groups)));
    let s = screen(&app);
    let shown = lines(&s)
        .iter()
        .filter(|l| l.contains(" vs ") && !l.contains("confusion"))
        .count();
    assert!(shown < n, "{shown} of {n}:\n{s}");
    let more = format!("↓ {} more", n - shown);
    assert!(s.contains(&more), "{more}:\n{s}");
    // At the last group nothing is below, and the rows above are said.
    key(&mut app, 'G');
    let s = screen(&app);
    assert!(!s.contains("↓"), "{s}");
    assert!(s.contains("↑"), "{s}");
}

#[test]
fn the_agreement_view_at_160_columns_cuts_no_legend() {
    let (app, _) = agreement(160, 45);
    let s = screen(&app);
    let text = pane_text(&s, 1, 159);
    let legend = "acc = the classifier's accuracy as each side reads it";
    assert!(text.contains(legend), "{legend}:\n{s}");
    // The figures' column, from its heading to the chart's border.
    let at = |l: &str, what: &str| l.find(what).map(|b| l[..b].chars().count());
    let from = s.lines().find_map(|l| at(l, "figures · n")).expect(&s);
    let to = s.lines().find_map(|l| at(l, "┌ distributions")).expect(&s);
    let figures = pane_text(&s, from - 1, to - 1);
    let footnote = "[a,b] 95 %: Wilson for shares, else 1000 resamples (n≥30)";
    assert!(figures.contains(footnote), "{footnote}:\n{figures}\n{s}");
    insta::assert_snapshot!("agreement_160x45", s);
}

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
        tags: Vec::new(),
    };
    data.labels = vec![
        label("urgency", Value::Likert(4), "alice"),
        label("work-logistics", Value::Likert(2), "alice"),
    ];
    data
}

#[test]
fn the_verdict_pane_wraps_the_classifiers_value_and_mapped_labels_at_80_columns() {
    let mut app = app_with(long_values());
    sized(&mut app, 80, 24);
    key(&mut app, 'm'); // mode 3: the Likert labels read as AGREE/DISAGREE
    let s = screen(&app);
    let (from, to) = pane_columns(&s, "verdicts");
    // A value longer than the pane is wide goes on over the next row: read
    // without the spaces wrapping puts in.
    let text: String = pane_text(&s, from, to).split_whitespace().collect();
    for want in [
        "classifier: logistics-and-travel-arrangements",
        "H AGREE (mapped: likert 4)",
        "H DISAGREE (mapped: likert 2)",
    ] {
        let want: String = want.split_whitespace().collect();
        assert!(text.contains(&want), "{want}:\n{text}\n{s}");
    }
    insta::assert_snapshot!("verdicts_80x24", s);
    sized(&mut app, 160, 45);
    insta::assert_snapshot!("verdicts_160x45", screen(&app));
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
        tags: Vec::new(),
    }];
    let mut app = app_with(data);
    let s = screen(&app);
    assert!(!s.contains('⏎'), "{s}");
    assert!(s.contains("Stock-out on BM-440"), "{s}");
    // A note keeps its line break: it is shown in full, a line a line.
    assert!(s.contains("✎ alice: see"), "{s}");
    assert!(s.contains("below"), "{s}");
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
            marks: Vec::new(),
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
        tags: Vec::new(),
    }
}

#[test]
fn claim_rows_without_claim_text_give_way_to_one_hint_line() {
    let mut data = loaded();
    data.labels = vec![
        claim_label("k-001", "c-deadline", Value::Bool(true), "bob"),
        claim_label("k-001", "c-money", Value::Bool(false), "bob"),
    ];
    let mut app = app_with(data);
    sized(&mut app, 80, 24);
    let s = screen(&app);
    let (from, to) = pane_columns(&s, "verdicts");
    let text = pane_text(&s, from, to);
    assert!(!text.contains("c-deadline · proposition"), "{text}");
    assert!(!text.contains("c-money · proposition"), "{text}");
    assert!(text.contains("claims.toml"), "{text}");
    assert!(
        text.contains("c-deadline") && text.contains("c-money"),
        "{text}"
    );
    // Only the AwAg rows take the focus and labels.
    assert_eq!(app.row_count(), 2);
    insta::assert_snapshot!("claims_hidden_80x24", s);
    // The first start's first screen (its legend up): the rows, and no
    // claims line a new user has no use for yet.
    app.chrome.legend = Some(String::new());
    let s = screen(&app);
    let text = pane_text(&s, from, to);
    assert!(
        text.contains("work-pers") && !text.contains("claim(s) hidden"),
        "{s}"
    );
    app.chrome.legend = None;
    // A configured claim shows its row; the other stays in the hint.
    app.data.claims = jury::tui::app::claims::parse(
        "[[claim]]\nid = \"c-deadline\"\nclaim = \"A deadline is named.\"\n",
    )
    .unwrap();
    let s = screen(&app);
    let text = pane_text(&s, from, to);
    assert!(text.contains("c-deadline · proposition"), "{text}");
    assert!(!text.contains("c-money · proposition"), "{text}");
    assert_eq!(app.row_count(), 3);
}

// ----- the "no endpoint" popup -----

#[test]
fn the_no_endpoint_popup_says_how_to_start_the_demo_judge() {
    for (w, h) in [(80, 24), (160, 45)] {
        let mut app = app();
        app.runs.endpoint_error = Some(jury::config::NO_ENDPOINT.into());
        sized(&mut app, w, h);
        let fx = code(&mut app, KeyCode::Enter);
        assert!(fx.is_empty(), "{fx:?}");
        let s = screen(&app);
        // Each command whole on one row, to be copied as it is.
        for want in [
            "jury demo-judge --port 8089 &",
            "OPENAI_BASE_URL=http://127.0.0.1:8089/v1 JURY_MODEL=jury-demo-judge jury",
        ] {
            assert!(s.contains(want), "{want} at {w}x{h}:\n{s}");
        }
        insta::assert_snapshot!(format!("no_endpoint_{w}x{h}"), s);
    }
}

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

#[test]
fn the_runs_view_lists_the_newest_first_with_time_duration_prompts_and_judge() {
    let app = runs_view(160, 45);
    let s = screen(&app);
    let at = |id: &str| {
        lines(&s)
            .iter()
            .position(|l| l.contains(&format!("    {id} ")))
            .unwrap_or_else(|| panic!("run {id}:\n{s}"))
    };
    assert!(at("5") < at("4") && at("4") < at("3"), "{s}");
    let row = lines(&s)[at("3")];
    for want in [
        "2026-11-24 04:00",
        "1m05s",
        "3f3a9c1d",
        "awag 2",
        "kenton",
        "gpt-4o-mini",
    ] {
        assert!(row.contains(want), "{want}: {row}");
    }
    assert!(lines(&s)[at("4")].contains("2h02m"), "{s}");
    // The newest is selected, and its detail says the whole configuration.
    let text = pane_text(&s, 1, 159);
    for want in [
        "run 5",
        "classification",
        "temperature",
        "5f3a9c1d2e4b5a6978",
    ] {
        assert!(text.contains(want), "{want}:\n{s}");
    }
    insta::assert_snapshot!("runs_160x45", s);
    let small = runs_view(80, 24);
    let s = screen(&small);
    for want in ["2026-11-24 04:00", "awag 2"] {
        assert!(s.contains(want), "{want}:\n{s}");
    }
    insta::assert_snapshot!("runs_80x24", s);
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

#[test]
fn quit_with_a_run_in_flight_asks_as_the_cancel_key_does() {
    for (w, h) in [(80, 24), (160, 45)] {
        let mut app = app();
        sized(&mut app, w, h);
        let tag = one_run_going(&mut app, 20);
        let fx = key(&mut app, 'q');
        assert!(!app.chrome.quit, "asked first");
        assert!(fx.is_empty(), "{fx:?}");
        assert!(
            matches!(
                app.chrome.popup,
                Some(jury::tui::app::Popup::QuitWithRuns { .. })
            ),
            "the cancel prompt:\n{}",
            screen(&app)
        );
        let s = screen(&app);
        assert!(s.contains("run 7 · awag mode 2 · 0 of 20 done"), "{s}");
        insta::assert_snapshot!(format!("quit_with_a_run_{w}x{h}"), s);
        // `n` keeps it going and stays.
        key(&mut app, 'n');
        assert!(!app.chrome.quit && app.chrome.popup.is_none());
        // `y` cancels it and quits.
        key(&mut app, 'q');
        let fx = key(&mut app, 'y');
        assert!(app.chrome.quit);
        assert!(fx.contains(&Effect::CancelRun { tag }), "{fx:?}");
    }
}

#[test]
fn the_status_bars_last_run_says_what_the_runs_end_message_says() {
    let mut app = app();
    sized(&mut app, 160, 45);
    let tag = one_run_going(&mut app, 10);
    let progress = jury::engine::Progress {
        run_id: 7,
        total: 10,
        verdicts: 8,
        failed: 2,
        ..Default::default()
    };
    update(
        &mut app,
        Msg::Engine {
            tag,
            event: jury::engine::EngineEvent::RunFinished {
                run_id: 7,
                status: RunStatus::Done,
                progress,
                note: Some("2 combinations failed".into()),
            },
        },
    );
    update(&mut app, Msg::RunEnded { tag, error: None });
    let (_, said) = app.chrome.message.clone().expect("the end message");
    let s = screen(&app);
    let status = lines(&s)
        .into_iter()
        .find(|l| l.starts_with("\" persona"))
        .unwrap();
    // The end message opens with what the status bar says of the last run.
    let outcome = said.split(" — ").next().unwrap();
    assert!(
        outcome.contains("8/10") && outcome.contains("2 failed"),
        "{said}"
    );
    assert!(status.contains(outcome), "{outcome}\n{status}");
}

/// README's first command block: the workbench on its sample data and the
/// tests (both work on a fresh machine), then the endpoint judging needs,
/// the demo one, as the popup gives it.
#[test]
fn readme_opens_with_the_workbench_the_tests_and_the_demo_judge() {
    let readme = include_str!("../../README.md");
    let block: Vec<&str> = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a first sh block")
        .lines()
        .collect();
    let command = |l: &str| l.split(" #").next().unwrap_or("").trim().to_string();
    assert_eq!(command(block[0]), "cargo run --release");
    assert!(block[0].contains("endpoint"), "{}", block[0]);
    assert_eq!(command(block[1]), "cargo test --locked");
    let rest: Vec<String> = block[2..].iter().map(|l| command(l)).collect();
    assert!(
        rest.contains(&"cargo run --release -- demo-judge --port 8089 &".to_string()),
        "{rest:?}"
    );
    assert!(
        rest.contains(
            &"OPENAI_BASE_URL=http://127.0.0.1:8089/v1 JURY_MODEL=jury-demo-judge cargo run --release"
                .to_string()
        ),
        "{rest:?}"
    );
}
