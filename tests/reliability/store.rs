//! docs/reliability.md rows 16–20 (the store) against real SQLite files: kill -9
//! mid-run and right after a label, a held write lock, a read-only or full
//! database, a corrupt file.
#![cfg(feature = "tui")]

use jury::domain::{ComboKey, Label, Scale};
use jury::protocol::awag::request::undelimit;
use jury::store::{Store, StoreError};
use jury::testserver::{TestServer, demo_judge};
use serde_json::json;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

struct Fixture {
    dir: tempfile::TempDir,
    db: PathBuf,
}

/// A store with persona `pa`, perspective `classification` and `n` items of
/// two classifications each, imported by the real importer.
fn fixture(n: usize) -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("jury.db");
    let data = dir.path().join("data");
    std::fs::create_dir(&data).expect("mkdir");
    std::fs::write(
        data.join("personas.json"),
        json!([{"id": "pa", "name": "Pat", "definition": {"type": "Persona", "does": "reads mail"}}]).to_string(),
    )
    .expect("write");
    std::fs::write(
        data.join("perspectives.json"),
        json!([{"id": "classification", "name": "Classification", "text": "Is it right?"}])
            .to_string(),
    )
    .expect("write");
    let mut lines = String::new();
    for i in 0..n {
        lines.push_str(&json!({
            "itemId": format!("it-{i}"), "sent": "2026-03-16T07:12:00Z",
            "title": format!("Item {i}"), "summary": format!("Text of item {i}."),
            "tags": [],
            "classifications": [
                {"name": "c1", "desc": "Work or personal?", "available": ["work", "personal"], "selected": "work"},
                {"name": "c2", "desc": "Urgent?", "available": ["urgent", "not"], "selected": "not"}
            ]
        }).to_string());
        lines.push('\n');
    }
    std::fs::write(data.join("items.jsonl"), lines).expect("write");
    let mut store = Store::open(&db).expect("store");
    jury::import::import_paths(&mut store, &[data], false, "tester").expect("import");
    Fixture { dir, db }
}

fn jury(db: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_jury"));
    c.arg("--db").arg(db);
    c.env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("JURY_MODEL")
        .env("JURY_CONFIG", db.with_extension("no-config.toml"))
        .env("JURY_USER", "tester");
    c
}

fn label(item: &str, cls: &str, value: u8) -> Label {
    Label {
        key: ComboKey::new(item, cls, "classification"),
        persona_id: "pa".into(),
        value: Scale::Likert.parse(&value.to_string()).expect("likert"),
        note: String::new(),
        who: "tester".into(),
        created_at: jury::store::now(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    }
}

fn count(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).expect("open");
    conn.busy_timeout(Duration::from_secs(5)).expect("timeout");
    conn.query_row(sql, [], |r| r.get(0)).expect(sql)
}

fn kill9(child: &mut std::process::Child) {
    // SAFETY: sending SIGKILL to a child we spawned and have not reaped.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGKILL);
    }
    let _ = child.wait();
}

/// Row 16: kill -9 mid-run, then `--resume`: no completed verdict is asked
/// again, no row is duplicated, the run finishes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reliability_16_kill9_mid_run_then_resume() {
    let fx = fixture(10); // 20 combinations, 10 requests of 2
    let server = TestServer::start(|r| demo_judge::reply(r, Duration::from_millis(150)))
        .await
        .expect("server");
    let (db, base) = (fx.db.clone(), server.base_url());
    let run_args = move |resume: bool| {
        let mut c = jury(&db);
        c.args([
            "run",
            "--mode",
            "2",
            "--persona",
            "pa",
            "--perspective",
            "classification",
            "--concurrency",
            "1",
            "--batch-size",
            "2",
            "--model",
            "demo",
            "--json",
        ])
        .env("OPENAI_BASE_URL", &base);
        if resume {
            c.arg("--resume");
        }
        c
    };
    let mut child = run_args(false)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn jury run");
    // A guard against hanging the whole test run if the child stalls before
    // sending anything (not a claim about speed: the work takes well under a
    // second).
    let started = std::time::Instant::now();
    loop {
        let n = count(&fx.db, "SELECT count(*) FROM verdicts");
        if n >= 6 {
            break;
        }
        if started.elapsed() > Duration::from_secs(300) {
            kill9(&mut child);
            panic!(
                "no progress in 5 minutes: {n} verdicts, {} requests",
                server.request_count()
            );
        }
        // Progress is counted in work, not seconds: six verdicts are three
        // answers; once all ten requests went out they must be saved.
        assert!(
            server.request_count() < 10,
            "every request was sent and only {n} verdicts were saved"
        );
        assert!(
            child.try_wait().expect("wait").is_none(),
            "run ended before the kill"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    kill9(&mut child);
    let before = count(&fx.db, "SELECT count(*) FROM verdicts");
    assert!((6..20).contains(&before), "killed mid-run: {before}");
    let asked_before = server.request_count();

    let out = tokio::task::spawn_blocking(move || run_args(true).output())
        .await
        .expect("join")
        .expect("jury run --resume");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value =
        serde_json::from_slice(out.stdout.trim_ascii()).expect("json summary");
    assert_eq!(summary["status"], "done");
    assert_eq!(
        summary["total"].as_u64(),
        Some(20 - before as u64),
        "{summary}"
    );
    assert_eq!(count(&fx.db, "SELECT count(*) FROM verdicts"), 20);
    assert_eq!(
        count(
            &fx.db,
            "SELECT count(*) FROM (SELECT item_id, classification_id, perspective_id, count(*) n FROM verdicts GROUP BY 1,2,3 HAVING n > 1)"
        ),
        0,
        "no combination judged twice"
    );
    // The resumed run asked only about what was missing.
    let asked_after: usize = server.requests()[asked_before..]
        .iter()
        .map(|r| {
            let msg = r.last_user_message().unwrap_or_default();
            let v: serde_json::Value =
                serde_json::from_str(undelimit(&msg).expect("the request between the markers"))
                    .expect("the request JSON");
            v["items"].as_array().map_or(0, Vec::len)
        })
        .sum();
    assert!(
        asked_after as i64 <= 20 - before + 2,
        "asked {asked_after} after {before} done"
    );
    // The killed run is shown as interrupted, not running forever.
    assert_eq!(
        count(&fx.db, "SELECT count(*) FROM runs WHERE status = 'running'"),
        0
    );
    assert_eq!(
        count(
            &fx.db,
            "SELECT count(*) FROM runs WHERE note LIKE 'interrupted%'"
        ),
        1
    );
}

/// Row 17: kill -9 right after `jury label` said it saved → the label is there.
#[test]
fn reliability_17_kill9_after_label_saved_label_survives() {
    let fx = fixture(2);
    for (i, value) in ["4", "2", "5"].iter().enumerate() {
        let mut child = jury(&fx.db)
            .args([
                "label",
                "it-1",
                "c2",
                value,
                "--persona",
                "pa",
                "--note",
                "n",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn jury label");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read");
        assert!(line.starts_with("labelled it-1/c2 as"), "{line}");
        kill9(&mut child); // the moment it is shown as saved
        let store = Store::open(&fx.db).expect("reopen");
        let labels = store.labels_for_item("it-1").expect("labels");
        assert_eq!(labels.len(), 1, "one label per person, replaced, round {i}");
        assert_eq!(labels[0].value.as_text(), *value);
        assert_eq!(labels[0].who, "tester");
    }
}

/// Row 18: another connection holds the write lock → the label waits for the
/// busy timeout, then fails visibly with `Busy`; it is not lost: once the lock
/// is gone, saving again works. The CLI says so and exits 1. How long the
/// wait really is (SQLite's clock, not tokio's) is timed by
/// `cargo bench --bench bounds -- busy`; here the error reports the wait.
#[test]
fn reliability_18_write_lock_held_wait_then_busy_error() {
    let fx = fixture(1);
    let other = rusqlite::Connection::open(&fx.db).expect("second connection");
    other
        .execute_batch("BEGIN IMMEDIATE; UPDATE items SET title = title;")
        .expect("lock");

    let mut store = Store::open(&fx.db).expect("store");
    store
        .set_busy_timeout(Duration::from_millis(400))
        .expect("timeout");
    let l = label("it-0", "c1", 3);
    let e = store.upsert_label(&l).expect_err("busy");
    assert!(matches!(e, StoreError::Busy { waited_ms: 400 }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("busy")
            && msg.contains("another process")
            && msg.contains("nothing was saved"),
        "{msg}"
    );

    // The CLI: a clear error, exit 1, nothing claims success (default 5 s wait).
    let out = jury(&fx.db)
        .args(["label", "it-0", "c1", "3", "--persona", "pa"])
        .output()
        .expect("jury label");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("busy"), "{stderr}");
    assert!(stderr.contains("waited 5000 ms"), "it waited: {stderr}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("labelled"));

    other.execute_batch("COMMIT").expect("release");
    assert!(
        store.labels_for_item("it-0").expect("read").is_empty(),
        "nothing half-saved"
    );
    store.upsert_label(&l).expect("saved once the lock is gone");
    assert_eq!(store.labels_for_item("it-0").expect("read").len(), 1);
}

/// Row 19: a read-only database and a full disk → a clear error, nothing
/// claims success, nothing is half-written.
#[test]
fn reliability_19_read_only_and_full_disk() {
    let fx = fixture(1);
    // Read-only: the database opened with ?mode=ro (tests may run as root,
    // where chmod 444 stops nothing). Reading still works.
    let uri = PathBuf::from(format!("file:{}?mode=ro", fx.db.display()));
    let mut ro = Store::open(&uri).expect("a read-only store opens for reading");
    assert_eq!(ro.items().expect("read").len(), 1);
    let e = ro
        .upsert_label(&label("it-0", "c1", 2))
        .expect_err("read-only");
    assert!(matches!(e, StoreError::ReadOnly(_)), "{e:?}");
    assert!(
        e.to_string().contains("read-only") && e.to_string().contains("nothing was saved"),
        "{e}"
    );
    assert!(
        !Path::new("file:").exists(),
        "no stray directory named after the URI"
    );
    drop(ro);
    // The CLI on the read-only store.
    let out = jury(&uri)
        .args(["label", "it-0", "c1", "2", "--persona", "pa"])
        .output()
        .expect("jury");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("read-only"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Permissions, where they bind (not as root).
    #[cfg(unix)]
    if unsafe { libc::geteuid() } != 0 {
        use std::os::unix::fs::PermissionsExt;
        let ro_dir = fx.dir.path().join("ro");
        std::fs::create_dir(&ro_dir).expect("mkdir");
        let copy = ro_dir.join("jury.db");
        std::fs::copy(&fx.db, &copy).expect("copy");
        std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o444)).expect("chmod");
        std::fs::set_permissions(&ro_dir, std::fs::Permissions::from_mode(0o555)).expect("chmod");
        let r = Store::open(&copy).and_then(|mut s| s.upsert_label(&label("it-0", "c1", 2)));
        std::fs::set_permissions(&ro_dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let e = r.expect_err("read-only file");
        assert!(
            matches!(e, StoreError::ReadOnly(_) | StoreError::Open { .. }),
            "{e:?}"
        );
    }
    assert_eq!(count(&fx.db, "SELECT count(*) FROM labels"), 0);

    // Full: cap the file at its current size; a label that needs a page fails.
    let mut store = Store::open(&fx.db).expect("store");
    let pages: i64 = count(&fx.db, "PRAGMA page_count");
    assert_eq!(
        store.set_max_page_count(pages as u64).expect("cap"),
        pages as u64
    );
    let mut big = label("it-0", "c1", 4);
    big.note = "x".repeat(64 * 1024); // needs new pages
    let e = store.upsert_label(&big).expect_err("full");
    assert!(matches!(e, StoreError::Full(_)), "{e:?}");
    assert!(
        e.to_string().contains("disk is full") && e.to_string().contains("nothing was saved"),
        "{e}"
    );
    assert!(
        store.labels_for_item("it-0").expect("read").is_empty(),
        "no half-written label"
    );
    // Space again: the same label saves.
    store.set_max_page_count(1 << 30).expect("uncap");
    store.upsert_label(&big).expect("saved");
}

/// Row 20: a corrupt database file → opening (or writing) fails with a
/// "damaged" error; the `-wal` file next to it is never deleted by jury.
#[test]
fn reliability_20_corrupt_file_refused_wal_kept() {
    let fx = fixture(3);
    let dir = fx.dir.path().join("crashed");
    std::fs::create_dir(&dir).expect("mkdir");
    // A WAL with content: a second connection writes with checkpoints off and
    // the files are copied while it is still open (as after a crash).
    let conn = rusqlite::Connection::open(&fx.db).expect("conn");
    conn.execute_batch("PRAGMA wal_autocheckpoint=0; UPDATE items SET title = title || '!';")
        .expect("write");
    let copy = dir.join("jury.db");
    let wal = dir.join("jury.db-wal");
    std::fs::copy(&fx.db, &copy).expect("copy db");
    std::fs::copy(fx.db.with_file_name("jury.db-wal"), &wal).expect("copy wal");
    drop(conn);
    let wal_bytes = std::fs::read(&wal).expect("wal");
    assert!(!wal_bytes.is_empty(), "the WAL holds frames");

    // Garbage over the 100-byte header.
    let mut bytes = std::fs::read(&copy).expect("read");
    for (i, b) in bytes.iter_mut().take(100).enumerate() {
        *b = (i as u8).wrapping_mul(37) ^ 0x5a;
    }
    std::fs::write(&copy, &bytes).expect("corrupt");

    let e = Store::open(&copy)
        .and_then(|mut s| s.upsert_label(&label("it-0", "c1", 1)))
        .expect_err("a damaged store is refused");
    assert!(matches!(e, StoreError::Corrupt(_)), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("damaged") && msg.contains("refusing to write") && msg.contains("-wal"),
        "{msg}"
    );
    assert_eq!(
        std::fs::read(&wal).expect("the -wal is still there"),
        wal_bytes
    );
    assert_eq!(
        std::fs::read(&copy).expect("db"),
        bytes,
        "the damaged file is not rewritten"
    );

    // The CLI says so, exits 1, and leaves the -wal alone too.
    for args in [
        vec!["list", "items"],
        vec!["label", "it-0", "c1", "1", "--persona", "pa"],
    ] {
        let out = jury(&copy).args(&args).output().expect("jury");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("damaged"), "{args:?}: {stderr}");
        assert!(!String::from_utf8_lossy(&out.stdout).contains("labelled"));
        assert_eq!(std::fs::read(&wal).expect("-wal kept"), wal_bytes);
    }
    // No code path in jury deletes files next to the store.
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/store/mod.rs"))
        .expect("src");
    assert!(!src.contains("remove_file"));
}
