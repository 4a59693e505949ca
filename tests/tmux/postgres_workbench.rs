//! The workbench on PostgreSQL, as a person uses it (issue 32 §1): the
//! sample data imported, a label and a note given, quit, reopened, both
//! still there; then the server ends the session (a restart, a network
//! cut), the next label is refused on the dead session and saved on its
//! own once the writer reconnects (`postgres_faults` stops the server
//! itself, and kills the workbench). Needs `JURY_TEST_POSTGRES_URL`;
//! without it the test says it skipped (a failure under
//! `JURY_REQUIRE_POSTGRES=1`).
#![cfg(all(feature = "tui", feature = "postgres"))]

use super::pg_ann::{ann_labels_k001, sample_in, workbench};
use crate::tui_tmux_common;
use jury::store::testing::TestDatabase;
use tui_tmux_common::*;

fn anns(db: &TestDatabase) -> Vec<jury::domain::Label> {
    let s = jury::store::Store::open_postgres(&db.url).unwrap();
    s.labels_for_item("k-001")
        .unwrap()
        .into_iter()
        .filter(|l| l.who == "ann")
        .collect()
}

/// ann's label values on k-001, sorted.
fn values(db: &TestDatabase) -> Vec<String> {
    let mut v: Vec<String> = anns(db).iter().map(|l| l.value.as_text()).collect();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn label_note_quit_reopen_and_a_label_the_server_refused_is_saved_on_its_own() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let Some(db) = TestDatabase::create() else {
        return;
    };
    // Not made yet: the recovery file's directory must be made when needed.
    let (_dir, data_home) = sample_in(&db);
    let name = format!("jury-pg-wb-{}", std::process::id());

    // A label and its note, then quit.
    let ann = ann_labels_k001(&db, &data_home, "pg-wb").await;
    ann.keys(&["n"]);
    ann.paste("a note kept in PostgreSQL");
    ann.keys(&["Enter"]);
    wait_for(&ann.name, "the note", |s| {
        s.contains("a note kept in PostgreSQL")
    })
    .await;
    ann.keys(&["q"]);
    wait_gone(&ann.name).await;
    let kept = anns(&db);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0].note, "a note kept in PostgreSQL");

    // Reopened: both are there.
    let ann = Session::start_cmd(&name, &workbench(&db, &data_home));
    let screen = wait_for(&ann.name, "the label and note after reopening", |s| {
        s.contains("│k-001 · ") && s.contains("H 4") && s.contains("a note kept in PostgreSQL")
    })
    .await;
    eprintln!("--- reopened ---\n{screen}");

    // A label changed opens the writer's connection (it connects on its
    // first job; the focus starts on the first row, labelled before); then
    // the server ends every session: the next label (on the next row) is
    // refused on the dead session, and saved on its own, without a key,
    // once the writer's new connection answers.
    ann.keys(&["Tab", "Tab", "3"]);
    wait_for(&ann.name, "the changed label in the store", |_| {
        values(&db) == ["3"]
    })
    .await;
    db.end_sessions();
    ann.keys(&["5"]);
    wait_for(&ann.name, "the refused label saved on its own", |s| {
        s.contains("1 kept label(s) saved") && !s.contains("UNSAVED")
    })
    .await;
    assert_eq!(values(&db), ["3", "5"]);
    ann.keys(&["q"]);
    wait_gone(&ann.name).await;
    let five = anns(&db)
        .into_iter()
        .find(|l| l.value.as_text() == "5")
        .unwrap();
    let times = jury::store::Store::open_postgres(&db.url)
        .unwrap()
        .label_history(&five.key)
        .unwrap()
        .into_iter()
        .filter(|e| e.slot.who == "ann" && e.created_at == five.created_at)
        .count();
    assert_eq!(times, 1, "stored once");
}
