//! Who a command writes as on a team's PostgreSQL store (issue 32 §2): the
//! role it connects as. `--who`/`JURY_USER` naming someone else is refused
//! with the reason; a name only taken from the login gives way to the role;
//! the owner keeps naming people. Needs `JURY_TEST_POSTGRES_URL` (else says
//! it skipped; fails under `JURY_REQUIRE_POSTGRES=1`).
#![cfg(all(feature = "tui", feature = "postgres"))]

use crate::common;
use common::*;
use jury::store::testing::TestDatabase;
use std::path::PathBuf;

const LABEL: [&str; 6] = ["label", "k-001", "urgency", "2", "--persona", "kenton"];

#[test]
fn a_team_role_labels_as_itself_and_may_not_name_another() {
    let Some(pg) = TestDatabase::create() else {
        return;
    };
    let mut owner = Workspace::new();
    owner.db = PathBuf::from(&pg.url);
    owner.import_sample();
    let bob = pg.login_role("bob", &["jury_annotator"]);
    let mut as_bob = Workspace::new();
    as_bob.db = PathBuf::from(&bob.url);

    // Named someone else: refused before anything is written, saying why.
    let out = as_bob.run(&[&LABEL[..], &["--who", "alice"]].concat());
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out.stderr);
    assert!(said.contains("--who names 'alice'"), "{said}");
    assert!(said.contains(&format!("here '{}'", bob.name)), "{said}");
    let out = as_bob
        .cmd()
        .env("JURY_USER", "alice")
        .args(LABEL)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("JURY_USER names 'alice'"));

    // A name taken only from the login gives way to the role.
    let out = as_bob
        .cmd()
        .env_remove("JURY_USER")
        .env("USER", "alex")
        .args(LABEL)
        .output()
        .unwrap();
    assert_success(&out, &LABEL);
    // Naming oneself is fine.
    as_bob
        .cmd()
        .env("JURY_USER", &bob.name)
        .args(["label", "k-002", "urgency", "4", "--persona", "kenton"])
        .output()
        .map(|o| assert_success(&o, &["label as oneself"]))
        .unwrap();

    // `jury doctor` says who each connection writes as.
    let said = text(&as_bob.run(&["doctor", "--skip-endpoint"]).stdout);
    assert!(
        said.contains(&format!("connected as {}, a team role", bob.name)),
        "{said}"
    );
    let said = text(&owner.run(&["doctor", "--skip-endpoint"]).stdout);
    assert!(said.contains("who administers the store"), "{said}");
    assert!(!said.contains("do not exist"), "{said}");

    // Anyone on the team may run the judge (runs and verdicts are not
    // people's writes).
    let srv = ServerRt::demo();
    let args = ["--mode", "1", "--model", "demo", "--concurrency", "1"];
    assert_success(&as_bob.judge(&srv.url(), None, &args), &args);

    // The owner (here the superuser) keeps naming people.
    owner.ok(&[&LABEL[..], &["--who", "carol"]].concat());
    let rows = owner.export_rows();
    let by = |who: &str| {
        rows.iter()
            .filter(|r| r["kind"] == "label" && r["who"] == who)
            .count()
    };
    assert_eq!(by(&bob.name), 2, "bob's two labels, under his role's name");
    assert_eq!(by("alex"), 0, "nothing under the login name");
    assert_eq!(by("carol"), 1, "the owner's label for carol");
}

#[test]
fn a_team_role_cannot_import_other_peoples_labels() {
    let Some(pg) = TestDatabase::create() else {
        return;
    };
    let mut owner = Workspace::new();
    owner.db = PathBuf::from(&pg.url);
    owner.import_sample();
    let bob = pg.login_role("bob", &["jury_annotator"]);
    let mut as_bob = Workspace::new();
    as_bob.db = PathBuf::from(&bob.url);
    let file = as_bob.write(
        "labels.jsonl",
        r#"{"itemId":"k-001","classificationId":"urgency","perspectiveId":"classification","personaId":"kenton","who":"dora","value":3}
"#,
    );
    let out = as_bob
        .cmd()
        .env("JURY_USER", &bob.name)
        .args(["import", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let said = text(&out.stderr);
    assert!(said.contains("row-level security"), "{said}");
    assert!(said.contains("writes only its own labels"), "{said}");
    let stored = owner.store().labels_for_item("k-001").unwrap();
    assert!(!stored.iter().any(|l| l.who == "dora"), "nothing imported");
}
