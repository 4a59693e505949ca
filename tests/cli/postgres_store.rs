//! The whole command line on a PostgreSQL store (issue 32): the sample data
//! imported, judged by the test server, labelled, and `jury report` and
//! `jury export` give the same answer as on a SQLite file. Needs
//! `JURY_TEST_POSTGRES_URL` (`.ci/postgres.sh`); without it the test says
//! it skipped, and fails under `JURY_REQUIRE_POSTGRES=1`.
#![cfg(feature = "tui")]

use crate::common;
use common::*;
use jury::store::testing::TestDatabase;
use serde_json::Value;
use std::path::PathBuf;

/// Import, two runs of the demo judge, two people's labels (one undone).
fn work(ws: &Workspace, srv: &ServerRt) {
    ws.import_sample();
    for mode in ["1", "2"] {
        let args = ["--mode", mode, "--model", "demo"];
        assert_success(&ws.judge(&srv.url(), None, &args), &args);
    }
    for (item, cls, v, who) in [
        ("k-001", "urgency", "2", "carol"),
        ("k-001", "work-pers", "5", "carol"),
        ("k-002", "urgency", "4", "carol"),
        ("k-001", "urgency", "3", "dave"),
        ("k-003", "work-pers", "1", "dave"),
    ] {
        ws.ok(&[
            "label",
            item,
            cls,
            v,
            "--persona",
            "kenton",
            "--who",
            who,
            "--note",
            "from the postgres test",
        ]);
    }
}

/// Rows without what differs by nature between two stores: times, and the
/// order (a run's requests answer concurrently, so verdicts arrive in any
/// order).
fn comparable(rows: Vec<Value>) -> Vec<String> {
    let mut out: Vec<String> = rows
        .into_iter()
        .map(|mut r| {
            if let Some(o) = r.as_object_mut() {
                for k in ["created_at", "latency_ms", "finished_at"] {
                    o.remove(k);
                }
            }
            r.to_string()
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_sample_on_postgres_reports_as_on_sqlite() {
    let Some(pg) = TestDatabase::create() else {
        return;
    };
    let srv = ServerRt::demo();
    let lite = Workspace::new();
    let mut team = Workspace::new();
    team.db = PathBuf::from(&pg.url);
    work(&lite, &srv);
    work(&team, &srv);

    let report = [
        "report",
        "--format",
        "json",
        "--bootstrap",
        "200",
        "--seed",
        "7",
    ];
    assert_eq!(team.ok(&report), lite.ok(&report));
    let table = ["report"];
    assert_eq!(team.ok(&table), lite.ok(&table));
    let (a, b) = (team.export_rows(), lite.export_rows());
    assert!(!a.is_empty());
    let (a, b) = (comparable(a), comparable(b));
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x, y, "export row {i}: postgres, then sqlite");
    }
    let list = ["list", "items", "--json"];
    assert_eq!(team.ok(&list), lite.ok(&list));
}

/// The URL's password is never printed (the import names the store).
#[test]
fn a_postgres_password_is_never_printed() {
    let Some(pg) = TestDatabase::create() else {
        return;
    };
    let mut url = reqwest::Url::parse(&pg.url).unwrap();
    // Trust authentication on the test server: any password is accepted,
    // and none may appear in what jury prints.
    url.set_password(Some("pw-never-shown-42")).unwrap();
    let mut ws = Workspace::new();
    ws.db = PathBuf::from(url.to_string());
    let dir = sample_data();
    let out = ws.run(&["import", dir.to_str().unwrap()]);
    assert_success(&out, &["import"]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!all.contains("pw-never-shown-42"), "{all}");
    assert!(all.contains("127.0.0.1"), "the store is named: {all}");
}
