//! `jury run --batch` on a terminal, in tmux: Ctrl-C while it waits for its
//! batch asks whether to cancel the batch on the server or leave it
//! running, and does what the answer says. Skips (with a note) when tmux is
//! missing.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

use jury::testserver::{BatchApi, BatchScript, Reply, TestServer};
use std::time::Duration;

/// `jury run --batch` over three sample items, then how it exited, under
/// the pane's shell.
fn batch_run(db: &std::path::Path, base_url: &str) -> String {
    let jury = env!("CARGO_BIN_EXE_jury");
    format!(
        "env -u OPENAI_API_KEY OPENAI_BASE_URL={base_url} JURY_CONFIG=/nonexistent/config.toml JURY_USER=tester \
         {jury} run --db {db} --persona kenton --perspective classification --mode 1 --items k-001,k-002,k-003 \
         --batch-size 2 --batch --batch-poll 1; echo \"jury exited $?\"; sleep 120",
        db = db.display()
    )
}

/// Ctrl-C, then `c`: the batch is cancelled on the server; Ctrl-C, then
/// Enter: it is left running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_on_a_terminal_asks_whether_to_cancel_the_batch() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    for (answer, cancelled) in [("c", true), ("", false)] {
        let api = BatchApi::new(
            BatchScript {
                polls_in_progress: 100_000,
                ..BatchScript::default()
            },
            |r| jury::testserver::demo_judge::reply(r, Duration::ZERO),
        );
        let a = api.clone();
        let server =
            TestServer::start(move |r: &jury::testserver::RecordedRequest| -> Reply { a.reply(r) })
                .await
                .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("batch.db");
        let imported = std::process::Command::new(env!("CARGO_BIN_EXE_jury"))
            .args(["import", "--db", db.to_str().unwrap()])
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data"))
            .env("JURY_CONFIG", "/nonexistent/config.toml")
            .output()
            .unwrap();
        assert!(imported.status.success(), "{imported:?}");
        let name = format!("jury-batch-ctrl-c-{}", std::process::id());
        let s = Session::start_cmd(&name, &batch_run(&db, &server.base_url()));
        wait_for(&s.name, "the batch in progress", |x| {
            x.contains("in_progress")
        })
        .await;
        s.keys(&["C-c"]);
        wait_for(&s.name, "the question", |x| {
            x.contains("cancel the batch on the server (c)")
        })
        .await;
        if !answer.is_empty() {
            s.keys(&[answer]);
        }
        s.keys(&["Enter"]);
        let screen = wait_for(&s.name, "jury's exit", |x| x.contains("jury exited")).await;
        assert!(screen.contains("jury exited 2"), "{screen}");
        let id = api.created().pop().expect("a batch");
        let cancels = server
            .requests()
            .iter()
            .filter(|r| r.method == "POST" && r.path.ends_with("/cancel"))
            .count();
        if cancelled {
            assert_eq!(cancels, 1, "{screen}");
            assert!(
                screen.contains(&format!("{id} cancelled on the server")),
                "{screen}"
            );
        } else {
            assert_eq!(cancels, 0, "{screen}");
            assert!(screen.contains(&format!("{id} left running")), "{screen}");
        }
        drop(s);
    }
}
