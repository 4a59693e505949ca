//! The sample orders' state (issue #33): the active order as the store
//! held it when the list first showed it, and what the next label is
//! worth. Both are computed off the UI thread (`Effect::LoadActiveOrder`,
//! `Effect::LoadLabelWorth`) from the store, as `jury sample` and `jury
//! plan` compute them.

use crate::domain::ComboKey;
use crate::report::active_walk::ActiveWalk;
use crate::report::label_worth::Worth;
use std::collections::HashMap;

/// What of the sample orders the workbench holds.
#[derive(Debug, Default)]
pub struct ActiveState {
    /// The active order and the draws the store holds for this person.
    pub walk: Option<ActiveWalk>,
    /// The order was asked for and has not arrived yet.
    pub walk_asked: bool,
    /// The widths now and after one more label, per estimate.
    pub worth: Option<Vec<Worth>>,
    /// The widths were asked for and have not arrived yet.
    pub worth_asked: bool,
    /// A label was saved while the widths were being computed: ask again
    /// when they arrive.
    pub worth_stale: bool,
    /// Per (persona, classification, perspective, active?), the width when
    /// this session first showed it: how far the labels since narrowed it.
    pub first: HashMap<(String, String, String, bool), f64>,
}

/// The focused row's worth under one order.
#[derive(Debug, Clone, PartialEq)]
pub struct RowWorth {
    pub classification: String,
    pub now: f64,
    pub next: f64,
    /// The width this session first showed.
    pub first: f64,
}

impl ActiveState {
    /// New widths arrived: each estimate's first width this session is
    /// kept, to show how far the labels narrowed it.
    pub fn worth_arrived(&mut self, rows: Vec<Worth>) {
        for w in &rows {
            for (active, (now, _)) in [(false, w.uniform), (true, w.active)] {
                if let Some(now) = now {
                    self.first
                        .entry((
                            w.persona.clone(),
                            w.classification.clone(),
                            w.perspective.clone(),
                            active,
                        ))
                        .or_insert(now);
                }
            }
        }
        self.worth = Some(rows);
    }

    /// The worth of the next label on `persona`'s `key`'s estimate under
    /// the active order (`active`) or the random one: the estimate of that
    /// persona, else one pooling personas (each item's owner); the first
    /// when several judges have one.
    pub fn row_worth(&self, persona: &str, key: &ComboKey, active: bool) -> Option<RowWorth> {
        let rows = self.worth.as_ref()?;
        let of = |w: &&Worth| {
            w.classification == key.classification_id && w.perspective == key.perspective_id
        };
        let w = rows
            .iter()
            .filter(of)
            .find(|w| w.persona == persona)
            .or_else(|| rows.iter().find(of))?;
        let (now, next) = if active { w.active } else { w.uniform };
        let (now, next) = (now?, next?);
        let first = self
            .first
            .get(&(
                w.persona.clone(),
                key.classification_id.clone(),
                key.perspective_id.clone(),
                active,
            ))
            .copied()
            .unwrap_or(now);
        Some(RowWorth {
            classification: key.classification_id.clone(),
            now,
            next,
            first,
        })
    }
}

impl super::App {
    /// The focused row's persona and combination.
    pub fn focused_combo(&self) -> Option<(String, ComboKey)> {
        let rows = self.rows();
        if let Some(r) = rows.get(self.list.row) {
            let persona = self.data.persona_of(self.current_index()?).to_string();
            return Some((persona, self.combo(r)?));
        }
        self.focused_proto_row().map(|r| (r.persona_id, r.key))
    }

    /// In a sample order, what the next label on the focused row is worth
    /// under that order (`None` elsewhere, or before it is known).
    pub fn focused_worth(&self) -> Option<RowWorth> {
        let active = match self.list.order {
            super::queue::Order::Sample => false,
            super::queue::Order::Active => true,
            _ => return None,
        };
        let (persona, key) = self.focused_combo()?;
        self.data.active.row_worth(&persona, &key, active)
    }
}
