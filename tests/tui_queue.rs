//! The review queue: `o` orders the list so disagreements come first.

mod tui_common;
use tui_common::*;

use jury::domain::*;
use jury::tui::queue::Order;

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
    }];
    let mut app = app_with(data);
    let ids = |app: &jury::tui::app::App| -> Vec<String> {
        app.filtered
            .iter()
            .map(|&i| app.items[i as usize].id.to_string())
            .collect()
    };
    assert_eq!(ids(&app), ["k-001", "k-002", "k-003"]);
    key(&mut app, 'o');
    assert_eq!(app.order, Order::JudgeHuman);
    assert_eq!(ids(&app), ["k-003", "k-001", "k-002"]);
    assert_eq!(
        app.current_item().unwrap().id,
        "k-003",
        "the queue starts at its front"
    );
    assert!(screen(&app).contains("judge≠human first"));
    key(&mut app, 'o');
    assert_eq!(app.order, Order::ModeMode);
    assert_eq!(ids(&app)[0], "k-002");
    for _ in 0..3 {
        key(&mut app, 'o');
    }
    assert_eq!(app.order, Order::File);
    assert_eq!(ids(&app), ["k-001", "k-002", "k-003"]);
}
