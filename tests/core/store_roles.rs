//! Who may write what on a team's PostgreSQL store (issue 32 §2, migration
//! 21): a person is their database role; row-level security lets a role
//! write only its own labels, notes, marks and tags, whether it goes
//! through jury's store or sends SQL by hand; only `jury_adjudicator`
//! members add adjudications; the owner keeps naming anyone. Each test
//! makes LOGIN roles of its own (named after its database, dropped after)
//! on the server `JURY_TEST_POSTGRES_URL` names; without one it says it
//! skipped, and fails under `JURY_REQUIRE_POSTGRES=1`.
#![cfg(feature = "postgres")]

use jury::domain::{Adjudication, ComboKey, Label, MarkKind, Scale, Value};
use jury::store::testing::{TestDatabase, TestRole};
use jury::store::{MarkEventKind, MarkSlot, Store};

fn key(item: &str) -> ComboKey {
    ComboKey::new(item, "urgency", "classification")
}

fn label(item: &str, who: &str, v: u8) -> Label {
    Label {
        key: key(item),
        persona_id: "kenton".into(),
        value: Value::Likert(v),
        note: format!("{v} by {who}"),
        who: who.into(),
        created_at: jury::store::now(),
        replaced_judge_value: None,
        blind: false,
        tags: vec!["persona-misread".into()],
    }
}

fn adjudication(item: &str, who: &str, v: u8) -> Adjudication {
    Adjudication {
        key: key(item),
        persona_id: "kenton".into(),
        value: Value::Likert(v),
        note: format!("settled by {who}"),
        who: who.into(),
        created_at: jury::store::now(),
    }
}

/// The store as `role`, through jury (migrations are the owner's: done).
fn open_as(role: &TestRole) -> Store {
    Store::open_postgres(&role.url).unwrap_or_else(|e| panic!("jury's store as {}: {e}", role.name))
}

/// The plain PostgreSQL client as `role`: SQL by hand, no jury in between.
fn client_as(role: &TestRole) -> postgres::Client {
    postgres::Client::connect(&role.url, postgres::NoTls)
        .unwrap_or_else(|e| panic!("psql-like client as {}: {e}", role.name))
}

/// A statement the server must refuse for lack of privilege (a table not
/// granted, or a row-level security policy).
fn refused(result: Result<u64, postgres::Error>, what: &str) {
    match result {
        Ok(n) => panic!("{what}: accepted ({n} rows)"),
        Err(e) => assert_eq!(
            e.code(),
            Some(&postgres::error::SqlState::INSUFFICIENT_PRIVILEGE),
            "{what}: {e}"
        ),
    }
}

/// A statement that runs but may touch no row (row-level security hides
/// the others' rows from UPDATE and DELETE).
fn touches_nothing(result: Result<u64, postgres::Error>, what: &str) {
    assert_eq!(
        result.unwrap_or_else(|e| panic!("{what}: {e}")),
        0,
        "{what}"
    );
}

#[test]
fn a_team_role_writes_only_its_own_labels_notes_marks_and_tags_through_jury() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let owner = db.store();
    let alice = db.login_role("alice", &["jury_annotator"]);
    let bob = db.login_role("bob", &["jury_annotator"]);
    let mut as_alice = open_as(&alice);
    let mut as_bob = open_as(&bob);
    let role = as_bob.connected_role().unwrap().unwrap();
    assert_eq!(role.name, bob.name);
    assert!(!role.administers, "an annotator is bound by the policies");
    assert!(owner.connected_role().unwrap().unwrap().administers);

    let hers = label("k-1", &alice.name, 4);
    as_alice.upsert_label(&hers).unwrap();
    as_alice
        .record_mark(
            &MarkSlot {
                key: key("k-2"),
                persona_id: "kenton".into(),
                who: alice.name.clone(),
            },
            Some((MarkKind::Unsure, "sarcasm?")),
            "t1",
            MarkEventKind::Mark,
        )
        .unwrap();
    as_alice
        .mark_sampled(&key("k-1"), "kenton", &alice.name, Some(7))
        .unwrap();
    as_alice.save_workbench_session(&alice.name, "{}").unwrap();

    // Bob, through jury, under alice's name: every write is refused or
    // finds nothing to change.
    let e = as_bob
        .upsert_label(&label("k-1", &alice.name, 1))
        .unwrap_err()
        .to_string();
    assert!(e.contains("row-level security"), "{e}");
    assert!(e.contains("writes only its own labels"), "{e}");
    assert!(
        !as_bob
            .set_label_note(
                &key("k-1"),
                "kenton",
                &alice.name,
                Scale::Likert,
                "bob's words"
            )
            .unwrap(),
        "bob changed alice's note"
    );
    let slot = MarkSlot {
        key: key("k-2"),
        persona_id: "kenton".into(),
        who: alice.name.clone(),
    };
    assert!(
        as_bob
            .record_mark(&slot, None, "t2", MarkEventKind::Mark)
            .is_err()
    );
    assert!(
        as_bob
            .save_workbench_session(&alice.name, "{\"bob\":1}")
            .is_err()
    );
    // His own label, note, mark and tags are his to write.
    as_bob.upsert_label(&label("k-1", &bob.name, 2)).unwrap();
    assert!(
        as_bob
            .set_label_note(&key("k-1"), "kenton", &bob.name, Scale::Likert, "mine")
            .unwrap()
    );

    // Alice's label stands as she gave it (read by the owner).
    let stored = owner.labels_for_item("k-1").unwrap();
    let theirs: Vec<_> = stored.iter().filter(|l| l.who == alice.name).collect();
    assert_eq!(theirs, vec![&hers]);
    assert_eq!(owner.current_marks().unwrap().len(), 1);
    assert_eq!(
        owner.workbench_session(&alice.name).unwrap().as_deref(),
        Some("{}")
    );
    // Reading is not restricted: a team role copies the whole store out.
    let mut archive = Store::open_in_memory().unwrap();
    let copied = as_bob.copy_into(&mut archive).unwrap();
    let labels = copied.iter().find(|t| t.table == "labels").unwrap();
    assert_eq!(labels.rows, 2);
}

/// The test the issue asks for: bob sends, by hand, the very statements
/// jury sends (and a few it never does) against alice's rows.
#[test]
fn bob_cannot_overwrite_alices_label_even_with_the_sql_jury_sends() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let owner = db.store();
    let alice = db.login_role("alice", &["jury_annotator"]);
    let bob = db.login_role("bob", &["jury_annotator"]);
    let hers = label("k-1", &alice.name, 4);
    open_as(&alice).upsert_label(&hers).unwrap();
    open_as(&bob)
        .upsert_label(&label("k-1", &bob.name, 2))
        .unwrap();

    let mut sql = client_as(&bob);
    let upsert = jury::store::db::translate::placeholders(jury::store::UPSERT_LABEL);
    let (a, b) = (alice.name.as_str(), bob.name.as_str());
    let row = |who: &str| {
        (
            who.to_string(),
            jury::store::now(),
            vec!["k-1", "urgency", "classification", "kenton"],
        )
    };
    let (who, at, k) = row(a);
    let none: Option<&str> = None;
    refused(
        sql.execute(
            upsert.as_str(),
            &[
                &k[0], &k[1], &k[2], &k[3], &who, &"likert", &"1", &"bob's", &none, &at, &0i64, &"",
            ],
        ),
        "jury's upsert under alice's name",
    );
    refused(
        sql.execute(
            "INSERT INTO labels (item_id, classification_id, perspective_id, persona_id, who, scale, value, created_at)
             VALUES ('k-9', 'urgency', 'classification', 'kenton', $1, 'likert', '1', 'now')",
            &[&a],
        ),
        "a new label under alice's name",
    );
    touches_nothing(
        sql.execute(
            "UPDATE labels SET value = '1', note = 'bob' WHERE who = $1",
            &[&a],
        ),
        "UPDATE of alice's label",
    );
    touches_nothing(
        sql.execute("UPDATE labels SET who = $2 WHERE who = $1", &[&a, &b]),
        "taking alice's label as his",
    );
    touches_nothing(
        sql.execute("DELETE FROM labels WHERE who = $1", &[&a]),
        "DELETE of alice's label",
    );
    refused(
        sql.execute("UPDATE labels SET who = $1 WHERE who = $2", &[&a, &b]),
        "giving his label alice's name",
    );
    refused(
        sql.execute(
            "INSERT INTO label_events (item_id, classification_id, perspective_id, persona_id, who, scale, value, created_at, kind)
             VALUES ('k-1', 'urgency', 'classification', 'kenton', $1, 'likert', '1', 'now', 'set')",
            &[&a],
        ),
        "a history event under alice's name",
    );
    refused(
        sql.execute("DELETE FROM label_events WHERE who = $1", &[&a]),
        "erasing alice's history (append-only: not granted)",
    );
    refused(
        sql.execute(
            "INSERT INTO row_marks (item_id, classification_id, perspective_id, persona_id, who, mark, created_at, kind)
             VALUES ('k-1', 'urgency', 'classification', 'kenton', $1, 'skip', 'now', 'mark')",
            &[&a],
        ),
        "a mark under alice's name",
    );
    refused(
        sql.execute("INSERT INTO items (id, title, text, source_type, source_originator, source_channel, tags, position) VALUES ('x', 't', 't', 's', 'o', 'c', '[]', 0)", &[]),
        "an item (the owner imports)",
    );
    refused(
        sql.execute(
            "INSERT INTO adjudications (item_id, classification_id, perspective_id, persona_id, scale, value, who, created_at, kind)
             VALUES ('k-1', 'urgency', 'classification', 'kenton', 'likert', '2', $1, 'now', 'set')",
            &[&b],
        ),
        "an adjudication by an annotator",
    );
    drop(sql);

    let stored = owner.labels_for_item("k-1").unwrap();
    let theirs: Vec<_> = stored.iter().filter(|l| l.who == alice.name).collect();
    assert_eq!(theirs, vec![&hers], "alice's label as she gave it");
    let history = owner.label_history(&key("k-1")).unwrap();
    assert_eq!(
        history.iter().filter(|e| e.slot.who == alice.name).count(),
        1
    );
}

#[test]
fn only_an_adjudicator_adds_adjudications_and_under_its_own_name() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let owner = db.store();
    let bob = db.login_role("bob", &["jury_annotator"]);
    let carol = db.login_role("carol", &["jury_adjudicator"]);
    let dan = db.login_role("dan", &["jury_adjudicator"]);
    let e = open_as(&bob)
        .adjudicate(&adjudication("k-1", &bob.name, 2))
        .unwrap_err()
        .to_string();
    assert!(e.contains("permission denied"), "{e}");

    let mut as_carol = open_as(&carol);
    let hers = adjudication("k-1", &carol.name, 2);
    as_carol.adjudicate(&hers).unwrap();
    assert!(
        as_carol
            .adjudicate(&adjudication("k-1", &dan.name, 5))
            .is_err(),
        "carol adjudicated under dan's name"
    );
    // An adjudicator is an annotator too: she labels as herself.
    as_carol
        .upsert_label(&label("k-1", &carol.name, 3))
        .unwrap();

    // Dan replaces her adjudication, then undoes it: hers comes back under
    // her name (the one case where a row names someone else: a value and
    // note she really gave on that slot).
    let mut as_dan = open_as(&dan);
    let his = adjudication("k-1", &dan.name, 5);
    as_dan.adjudicate(&his).unwrap();
    as_dan
        .undo_adjudication(&his, Some(&hers), &jury::store::now())
        .unwrap();
    let back = owner.adjudications().unwrap();
    assert_eq!(back.len(), 1);
    assert_eq!(
        (back[0].who.as_str(), back[0].value),
        (carol.name.as_str(), Value::Likert(2))
    );

    // By hand, an "undo" under carol's name with a value she never gave.
    let mut sql = client_as(&dan);
    refused(
        sql.execute(
            "INSERT INTO adjudications (item_id, classification_id, perspective_id, persona_id, scale, value, note, who, created_at, kind)
             VALUES ('k-1', 'urgency', 'classification', 'kenton', 'likert', '1', $2, $1, 'now', 'undo')",
            &[&carol.name, &hers.note],
        ),
        "an undo inventing carol's adjudication",
    );
}

/// The owner is not bound by the policies (RLS enabled, not FORCEd): it
/// migrates, and imports labels under other people's names. A team role
/// opens the owner's store without migrating anything.
#[test]
fn the_owner_migrates_and_names_anyone_and_a_team_role_only_reads_the_version() {
    let Some(warm) = TestDatabase::create() else {
        return;
    };
    // The group roles exist once any store was migrated by a superuser:
    // the owner below may not create roles.
    drop(warm.store());
    let db = TestDatabase::create().expect("the same server");
    let owner_role = db.login_role("owner", &[]);
    db.give_to(&owner_role);
    let mut as_owner = open_as(&owner_role);
    assert_eq!(
        as_owner.schema_version().unwrap(),
        jury::store::SCHEMA_VERSION
    );
    let role = as_owner.connected_role().unwrap().unwrap();
    assert!(role.administers, "the tables' owner administers the store");
    as_owner
        .upsert_label(&label("k-1", "imported-alice", 3))
        .unwrap();

    let alice = db.login_role("alice", &["jury_annotator"]);
    let as_alice = open_as(&alice);
    assert_eq!(
        as_alice.schema_version().unwrap(),
        jury::store::SCHEMA_VERSION
    );
    assert_eq!(as_alice.labels_for_item("k-1").unwrap().len(), 1);
    drop((as_alice, as_owner));
}

/// Migrations are the owner's: a team role opening a store of an older
/// version, or one it was never granted, is told why and by whom it can be
/// helped, and the store is left as it was.
#[test]
fn a_team_role_does_not_migrate_and_says_who_can() {
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let owner = db.store();
    let bob = db.login_role("bob", &["jury_annotator"]);
    let stranger = db.login_role("stranger", &[]);
    let e = Store::open_postgres(&stranger.url).unwrap_err().to_string();
    assert!(e.contains("may not read"), "{e}");
    assert!(e.contains("member of jury_annotator"), "{e}");

    let mut sql = postgres::Client::connect(&db.url, postgres::NoTls).unwrap();
    let older = jury::store::SCHEMA_VERSION - 1;
    sql.execute("UPDATE jury_schema SET version = $1", &[&older])
        .unwrap();
    let e = Store::open_postgres(&bob.url).unwrap_err().to_string();
    assert!(
        e.contains(&format!("version {older}")) && e.contains("owner opens it once"),
        "{e}"
    );
    assert!(e.contains(&bob.name), "{e}");
    let still: i64 = sql
        .query_one("SELECT version FROM jury_schema", &[])
        .unwrap()
        .get(0);
    assert_eq!(still, older, "the store was left as it was");
    drop((sql, owner));
}
