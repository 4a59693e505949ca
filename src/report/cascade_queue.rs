//! The escalation queue of a cascade of judges (`jury trust --cascade A,B
//! --needs-person`, and the workbench's "needs a person" filter and the
//! queue's export once the store holds a finished `jury run --cascade`):
//! the combinations no person labelled that no judge of the cascade keeps —
//! only what the last judge cannot keep either.

use super::cascade::Cascade;
use super::escalation::Escalation;
use super::estimate::reading;
use super::pairs::Readings;
use crate::analytics::cascade::keeper;
use crate::domain::ComboKey;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// Per combination that no judge keeps: the last judge of the cascade that
/// judged it, its value, confidence and threshold (the judge that could
/// not keep it last).
pub fn cascade_needs_a_person(
    readings: &Readings,
    judges: &[String],
    cascades: &[Cascade],
) -> Vec<Escalation> {
    let labelled: HashSet<(&str, &ComboKey)> = readings
        .labels
        .iter()
        .map(|(persona, key, _, _)| (&**persona, &**key))
        .collect();
    let thresholds: BTreeMap<(&str, &str), Vec<Option<f64>>> = cascades
        .iter()
        .map(|c| {
            (
                (c.classification.as_str(), c.perspective.as_str()),
                c.stages.iter().map(|s| s.threshold).collect(),
            )
        })
        .collect();
    let place: HashMap<&str, usize> = judges
        .iter()
        .enumerate()
        .map(|(j, n)| (n.as_str(), j))
        .collect();
    type Seen = (Vec<Option<f64>>, Option<(usize, usize)>);
    let mut order: Vec<(Arc<str>, Arc<ComboKey>)> = Vec::new();
    let mut per: HashMap<(&str, &ComboKey), Seen> = HashMap::new();
    for (i, ((judge, persona, key, _), c)) in readings
        .verdicts
        .iter()
        .zip(&readings.confidences)
        .enumerate()
    {
        let Some(&j) = place.get(&**judge) else {
            continue;
        };
        if labelled.contains(&(&**persona, &**key)) {
            continue;
        }
        let slot = per.entry((&**persona, &**key)).or_insert_with(|| {
            order.push((persona.clone(), key.clone()));
            (vec![None; judges.len()], None)
        });
        if let Some(c) = c
            && reading(&c.value).is_some()
        {
            slot.0[j] = Some(c.confidence.value);
        }
        // The latest judge of the cascade with a verdict here.
        if slot.1.is_none_or(|(last, _)| j >= last) {
            slot.1 = Some((j, i));
        }
    }
    let mut out = Vec::new();
    for (persona, key) in order {
        let (confidences, last) = &per[&(&*persona, &*key)];
        let ts = thresholds
            .get(&(key.classification_id.as_str(), key.perspective_id.as_str()))
            .cloned()
            .unwrap_or_else(|| vec![None; judges.len()]);
        if keeper(confidences, &ts).is_some() {
            continue;
        }
        let Some((j, i)) = *last else { continue };
        let (judge, _, _, value) = &readings.verdicts[i];
        let confident = readings.confidences.get(i).and_then(Option::as_ref);
        out.push(Escalation {
            persona: persona.clone(),
            key: key.clone(),
            judge: Some(judge.clone()),
            value: Some(confident.map_or(*value, |c| c.value)),
            confidence: confident.map(|c| c.confidence.value),
            threshold: ts[j],
        });
    }
    out
}

/// The queue of a finished `jury run --cascade`.
#[derive(Debug, Clone, PartialEq)]
pub struct CascadeQueue {
    /// The cascade's run, and its judges as given (`A → B`).
    pub run_id: i64,
    pub stages: String,
    pub queue: Vec<Escalation>,
    /// Whether any of its judges keeps anything.
    pub trusted: bool,
}

/// The queue of the store's latest finished `jury run --cascade`, at its
/// levels; `None` when the store has no finished cascade (the queue is
/// then the trusted configuration's, [`super::escalation::escalation_queue`]).
pub fn latest_cascade_queue(
    store: &crate::store::Store,
    readings: &Readings,
    sampling: &super::estimate::Sampling,
) -> crate::store::Result<Option<CascadeQueue>> {
    let Some((run, record)) = store
        .cascade_runs()?
        .into_iter()
        .rev()
        .find(|(run, _)| run.status == crate::domain::RunStatus::Done)
    else {
        return Ok(None);
    };
    let names: Vec<Option<String>> = record.stages.iter().map(|s| s.judge.clone()).collect();
    let judges = super::cascade_run::stage_names(&names);
    let cs = super::cascade::cascades(
        readings,
        &judges,
        record.alpha,
        record.delta,
        record.min_calibration,
        None,
        sampling,
    );
    Ok(Some(CascadeQueue {
        run_id: run.id,
        stages: record
            .stages
            .iter()
            .map(|s| s.given.as_str())
            .collect::<Vec<_>>()
            .join(" → "),
        trusted: cs
            .iter()
            .any(|c| c.stages.iter().any(|s| s.threshold.is_some())),
        queue: cascade_needs_a_person(readings, &judges, &cs),
    }))
}
