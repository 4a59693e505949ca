//! Items belong to a persona, in the workbench: the persona defaults to each
//! item's owner, the picker offers that as its first entry, a fixed persona
//! stays fixed, and `R` over a mixed list starts one run per owner persona.
#![cfg(feature = "tui")]

use crate::tui_common;

use crossterm::event::KeyCode;
use jury::domain::*;
use jury::tui::app::App;
use jury::tui::msg::Effect;
use tui_common::*;

/// k-001 is Kenton's, k-002 Maren's, k-003 nobody's.
fn owned_app() -> App {
    let mut data = loaded();
    data.personas.push(Persona {
        id: "maren".into(),
        name: "Maren, gardener".into(),
        definition: serde_json::json!({"type": "personal", "does": "gardens"}),
    });
    data.items[0].owner = Some("kenton".into());
    data.items[1].owner = Some("maren".into());
    app_with(data)
}

/// (persona, items) of each run an update started.
fn runs(fx: &[Effect]) -> Vec<(String, Vec<String>)> {
    fx.iter()
        .filter_map(|f| match f {
            // `R` counts first: the plans it asks to count are the runs.
            Effect::PlanRuns(plans) => Some(
                plans
                    .iter()
                    .map(|p| (p.persona_id().to_string(), p.item_ids.clone()))
                    .collect(),
            ),
            Effect::StartRun { plan, .. } => {
                Some(vec![(plan.persona_id().to_string(), plan.item_ids.clone())])
            }
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn the_persona_defaults_to_each_items_owner() {
    let mut app = owned_app();
    assert!(
        app.choices.by_owner,
        "items have owners: the owner is the default"
    );
    assert_eq!(app.current_item().unwrap().id, "k-001");
    assert_eq!(app.persona_id(), "kenton");
    assert!(screen(&app).contains("persona: each item's owner (kenton)"));
    key(&mut app, 'j');
    assert_eq!(app.current_item().unwrap().id, "k-002");
    assert_eq!(app.persona_id(), "maren");
    assert!(screen(&app).contains("persona: each item's owner (maren)"));
    // An item without an owner is judged as the picker's persona.
    key(&mut app, 'j');
    assert_eq!(app.persona_id(), "kenton");
    assert!(
        screen(&app).contains("persona: each item's owner (kenton: no owner)"),
        "{}",
        screen(&app)
    );
}

#[test]
fn r_over_a_mixed_list_starts_one_run_per_owner() {
    let mut app = owned_app();
    let fx = key(&mut app, 'R');
    assert_eq!(
        runs(&fx),
        vec![
            (
                "kenton".to_string(),
                vec!["k-001".to_string(), "k-003".to_string()]
            ),
            ("maren".to_string(), vec!["k-002".to_string()]),
        ]
    );
}

#[test]
fn a_fixed_persona_judges_everything_and_p_keeps_it_fixed() {
    let mut app = owned_app();
    key(&mut app, 'p');
    // Each item's owner, kenton, maren: pick maren.
    key(&mut app, 'j');
    key(&mut app, 'j');
    code(&mut app, KeyCode::Enter);
    assert!(!app.choices.by_owner);
    assert_eq!(
        app.persona_id(),
        "maren",
        "k-001 is Kenton's, but maren is fixed"
    );
    let fx = key(&mut app, 'R');
    assert_eq!(
        runs(&fx),
        vec![(
            "maren".to_string(),
            vec!["k-001".into(), "k-002".into(), "k-003".into()]
        )]
    );
    // `p` opens on the fixed persona: Enter keeps it fixed.
    key(&mut app, 'p');
    code(&mut app, KeyCode::Enter);
    assert!(!app.choices.by_owner);
    assert_eq!(app.persona_id(), "maren");
    // The first entry goes back to each item's owner.
    key(&mut app, 'p');
    key(&mut app, 'k');
    key(&mut app, 'k');
    code(&mut app, KeyCode::Enter);
    assert!(app.choices.by_owner);
    assert_eq!(app.persona_id(), "kenton");
}

#[test]
fn without_owners_the_picker_lists_the_personas_only() {
    let mut app = app();
    assert!(!app.choices.by_owner);
    key(&mut app, 'p');
    assert!(!screen(&app).contains("each item's owner"));
}

#[test]
fn persona_picker_with_the_owner_entry() {
    let mut app = owned_app();
    key(&mut app, 'p');
    insta::assert_snapshot!("persona_picker_owner", screen(&app));
}

fn owner_label(item: &str, c: &str, persona: &str, who: &str, value: Value) -> Label {
    Label {
        key: ComboKey::new(item, c, "classification"),
        persona_id: persona.into(),
        value,
        note: String::new(),
        who: who.into(),
        created_at: "2026-11-22T10:00:00.000Z".into(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    }
}

/// With each item's owner in view, everything that depends on the persona
/// reads each item's own: progress counts k-002 labelled as maren, a
/// `judge:` term reads maren's verdict on k-002, the `≠` mark and the
/// judge≠human filter compare maren's judge with maren's labels (and a
/// kenton verdict on maren's item is not in view).
#[test]
fn progress_marks_filters_and_judge_terms_read_each_items_owner() {
    let mut data = loaded();
    data.personas.push(Persona {
        id: "maren".into(),
        name: "Maren, gardener".into(),
        definition: serde_json::json!({"type": "personal", "does": "gardens"}),
    });
    data.items[0].owner = Some("kenton".into());
    data.items[1].owner = Some("maren".into());
    let as_maren = |mut v: Verdict| {
        v.persona_id = "maren".into();
        v
    };
    data.verdicts = vec![
        // Maren's judge on her item: urgency 2, and 5 on work-pers.
        as_maren(verdict(
            1,
            "k-002",
            "urgency",
            Mode::Two,
            Value::Likert(2),
            "no",
        )),
        as_maren(verdict(
            2,
            "k-002",
            "work-pers",
            Mode::Two,
            Value::Likert(5),
            "yes",
        )),
        // Kenton's judge on maren's item: not in view.
        verdict(3, "k-002", "urgency", Mode::Two, Value::Likert(5), "yes"),
    ];
    data.labels = vec![
        // alice labelled every row of k-002 as maren, and work-pers 1
        // disagrees with maren's judge.
        owner_label("k-002", "urgency", "maren", "alice", Value::Likert(2)),
        owner_label("k-002", "work-pers", "maren", "alice", Value::Likert(1)),
        // bob as kenton on k-002: disagrees with kenton's judge, not in view.
        owner_label("k-002", "urgency", "kenton", "bob", Value::Likert(1)),
    ];
    let mut app = app_with(data);
    assert!(app.choices.by_owner);
    assert_eq!(app.list.labelled, 1, "k-002 is fully labelled as maren");
    assert!(screen(&app).contains("1/3 labelled"), "{}", screen(&app));
    let disagree = |app: &App| app.data.marks[1] & jury::tui::app::mark::DISAGREE != 0;
    assert!(disagree(&app), "maren's judge vs maren's label");
    // A judge: term reads maren's verdict on her item (kenton's said 5).
    key(&mut app, '/');
    for c in "judge:urgency=2".chars() {
        key(&mut app, c);
    }
    code(&mut app, KeyCode::Enter);
    let listed: Vec<String> = app
        .list
        .filtered
        .iter()
        .map(|&i| app.data.items[i as usize].id.to_string())
        .collect();
    assert_eq!(listed, ["k-002"]);

    // Fixed on kenton: k-002 is read as kenton's now.
    key(&mut app, 'p');
    key(&mut app, 'j');
    code(&mut app, KeyCode::Enter);
    assert!(!app.choices.by_owner);
    assert_eq!(app.list.labelled, 0, "nothing labelled as kenton");
    assert!(
        app.list.filtered.is_empty(),
        "kenton's judge said 5 on k-002"
    );
    assert!(disagree(&app), "kenton's judge (5) vs bob as kenton (1)");
}
