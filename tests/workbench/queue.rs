//! The review queue: `o` orders the list so disagreements come first.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::domain::*;
use jury::tui::app::queue::Order;

/// The listed items' ids, in list order.
fn ids(app: &jury::tui::app::App) -> Vec<String> {
    app.list
        .filtered
        .iter()
        .map(|&i| app.data.items[i as usize].id.to_string())
        .collect()
}

#[test]
fn o_cycles_the_order_and_puts_disagreements_first() {
    let mut data = loaded();
    // k-003: the judge says 5, alice says 1 (judge≠human).
    // k-002: mode 2 says 5, mode 3 says DISAGREE (mode≠mode).
    data.verdicts = vec![
        verdict(1, "k-003", "urgency", Mode::Two, Value::Likert(5), "fine"),
        verdict(1, "k-002", "urgency", Mode::Two, Value::Likert(5), "fine"),
        verdict(
            2,
            "k-002",
            "urgency",
            Mode::Three,
            Value::Agreement(Agreement::Disagree),
            "wrong",
        ),
    ];
    data.labels = vec![Label {
        key: ComboKey::new("k-003", "urgency", "classification"),
        persona_id: "kenton".into(),
        value: Value::Likert(1),
        note: String::new(),
        who: "alice".into(),
        created_at: "2026-11-23T00:00:00Z".into(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    }];
    let mut app = app_with(data);
    assert_eq!(ids(&app), ["k-001", "k-002", "k-003"]);
    key(&mut app, 'o');
    assert_eq!(app.list.order, Order::JudgeHuman);
    assert_eq!(ids(&app), ["k-003", "k-001", "k-002"]);
    assert_eq!(
        app.current_item().unwrap().id,
        "k-003",
        "the queue starts at its front"
    );
    assert!(screen(&app).contains("judge≠human first"));
    key(&mut app, 'o');
    assert_eq!(app.list.order, Order::ModeMode);
    assert_eq!(ids(&app)[0], "k-002");
    for _ in 0..2 {
        key(&mut app, 'o');
    }
    // The random sample order, the active one, then back to the file's.
    assert_eq!(app.list.order, Order::LowConfidence);
    key(&mut app, 'o');
    assert_eq!(app.list.order, Order::Sample);
    let mut sample = ids(&app);
    sample.sort();
    assert_eq!(sample, ["k-001", "k-002", "k-003"], "every item, reordered");
    key(&mut app, 'o');
    assert_eq!(app.list.order, Order::Active);
    key(&mut app, 'o');
    assert_eq!(app.list.order, Order::File);
    assert_eq!(ids(&app), ["k-001", "k-002", "k-003"]);
}

/// A proposition check stated with low confidence comes first under "low
/// confidence first", whether it was in the store when the workbench opened
/// or arrives while it runs (the workbench keeps only that figure of the raw
/// answer, and a search keeps the order).
#[test]
fn low_confidence_reads_stated_confidence_loaded_and_arriving() {
    let check = |item: &str, raw: &str| {
        let mut v = verdict(3, item, "claim-urgent", Mode::Two, Value::Bool(true), "ok");
        v.key.perspective_id = "proposition".into();
        v.protocol = Protocol::Proposition;
        v.mode = None;
        v.persona_id = "-".into();
        v.raw = raw.into();
        v
    };
    let mut data = loaded();
    data.verdicts = vec![
        check(
            "k-001",
            r#"{"value": true, "confidence": 0.95, "reasoning": "x"}"#,
        ),
        check(
            "k-002",
            r#"{"first": {"confidence": 0.9}, "revised": {"value": true, "confidence": 0.35}, "flipped": false}"#,
        ),
    ];
    let mut app = app_with(data);
    while app.list.order != Order::LowConfidence {
        key(&mut app, 'o');
    }
    assert_eq!(ids(&app), ["k-002", "k-001", "k-003"]);
    // Only the stated figure is kept in memory.
    let kept = &app.data.verdicts["k-002"][0].raw;
    assert_eq!(kept, r#"{"confidence":0.35}"#);

    // k-003's check arrives unsure while the order is chosen: it moves up.
    let fx = code(&mut app, crossterm::event::KeyCode::Enter);
    let tag = match fx.first() {
        Some(jury::tui::msg::Effect::StartRun { tag, .. }) => *tag,
        other => panic!("expected a run, got {other:?}"),
    };
    update(
        &mut app,
        jury::tui::msg::Msg::Engine {
            tag,
            event: jury::engine::EngineEvent::Verdict {
                run_id: 3,
                verdict: Box::new(check(
                    "k-003",
                    r#"{"value": false, "confidence": 0.2, "reasoning": "unclear"}"#,
                )),
            },
        },
    );
    // The order is kept current for the next re-sort (a search keystroke).
    key(&mut app, '/');
    key(&mut app, 'k');
    assert_eq!(app.list.search, "k");
    assert_eq!(ids(&app)[2], "k-001", "{:?}", ids(&app));
    assert!(ids(&app)[..2].contains(&"k-003".to_string()));
}
