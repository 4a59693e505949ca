//! Leases (migration 19): the item a person has open from their queue is
//! theirs until `expires_at`, so the next free person's queue passes over
//! it. A lease ends by time alone (the stored expiry, compared with the
//! caller's clock: no process has to be alive to end it), or when its
//! holder releases it. Plain SQL that SQLite and PostgreSQL both accept.

use super::db::{OptionalExtension, params};
use super::{Result, Store};

/// Who holds an item, and until when (RFC 3339 UTC, as [`super::now`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub item_id: String,
    pub who: String,
    pub expires_at: String,
}

impl Store {
    /// Leases `item` to `who` until `until`, when it is free, its lease
    /// expired by `now`, or `who` holds it already (then it is renewed).
    /// Returns None when taken, else the lease someone else holds.
    pub fn take_lease(
        &mut self,
        item: &str,
        who: &str,
        now: &str,
        until: &str,
    ) -> Result<Option<Lease>> {
        let wait = self.busy_timeout;
        let tx = self.immediate()?;
        // One statement decides: a lease held by another and still running
        // is not overwritten (the WHERE of the upsert), whatever raced it.
        let n = tx.execute(
            "INSERT INTO leases (item_id, who, expires_at) VALUES (?1, ?2, ?3)
             ON CONFLICT (item_id) DO UPDATE SET who = excluded.who, expires_at = excluded.expires_at
             WHERE leases.who = excluded.who OR leases.expires_at <= ?4",
            params![item, who, until, now],
        )?;
        let held = if n == 0 {
            tx.query_row(
                "SELECT item_id, who, expires_at FROM leases WHERE item_id = ?1",
                params![item],
                |r| {
                    Ok(Lease {
                        item_id: r.get(0)?,
                        who: r.get(1)?,
                        expires_at: r.get(2)?,
                    })
                },
            )
            .optional()?
        } else {
            None
        };
        tx.commit().map_err(|e| super::with_wait(e, wait))?;
        Ok(held)
    }

    /// Ends `who`'s lease on `item` (labelled, or they moved on); true when
    /// there was one. Another person's lease is never touched.
    pub fn release_lease(&mut self, item: &str, who: &str) -> Result<bool> {
        let n = self.write_one(
            "DELETE FROM leases WHERE item_id = ?1 AND who = ?2",
            params![item, who],
        )?;
        Ok(n > 0)
    }

    /// The leases other people hold that still run at `now`.
    pub fn leases_of_others(&self, who: &str, now: &str) -> Result<Vec<Lease>> {
        let mut stmt = self.conn.prepare(
            "SELECT item_id, who, expires_at FROM leases
             WHERE who <> ?1 AND expires_at > ?2 ORDER BY item_id",
        )?;
        let rows = stmt.query_map(params![who, now], |r| {
            Ok(Lease {
                item_id: r.get(0)?,
                who: r.get(1)?,
                expires_at: r.get(2)?,
            })
        })?;
        rows.collect::<Result<Vec<_>>>()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::domain::{ComboKey, Label, Value};

    /// Items `ids` into `s`, each with classifications `c1` and `c2`.
    pub(crate) fn fill(s: &mut Store, ids: &[&str]) {
        let cls = |id: &str| crate::domain::Classification {
            id: id.into(),
            description: "d".into(),
            available: vec!["a".into(), "b".into()],
            selected: Some("a".into()),
        };
        let items: Vec<crate::domain::Item> = ids
            .iter()
            .map(|id| crate::domain::Item {
                id: id.to_string(),
                title: "t".into(),
                text: "x".into(),
                classifications: vec![cls("c1"), cls("c2")],
                ..Default::default()
            })
            .collect();
        s.upsert_all(&items, &[], &[], &[]).unwrap();
    }

    pub(crate) fn label(s: &mut Store, item: &str, cls: &str, who: &str) {
        s.upsert_label(&Label {
            key: ComboKey::new(item, cls, "p"),
            persona_id: "x".into(),
            value: Value::Likert(3),
            note: String::new(),
            who: who.into(),
            created_at: crate::store::now(),
            replaced_judge_value: None,
            blind: false,
            tags: Vec::new(),
        })
        .unwrap();
    }

    const T0: &str = "2026-03-01T10:00:00.000Z";
    const T4: &str = "2026-03-01T10:04:00.000Z";
    const T5: &str = "2026-03-01T10:05:00.000Z";
    const T6: &str = "2026-03-01T10:06:00.000Z";
    const T11: &str = "2026-03-01T10:11:00.000Z";

    #[test]
    fn a_running_lease_keeps_others_out_until_it_expires() {
        crate::store::testing::each_backend(|s| {
            crate::store::leases::tests::fill(s, &["a"]);
            assert_eq!(s.take_lease("a", "alice", T0, T5).unwrap(), None);
            // Bob at minute 4: alice's lease runs; he is told whose it is.
            let held = s
                .take_lease("a", "bob", T4, "2026-03-01T10:09:00.000Z")
                .unwrap();
            assert_eq!(
                held,
                Some(Lease {
                    item_id: "a".into(),
                    who: "alice".into(),
                    expires_at: T5.into()
                })
            );
            assert_eq!(s.leases_of_others("bob", T4).unwrap().len(), 1);
            assert!(s.leases_of_others("alice", T4).unwrap().is_empty());
            // At minute 5 the lease has ended by time alone: nothing released it.
            assert!(s.leases_of_others("bob", T5).unwrap().is_empty());
            assert_eq!(s.take_lease("a", "bob", T6, T11).unwrap(), None);
            let held = s.take_lease("a", "alice", T6, T11).unwrap();
            assert_eq!(held.map(|l| l.who), Some("bob".into()));
        });
    }

    #[test]
    fn the_holder_renews_and_releases_and_no_one_else_can_release() {
        crate::store::testing::each_backend(|s| {
            crate::store::leases::tests::fill(s, &["a"]);
            assert_eq!(s.take_lease("a", "alice", T0, T5).unwrap(), None);
            // Renewed by its holder before it ends.
            assert_eq!(s.take_lease("a", "alice", T4, T11).unwrap(), None);
            assert_eq!(s.leases_of_others("bob", T6).unwrap()[0].expires_at, T11);
            assert!(!s.release_lease("a", "bob").unwrap());
            assert_eq!(s.leases_of_others("bob", T6).unwrap().len(), 1);
            assert!(s.release_lease("a", "alice").unwrap());
            assert!(s.leases_of_others("bob", T6).unwrap().is_empty());
            assert_eq!(s.take_lease("a", "bob", T6, T11).unwrap(), None);
        });
    }
}
