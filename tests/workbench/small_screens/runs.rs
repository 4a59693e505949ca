//! The runs view, quitting with a run in flight, and the run's end said once
//! in the status bar.

use super::*;

// ----- the runs view -----

fn stored_run(id: i64, created: &str, finished: Option<&str>, status: RunStatus) -> Run {
    Run {
        id,
        spec: RunSpec {
            prompt_hash: format!("{id}f3a9c1d2e4b5a6978"),
            record: Some(jury::tui::fixtures::run_record(
                "gpt-4o-mini",
                &format!("{id}f3a9c1d2e4b5a6978"),
            )),
            ..kenton_spec(Mode::Two, "gpt-4o-mini")
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
        record_note: None,
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
