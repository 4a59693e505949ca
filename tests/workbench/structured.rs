//! The workbench's structured-answer setting: config default, the key that
//! cycles it, the status bar, the run it starts (against a real local server),
//! and the runs view's path, request and usage lines.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use crossterm::event::KeyCode;
use jury::domain::*;
use jury::provider::ToolMode;
use jury::tui::app::{RunsView, View};
use jury::tui::effects::{EngineLink, Executor};
use jury::tui::msg::{Effect, Msg};
use std::time::Duration;

fn settings(dir: &std::path::Path, structured: Option<&str>) -> jury::config::Settings {
    jury::config::Settings {
        db_path: dir.join("j.db"),
        base_url: None,
        base_urls: Vec::new(),
        api_key: None,
        model: "m".into(),
        prompts_dir: None,
        theme: "dark".into(),
        who: "alice".into(),
        who_named_by: None,
        temperature: None,
        idle_timeout: None,
        request_timeout: None,
        structured: structured.map(jury::config::StructuredChoice::parse),
        max_tokens_per_entry: None,
        max_answer_bytes: None,
        confidence: None,
        auto_advance: Default::default(),
        batch_poll: 30,
        lease_minutes: 5,
        tags: Vec::new(),
        min_human_agreement: jury::report::people::DEFAULT_MIN_HUMAN_AGREEMENT,
        // No keymap or theme files there: the built-in ones.
        config_path: Some(dir.join("config.toml")),
    }
}

fn planned(app: &mut jury::tui::app::App) -> Option<ToolMode> {
    match code(app, KeyCode::Enter).as_slice() {
        [Effect::StartRun { plan, .. }] => plan.structured,
        other => panic!("expected one StartRun, got {other:?}"),
    }
}

#[test]
fn config_structured_is_the_default_and_a_bad_one_falls_back_to_auto() {
    let dir = tempfile::tempdir().unwrap();
    let (mut app, warnings) =
        jury::tui::build_app(&settings(dir.path(), Some("json_schema")), loaded());
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(app.choices.structured, Some(ToolMode::JsonSchema));
    app.runs.endpoint_error = None;
    app.chrome.size = (140, 32);
    assert!(screen(&app).contains("structured json_schema"));
    assert_eq!(planned(&mut app), Some(ToolMode::JsonSchema));

    let (app, warnings) = jury::tui::build_app(&settings(dir.path(), Some("xml")), loaded());
    assert_eq!(app.choices.structured, None);
    assert_eq!(
        warnings,
        vec!["config structured must be auto, tools, json_schema or json: using auto".to_string()]
    );
    let (app, _) = jury::tui::build_app(&settings(dir.path(), Some("auto")), loaded());
    assert_eq!(app.choices.structured, None);
}

#[test]
fn s_cycles_auto_tools_json_schema_json_and_the_run_uses_it() {
    let mut app = app();
    app.chrome.size = (140, 32);
    assert!(screen(&app).contains("structured auto"));
    for (want, word) in [
        (Some(ToolMode::Tools), "tools"),
        (Some(ToolMode::JsonSchema), "json_schema"),
        (Some(ToolMode::JsonContent), "json"),
        (None, "auto"),
    ] {
        key(&mut app, 'S');
        assert_eq!(app.choices.structured, want);
        let s = screen(&app);
        assert!(s.contains(&format!("structured {word} ")), "{s}");
        assert!(
            s.contains(&format!("structured answers for the next runs: {word}")),
            "{s}"
        );
    }
    key(&mut app, 'S');
    assert_eq!(planned(&mut app), Some(ToolMode::Tools));
    // `?` lists the key with its line.
    key(&mut app, '?');
    let s = format!("{}", draw(&app, 140, 80).backend());
    assert!(
        s.contains("cycle structured answers: auto → tools → json_schema → json"),
        "{s}"
    );
}

fn run(id: i64, structured: Option<&str>, requests: u64, unknown: u64, cached: u64) -> Run {
    Run {
        id,
        spec: RunSpec {
            record: None,
            ..kenton_spec(Mode::Two, "gpt-4o-mini")
        },
        status: RunStatus::Done,
        created_at: "2026-11-23T22:00:00Z".into(),
        finished_at: Some("2026-11-23T22:01:00Z".into()),
        total: 12,
        verdicts: 12,
        failures: 0,
        prompt_tokens: 4000,
        completion_tokens: 900,
        cached_tokens: cached,
        requests,
        usage_unknown: unknown,
        cost_usd: Some(0.0021),
        note: None,
        structured: structured.map(str::to_string),
        record_note: None,
    }
}

#[test]
fn runs_view_shows_path_requests_unknown_usage_and_cached_share() {
    let mut app = app();
    app.chrome.size = (160, 30);
    let fx = key(&mut app, 'U');
    assert_eq!(fx, vec![Effect::LoadRuns]);
    update(
        &mut app,
        Msg::RunsLoaded(Ok((
            vec![
                run(
                    2,
                    Some("json_schema: 3 content_ignoring_tool_choice, 9 response_format"),
                    14,
                    2,
                    1000,
                ),
                run(1, None, 12, 0, 0),
            ],
            vec![],
        ))),
    );
    assert!(matches!(
        app.chrome.view,
        View::Runs(RunsView::Loaded { .. })
    ));
    let s = screen(&app);
    assert!(
        s.contains(
            "structured: json_schema: 3 content_ignoring_tool_choice, 9 response_format · 14 request(s), every attempt · usage unknown on 2 · cached 25% of prompt tokens"
        ),
        "{s}"
    );
    insta::assert_snapshot!("runs_view_structured", s);
    key(&mut app, 'j');
    let s = screen(&app);
    assert!(
        s.contains("structured: not recorded · 12 request(s)"),
        "{s}"
    );
}

/// The setting reaches the engine: with `json` chosen, the real local server
/// sees no tool and no schema format in the request and the run records the content path.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chosen_path_is_the_one_the_server_sees() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.db");
    {
        let mut s = jury::store::Store::open(&db).unwrap();
        let d = loaded();
        s.upsert_all(&d.items, &d.personas, &d.perspectives, &[])
            .unwrap();
    }
    let server = jury::testserver::TestServer::start(|r| {
        jury::testserver::demo_judge::reply(r, Duration::from_millis(0))
    })
    .await
    .unwrap();
    let cfg = jury::engine::EngineConfig {
        db_path: db.clone(),
        provider: jury::provider::ProviderConfig::new(
            server.base_url(),
            "jury-demo-judge".to_string(),
        ),
        prompts: std::sync::Arc::new(jury::prompt::PromptSet::embedded()),
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut exec = Executor::new(db.clone(), EngineLink { config: Some(cfg) }, tx);
    let mut app = app();
    app.choices.structured = Some(ToolMode::JsonContent);
    for fx in code(&mut app, KeyCode::Enter) {
        exec.run(fx);
    }
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(20), rx.recv())
            .await
            .expect("a message in time")
            .expect("channel open");
        let ended = matches!(msg, Msg::RunEnded { .. });
        for fx in update(&mut app, msg) {
            exec.run(fx);
        }
        if ended {
            break;
        }
    }
    let reqs = server.requests();
    assert!(!reqs.is_empty());
    assert!(
        reqs.iter()
            .all(|r| !r.uses_tools() && r.response_format() == Some("json_object")),
        "json asks for a JSON object in the content, no tools, no schema format"
    );
    let runs = jury::store::Store::open(&db).unwrap().runs().unwrap();
    let st = runs[0].structured.clone().unwrap_or_default();
    assert!(st.starts_with("json"), "{st:?}");
    assert_eq!(runs[0].requests, reqs.len() as u64);
}

/// A model without a price (a local server, the demo judge) shows no cost,
/// not an invented one and not a question mark.
#[test]
fn a_run_without_a_price_shows_a_dash_for_its_cost() {
    let mut app = app();
    app.chrome.size = (160, 30);
    key(&mut app, 'U');
    let mut unpriced = run(1, None, 3, 0, 0);
    unpriced.spec.model = "jury-demo-judge".into();
    unpriced.cost_usd = None;
    update(&mut app, Msg::RunsLoaded(Ok((vec![unpriced], vec![]))));
    let s = screen(&app);
    let row = s
        .lines()
        .find(|l| l.contains("jury-demo-judge"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        row.contains('—') && !row.contains('$') && !row.contains('?'),
        "{row}"
    );
}
