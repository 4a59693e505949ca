//! Adjudication on the real binary in tmux (160×45): the sample data holds
//! nine items whose rows alice and bob disagree on (AwAg and protocol
//! rows); the "to adjudicate" filter lists them, `=` then `4` gives k-014's urgency its reference label, stored as
//! an adjudication by `tester` (no label of tester's), and the row says so.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adjudicating_a_disagreement_on_the_real_binary() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let db = dir.path().join("adjudicate.db");
    let name = format!("jury-adjudicate-{}", std::process::id());
    let s = Session::start_with_config(&name, &db, &config);
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    // The queue is the last filter: one `F` back from "all".
    s.keys(&["F"]);
    let screen = wait_for(&s.name, "the adjudication queue", |x| {
        x.contains("filter: to adjudicate (9 of 94 items)")
    })
    .await;
    eprintln!("--- to adjudicate ---\n{screen}");
    assert!(screen.contains("k-014"), "{screen}");
    // k-014's urgency row: alice said 3, bob 4 (undecided against agree).
    for _ in 0..4 {
        if focused(&capture(&s.name)) == "urgency" {
            break;
        }
        s.keys(&["]"]);
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let screen = wait_for(&s.name, "the disputed row focused", |x| {
        focused(x) == "urgency" && x.contains("⚖ to adjudicate")
    })
    .await;
    assert!(screen.contains("others: alice 3 · bob 4"), "{screen}");
    s.keys(&["="]);
    wait_for(&s.name, "adjudicating", |x| {
        x.contains("adjudicate urgency · k-014: press the reference label (1–5)")
    })
    .await;
    s.keys(&["4"]);
    let screen = wait_for(&s.name, "the reference label on the row", |x| {
        x.contains("adjudicated urgency · k-014 as 4") && x.contains("⚖ ref 4 (tester)")
    })
    .await;
    eprintln!("--- adjudicated ---\n{screen}");
    let stored = || {
        jury::store::Store::open(&db)
            .unwrap()
            .adjudications()
            .unwrap()
    };
    wait_for(&s.name, "the adjudication stored", |_| stored().len() == 1).await;
    let a = &stored()[0];
    assert_eq!(
        (
            a.key.item_id.as_str(),
            a.key.classification_id.as_str(),
            a.who.as_str()
        ),
        ("k-014", "urgency", "tester")
    );
    assert_eq!(a.value, jury::domain::Value::Likert(4));
    assert!(labels(&db, "k-014").is_empty(), "no label of tester's");
}
