//! The agreement view's accuracy and trust on a list the judge chose
//! (issue #30 §4): the figures are on the listed items, but a population
//! made of the judge's verdicts (judge≠human, a trusted judge's "needs a
//! person", a `judge:` search) would bias the estimates and trust, so
//! those are asked for on every item (`Scope::heads_on_all`).

use crate::domain::*;
use crate::report::Scope;
use crate::tui::app::Filter;
use crate::tui::fixtures::*;
use crate::tui::input::action::Action;
use crate::tui::msg::{Effect, Escalations, Msg};

/// The scope the agreement view asks for from the list as it stands.
fn agreement_scope(app: &mut crate::tui::App) -> Scope {
    let mut fx = Vec::new();
    crate::tui::update::nav::open_view(app, Action::Agreement, &mut fx);
    match fx.as_slice() {
        [Effect::LoadAgreement { scope, .. }] => scope.clone(),
        other => panic!("expected one LoadAgreement, got {other:?}"),
    }
}

fn filter(app: &mut crate::tui::App, f: Filter) {
    while app.list.filter != f {
        key(app, 'f');
    }
}

/// "needs a person" with a queue of one item, from a trusted judge or not.
fn needs_a_person(trusted: bool) -> crate::tui::App {
    let mut app = crate::tui::fixtures::app();
    filter(&mut app, Filter::NeedsPerson);
    let queue = Escalations {
        queue: vec![(
            "kenton".to_string(),
            ComboKey::new("k-001", "urgency", "classification"),
        )],
        judges: Vec::new(),
        trusted,
    };
    update(&mut app, Msg::EscalationsLoaded(Ok(queue)));
    app
}

#[test]
fn a_list_the_judge_chose_keeps_the_accuracy_and_trust_on_every_item() {
    let mut app = crate::tui::fixtures::app();
    filter(&mut app, Filter::Disagreements);
    let s = agreement_scope(&mut app);
    assert!(s.items.is_some() && s.heads_on_all, "{s:?}");

    let mut app = needs_a_person(true);
    let s = agreement_scope(&mut app);
    assert!(s.items.is_some() && s.heads_on_all, "{s:?}");

    let mut app = crate::tui::fixtures::app();
    search(&mut app, "judge:urgency=2");
    let s = agreement_scope(&mut app);
    assert!(s.items.is_some() && s.heads_on_all, "{s:?}");
}

#[test]
fn a_list_a_person_chose_keeps_them_on_the_listed_items() {
    // No judge trusted: "needs a person" is every unlabelled combination.
    let mut app = needs_a_person(false);
    let s = agreement_scope(&mut app);
    assert!(s.items.is_some() && !s.heads_on_all, "{s:?}");

    let mut app = crate::tui::fixtures::app();
    search(&mut app, "k-001");
    let s = agreement_scope(&mut app);
    assert!(s.items.is_some() && !s.heads_on_all, "{s:?}");

    // Every item listed: nothing to narrow.
    let mut app = crate::tui::fixtures::app();
    let s = agreement_scope(&mut app);
    assert!(s.items.is_none() && !s.heads_on_all, "{s:?}");
}
