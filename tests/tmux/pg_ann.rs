//! What the PostgreSQL workbench tests share: the sample data imported into
//! a test database, and ann's workbench opened on it (no judge, no config,
//! the unsaved-labels file under a data directory of the test's own).
#![cfg(all(feature = "tui", feature = "postgres"))]

use crate::tui_tmux_common::*;
use jury::store::testing::TestDatabase;
use std::path::Path;

/// The command that opens ann's workbench on `db`.
pub fn workbench(db: &TestDatabase, data_home: &Path) -> String {
    format!(
        "exec env -u OPENAI_API_KEY XDG_DATA_HOME={} JURY_CONFIG=/nonexistent/config.toml JURY_USER=ann {} tui --db '{}'",
        data_home.display(),
        env!("CARGO_BIN_EXE_jury"),
        db.url
    )
}

/// `jury import sample-data` into `db`.
pub fn import_sample(db: &TestDatabase, data_home: &Path) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_jury"))
        .args([
            "import",
            concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data"),
        ])
        .env("JURY_DB", &db.url)
        .env("JURY_CONFIG", "/nonexistent/config.toml")
        .env("XDG_DATA_HOME", data_home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The sample data imported into `db`, with a temporary directory whose
/// `xdg-data` (not made yet: jury makes it when it keeps a label) is the
/// data directory the workbench gets.
pub fn sample_in(db: &TestDatabase) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let data_home = dir.path().join("xdg-data");
    import_sample(db, &data_home);
    (dir, data_home)
}

/// ann's workbench opened on k-001's first row, a 4 given there and shown
/// saved. The session is named `jury-<tag>-<pid>`.
pub async fn ann_labels_k001(db: &TestDatabase, data_home: &Path, tag: &str) -> Session {
    let name = format!("jury-{tag}-{}", std::process::id());
    let ann = Session::start_cmd(&name, &workbench(db, data_home));
    wait_for(&ann.name, "the workbench on k-001", |s| {
        s.contains("│k-001 · ") && focused(s) == "work-pers"
    })
    .await;
    ann.keys(&["Tab", "Tab", "4"]);
    wait_for(&ann.name, "the label saved", |s| s.contains("H 4 ✓saved")).await;
    ann
}
