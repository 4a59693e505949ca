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

/// The stale time the kill test's processes use (instead of 30 s); they
/// beat six times as often.
const STALE_MS: u64 = 6000;

/// The owner host's run: its id, start and last heartbeat.
fn run_of(
    conn: &PgConn,
    host: &str,
) -> (
    i64,
    chrono::DateTime<chrono::Utc>,
    chrono::DateTime<chrono::Utc>,
) {
    let rows = conn
        .query(
            "SELECT id, created_at, heartbeat_at FROM runs WHERE owner_host = $1",
            vec![Value::Text(host.into())],
        )
        .expect("read the run");
    let [row] = &rows[..] else {
        panic!("one run of {host}: {rows:?}")
    };
    let time = |v: &Value| match v {
        Value::Text(t) => chrono::DateTime::parse_from_rfc3339(t)
            .expect("an RFC 3339 time")
            .with_timezone(&chrono::Utc),
        other => panic!("a time: {other:?}"),
    };
    match &row[0] {
        Value::Int(id) => (*id, time(&row[1]), time(&row[2])),
        other => panic!("a run id: {other:?}"),
    }
}

/// A run on another host is live while its heartbeat is fresh, however long
/// it works: a slow run older than the stale time still holds its claims
/// (its writer beats). Killed with SIGKILL, its claims still hold until
/// its heartbeat is stale (another host cannot ask whether its pid lives);
/// then a `--resume` takes them over and judges each combination once.
#[test]
fn a_vanished_host_holds_its_claims_until_its_heartbeat_is_stale() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let Some(pg) = TestDatabase::create() else {
        return;
    };
    let ws = team_workspace(&pg);
    // The judge holds its answers until the takeover: the first run is
    // slow, then dead.
    let open = Arc::new(AtomicBool::new(false));
    let gate = open.clone();
    let srv = ServerRt::start(move |r| {
        let start = Instant::now();
        while !gate.load(Ordering::SeqCst) && start.elapsed() < Duration::from_secs(300) {
            std::thread::sleep(Duration::from_millis(10));
        }
        demo_judge::reply(r, Duration::ZERO)
    });
    let stale = STALE_MS.to_string();
    let env = [("JURY_TEST_HEARTBEAT_STALE_MS", stale.as_str())];
    let watch = PgConn::connect(&pg.url).expect("connect");
    let mut alpha = spawn_run(&ws, &srv, "host-alpha", &env);
    wait_for("the first run to ask the judge", || {
        !srv.completions().is_empty()
    });
    // Slow but live: its heartbeat moves on past the stale time.
    let stale = Duration::from_millis(STALE_MS);
    wait_for(
        "the first run to beat for longer than the stale time",
        || {
            let (_, created, beat) = run_of(&watch, "host-alpha");
            (beat - created).to_std().is_ok_and(|d| d > stale)
        },
    );
    let (alpha_run, _, _) = run_of(&watch, "host-alpha");
    let asked_before = srv.completions().len();
    let resume = |what: &str, srv: &ServerRt| {
        let out = ws
            .cmd()
            .env("OPENAI_BASE_URL", srv.url())
            .env("JURY_TEST_HOST_NAME", "host-beta")
            .envs(env)
            .args(RESUME)
            .output()
            .expect("run the resume");
        assert_success(&out, RESUME);
        let said = text(&out.stderr) + &text(&out.stdout);
        eprintln!("{what}: {said}");
        said
    };
    let said = resume("while the first run lives", &srv);
    assert!(
        said.contains(&format!("{COMBINATIONS} combination(s) skipped")),
        "a live run on another host keeps its claims: {said}"
    );
    assert_eq!(srv.completions().len(), asked_before, "nothing sent");

    alpha.kill().expect("SIGKILL the first run");
    alpha.wait().expect("reap it");
    let said = resume("just after the kill", &srv);
    assert!(
        said.contains(&format!("{COMBINATIONS} combination(s) skipped")),
        "a fresh heartbeat still holds on another host: {said}"
    );
    assert_eq!(srv.completions().len(), asked_before, "nothing sent");
    assert!(
        count(
            &watch,
            &format!("SELECT count(*) FROM run_claims WHERE run_id = {alpha_run}")
        ) > 0,
        "the dead run's claims are still there"
    );

    wait_for("the dead run's heartbeat to go stale", || {
        let (_, _, beat) = run_of(&watch, "host-alpha");
        (chrono::Utc::now() - beat)
            .to_std()
            .is_ok_and(|d| d > stale)
    });
    // A server of its own, so its count is the takeover's alone (what the
    // dead run sent was paid for, and is still queued at the first one).
    open.store(true, Ordering::SeqCst);
    let takeover = ServerRt::demo();
    let said = resume("once its heartbeat is stale", &takeover);
    assert!(!said.contains("skipped"), "{said}");
    let asked = asked(&takeover);
    let paid = times_each(&asked);
    assert_eq!(paid.len(), COMBINATIONS, "all taken over: {asked:?}");
    assert!(paid.values().all(|&n| n == 1), "each once: {paid:?}");
    assert_eq!(
        count(
            &watch,
            "SELECT count(*) FROM (SELECT DISTINCT item_id, classification_id FROM verdicts) v"
        ),
        COMBINATIONS as i64
    );
    assert_eq!(
        count(&watch, "SELECT count(*) FROM verdicts"),
        COMBINATIONS as i64,
        "no verdict twice"
    );
    assert_eq!(
        count(
            &watch,
            &format!("SELECT count(*) FROM verdicts WHERE run_id = {alpha_run}")
        ),
        0,
        "the killed run stored nothing"
    );
    assert_eq!(count(&watch, "SELECT count(*) FROM run_claims"), 0);
    assert_eq!(
        count(
            &watch,
            &format!("SELECT count(*) FROM runs WHERE id = {alpha_run} AND status = 'failed'")
        ),
        1,
        "the killed run is marked interrupted"
    );
}
