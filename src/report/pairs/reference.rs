//! The reference label of each combination and persona, per scale: the
//! adjudicated one where an adjudicator gave it, else the majority of the
//! people who labelled it ([`super::builder::majority`]: one vote per
//! person, a Likert 4 and 5 the same answer; a tie gives none).

use crate::domain::{ReferenceCounts, ReferenceSource, Value};
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

/// (combination, persona) → each scale's reference value and its source.
pub(super) type References = HashMap<(u32, u32), Vec<(Value, ReferenceSource)>>;

/// Every reference, and how many came from where (ties counted as left out).
pub(super) fn references_counted(
    labels: &[(u32, u32, Arc<str>, Value)],
    labels_by: &HashMap<(u32, u32), Vec<usize>>,
    adjudications: &[(u32, u32, Value)],
) -> (References, ReferenceCounts) {
    let mut out: References = HashMap::default();
    let mut counts = ReferenceCounts::default();
    for &(combo, persona, value) in adjudications {
        out.entry((combo, persona))
            .or_default()
            .push((value, ReferenceSource::Adjudicated));
        counts.add(Some(ReferenceSource::Adjudicated));
    }
    for (&k, ls) in labels_by {
        // One scale at a time, in a fixed order.
        let mut scales: Vec<_> = ls.iter().map(|&i| labels[i].3.scale().as_str()).collect();
        scales.sort_unstable();
        scales.dedup();
        for scale in scales {
            if out
                .get(&k)
                .is_some_and(|rs| rs.iter().any(|r| r.0.scale().as_str() == scale))
            {
                continue;
            }
            let values: Vec<Value> = ls
                .iter()
                .map(|&i| labels[i].3)
                .filter(|v| v.scale().as_str() == scale)
                .collect();
            let source = if values.len() > 1 {
                ReferenceSource::Majority
            } else {
                ReferenceSource::OnePerson
            };
            match super::builder::majority(&values) {
                Some((v, _)) => {
                    out.entry(k).or_default().push((v, source));
                    counts.add(Some(source));
                }
                None => counts.add(None),
            }
        }
    }
    (out, counts)
}

/// Every reference (see [`references_counted`]).
pub(super) fn references(
    labels: &[(u32, u32, Arc<str>, Value)],
    labels_by: &HashMap<(u32, u32), Vec<usize>>,
    adjudications: &[(u32, u32, Value)],
) -> References {
    references_counted(labels, labels_by, adjudications).0
}
