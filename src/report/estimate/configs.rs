//! Which configuration a figure belongs to, across classifications: a
//! judge run under each item's owner is one configuration (as the ranking
//! reads it), and one estimate pools a configuration's classifications.

use super::{Estimate, Sampling, estimates_by};
use crate::domain::ComboKey;
use crate::report::pairs::Readings;
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

/// Per judge that played several personas but each combination under one
/// of them only (the workbench's "each item's owner", `--persona owner`):
/// the one configuration it is, named as the ranking names it.
pub(crate) fn owner_configurations(readings: &Readings) -> HashMap<&str, Arc<str>> {
    #[derive(Default)]
    struct Seen<'a> {
        personas: std::collections::BTreeSet<&'a str>,
        by_combo: HashMap<&'a ComboKey, &'a str>,
        one_each: bool,
    }
    let mut judges: HashMap<&str, Seen<'_>> = HashMap::default();
    for (judge, persona, key, _) in &readings.verdicts {
        let s = judges.entry(judge).or_insert_with(|| Seen {
            one_each: true,
            ..Seen::default()
        });
        s.personas.insert(persona);
        if *s.by_combo.entry(key).or_insert(persona) != &**persona {
            s.one_each = false;
        }
    }
    judges
        .into_iter()
        .filter(|(_, s)| s.one_each && s.personas.len() > 1)
        .map(|(j, s)| {
            let names: Vec<&str> = s.personas.into_iter().collect();
            (
                j,
                Arc::from(crate::report::rank::one_persona_per_item(&names)),
            )
        })
        .collect()
}

/// Per judge configuration that judged several classifications, one
/// estimate over all of them ([`POOLED`]): the classifier's accuracy on
/// every combination, where each classification alone has few labels.
pub fn pooled(
    readings: &Readings,
    alpha: f64,
    who: Option<&str>,
    sampling: &Sampling,
) -> Vec<Estimate> {
    let mut classes: HashMap<(&str, &str), std::collections::BTreeSet<&str>> = HashMap::default();
    for (judge, persona, key, _) in &readings.verdicts {
        classes
            .entry((judge, persona))
            .or_default()
            .insert(&key.classification_id);
    }
    let owners = owner_configurations(readings);
    let several: rustc_hash::FxHashSet<(&str, &str)> = classes
        .into_iter()
        .filter(|(_, c)| c.len() > 1)
        .map(|((j, p), _)| (j, owners.get(j).map_or(p, |o| &**o)))
        .collect();
    estimates_by(readings, alpha, who, sampling, true)
        .into_iter()
        .filter(|e| several.contains(&(e.judge.as_str(), e.persona.as_str())))
        .collect()
}
