//! On a list the judge chose the agreement view's figures are on the listed
//! items, its accuracy and trust on every item, and it says so (issue #30
//! §4): `Scope::heads_on_all`, computed on a real store.
#![cfg(feature = "tui")]

use jury::report::{ItemSet, Report, Scope};
use jury::tui::fixtures::judged_sample;
use std::sync::Arc;

#[test]
fn heads_on_all_keeps_accuracy_and_trust_on_every_item_and_says_so() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = judged_sample(&dir.path().join("j.db"));
    let mut ids: Vec<String> = store
        .labelled_item_ids()
        .expect("labelled items")
        .into_iter()
        .collect();
    ids.sort();
    let listed: ItemSet = ids.iter().take(2).cloned().collect();
    let report = |items: Option<&ItemSet>, heads_on_all: bool| {
        let scope = Scope {
            side: None,
            items: items.map(|i| Arc::new(i.clone())),
            estimates: true,
            heads_on_all,
        };
        Report::build_in(&store, None, Some(50), 1, &scope, &mut ()).expect("the report")
    };
    let every = report(None, false);
    let on_listed = report(Some(&listed), false);
    let chosen = report(Some(&listed), true);
    assert!(!every.estimates.is_empty(), "the sample gives an estimate");
    // On the listed items the estimates are another population's.
    assert_ne!(on_listed.estimates, every.estimates);
    // A list the judge chose: every item's estimates and trust, said.
    assert!(
        chosen.estimates[0].starts_with("accuracy and trust on every item, not the 2 listed"),
        "{:?}",
        chosen.estimates
    );
    assert_eq!(chosen.estimates[1..], every.estimates[..]);
    assert_eq!(chosen.trust, every.trust);
    // The figures stay on the listed items.
    assert_eq!(chosen.groups, on_listed.groups);
}
