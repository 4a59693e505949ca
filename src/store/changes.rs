//! What changed in the store since a workbench last looked: others' labels,
//! notes and "come back later" marks, written by other processes, so an
//! open workbench shows them within a second or two (issue 32 §3).
//!
//! Both histories are append-only (`label_events` takes a row for every
//! label set, note, import and undo; `row_marks` for every mark change;
//! nothing deletes from them), so where a history ends — its highest row
//! id — moves whenever anything changed, and the rows past it are what
//! changed.
//!
//! The id alone is not enough on PostgreSQL: ids are handed out when a row
//! is inserted, not when its transaction commits, so a slow transaction (a
//! large import) can commit rows *below* the highest id already seen. So a
//! marker also counts the rows above a **floor**: an id at or below which
//! nothing can appear any more. A row that turns up between the floor and
//! the last id shows as a count that does not add up, and then everything
//! is read again (rare: writers racing). The floor trails the last id: the
//! last id of a check two checks back becomes the floor once every
//! transaction that was open at that check has ended (PostgreSQL's
//! snapshot says which: its oldest open transaction is newer than that
//! check's newest). Two checks back, not one, because a row takes its id a
//! moment before its transaction is known to the snapshot. A transaction
//! that stays open holds the floor where it is, and the count grows with
//! the rows written meanwhile — as costly as counting everything, never
//! wrong. SQLite has one writer at a time, so ids commit in order and the
//! snapshot test always passes there.
//!
//! Counting the whole history instead cost each open workbench a scan of
//! every row once a second: on PostgreSQL 55 ms per million label events,
//! so twenty workbenches on a store of a million events kept about two
//! cores busy. Above the floor the count reads a few index entries.

use super::db::{Dialect, params};
use super::{Result, Store, StoreError};
use crate::domain::{ComboKey, Label, MarkKind, RowMark};
use std::collections::BTreeSet;

/// Where one append-only history ended when read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tail {
    /// The highest row id (0: none yet).
    pub last_id: i64,
    /// Every row at or below this id has been seen, and no other can
    /// commit there any more.
    pub floor: i64,
    /// How many rows there were above `floor`.
    pub rows: i64,
    /// The floor to come and the one after it (older first): a check's last
    /// id, and the newest transaction open at that check.
    next_floors: [Option<FloorCandidate>; 2],
}

/// A check's last id, which becomes the floor once every transaction that
/// could still commit below it has ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FloorCandidate {
    last_id: i64,
    /// The first transaction id not yet handed out at that check (0 on SQLite).
    xmax: i64,
}

impl Tail {
    /// A tail whose floor is 0, holding `rows` rows up to `last_id`.
    pub fn new(last_id: i64, rows: i64) -> Tail {
        Tail {
            last_id,
            rows,
            ..Tail::default()
        }
    }

    /// The floor this tail may take, given the oldest transaction still
    /// open now (`xmin`), and the tail's next candidates once it does: the
    /// older candidate, once a newer one has been recorded after it (two
    /// checks back) and every transaction open at its check has ended.
    fn floor_after(&self, xmin: i64) -> Option<(i64, [Option<FloorCandidate>; 2])> {
        match self.next_floors {
            [Some(c), Some(next)] if xmin >= c.xmax => Some((c.last_id, [Some(next), None])),
            _ => None,
        }
    }

    /// Records this check as a candidate, unless two are already waiting.
    fn push_candidate(&mut self, c: FloorCandidate) {
        match &mut self.next_floors {
            [None, _] => self.next_floors = [Some(c), None],
            [Some(_), slot @ None] => *slot = Some(c),
            [Some(_), Some(_)] => {}
        }
    }
}

/// Where the label and mark histories ended: equal markers, nothing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChangeMarker {
    pub labels: Tail,
    pub marks: Tail,
}

/// The answer to [`Store::changed_since`]: the new marker and, for the items
/// that changed, their current labels and marks (every person's).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Changed {
    pub marker: ChangeMarker,
    /// The items read again, `None` for every item (the histories did not
    /// add up, or too many items changed to read them one by one).
    pub items: Option<Vec<String>>,
    /// The current labels of those items.
    pub labels: Vec<Label>,
    /// The current marks of those items.
    pub marks: Vec<RowMark>,
}

impl Changed {
    /// Nothing new: no rows past the marker asked about, and none below it.
    /// (The marker itself may still have moved its floors.)
    pub fn nothing(&self, since: &ChangeMarker) -> bool {
        self.items.as_ref().is_some_and(|i| i.is_empty())
            && self.marker.labels.last_id == since.labels.last_id
            && self.marker.marks.last_id == since.marks.last_id
    }
}

/// The histories a marker follows.
const LABEL_EVENTS: &str = "label_events";
const ROW_MARKS: &str = "row_marks";

/// The snapshot's oldest open transaction and first id not yet handed out,
/// as a one-row subquery (`xmin`, `xmax`): PostgreSQL's snapshot of the
/// statement it is part of; zeros on SQLite, whose ids commit in order.
fn snapshot_sql(store: &Store) -> &'static str {
    match store.conn.dialect() {
        Dialect::Sqlite => "(SELECT 0 AS xmin, 0 AS xmax)",
        Dialect::Postgres => {
            "(SELECT CAST(CAST(pg_snapshot_xmin(pg_current_snapshot()) AS TEXT) AS BIGINT) AS xmin,
                     CAST(CAST(pg_snapshot_xmax(pg_current_snapshot()) AS TEXT) AS BIGINT) AS xmax)"
        }
    }
}

/// What a history holds past `known`: its new tail, and the items of the
/// rows added (None when rows appeared below `known`'s last id).
fn tail_since(store: &Store, table: &str, known: Tail) -> Result<(Tail, Option<BTreeSet<String>>)> {
    // One statement, so the counts, the new rows and the snapshot are one
    // snapshot on both engines; the LEFT JOIN keeps the counts' row when
    // nothing is new. Both counts are a range of the primary key above
    // the floor, and the second is the count above the floor to come.
    let next = known.next_floors[0].map_or(known.last_id, |c| c.last_id);
    let mut stmt = store.conn.prepare(&format!(
        "SELECT c.n, c.n_next, s.xmin, s.xmax, e.id, e.item_id
         FROM (SELECT COUNT(*) AS n, COALESCE(SUM(CASE WHEN id > ?3 THEN 1 ELSE 0 END), 0) AS n_next
               FROM {table} WHERE id > ?2) c
         CROSS JOIN {snapshot} s
         LEFT JOIN {table} e ON e.id > ?1 ORDER BY e.id",
        snapshot = snapshot_sql(store)
    ))?;
    let mut rows = stmt.query(params![known.last_id, known.floor, next])?;
    let (mut last_id, mut added, mut items) = (known.last_id, 0i64, BTreeSet::new());
    let (mut above_floor, mut above_next, mut xmin, mut xmax) = (0i64, 0i64, 0i64, 0i64);
    while let Some(r) = rows.next()? {
        above_floor = r.get(0)?;
        above_next = r.get(1)?;
        xmin = r.get(2)?;
        xmax = r.get(3)?;
        if let Some(id) = r.get::<_, Option<i64>>(4)? {
            last_id = last_id.max(id);
            added += 1;
            items.insert(r.get::<_, String>(5)?);
        }
    }
    let adds_up = known.rows + added == above_floor;
    let mut tail = Tail {
        last_id,
        rows: above_floor,
        ..known
    };
    if let Some((floor, next_floors)) = known.floor_after(xmin) {
        tail.floor = floor;
        tail.rows = above_next;
        tail.next_floors = next_floors;
    }
    tail.push_candidate(FloorCandidate { last_id, xmax });
    Ok((tail, adds_up.then_some(items)))
}

impl Store {
    /// Where the label and mark histories end now: read it before loading
    /// labels and marks, so that anything written after is found by
    /// [`Store::changed_since`] (anything written in between is found twice,
    /// which reading again makes harmless).
    pub fn change_marker(&self) -> Result<ChangeMarker> {
        let read = |table: &str| -> Result<Tail> {
            let (last_id, rows, xmax): (i64, i64, i64) = self.conn.query_row(
                &format!(
                    "SELECT COALESCE(MAX(t.id), 0), COUNT(t.id), MAX(s.xmax)
                     FROM {snapshot} s LEFT JOIN {table} t ON 1 = 1",
                    snapshot = snapshot_sql(self)
                ),
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )?;
            let mut tail = Tail::new(last_id, rows);
            tail.push_candidate(FloorCandidate { last_id, xmax });
            Ok(tail)
        };
        Ok(ChangeMarker {
            labels: read(LABEL_EVENTS)?,
            marks: read(ROW_MARKS)?,
        })
    }

    /// What changed since `known`: the new marker and the current labels and
    /// marks of each item whose labels, notes or marks changed; every
    /// item's when more than `max_items` changed or the histories do not
    /// add up (see the module's note). When nothing changed it costs two
    /// counts of the rows above the floors (a few index entries) and two
    /// reads past the last id.
    pub fn changed_since(&self, known: &ChangeMarker, max_items: usize) -> Result<Changed> {
        let (labels, by_labels) = tail_since(self, LABEL_EVENTS, known.labels)?;
        let (marks, by_marks) = tail_since(self, ROW_MARKS, known.marks)?;
        let marker = ChangeMarker { labels, marks };
        let items = match (by_labels, by_marks) {
            (Some(mut a), Some(b)) => {
                a.extend(b);
                Some(a).filter(|a| a.len() <= max_items)
            }
            _ => None,
        };
        let mut out = Changed {
            marker,
            ..Changed::default()
        };
        match items {
            Some(items) => {
                for id in &items {
                    out.labels.extend(self.labels_for_item(id)?);
                    out.marks.extend(self.current_marks_where(Some(id))?);
                }
                out.items = Some(items.into_iter().collect());
            }
            None => {
                self.for_each_label(|l| out.labels.push(l))?;
                out.marks = self.current_marks()?;
            }
        }
        Ok(out)
    }

    /// Every row's current mark (all people), oldest first; only item
    /// `item`'s when one is given.
    pub(super) fn current_marks_where(&self, item: Option<&str>) -> Result<Vec<RowMark>> {
        let only_item = if item.is_some() {
            "AND m.item_id = ?1"
        } else {
            ""
        };
        let mut stmt = self.conn.prepare(&format!(
            "SELECT item_id, classification_id, perspective_id, persona_id, who, mark, note, created_at
             FROM row_marks m
             WHERE id = (SELECT max(id) FROM row_marks n WHERE n.item_id=m.item_id AND n.classification_id=m.classification_id
                         AND n.perspective_id=m.perspective_id AND n.persona_id=m.persona_id AND n.who=m.who)
               AND mark IS NOT NULL {only_item}
             ORDER BY id"
        ))?;
        let mut rows = match item {
            Some(id) => stmt.query(params![id])?,
            None => stmt.query([])?,
        };
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let mark: String = r.get(5)?;
            out.push(RowMark {
                key: ComboKey::new(
                    &r.get::<_, String>(0)?,
                    &r.get::<_, String>(1)?,
                    &r.get::<_, String>(2)?,
                ),
                persona_id: r.get(3)?,
                who: r.get(4)?,
                mark: MarkKind::parse(&mark)
                    .ok_or_else(|| StoreError::Data(format!("unknown mark '{mark}'")))?,
                note: r.get(6)?,
                created_at: r.get(7)?,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Value;
    use crate::store::{MarkEventKind, MarkSlot};

    fn label(item: &str, who: &str, v: u8) -> Label {
        Label {
            key: ComboKey::new(item, "urgency", "classification"),
            persona_id: "p".into(),
            value: Value::Likert(v),
            note: String::new(),
            who: who.into(),
            created_at: crate::store::now(),
            replaced_judge_value: None,
            blind: false,
            tags: Vec::new(),
        }
    }

    #[test]
    fn a_label_a_note_and_a_mark_each_move_the_marker_and_name_their_item() {
        crate::store::testing::each_backend(|s| {
            let m0 = s.change_marker().unwrap();
            assert_eq!((m0.labels.last_id, m0.marks.last_id), (0, 0));
            let none = s.changed_since(&m0, 100).unwrap();
            assert!(none.nothing(&m0), "{none:?}");
            assert_eq!(none.items, Some(vec![]));

            s.upsert_label(&label("k-1", "ann", 2)).unwrap();
            let c = s.changed_since(&m0, 100).unwrap();
            assert!(!c.nothing(&m0));
            assert_eq!(c.items, Some(vec!["k-1".to_string()]));
            assert_eq!(c.labels.len(), 1);
            let now = s.change_marker().unwrap();
            assert_eq!(c.marker.labels.last_id, now.labels.last_id);
            let m1 = c.marker;
            assert!(s.changed_since(&m1, 100).unwrap().nothing(&m1));

            let l = label("k-1", "ann", 2);
            s.set_label_note(&l.key, "p", "ann", l.value.scale(), "sarcasm")
                .unwrap();
            let c = s.changed_since(&m1, 100).unwrap();
            assert_eq!(c.items, Some(vec!["k-1".to_string()]));
            assert_eq!(c.labels[0].note, "sarcasm");
            let m2 = c.marker;

            let slot = MarkSlot {
                key: ComboKey::new("k-2", "urgency", "classification"),
                persona_id: "p".into(),
                who: "bob".into(),
            };
            s.record_mark(
                &slot,
                Some((MarkKind::Unsure, "ask")),
                "t",
                MarkEventKind::Mark,
            )
            .unwrap();
            let c = s.changed_since(&m2, 100).unwrap();
            assert_eq!(c.items, Some(vec!["k-2".to_string()]));
            assert!(c.labels.is_empty());
            assert_eq!(c.marks.len(), 1);
            assert_eq!(c.marks[0].who, "bob");
        });
    }

    /// A row that committed below the highest id already seen (PostgreSQL
    /// hands ids out before commit), or more items than are worth reading
    /// one by one: every item is read again.
    #[test]
    fn histories_that_do_not_add_up_or_many_items_read_everything() {
        crate::store::testing::each_backend(|s| {
            for (i, who) in ["ann", "bob", "cid"].iter().enumerate() {
                s.upsert_label(&label(&format!("k-{i}"), who, 2)).unwrap();
            }
            let now = s.change_marker().unwrap();
            assert_eq!(now.labels.rows, 3);
            // As if the third row had committed after the check read the tail.
            let missed = ChangeMarker {
                labels: Tail {
                    rows: now.labels.rows - 1,
                    ..now.labels
                },
                ..now
            };
            let c = s.changed_since(&missed, 100).unwrap();
            assert_eq!(c.items, None);
            assert_eq!(c.labels.len(), 3);
            assert_eq!(c.marker.labels.last_id, now.labels.last_id);
            assert_eq!(c.marker.labels.rows, 3);

            let c = s.changed_since(&ChangeMarker::default(), 2).unwrap();
            assert_eq!(c.items, None, "3 items changed, at most 2 read one by one");
            assert_eq!(c.labels.len(), 3);
        });
    }

    /// Checks with nothing open move the floor up to the last id two checks
    /// back, so a quiet store's counts cover only the last rows; what was
    /// written meanwhile is still found. (SQLite: on PostgreSQL any
    /// transaction open on the server, another test's too, may hold the
    /// floor back; the next test waits for it there.)
    #[test]
    fn the_floor_follows_the_last_id_two_checks_back() {
        let mut store = Store::open_in_memory().unwrap();
        let s = &mut store;
        {
            for i in 0..3 {
                s.upsert_label(&label(&format!("k-{i}"), "ann", 2)).unwrap();
            }
            let m0 = s.change_marker().unwrap();
            assert_eq!((m0.labels.floor, m0.labels.rows), (0, 3));
            let c1 = s.changed_since(&m0, 100).unwrap();
            assert!(c1.nothing(&m0));
            assert_eq!(c1.marker.labels.floor, 0, "one check back: not yet");
            s.upsert_label(&label("k-9", "bob", 3)).unwrap();
            let c2 = s.changed_since(&c1.marker, 100).unwrap();
            assert_eq!(c2.items, Some(vec!["k-9".to_string()]));
            let last_before = m0.labels.last_id;
            assert_eq!(c2.marker.labels.floor, last_before);
            assert_eq!(
                c2.marker.labels.rows, 1,
                "only k-9's row is above the floor"
            );
            let mut m = c2.marker;
            for _ in 0..3 {
                let c = s.changed_since(&m, 100).unwrap();
                assert!(c.nothing(&m), "{c:?}");
                m = c.marker;
            }
            assert_eq!(m.labels.floor, m.labels.last_id);
            assert_eq!(m.labels.rows, 0);
            s.upsert_label(&label("k-0", "cid", 4)).unwrap();
            let c = s.changed_since(&m, 100).unwrap();
            assert_eq!(c.items, Some(vec!["k-0".to_string()]));
            assert_eq!(c.labels.len(), 2, "ann's and cid's label on k-0");
        }
    }

    /// A transaction that took its id before a later one committed, and
    /// commits after checks have passed that id (a slow import on
    /// PostgreSQL): the floor waits below it, and its row is found.
    #[cfg(feature = "postgres")]
    #[test]
    fn a_row_committing_below_the_last_id_seen_is_found() {
        use crate::store::label_history::EventKind;
        let Some(db) = crate::store::testing::TestDatabase::create() else {
            return;
        };
        let (mut fast, mut slow, watcher) = (db.store(), db.store(), db.store());
        fast.upsert_label(&label("k-1", "ann", 2)).unwrap();
        let mut m = watcher.change_marker().unwrap();
        let tx = slow.immediate().unwrap();
        crate::store::labels::upsert_label_tx(&tx, &label("k-slow", "sam", 5), EventKind::Set)
            .unwrap();
        let slow_id: i64 = tx
            .query_row("SELECT MAX(id) FROM label_events", [], |r| r.get(0))
            .unwrap();
        fast.upsert_label(&label("k-2", "bob", 3)).unwrap();
        let mut seen = BTreeSet::new();
        for _ in 0..4 {
            let c = watcher.changed_since(&m, 100).unwrap();
            seen.extend(c.items.clone().unwrap_or_default());
            assert!(c.marker.labels.last_id > slow_id);
            assert!(
                c.marker.labels.floor < slow_id,
                "the floor passed a row still to commit: {:?}",
                c.marker
            );
            m = c.marker;
        }
        assert!(seen.contains("k-2") && !seen.contains("k-slow"), "{seen:?}");
        tx.commit().unwrap();
        let c = watcher.changed_since(&m, 100).unwrap();
        assert_eq!(
            c.items, None,
            "a row below the last id: everything read again"
        );
        assert!(
            c.labels.iter().any(|l| l.key.item_id == "k-slow"),
            "{:?}",
            c.labels
        );
        // Nothing open any more: the floor moves past it (once every
        // transaction open on the server, other tests' too, has ended).
        let mut m = c.marker;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while m.labels.floor < m.labels.last_id && std::time::Instant::now() < deadline {
            m = watcher.changed_since(&m, 100).unwrap().marker;
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(m.labels.floor, m.labels.last_id, "{m:?}");
    }
}
