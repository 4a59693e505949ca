//! Verdicts imported from another tool (issue #34 §1) show in the verdict
//! pane like a run's, with where they came from.
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
    let mut app = app_with(jury::tui::load(&store).unwrap());
    app.chrome.size = (220, 32);
    let shown = screen(&app);
    assert!(
        shown.contains("J 4 conf 0.81 · their-tool, imported: theirs.csv"),
        "{shown}"
    );
    assert!(shown.contains("a deadline from a key account"), "{shown}");
}
