//! `jury store copy` (issue 32): a judged and labelled SQLite study copied
//! to PostgreSQL and back to a new file, nothing lost: every table's count
//! and checksum read back equal, and the report on each copy is the
//! original's. Needs `JURY_TEST_POSTGRES_URL` (else says it skipped).
#![cfg(feature = "tui")]

use crate::common;
use common::*;
use jury::store::testing::TestDatabase;
use serde_json::Value;
use std::path::PathBuf;

fn copy(ws: &Workspace, from: &str, to: &str) -> Value {
    serde_json::from_str(&ws.ok(&["store", "copy", "--from", from, "--to", to, "--json"]))
        .expect("copy --json")
}

#[test]
fn a_study_goes_to_postgres_and_back_with_nothing_lost() {
    let Some(pg) = TestDatabase::create() else {
        return;
    };
    let lite = Workspace::sample_judged(&["1", "2"], &["--model", "demo", "--concurrency", "1"]);
    lite.ok(&[
        "label",
        "k-001",
        "urgency",
        "2",
        "--persona",
        "kenton",
        "--who",
        "carol",
        "--note",
        "ünïcode ✓",
    ]);
    let original = lite.db.to_str().unwrap().to_owned();
    let there = copy(&lite, &original, &pg.url);
    let rows = there["rows"].as_u64().unwrap();
    assert!(rows > 100, "{there}");
    let back_path = lite.path("back.db");
    let back = copy(&lite, &pg.url, back_path.to_str().unwrap());
    assert_eq!(back["rows"], there["rows"]);
    assert_eq!(
        back["tables"], there["tables"],
        "the same counts and checksums both ways"
    );

    let report = [
        "report",
        "--format",
        "json",
        "--bootstrap",
        "100",
        "--seed",
        "3",
    ];
    let want = lite.ok(&report);
    let mut on_pg = Workspace::new();
    on_pg.db = PathBuf::from(&pg.url);
    assert_eq!(on_pg.ok(&report), want);
    let mut on_back = Workspace::new();
    on_back.db = back_path.clone();
    assert_eq!(on_back.ok(&report), want);

    // New runs continue after the copied ids (PostgreSQL's identities were moved on).
    on_pg.ok(&[
        "label",
        "k-002",
        "urgency",
        "4",
        "--persona",
        "kenton",
        "--who",
        "dave",
    ]);

    // A copy goes into an empty store only.
    let out = lite.run(&["store", "copy", "--from", &original, "--to", &pg.url]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("not empty"),
        "{}",
        text(&out.stderr)
    );
}
