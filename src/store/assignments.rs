//! Who is to label which item (`jury assign`, migration 19). An item is
//! given to a person once: assigning it again is a no-op, so a re-run adds
//! only what is new. Plain SQL that SQLite and PostgreSQL both accept
//! (`?N` placeholders, `ON CONFLICT … DO NOTHING`).

use super::db::params;
use super::{Result, Store};
use std::collections::{HashMap, HashSet};

/// One item given to one person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    pub item_id: String,
    pub who: String,
    pub assigned_at: String,
    /// Who ran `jury assign`.
    pub assigned_by: String,
}

/// One person's share of the work, for `jury assign --list`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AssignedWork {
    pub who: String,
    pub assigned: usize,
    /// Assigned items on which the person labelled every classification
    /// (an item without classifications, a protocol input: any label).
    pub labelled: usize,
    pub left: usize,
}

impl Store {
    /// Gives each (item, person) pair, stamped `at` and `by`, in one
    /// transaction; a pair already stored is left as it was. Returns how
    /// many pairs were new.
    pub fn assign(&mut self, pairs: &[(String, String)], at: &str, by: &str) -> Result<usize> {
        let wait = self.busy_timeout;
        let tx = self.immediate()?;
        let mut added = 0;
        {
            let mut stmt = tx.prepare(
                "INSERT INTO assignments (item_id, who, assigned_at, assigned_by)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (item_id, who) DO NOTHING",
            )?;
            for (item, who) in pairs {
                added += stmt.execute(params![item, who, at, by])?;
            }
        }
        tx.commit().map_err(|e| super::with_wait(e, wait))?;
        Ok(added)
    }

    /// Every item's id, in the store's (import) order.
    pub fn item_ids(&self) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare("SELECT id FROM items ORDER BY position, id")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect::<Result<Vec<_>>>()
    }

    /// Every assignment, by person then item.
    pub fn assignments(&self) -> Result<Vec<Assignment>> {
        let mut stmt = self.conn.prepare(
            "SELECT item_id, who, assigned_at, assigned_by FROM assignments ORDER BY who, item_id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(Assignment {
                item_id: r.get(0)?,
                who: r.get(1)?,
                assigned_at: r.get(2)?,
                assigned_by: r.get(3)?,
            })
        })?;
        rows.collect::<Result<Vec<_>>>()
    }

    /// Who each assigned item is given to.
    pub fn assigned_people(&self) -> Result<crate::domain::AssignedPeople> {
        let mut out = crate::domain::AssignedPeople::new();
        for a in self.assignments()? {
            out.entry(a.item_id).or_default().insert(a.who);
        }
        Ok(out)
    }

    /// The items assigned to `who`.
    pub fn assigned_to(&self, who: &str) -> Result<HashSet<String>> {
        let mut stmt = self
            .conn
            .prepare("SELECT item_id FROM assignments WHERE who = ?1")?;
        let rows = stmt.query_map(params![who], |r| r.get::<_, String>(0))?;
        rows.collect::<Result<HashSet<_>>>()
    }

    /// The items anyone has been assigned.
    pub fn assigned_items(&self) -> Result<HashSet<String>> {
        let mut stmt = self
            .conn
            .prepare("SELECT DISTINCT item_id FROM assignments")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect::<Result<HashSet<_>>>()
    }

    /// How many items each person holds (the planner balances on top).
    pub fn assignment_counts(&self) -> Result<HashMap<String, usize>> {
        let mut stmt = self
            .conn
            .prepare("SELECT who, count(*) FROM assignments GROUP BY who")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
        let mut out = HashMap::new();
        for row in rows {
            let (who, n) = row?;
            out.insert(who, n as usize);
        }
        Ok(out)
    }

    /// Per person (by name): assigned, labelled and left.
    pub fn assigned_work(&self) -> Result<Vec<AssignedWork>> {
        // Per assignment: the item's classifications, and how many of them
        // the person labelled (any perspective, persona or scale). An item
        // with no classifications counts any label of the person's.
        let mut stmt = self.conn.prepare(
            "SELECT a.who,
                (SELECT count(*) FROM classifications c WHERE c.item_id = a.item_id),
                (SELECT count(DISTINCT l.classification_id) FROM labels l
                  WHERE l.item_id = a.item_id AND l.who = a.who
                    AND (l.classification_id IN
                           (SELECT c.id FROM classifications c WHERE c.item_id = a.item_id)
                         OR NOT EXISTS
                           (SELECT 1 FROM classifications c WHERE c.item_id = a.item_id)))
             FROM assignments a ORDER BY a.who",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
            ))
        })?;
        let mut out: Vec<AssignedWork> = Vec::new();
        for row in rows {
            let (who, classes, labelled) = row?;
            let done = labelled >= classes.max(1);
            match out.last_mut() {
                Some(w) if w.who == who => {
                    w.assigned += 1;
                    w.labelled += usize::from(done);
                }
                _ => out.push(AssignedWork {
                    who,
                    assigned: 1,
                    labelled: usize::from(done),
                    left: 0,
                }),
            }
        }
        for w in &mut out {
            w.left = w.assigned - w.labelled;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {

    fn pair(i: &str, w: &str) -> (String, String) {
        (i.to_string(), w.to_string())
    }

    #[test]
    fn assigning_again_keeps_the_first_stamp_and_counts_only_new_pairs() {
        crate::store::testing::each_backend(|s| {
            crate::store::leases::tests::fill(s, &["a", "b"]);
            let n = s
                .assign(
                    &[pair("a", "alice"), pair("a", "bob")],
                    "2026-01-01T00:00:00.000Z",
                    "lead",
                )
                .unwrap();
            assert_eq!(n, 2);
            let n = s
                .assign(
                    &[pair("a", "alice"), pair("b", "alice")],
                    "2026-02-01T00:00:00.000Z",
                    "other",
                )
                .unwrap();
            assert_eq!(n, 1);
            let all = s.assignments().unwrap();
            assert_eq!(all.len(), 3);
            assert_eq!(all[0].item_id, "a");
            assert_eq!(all[0].who, "alice");
            assert_eq!(all[0].assigned_at, "2026-01-01T00:00:00.000Z");
            assert_eq!(all[0].assigned_by, "lead");
            assert_eq!(s.assigned_to("alice").unwrap().len(), 2);
            assert_eq!(s.assignment_counts().unwrap()["bob"], 1);
            assert_eq!(s.assigned_items().unwrap().len(), 2);
        });
    }

    #[test]
    fn an_assigned_item_counts_as_labelled_once_every_classification_has_a_label() {
        crate::store::testing::each_backend(|s| {
            crate::store::leases::tests::fill(s, &["a", "b"]);
            s.assign(
                &[pair("a", "alice"), pair("b", "alice"), pair("a", "bob")],
                "t",
                "lead",
            )
            .unwrap();
            // `fill` gives each item classifications c1 and c2.
            crate::store::leases::tests::label(s, "a", "c1", "alice");
            let w = s.assigned_work().unwrap();
            assert_eq!((w[0].assigned, w[0].labelled, w[0].left), (2, 0, 2));
            crate::store::leases::tests::label(s, "a", "c2", "alice");
            // Bob's label is his own: alice's counts do not move.
            crate::store::leases::tests::label(s, "b", "c1", "bob");
            let w = s.assigned_work().unwrap();
            assert_eq!(w[0].who, "alice");
            assert_eq!((w[0].assigned, w[0].labelled, w[0].left), (2, 1, 1));
            assert_eq!(w[1].who, "bob");
            assert_eq!((w[1].assigned, w[1].labelled, w[1].left), (1, 0, 1));
        });
    }
}
