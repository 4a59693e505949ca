//! Labels given in the workbench's seeded random `sample` order: the
//! combinations a person did not choose, which `jury estimate` can trust as
//! a random sample.

use super::{Result, Store};
use crate::domain::ComboKey;
use rusqlite::params;
use std::collections::HashMap;

/// A sampled label's identity: combination, persona and who.
pub type SampledKey = (ComboKey, String, String);

impl Store {
    /// Records that `who`'s label on `key` under `persona` was given in the
    /// sample order of `seed`.
    pub fn mark_sampled(
        &mut self,
        key: &ComboKey,
        persona: &str,
        who: &str,
        seed: u64,
    ) -> Result<()> {
        self.write_one(
            "INSERT INTO label_samples (item_id, classification_id, perspective_id, persona_id, who, seed, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT(item_id, classification_id, perspective_id, persona_id, who)
             DO UPDATE SET seed = excluded.seed",
            params![
                key.item_id,
                key.classification_id,
                key.perspective_id,
                persona,
                who,
                seed as i64,
                super::now()
            ],
        )?;
        Ok(())
    }

    /// Every sampled label and the seed of its sample order.
    pub fn sampled_labels(&self) -> Result<HashMap<SampledKey, u64>> {
        let mut stmt = self.conn.prepare(
            "SELECT item_id, classification_id, perspective_id, persona_id, who, seed FROM label_samples",
        )?;
        let rows = stmt.query_map([], |r| {
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
                r.get::<_, i64>(5)? as u64,
            ))
        })?;
        Ok(rows.collect::<rusqlite::Result<HashMap<_, _>>>()?)
    }
}
