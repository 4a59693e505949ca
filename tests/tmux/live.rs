//! Others' labels appear in an open workbench, live (issue 32 §3), on the
//! real binary: ann's workbench stays open while cleo labels from another
//! process (`jury label`); cleo's label and note show on ann's screen with
//! no restart. On an item assigned to both of them, cleo's label stays
//! hidden from ann until ann has labelled the row (blind double-coding).
//! Run on a SQLite file and, with `JURY_TEST_POSTGRES_URL`, on PostgreSQL.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use std::time::Instant;
use tui_tmux_common::*;

/// A store for the test: a file in `dir`, or a database of its own
/// (also used by `active_study`).
pub(crate) struct TestStore {
    pub(crate) db: String,
    pub(crate) dir: tempfile::TempDir,
    #[cfg(feature = "postgres")]
    _pg: Option<jury::store::testing::TestDatabase>,
}

impl TestStore {
    pub(crate) fn sqlite() -> TestStore {
        let dir = tempfile::tempdir().unwrap();
        TestStore {
            db: dir.path().join("live.db").display().to_string(),
            dir,
            #[cfg(feature = "postgres")]
            _pg: None,
        }
    }

    /// None (said by `server_url`) without a test PostgreSQL; a failure
    /// instead under `JURY_REQUIRE_POSTGRES=1`.
    #[cfg(feature = "postgres")]
    pub(crate) fn postgres() -> Option<TestStore> {
        let pg = jury::store::testing::TestDatabase::create()?;
        Some(TestStore {
            db: pg.url.clone(),
            dir: tempfile::tempdir().unwrap(),
            _pg: Some(pg),
        })
    }

    /// `jury ARGS` as `who` on this store; its stdout.
    pub(crate) fn jury(&self, who: &str, args: &[&str]) -> String {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_jury"))
            .args(args)
            .env("JURY_DB", &self.db)
            .env("JURY_CONFIG", "/nonexistent/config.toml")
            .env("XDG_DATA_HOME", self.dir.path())
            .env("JURY_USER", who)
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// cleo's label, with a note, from a process of its own.
    fn cleo_labels(&self, item: &str, value: &str, note: &str) {
        self.jury(
            "cleo",
            &[
                "label",
                item,
                "work-pers",
                value,
                "--persona",
                "kenton",
                "--who",
                "cleo",
                "--note",
                note,
            ],
        );
    }

    fn workbench_as(&self, who: &str) -> String {
        format!(
            "exec env -u OPENAI_API_KEY XDG_DATA_HOME={} JURY_CONFIG=/nonexistent/config.toml JURY_USER={who} {} tui --db '{}'",
            self.dir.path().display(),
            env!("CARGO_BIN_EXE_jury"),
            self.db
        )
    }

    fn labels_by(&self, who: &str, item: &str) -> Vec<jury::domain::Label> {
        let s = jury::store::Store::open(std::path::Path::new(&self.db)).unwrap();
        s.labels_for_item(item)
            .unwrap()
            .into_iter()
            .filter(|l| l.who == who)
            .collect()
    }
}

/// The list pane's line for `item`: its marks, the id, the title.
fn list_line<'a>(screen: &'a str, item: &str) -> &'a str {
    screen
        .lines()
        .filter_map(|l| l.split('│').nth(1))
        .find(|cell| cell.contains(item))
        .unwrap_or("")
}

async fn others_labels_appear_while_open(store: TestStore, backend: &str) {
    store.jury(
        "lead",
        &[
            "import",
            concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data"),
        ],
    );
    let said = store.jury(
        "lead",
        &[
            "assign",
            "--who",
            "ann,cleo",
            "--overlap",
            "2",
            "--items",
            "k-002",
        ],
    );
    assert!(said.contains("assigned 1 items to 2 people each"), "{said}");

    let ann = Session::start_cmd(
        &format!("jury-live-{backend}-{}", std::process::id()),
        &store.workbench_as("ann"),
    );
    // With assigned work left, ann's workbench opens on her queue: k-002.
    wait_for(&ann.name, "ann's workbench on k-002, her queue", |s| {
        s.contains("│k-002 · ") && s.contains("assigned to you") && focused(s) == "work-pers"
    })
    .await;

    // k-002 is assigned to both: cleo's label on it stays hidden from ann
    // until she labelled the row, however it arrives.
    store.cleo_labels("k-002", "5", "cleo on k-002");
    // Written after it: once this shows, the check that read k-002's has
    // been taken too.
    store.cleo_labels("k-006", "2", "cleo on k-006");
    let screen = wait_for(
        &ann.name,
        "cleo's later label on k-006 in ann's list",
        |s| list_line(s, "k-006").contains('H'),
    )
    .await;
    eprintln!("--- {backend}: ann on k-002 before labelling ---\n{screen}");
    assert!(
        !screen.contains("cleo"),
        "cleo's label on an item assigned to ann shows before ann labelled:\n{screen}"
    );
    assert!(
        !list_line(&screen, "k-002").contains('H'),
        "{}",
        list_line(&screen, "k-002")
    );
    ann.keys(&["Tab", "Tab", "3"]);
    wait_for(&ann.name, "cleo's label after ann's own", |s| {
        s.contains("others: cleo 5")
    })
    .await;
    // The focus moved on to the next row; back on the labelled one, its
    // notes show in full, cleo's too.
    ann.keys(&["k"]);
    let screen = wait_for(&ann.name, "cleo's note after ann's label", |s| {
        focused(s) == "work-pers" && s.contains("cleo on k-002")
    })
    .await;
    eprintln!("--- {backend}: ann on k-002 after labelling ---\n{screen}");

    // Back to the list and on to k-001, assigned to no one: cleo labels the
    // row ann has in front of her, from another process, and it shows.
    ann.keys(&["Tab", "j"]);
    wait_for(&ann.name, "ann's workbench on k-001", |s| {
        s.contains("│k-001 · ") && focused(s) == "work-pers"
    })
    .await;
    store.cleo_labels("k-001", "4", "cleo says work, live");
    let t0 = Instant::now();
    let screen = wait_for(&ann.name, "cleo's label and note on ann's screen", |s| {
        s.contains("cleo 4") && s.contains("cleo says work, live")
    })
    .await;
    eprintln!(
        "--- {backend}: cleo's label shown after {} ms ---\n{screen}",
        t0.elapsed().as_millis()
    );
    ann.keys(&["q"]);
    wait_gone(&ann.name).await;
    let ann_k2 = store.labels_by("ann", "k-002");
    assert_eq!(ann_k2.len(), 1, "{ann_k2:?}");
    assert_eq!(ann_k2[0].key.classification_id, "work-pers");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn others_labels_appear_live_on_sqlite() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    others_labels_appear_while_open(TestStore::sqlite(), "sqlite").await;
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn others_labels_appear_live_on_postgres() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let Some(store) = TestStore::postgres() else {
        return;
    };
    others_labels_appear_while_open(store, "postgres").await;
}
