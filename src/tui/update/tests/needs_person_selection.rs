//! How a label given under "needs a person" is recorded (issue #30 §4):
//! selected by the judge only while a judge is trusted; while none is, the
//! queue is every unlabelled judged combination, not the judge's choice,
//! and its labels are not recorded as sampled (chosen) — so PPI and trust
//! keep them and a judge can become trusted.

use crate::domain::*;
use crate::store::Selected;
use crate::tui::app::Filter;
use crate::tui::fixtures::*;
use crate::tui::msg::{Effect, Escalations, Msg};

/// How the label given on the focused item under "needs a person" was
/// recorded, with the queue `trusted` or not.
fn label_under_needs_a_person(trusted: bool) -> Option<Selected> {
    let mut app = app();
    while app.list.filter != Filter::NeedsPerson {
        key(&mut app, 'f');
    }
    let urgency = |item: &str| ComboKey::new(item, "urgency", "classification");
    let queue = Escalations {
        queue: vec![
            ("kenton".to_string(), urgency("k-001")),
            ("kenton".to_string(), urgency("k-002")),
        ],
        judges: if trusted {
            vec!["awag mode 3 · jury-demo-judge".to_string()]
        } else {
            Vec::new()
        },
        trusted,
    };
    update(&mut app, Msg::EscalationsLoaded(Ok(queue)));
    assert_eq!(app.list.filtered.len(), 2);
    let fx = key(&mut app, '2');
    assert!(
        fx.iter().any(|f| matches!(f, Effect::SaveLabel { .. })),
        "{fx:?}"
    );
    fx.into_iter().find_map(|f| match f {
        Effect::MarkSampled { how, .. } => Some(how),
        _ => None,
    })
}

#[test]
fn needs_a_person_is_the_judges_choice_only_while_a_judge_is_trusted() {
    assert_eq!(
        label_under_needs_a_person(true),
        Some(Selected::Judge("needs a person"))
    );
    // No judge trusted: every unlabelled combination is listed, whatever
    // the judge said; the label is chosen, not recorded as the judge's.
    assert_eq!(label_under_needs_a_person(false), None);
}
