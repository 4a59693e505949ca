//! Verdicts imported from another tool (issue #34 §1) show in the verdict
//! pane like a run's, with where they came from (the run's origin).
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

#[test]
fn an_imported_verdict_shows_in_the_pane_with_its_source() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = sample_store(&dir.path().join("j.db"));
    let csv = dir.path().join("theirs.csv");
    std::fs::write(
        &csv,
        "judge,item_id,classification_id,perspective_id,persona_id,value,confidence,text\n\
         their-tool,k-001,urgency,classification,kenton,4,0.81,a deadline from a key account\n",
    )
    .unwrap();
    let report = jury::import::import_paths(&mut store, &[csv], false, "tester").unwrap();
    assert_eq!(report.verdicts.verdicts(), 1);
    // The source is the run's origin; the verdict names no server.
    let v = store.verdicts_for_item("k-001").unwrap();
    assert!(v.iter().all(|v| v.server.is_none()), "{v:?}");
    let mut app = app_with(jury::tui::load(&store).unwrap());
    for w in [160, 80] {
        app.chrome.size = (w, 32);
        let shown = screen(&app);
        let lines: Vec<&str> = shown.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains("J 4 conf 0.81"))
            .unwrap_or_else(|| panic!("no verdict row at {w} columns:\n{shown}"));
        // At 160 columns on the value's row; at 80 wrapped onto the next two.
        let rows = if w == 160 { 1 } else { 3 };
        let pane: String = lines[at..at + rows]
            .iter()
            .map(|l| l.rsplit('│').nth(1).unwrap_or(l).trim().to_string())
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            pane.contains("J 4 conf 0.81 · their-tool, from theirs.csv"),
            "at {w} columns: {pane}\n{shown}"
        );
        assert!(shown.contains("a deadline from a key"), "{shown}");
    }
}
