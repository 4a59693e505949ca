//! Search and drill-down end to end on the real binary: a typed search term
//! narrows the list; in the agreement view, tab and Enter on a matrix cell
//! list its items, Esc comes back, a second Esc shows the full list. Skips
//! (with a note) when tmux is missing.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_terms_and_agreement_cell_to_items_and_back() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("drill.db");
    jury::tui::fixtures::judged_sample(&db);
    let name = format!("jury-drill-{}", std::process::id());
    // No judge is asked in this test: the endpoint is never reached.
    let s = Session::start(&name, &db, "http://127.0.0.1:9/v1");
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;

    // A typed term, then a bad one: named under the field, no panic.
    s.keys(&["/"]);
    s.keys(&["-l", "urgency=urgent"]);
    let screen = wait_for(&s.name, "the term in the list border", |x| {
        x.contains("labelled by me · urgency=urgent")
    })
    .await;
    assert!(!screen.contains("items 94/94"), "{screen}");
    s.keys(&["-l", " urgenc=x"]);
    wait_for(&s.name, "the bad term named", |x| {
        x.contains("no classification \"urgenc\"")
    })
    .await;
    // Clear the field and close it: the full list again.
    for _ in 0..30 {
        s.keys(&["BSpace"]);
    }
    s.keys(&["Enter"]);
    wait_for(&s.name, "the full list", |x| x.contains("items 94/94")).await;

    // The agreement view: figures, then into the matrix, Enter on a cell.
    s.keys(&["A"]);
    wait_for(&s.name, "the figures", |x| x.contains("confusion: rows")).await;
    s.keys(&["Tab"]);
    wait_for(&s.name, "a selected cell", |x| {
        x.contains("enter lists the items of this cell")
    })
    .await;
    s.keys(&["Enter"]);
    let screen = wait_for(&s.name, "the cell's items", |x| x.contains(" pairs: ")).await;
    eprintln!("--- the cell's items ---\n{screen}");
    assert!(!screen.contains("items 94/94"), "{screen}");
    // Esc: the agreement view with the cell still selected; Esc: all items.
    s.keys(&["Escape"]);
    wait_for(&s.name, "back in the agreement view", |x| {
        x.contains("enter lists the items of this cell")
    })
    .await;
    s.keys(&["Escape"]);
    let screen = wait_for(&s.name, "the full list", |x| {
        x.contains("items 94/94") && !x.contains(" pairs: ")
    })
    .await;
    assert!(alive(&s.name), "{screen}");
}
