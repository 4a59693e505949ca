//! Which proposition runs judging a set of items means: one run per claim
//! (and persona) that has a row on some of the items, asked with the
//! claim's settings (see [`crate::tui::app::claims`]).

use super::super::app::App;
use crate::domain::Protocol;
use crate::protocol::proposition::{PERSPECTIVE, Settings};
use std::collections::{BTreeMap, BTreeSet};

/// One proposition run to start.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimRun {
    pub settings: Settings,
    /// As recorded: [`crate::domain::PersonaRef::NONE_ID`] for a claim
    /// judged from no one's view.
    pub persona_id: String,
    pub item_ids: Vec<String>,
}

/// The claim runs for `item_ids`, and the claim ids that have rows there
/// but no known settings (they cannot be asked).
pub fn claim_runs(app: &App, item_ids: &[String]) -> (Vec<ClaimRun>, Vec<String>) {
    let mut by: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for id in item_ids {
        let mut on_item: BTreeSet<(String, String)> = BTreeSet::new();
        let verdicts = app.data.verdicts.get(id).into_iter().flatten();
        for v in verdicts.filter(|v| v.protocol == Protocol::Proposition) {
            on_item.insert((v.key.classification_id.clone(), v.persona_id.clone()));
        }
        let labels = app.data.labels.get(id).into_iter().flatten();
        for e in labels.filter(|e| e.label.key.perspective_id == PERSPECTIVE) {
            on_item.insert((
                e.label.key.classification_id.clone(),
                e.label.persona_id.clone(),
            ));
        }
        for k in on_item {
            by.entry(k).or_default().push(id.clone());
        }
    }
    let mut runs = Vec::new();
    let mut unknown = BTreeSet::new();
    for ((claim_id, persona_id), item_ids) in by {
        match app.data.claims.get(&claim_id) {
            Some(s) => runs.push(ClaimRun {
                settings: s.clone(),
                persona_id,
                item_ids,
            }),
            None => {
                unknown.insert(claim_id);
            }
        }
    }
    (runs, unknown.into_iter().collect())
}
