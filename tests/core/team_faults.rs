//! The server ends every session while a team writes (issue 32 §5: a
//! PostgreSQL restart or a network cut, as `pg_terminate_backend` does):
//! the writes on a lost session fail and are said to have failed, each
//! annotator keeps them and writes them again on a new connection (as the
//! workbench does with its unsaved labels), and afterwards every label is
//! stored once, none lost, none duplicated, each under its writer. Skips
//! without `JURY_TEST_POSTGRES_URL` (a failure under `JURY_REQUIRE_POSTGRES=1`).
#![cfg(feature = "postgres")]

use crate::team::{self, Annotator, Until};
use jury::store::testing::TestDatabase;
use std::time::Duration;

#[test]
fn sessions_ended_mid_write_fail_visibly_and_after_reconnecting_nothing_is_lost_or_doubled() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    // Migrated (the group roles exist); its session ends with the others'.
    drop(db.store());
    let roles: Vec<_> = (0..4)
        .map(|n| db.login_role(&format!("f{n}"), &["jury_annotator"]))
        .collect();
    let annotators: Vec<Annotator> = roles
        .iter()
        .map(|r| Annotator {
            who: r.name.clone(),
            location: r.url.clone(),
        })
        .collect();
    let (outcomes, _) = team::run_team(
        &annotators,
        Until::Elapsed(Duration::from_secs(4)),
        Duration::from_millis(2),
        &db.url,
        0,
        |_| {
            // Twice, while every annotator is still writing.
            for _ in 0..2 {
                std::thread::sleep(Duration::from_millis(1200));
                db.end_sessions();
            }
        },
    );
    let failed: usize = outcomes.iter().map(|o| o.failed.len()).sum();
    assert!(
        failed > 0,
        "no write failed: the sessions were not cut mid-write"
    );
    for o in &outcomes {
        for f in &o.failed {
            assert!(f.contains("PostgreSQL"), "{}: {f}", o.who);
        }
    }
    let problems = team::verify(&db.store(), &outcomes);
    assert!(problems.is_empty(), "{problems:#?}");
}
