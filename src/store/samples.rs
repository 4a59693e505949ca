//! How a label's combination was chosen: given on the next item of the
//! workbench's seeded random `sample` order (a combination a person did not
//! choose, which `jury estimate` can trust as a random sample), or in a
//! queue or filter made of the judge's verdicts (selected by the judge,
//! which biases PPI and trust: left out by default). A label with neither
//! record is "not recorded as sampled".

use super::db::params;
use super::{Result, Store};
use crate::domain::ComboKey;
use std::collections::HashMap;

/// Records a label as sampled: (item, classification, perspective,
/// persona, who, seed or NULL, now).
pub(super) const MARK_SAMPLED: &str = "INSERT INTO label_samples (item_id, classification_id, perspective_id, persona_id, who, seed, created_at, how, queue)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'sample', '')
     ON CONFLICT(item_id, classification_id, perspective_id, persona_id, who)
     DO UPDATE SET seed = excluded.seed, how = 'sample', queue = ''";

/// A sampled label's identity: combination, persona and who.
pub type SampledKey = (ComboKey, String, String);

/// The seed of a sampled label's order; `None`: sampled by an outside
/// process that did not say (an import's `sampled: true` alone).
pub type SampleSeed = Option<u64>;

impl Store {
    /// Records that `who`'s label on `key` under `persona` was given as the
    /// next item of the sample order of `seed` (`None`: an outside sample).
    /// A sampled combination stays sampled: the sample is about which
    /// combinations were chosen, not their values.
    pub fn mark_sampled(
        &mut self,
        key: &ComboKey,
        persona: &str,
        who: &str,
        seed: SampleSeed,
    ) -> Result<()> {
        self.write_one(
            MARK_SAMPLED,
            params![
                key.item_id,
                key.classification_id,
                key.perspective_id,
                persona,
                who,
                seed.map(|s| s as i64),
                super::now()
            ],
        )?;
        Ok(())
    }

    /// Records that `who`'s label on `key` was given in `queue`, a list made
    /// of the judge's verdicts (the disagreement-first orders, the
    /// judge≠human filter...). A combination already sampled stays sampled.
    pub fn mark_judge_selected(
        &mut self,
        key: &ComboKey,
        persona: &str,
        who: &str,
        queue: &str,
    ) -> Result<()> {
        self.write_one(
            "INSERT INTO label_samples (item_id, classification_id, perspective_id, persona_id, who, seed, created_at, how, queue)
             VALUES (?1, ?2, ?3, ?4, ?5, NULL, ?6, 'judge', ?7)
             ON CONFLICT(item_id, classification_id, perspective_id, persona_id, who) DO NOTHING",
            params![
                key.item_id,
                key.classification_id,
                key.perspective_id,
                persona,
                who,
                super::now(),
                queue
            ],
        )?;
        Ok(())
    }

    /// Every sampled label and the seed of its sample order.
    pub fn sampled_labels(&self) -> Result<HashMap<SampledKey, SampleSeed>> {
        self.selections("sample", |r| {
            Ok(r.get::<_, Option<i64>>(5)?.map(|s| s as u64))
        })
    }

    /// Every label selected by the judge, and the queue it was given in.
    pub fn judge_selected_labels(&self) -> Result<HashMap<SampledKey, String>> {
        self.selections("judge", |r| r.get::<_, String>(6))
    }

    pub(super) fn selections<T>(
        &self,
        how: &str,
        value: impl Fn(&super::db::Row<'_>) -> super::Result<T>,
    ) -> Result<HashMap<SampledKey, T>> {
        let mut stmt = self.conn.prepare(
            "SELECT item_id, classification_id, perspective_id, persona_id, who, seed, queue FROM label_samples WHERE how = ?1",
        )?;
        let rows = stmt.query_map([how], |r| {
            Ok((
                (
                    ComboKey::new(
                        &r.get::<_, String>(0)?,
                        &r.get::<_, String>(1)?,
                        &r.get::<_, String>(2)?,
                    ),
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                ),
                value(r)?,
            ))
        })?;
        rows.collect::<super::Result<HashMap<_, _>>>()
    }
}

/// How the workbench says a label's combination was chosen, when it knows.
#[derive(Debug, Clone, PartialEq)]
pub enum Selected {
    /// The next item of the random order with this seed.
    Sample(u64),
    /// In a list made of the judge's verdicts (its name).
    Judge(&'static str),
    /// Draws of the active order ([`super::Store::mark_active`]: the
    /// draws add to those held for the same seed).
    Active(super::ActiveDraw),
}

impl Store {
    /// Records `how` for `who`'s label on `key` under `persona`.
    pub fn mark_selected(
        &mut self,
        key: &ComboKey,
        persona: &str,
        who: &str,
        how: &Selected,
    ) -> Result<()> {
        match how {
            Selected::Sample(seed) => self.mark_sampled(key, persona, who, Some(*seed)),
            Selected::Judge(queue) => self.mark_judge_selected(key, persona, who, queue),
            Selected::Active(draw) => self.mark_active(key, persona, who, draw),
        }
    }
}
