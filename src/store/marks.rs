//! "Come back later" marks (`row_marks`, migration 16): append-only, a row's
//! current mark is its newest event. Written with the durability of a label
//! (a person's words), never read by anything that counts labels.

use super::db::params;
use super::{Result, Store};
use crate::domain::{ComboKey, Label, MarkKind, RowMark};

/// Where a mark lives: one per combination, persona and person.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MarkSlot {
    pub key: ComboKey,
    pub persona_id: String,
    pub who: String,
}

impl MarkSlot {
    pub fn of(m: &RowMark) -> MarkSlot {
        MarkSlot {
            key: m.key.clone(),
            persona_id: m.persona_id.clone(),
            who: m.who.clone(),
        }
    }
}

/// Why a row's mark changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkEventKind {
    /// Marked (or its note changed) by the person.
    Mark,
    /// An undo: the earlier mark back, or none.
    Undo,
    /// Cleared because the person labelled the row.
    Labelled,
}

impl MarkEventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MarkEventKind::Mark => "mark",
            MarkEventKind::Undo => "undo",
            MarkEventKind::Labelled => "labelled",
        }
    }

    pub fn parse(s: &str) -> Option<MarkEventKind> {
        [
            MarkEventKind::Mark,
            MarkEventKind::Undo,
            MarkEventKind::Labelled,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

impl PartialEq<&str> for MarkEventKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

// The column holds the kind's name, as the store always wrote it.
impl rusqlite::types::FromSql for MarkEventKind {
    fn column_result(v: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        let s = v.as_str()?;
        MarkEventKind::parse(s).ok_or_else(|| {
            rusqlite::types::FromSqlError::Other(format!("unknown mark event kind '{s}'").into())
        })
    }
}

impl rusqlite::types::ToSql for MarkEventKind {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(self.as_str().into())
    }
}

/// One change of a row's mark, for the history popup.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkEvent {
    pub slot: MarkSlot,
    /// `None`: the mark was cleared.
    pub mark: Option<MarkKind>,
    pub note: String,
    pub created_at: String,
    pub kind: MarkEventKind,
}

fn insert_tx(
    tx: &super::db::Tx<'_>,
    s: &MarkSlot,
    mark: Option<(MarkKind, &str)>,
    at: &str,
    kind: MarkEventKind,
) -> Result<()> {
    tx.execute(
        "INSERT INTO row_marks (item_id, classification_id, perspective_id, persona_id, who, mark, note, created_at, kind)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            s.key.item_id,
            s.key.classification_id,
            s.key.perspective_id,
            s.persona_id,
            s.who,
            mark.map(|(m, _)| m.as_str()),
            mark.map(|(_, n)| n).unwrap_or(""),
            at,
            kind
        ],
    )?;
    Ok(())
}

/// Whether `slot` already holds this very event (mark, note, instant, kind).
fn same_event_tx(
    tx: &super::db::Tx<'_>,
    s: &MarkSlot,
    mark: Option<(MarkKind, &str)>,
    at: &str,
    kind: MarkEventKind,
) -> Result<bool> {
    use super::db::OptionalExtension;
    Ok(tx
        .query_row(
            "SELECT 1 FROM row_marks WHERE item_id=?1 AND classification_id=?2 AND perspective_id=?3 AND persona_id=?4 AND who=?5
             AND created_at=?6 AND kind=?7 AND mark IS NOT DISTINCT FROM ?8 AND note=?9 LIMIT 1",
            params![
                s.key.item_id,
                s.key.classification_id,
                s.key.perspective_id,
                s.persona_id,
                s.who,
                at,
                kind,
                mark.map(|(m, _)| m.as_str()),
                mark.map(|(_, n)| n).unwrap_or("")
            ],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

fn current_tx(tx: &super::db::Tx<'_>, s: &MarkSlot) -> Result<Option<String>> {
    use super::db::OptionalExtension;
    Ok(tx
        .query_row(
            "SELECT mark FROM row_marks WHERE item_id=?1 AND classification_id=?2 AND perspective_id=?3 AND persona_id=?4 AND who=?5
             ORDER BY id DESC LIMIT 1",
            params![
                s.key.item_id,
                s.key.classification_id,
                s.key.perspective_id,
                s.persona_id,
                s.who
            ],
            |r| r.get::<_, Option<String>>(0),
        )
        .optional()?
        .flatten())
}

/// A label given settles the same person's mark on the row: the row is no
/// longer waiting for them.
pub(super) fn settle_tx(tx: &super::db::Tx<'_>, l: &Label) -> Result<()> {
    let slot = MarkSlot {
        key: l.key.clone(),
        persona_id: l.persona_id.clone(),
        who: l.who.clone(),
    };
    if current_tx(tx, &slot)?.is_some() {
        insert_tx(tx, &slot, None, &l.created_at, MarkEventKind::Labelled)?;
    }
    Ok(())
}

impl Store {
    /// Marks a row (or clears its mark: `mark` None) durably. `kind` says why:
    /// `mark`, or `undo` when it puts back what an undo restores.
    pub fn record_mark(
        &mut self,
        slot: &MarkSlot,
        mark: Option<(MarkKind, &str)>,
        at: &str,
        kind: MarkEventKind,
    ) -> Result<()> {
        self.durably(|store| {
            let tx = store.immediate()?;
            // The same event again (a write replayed after the store came
            // back, whose first reply was lost) is already there: no-op.
            if !same_event_tx(&tx, slot, mark, at, kind)? {
                insert_tx(&tx, slot, mark, at, kind)?;
            }
            tx.commit()?;
            Ok(())
        })
    }

    /// Every row's current mark (all people), oldest first.
    pub fn current_marks(&self) -> Result<Vec<RowMark>> {
        self.current_marks_where(None)
    }

    /// Every change to the marks of one combination, newest first.
    pub fn mark_history(&self, key: &ComboKey) -> Result<Vec<MarkEvent>> {
        let mut stmt = self.conn.prepare(
            "SELECT persona_id, who, mark, note, created_at, kind FROM row_marks
             WHERE item_id=?1 AND classification_id=?2 AND perspective_id=?3 ORDER BY id DESC",
        )?;
        let mut rows = stmt.query(params![
            key.item_id,
            key.classification_id,
            key.perspective_id
        ])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let mark: Option<String> = r.get(2)?;
            out.push(MarkEvent {
                slot: MarkSlot {
                    key: key.clone(),
                    persona_id: r.get(0)?,
                    who: r.get(1)?,
                },
                mark: mark.as_deref().and_then(MarkKind::parse),
                note: r.get(3)?,
                created_at: r.get(4)?,
                kind: r.get(5)?,
            });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Value;

    fn slot() -> MarkSlot {
        MarkSlot {
            key: ComboKey::new("k-1", "urgency", "classification"),
            persona_id: "p".into(),
            who: "ann".into(),
        }
    }

    #[test]
    fn a_mark_is_current_until_cleared_and_is_never_a_label() {
        crate::store::testing::each_backend(|s| {
            s.record_mark(
                &slot(),
                Some((MarkKind::Unsure, "sarcasm?")),
                "t1",
                MarkEventKind::Mark,
            )
            .unwrap();
            let m = s.current_marks().unwrap();
            assert_eq!(m.len(), 1);
            assert_eq!(
                (m[0].mark, m[0].note.as_str()),
                (MarkKind::Unsure, "sarcasm?")
            );
            assert!(s.labels_for_item("k-1").unwrap().is_empty());
            assert!(s.label_history(&slot().key).unwrap().is_empty());
            s.record_mark(&slot(), None, "t2", MarkEventKind::Undo)
                .unwrap();
            assert!(s.current_marks().unwrap().is_empty());
            assert_eq!(s.mark_history(&slot().key).unwrap().len(), 2);
        });
    }

    #[test]
    fn the_same_mark_event_written_twice_is_stored_once() {
        crate::store::testing::each_backend(|s| {
            for _ in 0..2 {
                s.record_mark(
                    &slot(),
                    Some((MarkKind::Unsure, "sarcasm?")),
                    "t1",
                    MarkEventKind::Mark,
                )
                .unwrap();
            }
            assert_eq!(s.mark_history(&slot().key).unwrap().len(), 1);
            // Another note, instant or kind is another event.
            s.record_mark(
                &slot(),
                Some((MarkKind::Unsure, "or irony")),
                "t1",
                MarkEventKind::Mark,
            )
            .unwrap();
            s.record_mark(&slot(), None, "t1", MarkEventKind::Undo)
                .unwrap();
            s.record_mark(&slot(), None, "t1", MarkEventKind::Undo)
                .unwrap();
            assert_eq!(s.mark_history(&slot().key).unwrap().len(), 3);
        });
    }

    #[test]
    fn a_label_by_the_same_person_settles_the_mark() {
        crate::store::testing::each_backend(|s| {
            s.record_mark(
                &slot(),
                Some((MarkKind::Skip, "")),
                "t1",
                MarkEventKind::Mark,
            )
            .unwrap();
            let l = Label {
                key: slot().key,
                persona_id: "p".into(),
                value: Value::Likert(2),
                note: String::new(),
                who: "ann".into(),
                created_at: "t2".into(),
                replaced_judge_value: None,
                blind: false,
                tags: vec!["persona-misread".into()],
            };
            s.upsert_label(&l).unwrap();
            assert!(s.current_marks().unwrap().is_empty());
            let h = s.mark_history(&slot().key).unwrap();
            assert_eq!(h[0].kind, "labelled");
            assert_eq!(s.labels_for_item("k-1").unwrap()[0].tags, l.tags);
            assert_eq!(s.label_history(&slot().key).unwrap()[0].tags, l.tags);
        });
    }
}
