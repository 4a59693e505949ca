//! Labels given in the active order (issue #33): each with the probability
//! one draw of that order picks its combination (`p`, what the estimate
//! weighs it by), the order's seed, the first draw that picked it and how
//! many draws did. Kept in `label_samples` with `how = 'active'` and the
//! draw as a JSON record in `queue` (no migration: one more kind of
//! selection, as `judge` is).

use super::db::params;
use super::{Result, SampledKey, Store};
use crate::domain::ComboKey;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// How an active-order label's combination was drawn.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ActiveDraw {
    /// The seed of the order (`None`: an outside process that did not say).
    pub seed: Option<u64>,
    /// The probability that one draw picks this combination, among its
    /// classification and perspective's combinations.
    pub p: f64,
    /// The first draw (1-based) that picked it, when known.
    pub draw: Option<u64>,
    /// How many draws picked it (a repeat draw reuses the label).
    pub draws: u32,
}

/// Records a label as drawn in the active order: (item, classification,
/// perspective, persona, who, seed or NULL, now, the draw as JSON). A label
/// drawn before in another way becomes an active one: it is the draw the
/// estimate must weigh.
pub(super) const MARK_ACTIVE: &str = "INSERT INTO label_samples (item_id, classification_id, perspective_id, persona_id, who, seed, created_at, how, queue)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'active', ?8)
     ON CONFLICT(item_id, classification_id, perspective_id, persona_id, who)
     DO UPDATE SET seed = excluded.seed, how = 'active', queue = excluded.queue";

/// The JSON kept in `queue` for a draw.
pub(super) fn draw_json(d: &ActiveDraw) -> String {
    // Serialising four plain fields cannot fail.
    serde_json::to_string(d).unwrap_or_default()
}

impl Store {
    /// Records that `who`'s label on `key` under `persona` was given as a
    /// draw of the active order. A draw already recorded for the same
    /// order (same seed) adds to its count, keeping the first draw.
    pub fn mark_active(
        &mut self,
        key: &ComboKey,
        persona: &str,
        who: &str,
        draw: &ActiveDraw,
    ) -> Result<()> {
        let mut d = *draw;
        let k = (key.clone(), persona.to_string(), who.to_string());
        if let Some(old) = self.active_labels()?.remove(&k)
            && old.seed == d.seed
        {
            d.draws = old.draws.saturating_add(d.draws);
            d.draw = old.draw.or(d.draw);
        }
        self.write_one(
            MARK_ACTIVE,
            params![
                key.item_id,
                key.classification_id,
                key.perspective_id,
                persona,
                who,
                d.seed.map(|s| s as i64),
                super::now(),
                draw_json(&d)
            ],
        )?;
        Ok(())
    }

    /// Every label given in the active order, with its draw. A record that
    /// does not read back (written by a newer jury) is left out.
    pub fn active_labels(&self) -> Result<HashMap<SampledKey, ActiveDraw>> {
        let rows = self.selections("active", |r| r.get::<_, String>(6))?;
        Ok(rows
            .into_iter()
            .filter_map(|(k, json)| {
                let d: ActiveDraw = serde_json::from_str(&json).ok()?;
                (d.p > 0.0 && d.p <= 1.0 && d.draws > 0).then_some((k, d))
            })
            .collect())
    }
}
