//! An import as one transaction that is written while the files are read:
//! each record goes to the store as soon as it is checked, so a million-row
//! file is never held in memory, and nothing lands unless [`ImportTx::commit`]
//! is reached (dropping it rolls everything back).

use super::db::params;
use super::items::{UpsertCounts, item_on};
use super::labels::{Merge, merge_label_tx};
use super::{Result, Store};
use crate::domain::{Item, Label, Persona, Perspective};
use std::collections::{HashMap, HashSet};

/// A classification as an earlier import defined it: its description and
/// its values.
pub type Definition = (String, Vec<String>);

/// The open transaction of one import, and what it wrote so far.
pub struct ImportTx<'s> {
    pub(super) tx: super::db::Tx<'s>,
    next_pos: i64,
    counts: UpsertCounts,
}

impl Store {
    /// Starts an import: a write transaction held until
    /// [`ImportTx::commit`]; dropped without it, nothing was written.
    pub fn begin_import(&mut self) -> Result<ImportTx<'_>> {
        let tx = self.immediate()?;
        let next_pos: i64 = tx.query_row(
            "SELECT coalesce(max(position), -1) + 1 FROM items",
            [],
            |r| r.get(0),
        )?;
        Ok(ImportTx {
            tx,
            next_pos,
            counts: UpsertCounts::default(),
        })
    }
}

impl ImportTx<'_> {
    /// Writes an item; an existing id is updated in place (its
    /// classifications replaced, its place in the list kept).
    pub fn put_item(&mut self, item: &Item) -> Result<()> {
        let tags = serde_json::to_string(&item.tags).unwrap_or_else(|_| "[]".into());
        self.tx
            .prepare_cached(
                "INSERT INTO items (id, sent_text, sent_ms, title, text, source_type, source_originator, source_channel, tags, position, kind, payload, owner)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                 ON CONFLICT(id) DO UPDATE SET sent_text=excluded.sent_text, sent_ms=excluded.sent_ms,
                   title=excluded.title, text=excluded.text, source_type=excluded.source_type,
                   source_originator=excluded.source_originator, source_channel=excluded.source_channel,
                   tags=excluded.tags, kind=excluded.kind, payload=excluded.payload, owner=excluded.owner",
            )?
            .execute(params![
                item.id,
                item.sent_text,
                item.sent_ms,
                item.title,
                item.text,
                item.source.kind,
                item.source.originator,
                item.source.channel,
                tags,
                self.next_pos,
                item.kind,
                (!item.payload.is_null()).then(|| item.payload.to_string()),
                item.owner
            ])?;
        self.next_pos += 1;
        self.tx
            .prepare_cached("DELETE FROM classifications WHERE item_id = ?1")?
            .execute([&item.id])?;
        let mut ins = self.tx.prepare_cached(
            "INSERT INTO classifications (item_id, id, description, available, selected, position)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for (pos, c) in item.classifications.iter().enumerate() {
            let available = serde_json::to_string(&c.available).unwrap_or_else(|_| "[]".into());
            ins.execute(params![
                item.id,
                c.id,
                c.description,
                available,
                c.selected,
                pos as i64
            ])?;
        }
        self.counts.items += 1;
        Ok(())
    }

    /// Sets an item's owner and tags (an owner found after the item was written).
    pub fn set_owner(&mut self, id: &str, owner: Option<&str>, tags: &[String]) -> Result<()> {
        let tags = serde_json::to_string(tags).unwrap_or_else(|_| "[]".into());
        self.tx
            .prepare_cached("UPDATE items SET owner = ?2, tags = ?3 WHERE id = ?1")?
            .execute(params![id, owner, tags])?;
        Ok(())
    }

    pub fn put_persona(&mut self, p: &Persona) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO personas (id, name, definition) VALUES (?1, ?2, ?3)
                 ON CONFLICT(id) DO UPDATE SET name=excluded.name, definition=excluded.definition",
            )?
            .execute(params![p.id, p.name, p.definition.to_string()])?;
        self.counts.personas += 1;
        Ok(())
    }

    pub fn put_perspective(&mut self, p: &Perspective) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO perspectives (id, name, text) VALUES (?1, ?2, ?3)
                 ON CONFLICT(id) DO UPDATE SET name=excluded.name, text=excluded.text",
            )?
            .execute(params![p.id, p.name, p.text])?;
        self.counts.perspectives += 1;
        Ok(())
    }

    /// Merges a label with the stored one for its combination (the newer
    /// by its own `createdAt` wins; see `merge_label_tx`).
    pub fn merge_label(&mut self, l: &Label) -> Result<()> {
        match merge_label_tx(&self.tx, l)? {
            Merge::New => self.counts.label_merge.new += 1,
            Merge::Newer => self.counts.label_merge.newer += 1,
            Merge::Unchanged => self.counts.label_merge.unchanged += 1,
            Merge::Older => self.counts.label_merge.older += 1,
        }
        self.counts.labels += 1;
        Ok(())
    }

    /// Records that an imported label was sampled, as its file says (its
    /// `sampled` and `sample_seed`: kept, so an outside random sample stays
    /// one).
    pub fn mark_sampled(&mut self, l: &Label, seed: super::SampleSeed) -> Result<()> {
        self.tx
            .prepare_cached(super::samples::MARK_SAMPLED)?
            .execute(params![
                l.key.item_id,
                l.key.classification_id,
                l.key.perspective_id,
                l.persona_id,
                l.who,
                seed.map(|s| s as i64),
                super::now()
            ])?;
        Ok(())
    }

    /// Records that an imported label was drawn in the active order, with
    /// its draw as its file gives it.
    pub fn mark_active(&mut self, l: &Label, d: &super::ActiveDraw) -> Result<()> {
        self.tx
            .prepare_cached(super::active_samples::MARK_ACTIVE)?
            .execute(params![
                l.key.item_id,
                l.key.classification_id,
                l.key.perspective_id,
                l.persona_id,
                l.who,
                d.seed.map(|s| s as i64),
                super::now(),
                super::active_samples::draw_json(d)
            ])?;
        Ok(())
    }

    /// Records protocol inputs skipped as invalid: (protocol, file, index, reason).
    pub fn record_skips(&mut self, skips: &[(String, String, usize, String)]) -> Result<()> {
        let mut stmt = self.tx.prepare_cached(
            "INSERT INTO skipped_inputs (protocol, file, idx, reason, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(protocol, file, idx) DO UPDATE SET reason=excluded.reason, created_at=excluded.created_at",
        )?;
        for (protocol, file, idx, reason) in skips {
            stmt.execute(params![protocol, file, *idx as i64, reason, super::now()])?;
        }
        Ok(())
    }

    /// One item as stored now (this import's writes included).
    pub fn item(&self, id: &str) -> Result<Option<Item>> {
        item_on(&self.tx, id)
    }

    fn ids(&self, sql: &str) -> Result<HashSet<String>> {
        let mut stmt = self.tx.prepare(sql)?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect::<super::Result<HashSet<_>>>()
    }

    /// How classification `id` is defined on the items stored now: each
    /// distinct (description, available values) pair, a few at most.
    pub fn classification_definitions(
        &self,
        ids: &HashSet<&str>,
    ) -> Result<HashMap<String, Vec<Definition>>> {
        // One pass over the table for every id at once: `classifications`
        // has no index on `id` alone, so a query per id scanned it once per
        // column of a wide file (10 000 columns did not end in 300 s).
        // In the order of the first item holding each definition (SQLite's
        // scan order, which a bare DISTINCT happened to give; PostgreSQL's
        // hashing gives none), so the definition named first is the same on
        // both engines.
        let mut stmt = self.tx.prepare(
            "SELECT id, description, available FROM classifications
             GROUP BY id, description, available ORDER BY min(item_id), id",
        )?;
        let mut rows = stmt.query([])?;
        let mut out: HashMap<String, Vec<Definition>> = HashMap::new();
        while let Some(r) = rows.next()? {
            let id: String = r.get(0)?;
            if !ids.contains(id.as_str()) {
                continue;
            }
            let defs = out.entry(id).or_default();
            // At most a few distinct definitions are worth naming.
            if defs.len() >= 8 {
                continue;
            }
            let description: String = r.get(1)?;
            let available: String = r.get(2)?;
            // Written by put_item as a JSON list; anything else reads as none.
            let available: Vec<String> = serde_json::from_str(&available).unwrap_or_default();
            defs.push((description, available));
        }
        Ok(out)
    }

    /// The persona ids stored now (this import's included).
    pub fn persona_ids(&self) -> Result<HashSet<String>> {
        self.ids("SELECT id FROM personas")
    }

    pub fn perspective_ids(&self) -> Result<HashSet<String>> {
        self.ids("SELECT id FROM perspectives")
    }

    /// Items that verdicts or labels refer to (before this import's labels).
    pub fn worked_item_ids(&self) -> Result<HashSet<String>> {
        self.ids("SELECT item_id FROM verdicts UNION SELECT item_id FROM labels")
    }

    pub fn counts(&self) -> UpsertCounts {
        self.counts
    }

    /// Makes everything written durable, at once.
    pub fn commit(self) -> Result<UpsertCounts> {
        self.tx.commit()?;
        Ok(self.counts)
    }
}
