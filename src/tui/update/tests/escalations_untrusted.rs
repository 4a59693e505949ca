//! The "needs a person" filter when no judge is trusted: it says so and
//! lists every judged combination no one labelled, never "no verdict needs
//! a person".

use crate::domain::*;
use crate::tui::app::Filter;
use crate::tui::fixtures::*;
use crate::tui::msg::{Escalations, Msg};

fn needs_a_person_filter(app: &mut crate::tui::App) {
    while app.list.filter != Filter::NeedsPerson {
        key(app, 'f');
    }
}

#[test]
fn no_trusted_judge_lists_every_unlabelled_combination_and_says_why() {
    let mut app = app();
    needs_a_person_filter(&mut app);
    let urgency = |item: &str| ComboKey::new(item, "urgency", "classification");
    let queue = vec![
        ("kenton".to_string(), urgency("k-001")),
        ("kenton".to_string(), urgency("k-002")),
        ("kenton".to_string(), urgency("k-003")),
    ];
    let untrusted = Escalations {
        queue,
        judges: Vec::new(),
        trusted: false,
    };
    update(&mut app, Msg::EscalationsLoaded(Ok(untrusted)));
    let listed: Vec<String> = app
        .list
        .filtered
        .iter()
        .map(|&i| app.data.items[i as usize].id.to_string())
        .collect();
    assert_eq!(listed, ["k-001", "k-002", "k-003"]);
    let (_, m) = app.chrome.message.clone().expect("a message");
    assert!(m.starts_with("no judge is trusted yet"), "{m}");
    assert!(
        m.contains("all 3 judged combination(s) no one labelled need a person"),
        "{m}"
    );
    // Nothing left to label and still no judge trusted: it says that, not
    // that no verdict needs a person.
    let mut app = crate::tui::fixtures::app();
    needs_a_person_filter(&mut app);
    let empty = Escalations {
        queue: Vec::new(),
        judges: Vec::new(),
        trusted: false,
    };
    update(&mut app, Msg::EscalationsLoaded(Ok(empty)));
    let (_, m) = app.chrome.message.clone().expect("a message");
    assert!(m.starts_with("no judge is trusted yet"), "{m}");
    assert!(!m.contains("no verdict needs a person"), "{m}");
}
