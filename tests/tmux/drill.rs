//! Search and drill-down end to end on the real binary: a typed search term
//! narrows the list; in the agreement view, tab and Enter on a matrix cell
//! list its items, Esc comes back, a second Esc shows the full list. Skips
//! (with a note) when tmux is missing.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

use jury::domain::*;

/// The sample workspace with a mode 2 run on every labelled row.
fn workspace(db: &std::path::Path) {
    let mut store = jury::store::Store::open(db).unwrap();
    jury::import::import_sample(&mut store, "me").unwrap();
    let spec = RunSpec {
        protocol: Protocol::Awag,
        mode: Some(Mode::Two),
        persona_id: "kenton".into(),
        perspective_ids: vec!["classification".into()],
        model: "demo".into(),
        prompt_hash: "h".into(),
        record: None,
    };
    let run = store.create_run(&spec, 0).unwrap();
    let mut ids: Vec<String> = store.labelled_item_ids().unwrap().into_iter().collect();
    ids.sort();
    let mut vs = Vec::new();
    for (n, id) in ids.iter().enumerate() {
        for l in store.labels_for_item(id).unwrap() {
            vs.push(Verdict {
                run_id: run,
                key: l.key.clone(),
                persona_id: l.persona_id.clone(),
                protocol: Protocol::Awag,
                mode: Some(Mode::Two),
                model: "demo".into(),
                value: Value::Likert((n % 5 + 1) as u8),
                text: "ok".into(),
                evaluated_selection: None,
                selection_mismatch: false,
                latency_ms: 900,
                tokens: 10,
                raw: String::new(),
                created_at: "2026-11-24T00:00:00Z".into(),
                position: None,
                confidence: None,
                server: None,
            });
        }
    }
    store.insert_verdicts(&vs).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_terms_and_agreement_cell_to_items_and_back() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("drill.db");
    workspace(&db);
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
