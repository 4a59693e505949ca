//! The other judge styles in the workbench: a conversation's guidelines and a
//! claim show as verdict rows, are labelled on their own scales (blind
//! before any verdict too), and the judge's value and text show beside them.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::domain::*;
use jury::tui::msg::Effect;

fn conversation() -> Item {
    Item {
        id: "conv-001".into(),
        kind: "conversation".into(),
        title: "My parcel arrived broken".into(),
        text:
            "1. customer: My parcel arrived today and the lamp is broken.\n2. ai_agent: I'm sorry."
                .into(),
        payload: serde_json::json!({
            "events": [],
            "guidelines": [
                {"id": "g-damage", "condition": "the customer reports a damaged item",
                 "action": "apologise and open a damage claim"},
                {"id": "g-refund-time", "condition": "a refund is discussed",
                 "action": "say how long the refund takes"}
            ]
        }),
        ..Default::default()
    }
}

fn guideline_verdict(g: &str, value: Value, text: &str) -> Verdict {
    let mut v = verdict(7, "conv-001", g, Mode::Two, value, text);
    v.key = ComboKey::new("conv-001", g, "guideline");
    v.persona_id = "-".into();
    v.protocol = Protocol::Guideline;
    v.mode = None;
    v
}

fn app_on_conversation(verdicts: Vec<Verdict>) -> jury::tui::app::App {
    let mut data = loaded();
    data.items = vec![conversation()];
    data.verdicts = verdicts;
    app_with(data)
}

fn saved(fx: &[Effect]) -> Label {
    match fx {
        [Effect::SaveLabel { label, .. }] => label.clone(),
        other => panic!("expected one SaveLabel, got {other:?}"),
    }
}

#[test]
fn guidelines_are_rows_labelled_on_the_degree_scale_before_any_verdict() {
    let mut app = app_on_conversation(vec![]);
    assert_eq!(app.row_count(), 2);
    let l = saved(&key(&mut app, '2'));
    assert_eq!(l.key, ComboKey::new("conv-001", "g-damage", "guideline"));
    assert_eq!(l.persona_id, "-");
    assert_eq!(l.value, Value::Degree(Degree::Partially));
    assert_eq!(l.replaced_judge_value, None);
    // No verdict to hide: not a blind label either.
    assert!(!l.blind);
    // 4 means nothing on no/partially/fully: refused with a hint, nothing saved.
    assert!(key(&mut app, '4').is_empty());
    assert!(app.chrome.message.as_ref().unwrap().1.contains("partially"));
    // a / d are fully / no; the next row is the second guideline.
    key(&mut app, ']');
    let l = saved(&key(&mut app, 'd'));
    assert_eq!(l.key.classification_id, "g-refund-time");
    assert_eq!(l.value, Value::Degree(Degree::No));
    let screen = screen(&app);
    assert!(screen.contains("g-damage · guideline (degree)"), "{screen}");
    assert!(screen.contains("when the customer reports a"), "{screen}");
}

#[test]
fn a_verdict_shows_with_its_text_and_a_differing_label_is_marked() {
    let mut app = app_on_conversation(vec![guideline_verdict(
        "g-damage",
        Value::Degree(Degree::Fully),
        "The agent apologised and opened claim CL-5512.",
    )]);
    let l = saved(&key(&mut app, '1'));
    assert_eq!(l.value, Value::Degree(Degree::No));
    // The judge value was visible, so the label records what it replaced.
    assert_eq!(l.replaced_judge_value, Some(Value::Degree(Degree::Fully)));
    assert!(!l.blind);
    let screen = screen(&app);
    assert!(screen.contains("J fully"), "{screen}");
    assert!(screen.contains("The agent apologised"), "{screen}");
    assert!(screen.contains(" ≠ "), "{screen}");
}

#[test]
fn blind_review_hides_a_protocol_verdict_until_labelled() {
    let mut app = app_on_conversation(vec![guideline_verdict(
        "g-damage",
        Value::Degree(Degree::Fully),
        "The agent apologised.",
    )]);
    key(&mut app, 'b');
    assert!(app.choices.blind);
    let screen1 = screen(&app);
    assert!(screen1.contains("J hidden"), "{screen1}");
    assert!(!screen1.contains("J fully"), "{screen1}");
    let l = saved(&key(&mut app, 'a'));
    assert_eq!(l.value, Value::Degree(Degree::Fully));
    // Hidden when the person labelled: nothing was replaced in their eyes,
    // and the label says it was given blind.
    assert_eq!(l.replaced_judge_value, None);
    assert!(l.blind);
    assert!(screen(&app).contains("J fully"));
}

#[test]
fn claims_on_messages_follow_the_awag_rows_and_take_0_to_9() {
    let mut data = loaded();
    let mut v = verdict(
        3,
        "k-001",
        "c-promo",
        Mode::Two,
        Value::Score(7),
        "Reads like an ad.",
    );
    v.key = ComboKey::new("k-001", "c-promo", "proposition");
    v.persona_id = "-".into();
    v.protocol = Protocol::Proposition;
    v.mode = None;
    data.verdicts = vec![v];
    let mut app = app_with(data);
    // A claim row shows once its claim is configured.
    app.data.claims = jury::tui::app::claims::parse(
        "[[claim]]\nid = \"c-promo\"\nclaim = \"It is a promotion.\"\nscoring = \"score\"\n",
    )
    .unwrap();
    // Two AwAg rows (urgency, work-pers), then the claim.
    assert_eq!(app.rows().len(), 2);
    assert_eq!(app.row_count(), 3);
    key(&mut app, ']');
    key(&mut app, ']');
    let l = saved(&key(&mut app, '8'));
    assert_eq!(l.key, ComboKey::new("k-001", "c-promo", "proposition"));
    assert_eq!(l.value, Value::Score(8));
    // On an AwAg row, 8 is not a label.
    key(&mut app, '[');
    assert!(key(&mut app, '8').is_empty());
}

#[test]
fn enter_on_a_conversation_starts_a_guideline_run_and_r_splits_by_protocol() {
    let mut app = app_on_conversation(vec![]);
    let fx = code(&mut app, crossterm::event::KeyCode::Enter);
    match fx.as_slice() {
        [Effect::StartRun { plan, .. }] => {
            assert_eq!(plan.protocol(), Protocol::Guideline);
            assert_eq!(plan.item_ids, ["conv-001"]);
            assert_eq!(plan.persona_id(), "-");
            assert_eq!(plan.spec.perspective_ids(), ["guideline"]);
        }
        other => panic!("expected one StartRun, got {other:?}"),
    }
    assert!(
        app.chrome
            .message
            .as_ref()
            .unwrap()
            .1
            .contains("guideline protocol")
    );

    // R over a list holding inbox items and a conversation: one run each
    // (counted first, tests/workbench/runs_flow.rs starts them).
    let mut data = loaded();
    data.items.push(conversation());
    let mut app = app_with(data);
    let fx = key(&mut app, 'R');
    let plans: Vec<(Protocol, usize)> = fx
        .iter()
        .flat_map(|e| match e {
            Effect::PlanRuns(plans) => plans.clone(),
            _ => Vec::new(),
        })
        .map(|plan| (plan.protocol(), plan.item_ids.len()))
        .collect();
    assert_eq!(plans.len(), 2, "{fx:?}");
    assert_eq!(plans[0].0, Protocol::Awag);
    assert!(plans[0].1 >= 1);
    assert_eq!(plans[1], (Protocol::Guideline, 1));
}
