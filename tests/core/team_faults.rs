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

/// Four annotators, each its own role, on `db` (reached at `route(url)`).
fn team_on(
    db: &TestDatabase,
    route: impl Fn(&str) -> String,
) -> (Vec<jury::store::testing::TestRole>, Vec<Annotator>) {
    drop(db.store());
    let roles: Vec<_> = (0..4)
        .map(|n| db.login_role(&format!("r{n}"), &["jury_annotator"]))
        .collect();
    let annotators = roles
        .iter()
        .map(|r| Annotator {
            who: r.name.clone(),
            location: route(&r.url),
        })
        .collect();
    (roles, annotators)
}

/// The server restarted while a team writes (`pg_ctl stop -m fast`, down a
/// second, started again, on a cluster of the test's own): the writes
/// meanwhile fail visibly (connection refused), each annotator writes them
/// again once it answers, and every label is stored once, none lost.
#[test]
fn a_server_restarted_under_load_loses_nothing_and_doubles_nothing() {
    let Some(cluster) = jury::store::testing::OwnCluster::start() else {
        return;
    };
    let db = cluster.database();
    let (_roles, annotators) = team_on(&db, str::to_string);
    let (outcomes, _) = team::run_team(
        &annotators,
        Until::Elapsed(Duration::from_secs(5)),
        Duration::from_millis(5),
        &db.url,
        0,
        |_| {
            std::thread::sleep(Duration::from_millis(1500));
            cluster.stop();
            std::thread::sleep(Duration::from_millis(1000));
            cluster.start_again();
        },
    );
    let failed: Vec<&String> = outcomes.iter().flat_map(|o| &o.failed).collect();
    assert!(
        !failed.is_empty(),
        "no write failed: the server was not down"
    );
    assert!(
        failed.iter().any(|f| f.contains("cannot connect")),
        "no connection refused while down: {failed:?}"
    );
    let problems = team::verify(&db.store(), &outcomes);
    assert!(problems.is_empty(), "{problems:#?}");
}

/// A network cut under load, through a TCP proxy: every connection closed
/// and new ones refused for a second, then back. The same guarantees.
#[test]
fn a_network_cut_under_load_loses_nothing_and_doubles_nothing() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let proxy = jury::store::testing::CutProxy::to(&db);
    let (_roles, annotators) = team_on(&db, |u| proxy.route(u));
    let (outcomes, _) = team::run_team(
        &annotators,
        Until::Elapsed(Duration::from_secs(4)),
        Duration::from_millis(5),
        &db.url,
        0,
        |_| {
            std::thread::sleep(Duration::from_millis(1200));
            proxy.cut();
            std::thread::sleep(Duration::from_millis(1000));
            proxy.mend();
        },
    );
    let failed: Vec<&String> = outcomes.iter().flat_map(|o| &o.failed).collect();
    assert!(
        !failed.is_empty(),
        "no write failed: the network was not cut"
    );
    assert!(
        failed.iter().any(|f| f.contains("cannot connect")),
        "no connection refused while cut: {failed:?}"
    );
    let problems = team::verify(&db.store(), &outcomes);
    assert!(problems.is_empty(), "{problems:#?}");
}
