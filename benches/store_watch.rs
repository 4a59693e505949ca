//! What an open workbench's store watcher costs the store each second
//! (issue 32: `Store::changed_since` with nothing new, the check every
//! workbench sends once a second) on a history of `STORE_WATCH_ROWS` label
//! events (1 000 000), on SQLite and, with `JURY_TEST_POSTGRES_URL`, on
//! PostgreSQL; beside it a `COUNT(*)` over the whole history, which is what
//! each check cost before it counted only above a trailing floor.
//!
//! `cargo bench --bench store_watch`. Prints medians of 31 checks.

use jury::domain::{ComboKey, Label, Value};
use jury::store::Store;
use std::path::Path;
use std::time::{Duration, Instant};

fn rows() -> u64 {
    std::env::var("STORE_WATCH_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000)
}

fn seed_label() -> Label {
    Label {
        key: ComboKey::new("k-1", "urgency", "classification"),
        persona_id: "kenton".into(),
        value: Value::Likert(2),
        note: String::new(),
        who: "ann".into(),
        created_at: jury::store::now(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    }
}

/// Every column of a history row but its id (copied from the seed row).
const COLUMNS: &str = "item_id, classification_id, perspective_id, persona_id, who, scale, value, note, replaced_judge_value, created_at, blind, tags, kind";

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Medians of the watcher's check and of counting the whole history.
fn measure(location: &Path, count_all: &mut dyn FnMut() -> i64) -> (Duration, Duration) {
    let watcher = Store::open(location).expect("the store opens");
    let mut marker = watcher.change_marker().expect("a marker");
    // Two checks with nothing open: the floor reaches the last id.
    for _ in 0..3 {
        marker = watcher.changed_since(&marker, 200).expect("a check").marker;
    }
    let (mut check, mut count) = (Vec::new(), Vec::new());
    for _ in 0..31 {
        let t = Instant::now();
        let c = watcher.changed_since(&marker, 200).expect("a check");
        check.push(t.elapsed());
        assert!(c.nothing(&marker), "nothing was written: {c:?}");
        marker = c.marker;
        let t = Instant::now();
        let n = count_all();
        count.push(t.elapsed());
        assert!(n as u64 > rows());
    }
    println!(
        "  floor {} of last id {}, {} rows above it",
        marker.labels.floor, marker.labels.last_id, marker.labels.rows
    );
    (median(check), median(count))
}

fn report(name: &str, (check, count): (Duration, Duration)) {
    println!(
        "store_watch {name}: a check with nothing new {:.3} ms (median of 31); COUNT(*) over the history {:.1} ms; ratio {:.0}x",
        check.as_secs_f64() * 1e3,
        count.as_secs_f64() * 1e3,
        count.as_secs_f64() / check.as_secs_f64()
    );
}

fn on_sqlite() {
    let dir = std::env::temp_dir().join(format!("jury-store-watch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("jury.db");
    Store::open(&path)
        .unwrap()
        .upsert_label(&seed_label())
        .unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(&format!(
        "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < {})
         INSERT INTO label_events ({COLUMNS}) SELECT {COLUMNS} FROM label_events CROSS JOIN g",
        rows()
    ))
    .unwrap();
    let r = measure(&path, &mut || {
        conn.query_row("SELECT COUNT(*) FROM label_events", [], |r| r.get(0))
            .unwrap()
    });
    report("sqlite", r);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(feature = "postgres")]
fn on_postgres() {
    let Some(db) = jury::store::testing::TestDatabase::create() else {
        println!("store_watch postgres: skipped (JURY_TEST_POSTGRES_URL is not set)");
        return;
    };
    db.store().upsert_label(&seed_label()).unwrap();
    let mut client = postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
    client
        .batch_execute(&format!(
            "INSERT INTO label_events ({COLUMNS}) SELECT {COLUMNS} FROM label_events CROSS JOIN generate_series(1, {}); ANALYZE label_events",
            rows()
        ))
        .unwrap();
    let r = measure(Path::new(&db.url), &mut || {
        client
            .query_one("SELECT COUNT(*) FROM label_events", &[])
            .unwrap()
            .get(0)
    });
    drop(client);
    report("postgres", r);
}

#[cfg(not(feature = "postgres"))]
fn on_postgres() {
    println!("store_watch postgres: skipped (built without the postgres feature)");
}

fn main() {
    println!("store_watch: {} label events", rows());
    on_sqlite();
    on_postgres();
}
