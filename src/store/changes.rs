//! What changed in the store since a workbench last looked: others' labels,
//! notes and "come back later" marks, written by other processes, so an
//! open workbench shows them within a second or two (issue 32 §3).
//!
//! Both histories are append-only (`label_events` takes a row for every
//! label set, note, import and undo; `row_marks` for every mark change), so
//! where a history ends — its highest row id and its row count — is a
//! marker that moves whenever anything changed. The count is there for
//! PostgreSQL: ids are handed out when a row is inserted, not when its
//! transaction commits, so a slow transaction can commit a row *below* the
//! highest id already seen. The id alone would miss it; the count does not,
//! and then everything is read again (rare: two writers racing).

use super::db::params;
use super::{Result, Store, StoreError};
use crate::domain::{ComboKey, Label, MarkKind, RowMark};
use std::collections::BTreeSet;

/// Where one append-only history ended when read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tail {
    /// The highest row id (0: none yet).
    pub last_id: i64,
    /// How many rows it held.
    pub rows: i64,
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
    /// Nothing moved: the marker is the one asked about.
    pub fn nothing(&self, since: &ChangeMarker) -> bool {
        self.marker == *since
    }
}

/// The histories a marker follows.
const LABEL_EVENTS: &str = "label_events";
const ROW_MARKS: &str = "row_marks";

/// What a history holds past `known`: its new tail, and the items of the
/// rows added (None when rows appeared below `known`'s last id, or went).
fn tail_since(store: &Store, table: &str, known: Tail) -> Result<(Tail, Option<BTreeSet<String>>)> {
    // One statement, so the count and the new rows come from one snapshot
    // on both engines; the LEFT JOIN keeps the count's row when nothing is new.
    let mut stmt = store.conn.prepare(&format!(
        "SELECT c.n, e.id, e.item_id FROM (SELECT COUNT(*) AS n FROM {table}) c
         LEFT JOIN {table} e ON e.id > ?1 ORDER BY e.id"
    ))?;
    let mut rows = stmt.query(params![known.last_id])?;
    let (mut tail, mut added, mut items) = (known, 0i64, BTreeSet::new());
    while let Some(r) = rows.next()? {
        tail.rows = r.get(0)?;
        if let Some(id) = r.get::<_, Option<i64>>(1)? {
            tail.last_id = tail.last_id.max(id);
            added += 1;
            items.insert(r.get::<_, String>(2)?);
        }
    }
    let adds_up = known.rows + added == tail.rows;
    Ok((tail, adds_up.then_some(items)))
}

impl Store {
    /// Where the label and mark histories end now: read it before loading
    /// labels and marks, so that anything written after is found by
    /// [`Store::changed_since`] (anything written in between is found twice,
    /// which reading again makes harmless).
    pub fn change_marker(&self) -> Result<ChangeMarker> {
        let read = |table: &str| -> Result<Tail> {
            self.conn.query_row(
                &format!("SELECT COALESCE(MAX(id), 0), COUNT(*) FROM {table}"),
                [],
                |r| {
                    Ok(Tail {
                        last_id: r.get(0)?,
                        rows: r.get(1)?,
                    })
                },
            )
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
    /// counts (a scan of an index: about 5 ms per million rows on SQLite)
    /// and two reads past the last id.
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
            assert_eq!(m0, ChangeMarker::default());
            let none = s.changed_since(&m0, 100).unwrap();
            assert!(none.nothing(&m0), "{none:?}");
            assert_eq!(none.items, Some(vec![]));

            s.upsert_label(&label("k-1", "ann", 2)).unwrap();
            let c = s.changed_since(&m0, 100).unwrap();
            assert!(!c.nothing(&m0));
            assert_eq!(c.items, Some(vec!["k-1".to_string()]));
            assert_eq!(c.labels.len(), 1);
            assert_eq!(c.marker, s.change_marker().unwrap());
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
            assert_eq!(c.marker, now);

            let c = s.changed_since(&ChangeMarker::default(), 2).unwrap();
            assert_eq!(c.items, None, "3 items changed, at most 2 read one by one");
            assert_eq!(c.labels.len(), 3);
        });
    }
}
