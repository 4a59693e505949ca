//! A team writing at once on one PostgreSQL store (issue 32 §5), the fast
//! form of `benches/team_load.rs`: five annotators, each a thread with its
//! own connection and database role, label the same rows as fast as they
//! can (with notes and marks, as the workbench's label writer writes them)
//! while a judge run writes verdicts. Afterwards every label is stored
//! once, none is lost, each under the person who wrote it. Without
//! `JURY_TEST_POSTGRES_URL` it says it skipped (a failure under
//! `JURY_REQUIRE_POSTGRES=1`). No timing is asserted.
#![cfg(feature = "postgres")]

use crate::team::{self, Annotator, Until};
use jury::store::testing::TestDatabase;
use std::time::Duration;

const ANNOTATORS: usize = 5;
const ITEMS_EACH: usize = 300;

#[test]
fn five_annotators_writing_at_once_each_label_is_stored_once_under_its_writer() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let owner = db.store();
    let roles: Vec<_> = (0..ANNOTATORS)
        .map(|n| db.login_role(&format!("a{n}"), &["jury_annotator"]))
        .collect();
    let annotators: Vec<Annotator> = roles
        .iter()
        .map(|r| Annotator {
            who: r.name.clone(),
            location: r.url.clone(),
        })
        .collect();
    let (outcomes, _verdicts) = team::run_team(
        &annotators,
        Until::Items(ITEMS_EACH),
        Duration::ZERO,
        &db.url,
        1,
        |_| {},
    );
    for o in &outcomes {
        assert!(
            o.failed.is_empty(),
            "{}: writes failed: {:?}",
            o.who,
            o.failed
        );
        // Every item labelled but the ones left for later (one in 13).
        assert!(o.labels.len() > ITEMS_EACH * 9 / 10, "{}", o.labels.len());
    }
    let problems = team::verify(&owner, &outcomes);
    assert!(problems.is_empty(), "{problems:#?}");
}
