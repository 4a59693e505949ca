//! The active order's draws on PostgreSQL (issue #33): a team role records
//! its draws (`label_samples`, `how = 'active'`) through jury's store, a
//! second draw of the same order adds to the count, they read back as
//! written, and row-level security refuses a draw recorded in another
//! person's name. Skips without `JURY_TEST_POSTGRES_URL`.
#![cfg(feature = "postgres")]

use jury::domain::ComboKey;
use jury::store::testing::TestDatabase;
use jury::store::{ActiveDraw, Store};

#[test]
fn a_team_role_records_its_active_draws_and_reads_them_back() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let _owner = db.store();
    let alice = db.login_role("alice", &["jury_annotator"]);
    let mut s = Store::open_postgres(&alice.url).unwrap();
    let k = ComboKey::new("k-1", "urgency", "classification");
    let d = ActiveDraw {
        seed: Some(1),
        p: 0.0123456789,
        draw: Some(3),
        draws: 1,
    };
    s.mark_active(&k, "kenton", &alice.name, &d).unwrap();
    // Drawn again later in the same order: the count grows, the first draw stays.
    s.mark_active(
        &k,
        "kenton",
        &alice.name,
        &ActiveDraw { draw: Some(9), ..d },
    )
    .unwrap();
    let got = s.active_labels().unwrap();
    assert_eq!(
        got.get(&(k.clone(), "kenton".to_string(), alice.name.clone())),
        Some(&ActiveDraw { draws: 2, ..d })
    );
    // Read by the owner too (what jury estimate reads).
    assert_eq!(db.store().active_labels().unwrap().len(), 1);
    // In someone else's name: refused by row-level security.
    assert!(s.mark_active(&k, "kenton", "bob", &d).is_err());
}
