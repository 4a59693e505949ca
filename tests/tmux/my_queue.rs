//! My queue on the real binary in tmux (160×45): `auto_advance` from
//! config.toml walks the rows of an item and on to the next item that needs
//! me, `u` goes back to the item it undid, the "not labelled by me" filter
//! and a negated search term; a bad `auto_advance` names file, line and key.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn item_mode_walks_the_rows_then_the_next_item_and_u_comes_back() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "auto_advance = \"item\"\n").unwrap();
    let db = dir.path().join("queue.db");
    let name = format!("jury-queue-{}", std::process::id());
    let s = Session::start_with_config(&name, &db, &config);
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    s.hide_legend().await;
    s.keys(&["Tab", "Tab"]);
    // k-001's five classification rows, one label each: the focus walks
    // down them, then moves on to the next item without my label.
    let rows = [
        "work-pers",
        "urgency",
        "work-logistics",
        "football",
        "interested",
    ];
    for (i, row) in rows.iter().enumerate() {
        wait_for(&s.name, row, |x| focused(x) == *row).await;
        s.keys(&[&(i % 5 + 1).to_string()]);
    }
    let screen = wait_for(&s.name, "the next item", |x| {
        x.contains("next item without your label: k-002") && focused(x) == "work-pers"
    })
    .await;
    eprintln!("--- after k-001's last row ---\n{screen}");
    assert!(screen.contains("│k-002 · sms"), "{screen}");
    assert!(screen.contains("1/94 labelled by me"), "{screen}");
    wait_for(&s.name, "the labels saved", |_| {
        labels(&db, "k-001").len() == 5
    })
    .await;
    // Undo: back on k-001, its last row, and said so.
    s.keys(&["u"]);
    let screen = wait_for(&s.name, "the undo", |x| {
        x.contains("undone: interested · k-001 5 → no label · now showing k-001")
    })
    .await;
    eprintln!("--- after u ---\n{screen}");
    assert!(screen.contains("│k-001 · email"), "{screen}");
    assert_eq!(focused(&screen), "interested", "{screen}");
    assert!(screen.contains("0/94 labelled by me"), "{screen}");
    // What is left for me, less what alice labelled.
    s.keys(&["f", "f", "f", "f", "f"]);
    wait_for(&s.name, "the filter", |x| {
        x.contains("filter: not labelled by me (94 of 94 items)")
            && x.contains("items 94/94 · not labelled by me")
    })
    .await;
    s.keys(&["/"]);
    s.keys(&["-l", "--", "-by:alice"]);
    s.keys(&["Enter"]);
    let screen = wait_for(&s.name, "the negated term", |x| {
        x.contains("· -by:alice") && !x.contains("items 94/94")
    })
    .await;
    eprintln!("--- not labelled by me, -by:alice ---\n{screen}");
    s.keys(&["q"]);
    wait_gone(&s.name).await;
    assert_eq!(labels(&db, "k-001").len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn row_mode_walks_the_rows_and_stays_on_the_item() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("row.db");
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "auto_advance = \"row\"\n").unwrap();
    let name = format!("jury-row-{}", std::process::id());
    let s = Session::start_with_config(&name, &db, &config);
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    s.hide_legend().await;
    s.keys(&["Tab", "Tab"]);
    for _ in 0..5 {
        s.keys(&["2"]);
    }
    wait_for(&s.name, "five labels", |_| labels(&db, "k-001").len() == 5).await;
    // One more: relabels the last row; the focus stays there, on k-001.
    s.keys(&["4"]);
    let screen = wait_for(&s.name, "the relabel", |x| x.contains("H 4 ✓saved")).await;
    eprintln!("--- row mode, the item done ---\n{screen}");
    assert!(screen.contains("│k-001 · email"), "{screen}");
    assert_eq!(focused(&screen), "interested", "{screen}");
    assert!(!screen.contains("next item"), "{screen}");
    s.keys(&["q"]);
    wait_gone(&s.name).await;
}

#[test]
fn a_bad_auto_advance_names_the_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "model = \"m\"\nauto_advance = \"sideways\"\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_jury"))
        .args(["tui", "--db"])
        .arg(dir.path().join("j.db"))
        .env("JURY_CONFIG", &config)
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("config.toml: line 2, column 16: auto_advance: unknown variant")
            && err.contains("expected one of `row`, `item`, `off`"),
        "{err}"
    );
    assert!(!err.contains("sideways"), "the value is not echoed: {err}");
}
