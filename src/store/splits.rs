//! The held-out split (`jury split`, domain::split): one per workspace, made
//! in one transaction, read by the report, the exports and the workbench.

use super::db::{OptionalExtension, params};
use super::{Result, Store, StoreError};
use crate::domain::{Side, SplitRule};
use std::collections::{BTreeMap, HashMap};

/// The workspace's split: its rule and the sides fixed when it was made.
#[derive(Debug, Clone)]
pub struct Split {
    pub rule: SplitRule,
    pub created_at: String,
    pub created_by: String,
    /// item → classification → side, as stored: looked up by `&str` on
    /// every pair a report holds, so without building a key per lookup.
    members: HashMap<String, HashMap<String, Side>>,
    /// item → its side: `test` when any of its stored pairs is.
    items: HashMap<String, Side>,
    /// Items with stored pairs on both sides (a split made by pair, before
    /// splits were by item), sorted.
    mixed: Vec<String>,
    fixed: usize,
}

impl Split {
    /// The side of an item: every pair of it is on this side. An item none
    /// of whose pairs was labelled when the split was made takes the side
    /// its hash gives. On a pair-level split ([`Self::mixed_items`]) an
    /// item with any pair on `test` is `test`: its text must never be an
    /// example.
    pub fn item_side(&self, item_id: &str) -> Side {
        match self.items.get(item_id) {
            Some(side) => *side,
            None => self.rule.side_of_new_item(item_id),
        }
    }

    /// The side of an (item, classification): the one stored for it, else
    /// its item's. On a split made by item the same for every pair of an
    /// item; on a pair-level one the stored side, as it was made.
    pub fn side_of(&self, item_id: &str, classification_id: &str) -> Side {
        match self
            .members
            .get(item_id)
            .and_then(|m| m.get(classification_id))
        {
            Some(side) => *side,
            None => self.item_side(item_id),
        }
    }

    /// Items with pairs on both sides: non-empty only for a split made by
    /// (item, classification) pair, which leaks (an item's text can be an
    /// example while another of its pairs is scored as held-out); `jury
    /// split --replace` remakes it by item.
    pub fn mixed_items(&self) -> &[String] {
        &self.mixed
    }

    /// Pairs fixed when the split was made.
    pub fn fixed(&self) -> usize {
        self.fixed
    }

    /// Items fixed when the split was made, `[train, test]`.
    pub fn fixed_items(&self) -> [usize; 2] {
        let test = self.items.values().filter(|s| **s == Side::Test).count();
        [self.items.len() - test, test]
    }
}

/// What `jury split` made: items and pairs per side, and pairs per label
/// value.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct SplitCounts {
    /// Pairs on each side.
    pub train: usize,
    pub test: usize,
    /// Items on each side (every pair of an item is on its side).
    pub train_items: usize,
    pub test_items: usize,
    /// Label value → pairs [train, test].
    pub by_label: BTreeMap<String, [usize; 2]>,
}

impl Store {
    /// The workspace's split, if one was made.
    pub fn split(&self) -> Result<Option<Split>> {
        let rule: Option<(f64, i64, String, String)> = self
            .conn
            .query_row(
                "SELECT holdout, seed, created_at, created_by FROM split_rule WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .optional()?;
        let Some((holdout, seed, created_at, created_by)) = rule else {
            return Ok(None);
        };
        let rule = SplitRule::new(holdout, seed as u64)
            .map_err(|e| StoreError::Data(format!("the stored split: {e}")))?;
        let mut stmt = self
            .conn
            .prepare("SELECT item_id, classification_id, side FROM split_members")?;
        let mut members: HashMap<String, HashMap<String, Side>> = HashMap::new();
        let mut fixed = 0;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        for row in rows {
            let (item, cls, side) = row?;
            let side = Side::parse(&side)
                .ok_or_else(|| StoreError::Data(format!("split side '{side}' for {item}/{cls}")))?;
            members.entry(item).or_default().insert(cls, side);
            fixed += 1;
        }
        let mut items = HashMap::with_capacity(members.len());
        let mut mixed = Vec::new();
        for (item, pairs) in &members {
            let test = pairs.values().any(|s| *s == Side::Test);
            let train = pairs.values().any(|s| *s == Side::Train);
            if test && train {
                mixed.push(item.clone());
            }
            items.insert(item.clone(), if test { Side::Test } else { Side::Train });
        }
        mixed.sort();
        Ok(Some(Split {
            rule,
            created_at,
            created_by,
            members,
            items,
            mixed,
            fixed,
        }))
    }

    /// Makes the workspace's split over every labelled item, every pair of
    /// an item on its side, stratified by the items' human labels (per
    /// pair, the value most of its labels give; on a tie the first in text
    /// order). Refused when a split exists, unless `replace`: examples
    /// built from the old `train` side could then sit on the new `test`
    /// side.
    pub fn make_split(&mut self, rule: SplitRule, who: &str, replace: bool) -> Result<SplitCounts> {
        let pairs = self.labelled_pairs()?;
        let tx = self.immediate()?;
        let exists: Option<(f64, i64, String)> = tx
            .query_row(
                "SELECT holdout, seed, created_at FROM split_rule WHERE id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        if let Some((holdout, seed, at)) = exists {
            if !replace {
                return Err(StoreError::SplitExists {
                    holdout,
                    seed,
                    made: at,
                });
            }
            tx.execute("DELETE FROM split_members", [])?;
            tx.execute("DELETE FROM split_rule", [])?;
        }
        // Labelled pairs come ordered by item: one entry per item.
        let mut items: Vec<(String, Vec<(String, String)>)> = Vec::new();
        for ((item, cls), value) in &pairs {
            match items.last_mut() {
                Some((id, ps)) if id == item => ps.push((cls.clone(), value.clone())),
                _ => items.push((item.clone(), vec![(cls.clone(), value.clone())])),
            }
        }
        let sides = rule.assign_items(&items);
        let mut counts = SplitCounts::default();
        {
            let mut insert = tx.prepare(
                "INSERT INTO split_members (item_id, classification_id, side) VALUES (?1, ?2, ?3)",
            )?;
            for ((item, item_pairs), side) in items.iter().zip(&sides) {
                match side {
                    Side::Train => counts.train_items += 1,
                    Side::Test => counts.test_items += 1,
                }
                for (cls, stratum) in item_pairs {
                    insert.execute(params![item, cls, side.as_str()])?;
                    let slot = counts.by_label.entry(stratum.clone()).or_default();
                    match side {
                        Side::Train => {
                            counts.train += 1;
                            slot[0] += 1;
                        }
                        Side::Test => {
                            counts.test += 1;
                            slot[1] += 1;
                        }
                    }
                }
            }
        }
        tx.execute(
            "INSERT INTO split_rule (id, holdout, seed, created_at, created_by) VALUES (1, ?1, ?2, ?3, ?4)",
            params![rule.holdout, rule.seed as i64, super::now(), who],
        )?;
        tx.commit()?;
        Ok(counts)
    }

    /// Records the (item, classification) pairs prompt version `hash` shows
    /// as examples (a run with a few-shot set calls it when it starts).
    pub fn record_prompt_examples(&mut self, hash: &str, pairs: &[(String, String)]) -> Result<()> {
        if pairs.is_empty() {
            return Ok(());
        }
        let tx = self.immediate()?;
        {
            let mut insert = tx.prepare(
                "INSERT INTO prompt_examples (prompt_hash, item_id, classification_id) VALUES (?1, ?2, ?3)
                 ON CONFLICT DO NOTHING",
            )?;
            for (item, cls) in pairs {
                insert.execute(params![hash, item, cls])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Prompt version → the example pairs it shows.
    pub fn prompt_examples(&self) -> Result<BTreeMap<String, Vec<(String, String)>>> {
        let mut stmt = self.conn.prepare(
            "SELECT prompt_hash, item_id, classification_id FROM prompt_examples ORDER BY 1, 2, 3",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        for row in rows {
            let (hash, item, cls) = row?;
            out.entry(hash).or_default().push((item, cls));
        }
        Ok(out)
    }

    /// Every labelled (item, classification), in a fixed order.
    pub fn labelled_pair_keys(&self) -> Result<Vec<(String, String)>> {
        Ok(self.labelled_pairs()?.into_iter().map(|(k, _)| k).collect())
    }

    /// Every labelled (item, classification) with its stratum: the label
    /// value most of its labels give (ties: the first in text order), in a
    /// fixed order.
    fn labelled_pairs(&self) -> Result<Vec<((String, String), String)>> {
        let mut stmt = self.conn.prepare(
            "SELECT item_id, classification_id, value, count(*) AS n FROM labels
             GROUP BY item_id, classification_id, value
             ORDER BY item_id, classification_id, n DESC, value",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        let mut out: Vec<((String, String), String)> = Vec::new();
        for row in rows {
            let (item, cls, value) = row?;
            // The first row of each pair is its most common value.
            if out.last().is_some_and(|(k, _)| k.0 == item && k.1 == cls) {
                continue;
            }
            out.push(((item, cls), value));
        }
        Ok(out)
    }
}
