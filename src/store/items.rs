//! Items, classifications, personas and perspectives.

use super::db::OptionalExtension;
use super::{Result, Store, StoreError};
use crate::domain::{Classification, Item, Persona, Perspective, Source};
use std::collections::HashMap;

/// What an import wrote.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct UpsertCounts {
    pub items: usize,
    pub personas: usize,
    pub perspectives: usize,
    pub labels: usize,
    /// How the labels met those already stored.
    pub label_merge: LabelCounts,
}

/// What a re-import did with each label, per (item, classification,
/// perspective, persona, who, scale).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LabelCounts {
    /// None was stored.
    pub new: usize,
    /// The file's is newer (by its own `createdAt`) and differs: it replaced the store's.
    pub newer: usize,
    /// Same value and note as the stored one: nothing written.
    pub unchanged: usize,
    /// The store's is newer (or the file's is undated): the store's was kept.
    pub older: usize,
}

impl Store {
    /// Writes everything in one transaction: all of it lands or none of it does.
    /// Existing ids are updated in place (their classifications replaced), never duplicated.
    pub fn upsert_all(
        &mut self,
        items: &[Item],
        personas: &[Persona],
        perspectives: &[Perspective],
        labels: &[crate::domain::Label],
    ) -> Result<UpsertCounts> {
        let mut tx = self.begin_import()?;
        for item in items {
            tx.put_item(item)?;
        }
        for p in personas {
            tx.put_persona(p)?;
        }
        for p in perspectives {
            tx.put_perspective(p)?;
        }
        for l in labels {
            tx.merge_label(l)?;
        }
        tx.commit()
    }

    /// Skipped inputs of one protocol: (file, index, reason).
    pub fn skips(&self, protocol: &str) -> Result<Vec<(String, usize, String)>> {
        let mut stmt = self.conn.prepare(
            "SELECT file, idx, reason FROM skipped_inputs WHERE protocol = ?1 ORDER BY file, idx",
        )?;
        let rows = stmt.query_map([protocol], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)? as usize,
                r.get::<_, String>(2)?,
            ))
        })?;
        rows.collect::<super::Result<Vec<_>>>()
    }

    /// Saves one persona (the personas view edits them).
    pub fn upsert_persona(&mut self, p: &Persona) -> Result<()> {
        self.upsert_all(&[], std::slice::from_ref(p), &[], &[])
            .map(|_| ())
    }

    /// Every item in import order, with its classifications.
    pub fn items(&self) -> Result<Vec<Item>> {
        let mut cls: HashMap<String, Vec<Classification>> = HashMap::new();
        let mut stmt = self.conn.prepare(
            "SELECT item_id, id, description, available, selected FROM classifications ORDER BY item_id, position",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<String>>(4)?,
            ))
        })?;
        for row in rows {
            let (item_id, id, description, available, selected) = row?;
            let available: Vec<String> = serde_json::from_str(&available)
                .map_err(|e| StoreError::Data(format!("classification {item_id}/{id}: {e}")))?;
            cls.entry(item_id).or_default().push(Classification {
                id,
                description,
                available,
                selected,
            });
        }
        let mut stmt = self.conn.prepare(
            "SELECT id, sent_text, sent_ms, title, text, source_type, source_originator, source_channel, tags, kind, payload, owner
             FROM items ORDER BY position",
        )?;
        let rows = stmt.query_map([], item_from_row)?;
        let mut items = Vec::new();
        for row in rows {
            let mut item = row?;
            item.classifications = cls.remove(&item.id).unwrap_or_default();
            items.push(item);
        }
        Ok(items)
    }

    /// Every item with its classifications, in import order, one at a time:
    /// memory stays flat however many items the store holds (the workbench
    /// reads 100 000 items this way). `f` returns false to stop early.
    pub fn for_each_item(&self, mut f: impl FnMut(Item) -> bool) -> Result<()> {
        let mut items = self.conn.prepare(
            "SELECT id, sent_text, sent_ms, title, text, source_type, source_originator, source_channel, tags, kind, payload, owner
             FROM items ORDER BY position, id",
        )?;
        // Every classification in one statement, in the items' order, walked
        // beside them: one query per item was one round trip per item on
        // PostgreSQL (33 000 items planned, 33 000 round trips).
        let mut cls = self.conn.prepare(
            "SELECT c.item_id, c.id, c.description, c.available, c.selected
             FROM classifications c JOIN items i ON i.id = c.item_id
             ORDER BY i.position, i.id, c.position",
        )?;
        let mut crows = cls.query([])?;
        let mut next_cls = next_classification(&mut crows)?;
        let mut rows = items.query([])?;
        while let Some(row) = rows.next()? {
            let mut item = item_from_row(&row)?;
            while let Some((item_id, c)) = next_cls.take() {
                if item_id != item.id {
                    next_cls = Some((item_id, c));
                    break;
                }
                item.classifications.push(
                    c.map_err(|e| StoreError::Data(format!("classification {}/{e}", item.id)))?,
                );
                next_cls = next_classification(&mut crows)?;
            }
            if !f(item) {
                break;
            }
        }
        Ok(())
    }

    /// One item with its classifications.
    pub fn item(&self, id: &str) -> Result<Option<Item>> {
        item_on(&self.conn, id)
    }

    pub fn personas(&self) -> Result<Vec<Persona>> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, name, definition FROM personas ORDER BY id")?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        rows.map(|row| {
            let (id, name, definition) = row?;
            let definition = serde_json::from_str(&definition)
                .map_err(|e| StoreError::Data(format!("persona {id}: {e}")))?;
            Ok(Persona {
                id,
                name,
                definition,
            })
        })
        .collect()
    }

    pub fn persona(&self, id: &str) -> Result<Option<Persona>> {
        Ok(self.personas()?.into_iter().find(|p| p.id == id))
    }

    pub fn perspectives(&self) -> Result<Vec<Perspective>> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, name, text FROM perspectives ORDER BY id")?;
        let rows = stmt.query_map([], |r| {
            Ok(Perspective {
                id: r.get(0)?,
                name: r.get(1)?,
                text: r.get(2)?,
            })
        })?;
        rows.collect::<super::Result<Vec<_>>>()
    }
}

/// One item with its classifications, read on `conn` (a store's
/// connection or an import's open transaction).
pub(super) fn item_on(conn: &super::db::Db, id: &str) -> Result<Option<Item>> {
    let item = conn
            .query_row(
                "SELECT id, sent_text, sent_ms, title, text, source_type, source_originator, source_channel, tags, kind, payload, owner
                 FROM items WHERE id = ?1",
                [id],
                item_from_row,
            )
            .optional()?;
    let Some(mut item) = item else {
        return Ok(None);
    };
    let mut stmt = conn.prepare(
            "SELECT id, description, available, selected FROM classifications WHERE item_id = ?1 ORDER BY position",
        )?;
    let rows = stmt.query_map([id], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, Option<String>>(3)?,
        ))
    })?;
    for row in rows {
        let (cid, description, available, selected) = row?;
        item.classifications.push(Classification {
            available: serde_json::from_str(&available)
                .map_err(|e| StoreError::Data(format!("classification {id}/{cid}: {e}")))?,
            id: cid,
            description,
            selected,
        });
    }
    Ok(Some(item))
}

/// The next classification row as (item id, the classification, or
/// "id: why" when its values cannot be read).
#[allow(clippy::type_complexity)]
fn next_classification(
    rows: &mut super::db::Rows<'_>,
) -> Result<Option<(String, std::result::Result<Classification, String>)>> {
    let Some(c) = rows.next()? else {
        return Ok(None);
    };
    let item_id: String = c.get(0)?;
    let cid: String = c.get(1)?;
    let available: String = c.get(3)?;
    let classification = match serde_json::from_str(&available) {
        Ok(available) => Ok(Classification {
            available,
            description: c.get(2)?,
            selected: c.get(4)?,
            id: cid,
        }),
        Err(e) => Err(format!("{cid}: {e}")),
    };
    Ok(Some((item_id, classification)))
}

fn item_from_row(r: &super::db::Row<'_>) -> super::Result<Item> {
    let tags: String = r.get(8)?;
    Ok(Item {
        id: r.get(0)?,
        sent_text: r.get(1)?,
        sent_ms: r.get(2)?,
        title: r.get(3)?,
        text: r.get(4)?,
        source: Source {
            kind: r.get(5)?,
            originator: r.get(6)?,
            channel: r.get(7)?,
        },
        tags: serde_json::from_str(&tags).unwrap_or_default(),
        classifications: Vec::new(),
        kind: r.get(9)?,
        payload: r
            .get::<_, Option<String>>(10)?
            .and_then(|p| serde_json::from_str(&p).ok())
            .unwrap_or(serde_json::Value::Null),
        owner: r.get(11)?,
    })
}

#[cfg(test)]
mod tests {
    /// Walked one at a time, the items are those `items()` reads whole:
    /// same order, each with its own classifications (the sample has
    /// items with one and with several).
    #[test]
    fn each_item_one_at_a_time_is_the_same_as_all_at_once() {
        crate::store::testing::each_backend(|s| {
            crate::import::import_sample(s, "ann").unwrap();
            let all = s.items().unwrap();
            let mut walked = Vec::new();
            s.for_each_item(|i| {
                walked.push(i);
                true
            })
            .unwrap();
            assert_eq!(walked.len(), 94);
            assert_eq!(walked, all);
            assert!(walked.iter().any(|i| i.classifications.len() > 1));
            // Stopping early stops.
            let mut n = 0;
            s.for_each_item(|_| {
                n += 1;
                n < 3
            })
            .unwrap();
            assert_eq!(n, 3);
        });
    }
}
