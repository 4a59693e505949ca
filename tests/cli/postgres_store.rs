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
        let args = ["--mode", mode, "--model", "demo", "--concurrency", "1"];
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

/// Equal JSON up to the last digits of a float (a run's verdicts arrive in
/// any order, so sums over them may round differently, on either store).
fn close(a: &Value, b: &Value, at: &str) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!((x - y).abs() <= 1e-9 * x.abs().max(1.0), "{at}: {x} vs {y}");
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}: lengths");
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                close(x, y, &format!("{at}[{i}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(
                x.keys().collect::<Vec<_>>(),
                y.keys().collect::<Vec<_>>(),
                "{at}"
            );
            for (k, v) in x
                .iter()
                .filter(|(k, _)| !k.ends_with("_at") && !k.ends_with("At"))
            {
                close(v, &y[k], &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

/// Equal texts, else the first line that differs (outputs are long).
fn same(pg: &str, lite: &str, what: &str) {
    if let (Ok(a), Ok(b)) = (
        serde_json::from_str::<Value>(pg),
        serde_json::from_str::<Value>(lite),
    ) {
        return close(&a, &b, what);
    }
    for (i, (a, b)) in pg.lines().zip(lite.lines()).enumerate() {
        assert_eq!(a, b, "{what}, line {}: postgres, then sqlite", i + 1);
    }
    assert_eq!(pg.lines().count(), lite.lines().count(), "{what}: lines");
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
    for args in [
        &["list", "items", "--json"][..],
        &["list", "personas", "--json"],
        &["estimate", "--format", "json"],
        &["split", "--holdout", "0.3", "--seed", "5", "--json"],
        &["split", "--json"],
        &["report", "--format", "csv", "--by", "mode"],
        &["failures"],
    ] {
        same(&team.ok(args), &lite.ok(args), &format!("jury {args:?}"));
    }
    // A few-shot set from the train labels: the same files from either
    // store. (Not byte for byte: an import stamps each label with the time
    // it is stored, and which of two people's labels is "newest" then
    // depends on the clock's millisecond, on either engine.)
    let (a, b) = (team.path("shots"), lite.path("shots"));
    for (ws, dir) in [(&team, &a), (&lite, &b)] {
        ws.ok(&[
            "fewshot",
            "--from-labels",
            "--k",
            "2",
            "--out",
            dir.to_str().unwrap(),
        ]);
    }
    let files = |d: &PathBuf| {
        let mut v: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                (
                    p.file_name().unwrap().to_owned(),
                    std::fs::read_to_string(&p).unwrap_or_default(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let (fa, fb) = (files(&a), files(&b));
    assert!(!fa.is_empty());
    assert_eq!(fa.len(), fb.len());
    for ((na, ta), (nb, tb)) in fa.iter().zip(&fb) {
        assert_eq!(na, nb);
        assert_eq!(ta.lines().count(), tb.lines().count(), "{na:?}");
    }
    // The runs as the ledger lists them (times aside: same runs, same counts).
    let runs = |ws: &Workspace| -> Vec<String> {
        let listed: Vec<Value> = serde_json::from_str(&ws.ok(&["runs", "--json"])).unwrap();
        listed
            .iter()
            .map(|r| {
                let mut r = r.clone();
                let o = r.as_object_mut().unwrap();
                for k in [
                    "created_at",
                    "finished_at",
                    "heartbeat_at",
                    "owner_pid",
                    "note",
                ] {
                    o.remove(k);
                }
                r.to_string()
            })
            .collect()
    };
    assert_eq!(runs(&team), runs(&lite));
    let doctor = team.run(&["doctor", "--skip-endpoint"]);
    let said = text(&doctor.stdout);
    assert!(said.contains("127.0.0.1"), "doctor names the store: {said}");
    assert!(
        said.contains("schema"),
        "doctor reads the PostgreSQL schema: {said}"
    );
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
