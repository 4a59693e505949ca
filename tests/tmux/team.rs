//! Blind double-coding on the real binary: ann and ben, both assigned
//! k-001 by `jury assign --overlap 2`, label it one after the other on one
//! SQLite store; ben does not see ann's label until he has labelled.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

fn jury_as(who: &str, db: &std::path::Path) -> String {
    format!(
        "exec env -u OPENAI_API_KEY JURY_CONFIG=/nonexistent/config.toml JURY_USER={who} {} tui --db {}",
        env!("CARGO_BIN_EXE_jury"),
        db.display()
    )
}

fn by(db: &std::path::Path, who: &str) -> Vec<jury::domain::Label> {
    let s = jury::store::Store::open(db).unwrap();
    s.labels_for_item("k-001")
        .unwrap()
        .into_iter()
        .filter(|l| l.who == who)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ben_sees_anns_label_only_after_his_own() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("team.db");
    let jury = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_jury"))
            .args(args)
            .env("JURY_DB", &db)
            .env("JURY_CONFIG", "/nonexistent/config.toml")
            .env("JURY_USER", "lead")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    jury(&[
        "import",
        concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data"),
    ]);
    let said = jury(&[
        "assign",
        "--who",
        "ann,ben",
        "--overlap",
        "2",
        "--items",
        "k-001",
    ]);
    assert!(said.contains("assigned 1 items to 2 people each"), "{said}");

    let ann = Session::start_cmd(
        &format!("jury-ann-{}", std::process::id()),
        &jury_as("ann", &db),
    );
    wait_for(&ann.name, "ann's workbench", |x| {
        x.contains("assigned to you")
    })
    .await;
    ann.hide_legend().await;
    ann.keys(&["Tab", "Tab", "2"]);
    wait_for(&ann.name, "ann's label", |_| !by(&db, "ann").is_empty()).await;
    ann.keys(&["q"]);
    wait_gone(&ann.name).await;
    let row = by(&db, "ann")[0].key.classification_id.clone();

    let ben = Session::start_cmd(
        &format!("jury-ben-{}", std::process::id()),
        &jury_as("ben", &db),
    );
    let screen = wait_for(&ben.name, "ben's workbench", |x| {
        x.contains("assigned to you")
    })
    .await;
    eprintln!("--- ben before labelling ---\n{screen}");
    assert!(screen.contains("│k-001 · "), "{screen}");
    assert!(
        !screen.contains("ann"),
        "ann's label shows before ben labelled:\n{screen}"
    );
    assert_eq!(focused(&screen), row, "{screen}");
    ben.hide_legend().await;
    ben.keys(&["Tab", "Tab", "4"]);
    let screen = wait_for(&ben.name, "ann's label after ben's", |x| {
        x.contains("others: ann 2")
    })
    .await;
    eprintln!("--- ben after labelling ---\n{screen}");
    ben.keys(&["q"]);
    wait_gone(&ben.name).await;
    assert_eq!(by(&db, "ben").len(), 1);
}
