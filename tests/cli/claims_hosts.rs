//! Run claims across hosts on one PostgreSQL store (issue 32 §2): two
//! `jury run --resume` processes that pretend to be different machines
//! (`JURY_TEST_HOST_NAME`) never both pay for a combination. Needs
//! `JURY_TEST_POSTGRES_URL`; without it each test says it skipped, and
//! fails under `JURY_REQUIRE_POSTGRES=1`.
#![cfg(feature = "tui")]

use crate::common;
use common::*;
use jury::store::db::Value;
use jury::store::db::pg::PgConn;
use jury::store::testing::TestDatabase;
use jury::testserver::demo_judge;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// Items × classifications the tests judge, one combination per request.
const ITEMS: usize = 4;
const CLASSES_PER_ITEM: usize = 2;
const COMBINATIONS: usize = ITEMS * CLASSES_PER_ITEM;

const RESUME: &[&str] = &[
    "run",
    "--mode",
    "2",
    "--persona",
    "tester",
    "--perspective",
    "classification",
    "--batch-size",
    "1",
    "--concurrency",
    "2",
    "--resume",
];

/// A workspace whose store is `pg`'s database, with generated items.
fn team_workspace(pg: &TestDatabase) -> Workspace {
    let mut ws = Workspace::new();
    ws.db = PathBuf::from(&pg.url);
    let items = ws.write("items.jsonl", items_jsonl(ITEMS, CLASSES_PER_ITEM));
    let personas = ws.write(
        "personas.json",
        serde_json::json!([persona_json()]).to_string(),
    );
    let persp = ws.write(
        "perspectives.json",
        serde_json::json!([perspective_json()]).to_string(),
    );
    ws.ok(&[
        "import",
        personas.to_str().expect("path"),
        persp.to_str().expect("path"),
        items.to_str().expect("path"),
    ]);
    ws
}

/// `jury run --resume` as a process on "host" `host`.
fn spawn_run(ws: &Workspace, srv: &ServerRt, host: &str, extra_env: &[(&str, &str)]) -> Child {
    let mut c = ws.cmd();
    c.env("OPENAI_BASE_URL", srv.url())
        .env("JURY_TEST_HOST_NAME", host)
        .args(RESUME)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in extra_env {
        c.env(k, v);
    }
    c.spawn().expect("spawn jury run")
}

/// One integer from `sql` on `conn`.
fn count(conn: &PgConn, sql: &str) -> i64 {
    match conn.query(sql, vec![]).expect(sql).first().map(|r| &r[0]) {
        Some(Value::Int(n)) => *n,
        other => panic!("{sql}: {other:?}"),
    }
}

/// Waits for `ok` with a generous deadline (a loaded machine is slow; the
/// deadline only turns a hang into a failure).
fn wait_for(what: &str, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "waited 120 s for {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The combinations (item, classification) each request asked for.
fn asked(srv: &ServerRt) -> Vec<String> {
    srv.completions()
        .iter()
        .flat_map(asked_keys)
        .map(|k| format!("{}/{}", k.item_id, k.classification_id))
        .collect()
}

fn times_each(keys: &[String]) -> HashMap<&str, usize> {
    let mut n = HashMap::new();
    for k in keys {
        *n.entry(k.as_str()).or_default() += 1;
    }
    n
}

/// Two resumes on two "hosts" reach their claim at the same moment: the
/// test holds the claims table (reads pass, writes wait) until both are
/// inside their claim transaction, then lets them go. Checking and
/// inserting in one READ COMMITTED transaction let both see no claim and
/// both claim everything; claiming must be atomic across connections, so
/// one run judges each combination and the other leaves it, and the
/// server is asked for each combination once.
#[test]
fn two_hosts_resuming_together_pay_for_each_combination_once() {
    let Some(pg) = TestDatabase::create() else {
        return;
    };
    let ws = team_workspace(&pg);
    let srv = ServerRt::start(|r| demo_judge::reply(r, Duration::from_millis(20)));
    let gate = PgConn::connect(&pg.url).expect("connect");
    gate.batch("BEGIN; LOCK TABLE run_claims IN EXCLUSIVE MODE")
        .expect("hold the claims table");
    let runs = [
        spawn_run(&ws, &srv, "host-alpha", &[]),
        spawn_run(&ws, &srv, "host-beta", &[]),
    ];
    let watch = PgConn::connect(&pg.url).expect("connect");
    wait_for("both runs to wait inside their claim", || {
        count(
            &watch,
            "SELECT count(*) FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'",
        ) == 2
    });
    gate.batch("COMMIT").expect("let the runs go");
    for run in runs {
        let out = run.wait_with_output().expect("wait for a run");
        assert_success(&out, RESUME);
    }
    let asked = asked(&srv);
    let paid = times_each(&asked);
    assert_eq!(
        paid.len(),
        COMBINATIONS,
        "every combination judged: {asked:?}"
    );
    assert!(
        paid.values().all(|&n| n == 1),
        "each combination paid for once: {paid:?}"
    );
    assert_eq!(srv.completions().len(), COMBINATIONS, "{asked:?}");
    let verdicts = count(&watch, "SELECT count(*) FROM verdicts");
    let distinct = count(
        &watch,
        "SELECT count(*) FROM (SELECT DISTINCT item_id, classification_id FROM verdicts) v",
    );
    assert_eq!(
        (verdicts, distinct),
        (COMBINATIONS as i64, COMBINATIONS as i64),
        "one verdict per combination"
    );
    assert_eq!(
        count(&watch, "SELECT count(*) FROM run_claims"),
        0,
        "ended runs hold no claims"
    );
}
