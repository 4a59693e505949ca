//! A store written by an older jury opens, migrates to the current schema and
//! keeps what it held: verdicts from before positions were recorded read with
//! no position, labels from before the blind flag read as not blind.

use jury::domain::Value;
use jury::store::{SCHEMA_VERSION, Store, migrations};

#[test]
fn a_version_3_store_migrates_and_keeps_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        for sql in &migrations()[..3] {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", 3).unwrap();
        conn.execute_batch(
            "INSERT INTO runs (id, protocol, mode, persona_id, perspective_ids, model, prompt_hash, params, status, created_at)
               VALUES (1, 'awag', 1, 'p', '[\"classification\"]', 'm', 'h', '{}', 'done', '2026-01-01T00:00:00.000Z');
             INSERT INTO verdicts (run_id, item_id, classification_id, perspective_id, persona_id, protocol, mode, model,
               prompt_hash, scale, value, text, raw, created_at)
               VALUES (1, 'i', 'c', 'classification', 'p', 'awag', 1, 'm', 'h', 'likert', '4', 'old', '{}', '2026-01-01T00:00:00.000Z');
             INSERT INTO labels (item_id, classification_id, perspective_id, persona_id, who, scale, value, created_at)
               VALUES ('i', 'c', 'classification', 'p', 'ann', 'likert', '2', '2026-01-01T00:00:00.000Z');",
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let verdicts = store.verdicts_for_item("i").unwrap();
    assert_eq!(verdicts.len(), 1);
    assert_eq!(verdicts[0].value, Value::Likert(4));
    assert_eq!(verdicts[0].position, None);
    let labels = store.labels_for_item("i").unwrap();
    assert_eq!(labels.len(), 1);
    assert!(!labels[0].blind);
    assert_eq!(labels[0].value, Value::Likert(2));
    // Reopening is a no-op.
    drop(store);
    assert_eq!(
        Store::open(&path).unwrap().schema_version().unwrap(),
        SCHEMA_VERSION
    );
}
