//! Migration 18 keeps the labels a store recorded as sampled (with their
//! seed) and adds how a label's combination was chosen: the judge-selected
//! ones, and samples whose seed an import did not give.

use jury::domain::ComboKey;
use jury::store::{SCHEMA_VERSION, Store, migrations};

#[test]
fn a_version_16_stores_sampled_labels_survive_and_judge_selection_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        for sql in &migrations()[..16] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", 16).unwrap();
        conn.execute_batch(
            "INSERT INTO label_samples (item_id, classification_id, perspective_id, persona_id, who, seed, created_at)
               VALUES ('i', 'c', 'classification', 'p', 'ann', 1, '2026-01-01T00:00:00.000Z');",
        )
        .unwrap();
    }
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let key = |item: &str| ComboKey::new(item, "c", "classification");
    let sampled = store.sampled_labels().unwrap();
    assert_eq!(
        sampled.get(&(key("i"), "p".into(), "ann".into())),
        Some(&Some(1))
    );
    // A judge-selected label; a sample without a seed; and a sampled
    // combination given again in the queue stays sampled.
    store
        .mark_judge_selected(&key("j"), "p", "ann", "judge≠human first")
        .unwrap();
    store.mark_sampled(&key("k"), "p", "ann", None).unwrap();
    store
        .mark_judge_selected(&key("i"), "p", "ann", "judge≠human first")
        .unwrap();
    let sampled = store.sampled_labels().unwrap();
    assert_eq!(sampled.len(), 2);
    assert_eq!(
        sampled.get(&(key("k"), "p".into(), "ann".into())),
        Some(&None)
    );
    let judged = store.judge_selected_labels().unwrap();
    assert_eq!(judged.len(), 1);
    assert_eq!(
        judged
            .get(&(key("j"), "p".into(), "ann".into()))
            .map(String::as_str),
        Some("judge≠human first")
    );
}
