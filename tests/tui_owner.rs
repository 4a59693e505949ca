//! Items belong to a persona (issue 15.15) in the workbench: the persona
//! defaults to each item's owner, the picker offers that as its first entry,
//! a fixed persona stays fixed, and `R` over a mixed list starts one run per
//! owner persona.
#![cfg(feature = "tui")]

mod tui_common;

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
                    .map(|p| (p.persona_id.clone(), p.item_ids.clone()))
                    .collect(),
            ),
            Effect::StartRun { plan, .. } => {
                Some(vec![(plan.persona_id.clone(), plan.item_ids.clone())])
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
    assert!(screen(&app).contains("persona kenton (item's owner)"));
    key(&mut app, 'j');
    assert_eq!(app.current_item().unwrap().id, "k-002");
    assert_eq!(app.persona_id(), "maren");
    assert!(screen(&app).contains("persona maren (item's owner)"));
    // An item without an owner is judged as the picker's persona.
    key(&mut app, 'j');
    assert_eq!(app.persona_id(), "kenton");
    assert!(
        screen(&app).contains("persona kenton │"),
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
