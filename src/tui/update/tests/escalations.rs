//! The "needs a person" filter: the escalation queue in the item list.

use super::saved_label;
use crate::domain::*;
use crate::tui::app::{Filter, mark};
use crate::tui::fixtures::*;
use crate::tui::msg::{Effect, Msg};

/// The "needs a person" filter asks for the escalation queue once, lists
/// the items whose queued verdicts no one labelled, lets a label take an
/// item out, is skipped in blind review, and is found again after a run.
#[test]
fn needs_a_person_lists_the_escalation_queue_and_a_label_takes_an_item_out() {
    let mut app = app();
    let filters = |app: &mut crate::tui::App| -> Vec<Effect> {
        let mut fx = Vec::new();
        while app.list.filter != Filter::NeedsPerson {
            fx = key(app, 'f');
        }
        fx
    };
    let fx = filters(&mut app);
    assert_eq!(fx, vec![Effect::LoadEscalations]);
    assert!(app.chrome.message.as_ref().unwrap().1.contains("finding"));
    // Until the queue arrives nothing is listed.
    assert!(app.list.filtered.is_empty());
    let urgency = |item: &str| ComboKey::new(item, "urgency", "classification");
    let queue = vec![
        ("kenton".to_string(), urgency("k-001")),
        ("kenton".to_string(), urgency("k-003")),
    ];
    let judges = vec!["awag mode 3 · jury-demo-judge".to_string()];
    let queue = crate::tui::msg::Escalations {
        queue,
        judges,
        trusted: true,
    };
    update(&mut app, Msg::EscalationsLoaded(Ok(queue)));
    let listed = |app: &crate::tui::App| -> Vec<String> {
        app.list
            .filtered
            .iter()
            .map(|&i| app.data.items[i as usize].id.to_string())
            .collect()
    };
    assert_eq!(listed(&app), ["k-001", "k-003"]);
    let (level, m) = app.chrome.message.clone().unwrap();
    assert_eq!(level, crate::tui::app::Level::Info);
    assert!(
        m.starts_with(
            "2 verdict(s) on 2 listed item(s) need a person, from awag mode 3 · jury-demo-judge:"
        ),
        "{m}"
    );
    // Labelling the queued row of k-001 takes it out (at the next refilter,
    // as the judge≠human filter does).
    assert_eq!(app.list.cursor, 0);
    let (req, l) = saved_label(&key(&mut app, '2'));
    assert_eq!(l.key, urgency("k-001"));
    update(
        &mut app,
        Msg::LabelSaved {
            req,
            result: Ok(()),
        },
    );
    assert_eq!(app.data.marks[0] & mark::NEEDS_PERSON, 0);
    assert_ne!(app.data.marks[2] & mark::NEEDS_PERSON, 0);
    app.refilter();
    assert_eq!(listed(&app), ["k-003"]);
    // A run ended: the queue is found again.
    let fx = update(
        &mut app,
        Msg::RunEnded {
            tag: 99,
            error: None,
        },
    );
    assert!(fx.contains(&Effect::LoadEscalations), "{fx:?}");
    // Asked once: a keystroke while it is computed asks nothing more.
    assert!(!key(&mut app, 'j').contains(&Effect::LoadEscalations));
    // A session kept with the filter on asks for the queue at the first
    // message after it is restored (the start-up resize).
    let kept = crate::tui::update::session::capture(&app);
    let mut again = crate::tui::fixtures::app();
    crate::tui::update::session::restore(&mut again, &kept);
    assert_eq!(again.list.filter, Filter::NeedsPerson);
    let fx = update(&mut again, Msg::Resize(120, 32));
    assert_eq!(fx, vec![Effect::LoadEscalations]);
    // Blind review never shows a filter made of the judge's answers.
    let mut app = crate::tui::fixtures::app();
    key(&mut app, 'b');
    assert!(app.choices.blind);
    for _ in 0..10 {
        key(&mut app, 'f');
        assert!(!app.list.filter.reads_judge(), "{:?}", app.list.filter);
    }
}
