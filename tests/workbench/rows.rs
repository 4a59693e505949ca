//! Protocol rows, the runs view, the first screen, pickers, messages, mapped
//! labels and blind review. Pure update tests and TestBackend snapshots.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use crossterm::event::KeyCode;
use jury::domain::*;
use jury::tui::app::{Filter, Level, Popup, View, mark};

fn label(item: &str, c: &str, value: Value, who: &str) -> Label {
    Label {
        key: ComboKey::new(item, c, "classification"),
        persona_id: "kenton".into(),
        value,
        note: String::new(),
        who: who.into(),
        created_at: "2026-11-22T10:00:00.000Z".into(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    }
}

fn two_personas() -> jury::tui::app::Loaded {
    let mut data = loaded();
    let mut p = data.personas[0].clone();
    for id in ["maren", "tomasz"] {
        p.id = id.into();
        p.name = id.into();
        data.personas.push(p.clone());
    }
    data
}

// ----- 7: pickers, messages, mapped labels -----

#[test]
fn g_and_capital_g_go_to_the_first_and_last_picker_entry() {
    let mut app = app_with(two_personas());
    key(&mut app, 'p');
    let cursor = |app: &jury::tui::app::App| match &app.chrome.popup {
        Some(Popup::Picker { cursor, .. }) => *cursor,
        _ => panic!("expected the picker"),
    };
    assert_eq!(cursor(&app), 0);
    key(&mut app, 'G');
    assert_eq!(cursor(&app), 2);
    key(&mut app, 'g');
    assert_eq!(cursor(&app), 0);
    code(&mut app, KeyCode::End);
    assert_eq!(cursor(&app), 2);
    code(&mut app, KeyCode::Enter);
    assert_eq!(app.persona_id(), "tomasz");
    // `?` lists them in the picker's section.
    let help = {
        key(&mut app, '?');
        screen_tall(&app)
    };
    assert!(
        help.contains("first entry") && help.contains("last entry"),
        "{help}"
    );
}

fn screen_tall(app: &jury::tui::app::App) -> String {
    let t = draw(app, 120, 120);
    format!("{}", t.backend())
}

#[test]
fn a_message_lasts_until_the_next_action_errors_too() {
    let mut app = app();
    app.chrome.message = Some((Level::Error, "the run stopped: boom".into()));
    // Ticks do not clear it: it stays until it can be read.
    for _ in 0..50 {
        update(&mut app, jury::tui::msg::Msg::Tick);
    }
    assert!(app.chrome.message.is_some());
    key(&mut app, 'j');
    assert_eq!(app.chrome.message, None);
    app.chrome.message = Some((Level::Warning, "no items to judge".into()));
    key(&mut app, 'k');
    assert_eq!(app.chrome.message, None);
    // An action that says something replaces the old message with its own.
    app.chrome.message = Some((Level::Error, "old".into()));
    key(&mut app, 'b');
    let (_, m) = app.chrome.message.clone().unwrap();
    assert!(m.contains("blind review on"), "{m}");
}

#[test]
fn a_likert_label_on_a_mode_3_row_shows_as_likert_mapped() {
    let mut data = loaded();
    data.labels = vec![
        label("k-001", "urgency", Value::Likert(4), "alice"),
        label("k-001", "work-pers", Value::Likert(3), "alice"),
        label("k-001", "urgency", Value::Likert(1), "bob"),
    ];
    let mut app = app_with(data);
    key(&mut app, 'm');
    assert_eq!(app.choices.mode, Mode::Three);
    let s = screen(&app);
    assert!(s.contains("H AGREE (mapped: likert 4)"), "{s}");
    assert!(s.contains("H 3 (likert)"), "{s}");
    // Others' Likert labels name their scale too (wide enough to show them).
    let wide = format!("{}", draw(&app, 240, 32).backend());
    assert!(wide.contains("others: bob likert 1"), "{wide}");
    assert!(!s.contains("H 4 ✓"), "{s}");
    insta::assert_snapshot!("mode3_likert_label_mapped", s);
    // In mode 2 the same labels are this mode's own: plain values.
    key(&mut app, 'm');
    key(&mut app, 'm');
    let s = screen(&app);
    assert!(s.contains("H 4 ✓saved"), "{s}");
    let wide = format!("{}", draw(&app, 240, 32).backend());
    assert!(wide.contains("others: bob 1"), "{wide}");
}

// ----- 8: blind review -----

fn judged_and_disagreeing() -> jury::tui::app::App {
    let mut data = loaded();
    data.verdicts = vec![
        verdict(
            1,
            "k-001",
            "urgency",
            Mode::Two,
            Value::Likert(5),
            "urgent: stores escalating",
        ),
        verdict(
            1,
            "k-002",
            "urgency",
            Mode::Two,
            Value::Likert(1),
            "a lunch invitation",
        ),
    ];
    data.labels = vec![label("k-001", "urgency", Value::Likert(1), "alice")];
    app_with(data)
}

#[test]
fn blind_review_hides_the_lists_disagreement_marks() {
    let mut app = judged_and_disagreeing();
    assert!(app.data.marks[0] & mark::DISAGREE != 0);
    let open = screen(&app);
    assert!(open.contains("JH≠"), "{open}");
    insta::assert_snapshot!("blind_off_list_marks", open);
    key(&mut app, 'b');
    assert!(app.choices.blind);
    key(&mut app, 'j'); // k-002: judged, not labelled: its verdict is hidden
    let blind = screen(&app);
    assert!(!blind.contains('≠'), "{blind}");
    assert!(blind.contains("J hidden"), "{blind}");
    assert!(!blind.contains("a lunch invitation"), "{blind}");
    insta::assert_snapshot!("blind_on_list_marks", blind);
}

#[test]
fn blind_review_refuses_judge_made_filters_orders_and_views() {
    let mut app = judged_and_disagreeing();
    // Filter on judge≠human and a judge-made order, then go blind: both reset.
    while app.list.filter != Filter::Disagreements {
        key(&mut app, 'f');
    }
    assert_eq!(app.list.filtered.len(), 1);
    key(&mut app, 'o');
    assert_ne!(app.list.order, jury::tui::app::queue::Order::File);
    key(&mut app, 'b');
    assert_eq!(app.list.filter, Filter::All);
    assert_eq!(app.list.order, jury::tui::app::queue::Order::File);
    assert_eq!(app.list.filtered.len(), 3);
    // Cycling the filter skips judge≠human while blind.
    for _ in 0..12 {
        key(&mut app, 'f');
        assert_ne!(app.list.filter, Filter::Disagreements);
    }
    // Orders and the judge's views are refused, with the way out named.
    key(&mut app, 'o');
    assert_eq!(app.list.order, jury::tui::app::queue::Order::File);
    assert!(
        app.chrome
            .message
            .as_ref()
            .unwrap()
            .1
            .contains("b turns it off")
    );
    for k in ['c', 'A'] {
        key(&mut app, k);
        assert_eq!(app.chrome.view, View::Main, "{k}");
        assert!(
            app.chrome
                .message
                .as_ref()
                .unwrap()
                .1
                .contains("blind review hides")
        );
    }
    key(&mut app, 'b');
    key(&mut app, 'c');
    assert_eq!(app.chrome.view, View::Compare);
}

// ----- 6: the first screen -----

#[test]
fn the_first_start_legend_leaves_the_hints_and_help_in_sight_at_80_columns() {
    let mut app = app();
    app.chrome.size = (80, 24);
    app.chrome.legend = Some("new workspace: sample data loaded (3 items)".into());
    app.scroll_list_to_cursor();
    let s = screen(&app);
    for want in [
        "what the marks mean",
        "J judged",
        "≠ a label and the judge disagree",
        "J the judge's value",
        "H your label",
        "test/train",
        "sample data loaded",
        "esc hides this",
        "? help",
        "enter judge",
    ] {
        assert!(s.contains(want), "{want}:\n{s}");
    }
    // `?` sits at the right end of the status line.
    let status = s.lines().nth(22).unwrap();
    assert!(
        status.trim_end_matches('"').ends_with("? help "),
        "{status}"
    );
    insta::assert_snapshot!("first_start_80x24", s);
    // The list is shorter while the legend shows (moving keeps the cursor in sight).
    let with_legend = app.list_height();
    // Esc hides the legend and does nothing else.
    code(&mut app, KeyCode::Esc);
    assert_eq!(app.chrome.legend, None);
    assert_eq!(app.list_height(), with_legend + 7);
    assert_eq!(app.chrome.view, View::Main);
    let s = screen(&app);
    assert!(!s.contains("what the marks mean"), "{s}");
    assert!(s.contains("? help"), "{s}");
}

#[test]
fn help_explains_the_marks_and_row_labels_one_a_line() {
    let mut app = app();
    app.chrome.size = (80, 24);
    app.chrome.legend = Some(String::new());
    key(&mut app, '?');
    assert_eq!(app.chrome.legend, None, "the help lists the same marks");
    assert!(matches!(app.chrome.view, View::Help { .. }));
    // Tall enough for every line, 80 columns wide: nothing is cut.
    let s = format!("{}", draw(&app, 80, 200).backend());
    for want in [
        "list marks:",
        "  J judged",
        "  ≠ a label and the judge disagree",
        "  ! control characters or instruction-like text",
        "verdict rows:",
        "  H your label (another scale: mapped)",
        "  test/train: its side of the split",
        "blind review hides the judge:",
        "  the ≠ marks",
    ] {
        assert!(s.contains(want), "{want}:\n{s}");
    }
    // Every view keeps `?` on the status line.
    assert!(s.contains("? help"), "{s}");
}

#[test]
fn a_message_does_not_hide_the_help_key() {
    let mut app = app();
    app.chrome.size = (80, 24);
    app.chrome.message = Some((
        Level::Warning,
        "a long warning that takes the whole message line and more, much more than 80 columns"
            .into(),
    ));
    let s = screen(&app);
    assert!(s.contains("? help"), "{s}");
}

// ----- 4: proposition rows -----

fn claim_label(item: &str, claim: &str, value: Value, who: &str) -> Label {
    Label {
        key: ComboKey::new(item, claim, "proposition"),
        persona_id: "-".into(),
        note: String::new(),
        ..label(item, claim, value, who)
    }
}

fn with_claims() -> jury::tui::app::App {
    let mut data = loaded();
    data.labels = vec![
        claim_label("k-001", "c-deadline", Value::Bool(true), "bob"),
        claim_label("k-002", "c-deadline", Value::Bool(false), "bob"),
        claim_label("k-001", "c-secret", Value::Bool(true), "bob"),
    ];
    let mut v = verdict(
        3,
        "k-001",
        "c-deadline",
        Mode::Two,
        Value::Bool(false),
        "no deadline named",
    );
    v.key = ComboKey::new("k-001", "c-deadline", "proposition");
    v.persona_id = "-".into();
    v.protocol = Protocol::Proposition;
    v.mode = None;
    data.verdicts = vec![v];
    let mut app = app_with(data);
    app.data.claims = jury::tui::app::claims::parse(
        "[[claim]]\nid = \"c-deadline\"\nclaim = \"A deadline \\u001b[31mtoday\\u001b[0m or tomorrow.\"\n",
    )
    .unwrap();
    app
}

#[test]
fn proposition_rows_show_the_claim_the_verdict_and_everyones_labels() {
    let mut app = with_claims();
    for _ in 0..2 {
        key(&mut app, ']');
    }
    let s = screen(&app);
    for want in [
        "c-deadline · proposition (bool)",
        "claim (check): A deadline",
        "J false",
        "others: bob true",
        "claim text unknown",
    ] {
        assert!(s.contains(want), "{want}:\n{s}");
    }
    // The escape in the claim is shown neutralised, never sent to the terminal.
    assert!(!s.contains('\u{1b}'), "{s}");
    insta::assert_snapshot!("proposition_rows", s);
    // Labelled like an AwAg row, on the claim's scale: `a` is true.
    let fx = key(&mut app, 'a');
    match fx.as_slice() {
        [jury::tui::msg::Effect::SaveLabel { label, .. }] => {
            assert_eq!(
                label.key,
                ComboKey::new("k-001", "c-deadline", "proposition")
            );
            assert_eq!(label.value, Value::Bool(true));
            assert_eq!(label.replaced_judge_value, Some(Value::Bool(false)));
        }
        other => panic!("expected one SaveLabel, got {other:?}"),
    }
    assert!(screen(&app).contains("H true"));
}

fn plans(fx: &[jury::tui::msg::Effect]) -> Vec<jury::tui::app::RunPlan> {
    fx.iter()
        .filter_map(|e| match e {
            jury::tui::msg::Effect::StartRun { plan, .. } => Some(vec![plan.clone()]),
            // `R` counts first: the plans it asks to count are its runs.
            jury::tui::msg::Effect::PlanRuns(plans) => Some(plans.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn enter_and_r_judge_proposition_rows_with_the_claims_settings() {
    let mut app = with_claims();
    // Enter: the item's AwAg rows and its known claim; the unknown one is named.
    let p = plans(&code(&mut app, KeyCode::Enter));
    assert_eq!(p.len(), 2, "{p:?}");
    assert_eq!(p[0].protocol(), Protocol::Awag);
    let claim = &p[1];
    assert_eq!(claim.protocol(), Protocol::Proposition);
    assert_eq!(claim.item_ids, vec!["k-001".to_string()]);
    assert_eq!(claim.persona_id(), "-");
    let s = claim.claim().unwrap();
    assert_eq!(s.claim_id, "c-deadline");
    let (_, m) = app.chrome.message.clone().unwrap();
    assert!(m.contains("c-secret"), "{m}");
    // The request is built by the constructor `jury run` uses, from the same flags.
    let req = jury::tui::effects::run_request(claim.clone());
    let cli = jury::protocol::spec::JudgeSpec::from_flags(&jury::protocol::spec::SpecFlags {
        protocol: "proposition".into(),
        claim: Some("A deadline \u{1b}[31mtoday\u{1b}[0m or tomorrow.".into()),
        claim_id: Some("c-deadline".into()),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(req.spec, cli);
    // R over the list: one proposition run over every listed item with the claim.
    let p = plans(&key(&mut app, 'R'));
    let claim = p
        .iter()
        .find(|p| p.protocol() == Protocol::Proposition)
        .unwrap();
    assert_eq!(
        claim.item_ids,
        vec!["k-001".to_string(), "k-002".to_string()]
    );
}

// ----- 5: the runs view is live -----

fn stored_run(id: i64) -> Run {
    Run {
        id,
        spec: kenton_spec(Mode::Two, "gpt-4o-mini"),
        status: RunStatus::Running,
        created_at: "2026-11-24T04:00:00Z".into(),
        finished_at: None,
        total: 10,
        verdicts: 0,
        failures: 0,
        prompt_tokens: 0,
        completion_tokens: 0,
        cached_tokens: 0,
        requests: 0,
        usage_unknown: 0,
        cost_usd: None,
        note: None,
        structured: None,
        record_note: None,
    }
}

#[test]
fn the_runs_view_is_live_and_agrees_with_the_status_bar() {
    use jury::engine::{EngineEvent, Progress};
    use jury::tui::msg::{Effect, Msg};
    let mut app = app();
    app.chrome.size = (160, 30);
    let tag = match plans(&code(&mut app, KeyCode::Enter)).as_slice() {
        [_] => app.runs.active[0].tag,
        other => panic!("one run: {other:?}"),
    };
    let ev = |app: &mut jury::tui::app::App, event| update(app, Msg::Engine { tag, event });
    ev(
        &mut app,
        EngineEvent::RunStarted {
            run_id: 7,
            total: 10,
            skipped: 0,
        },
    );
    assert_eq!(key(&mut app, 'U'), vec![Effect::LoadRuns]);
    // The store was read before the run's first answers: its counters are 0.
    update(
        &mut app,
        Msg::RunsLoaded(Ok((vec![stored_run(7), stored_run(6)], vec![]))),
    );
    key(&mut app, 'j'); // select run 6; the view keeps it selected across reads
    let mut p = Progress {
        run_id: 7,
        total: 10,
        verdicts: 3,
        failed: 1,
        requests: 4,
        usage_unknown: 1,
        cost_usd: Some(0.0123),
        ..Default::default()
    };
    p.usage.prompt_tokens = 900;
    p.usage.completion_tokens = 120;
    ev(&mut app, EngineEvent::Progress(p));
    let s = screen(&app);
    // Live: the view shows what the engine reported, with its protocol.
    let row = s.lines().find(|l| l.contains("    7 running")).expect(&s);
    for want in ["awag 2", "3/10", "900/120", "$0.0123"] {
        assert!(row.contains(want), "{want}: {row}");
    }
    // The view's session line and the status bar say the same numbers.
    let status = s.lines().find(|l| l.starts_with("\" persona")).unwrap();
    assert!(
        status.contains("run 4/10 ✗1") && status.contains("$0.0123"),
        "{status}"
    );
    assert!(
        s.contains("this session: ⠋ run 4/10 ✗1 · cost $0.0123"),
        "{s}"
    );
    insta::assert_snapshot!("runs_view_live", s);
    // The run's end reads the store again, keeping the selection.
    p.verdicts = 9;
    let fx = ev(
        &mut app,
        EngineEvent::RunFinished {
            run_id: 7,
            status: RunStatus::Done,
            progress: p,
            note: None,
        },
    );
    assert_eq!(fx, vec![Effect::LoadRuns]);
    let mut done = stored_run(7);
    done.status = RunStatus::Done;
    update(
        &mut app,
        Msg::RunsLoaded(Ok((vec![done, stored_run(6)], vec![]))),
    );
    match &app.chrome.view {
        View::Runs(jury::tui::app::RunsView::Loaded { cursor, .. }) => assert_eq!(*cursor, 1),
        _ => panic!("the runs view"),
    }
    let s = screen(&app);
    // In the words of the run's end message.
    assert!(
        s.contains("last run 7 done: 9/10 verdicts, 1 failed"),
        "{s}"
    );
    let row = s.lines().find(|l| l.contains("    7 done")).expect(&s);
    assert!(row.contains("9/10"), "{row}");
}

#[test]
fn blind_review_hides_the_raw_answers_of_failures() {
    use jury::tui::msg::Msg;
    let mut app = app();
    app.chrome.size = (160, 30);
    let failure = Failure {
        run_id: 6,
        kind: FailureKind::Invalid,
        keys: vec![ComboKey::new("k-001", "urgency", "classification")],
        reason: "value 'AGREE' is not likert".into(),
        raw_response: "{\"value\": \"AGREE\", \"text\": \"urgent\"}".into(),
        http_status: Some(200),
        finish_reason: Some("stop".into()),
        request: String::new(),
        attempt: 1,
        created_at: "2026-11-24T04:00:00Z".into(),
    };
    key(&mut app, 'U');
    update(
        &mut app,
        Msg::RunsLoaded(Ok((vec![stored_run(6)], vec![failure]))),
    );
    let open = screen(&app);
    assert!(open.contains("\"value\": \"AGREE\""), "{open}");
    app.choices.blind = true;
    let blind = screen(&app);
    assert!(!blind.contains("AGREE"), "{blind}");
    assert!(blind.contains("raw answer are hidden"), "{blind}");
}
