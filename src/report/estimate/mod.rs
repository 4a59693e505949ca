//! `jury estimate`: the classifier's accuracy as people would judge it, per
//! classification, perspective and judge configuration — from people's
//! labels alone, and prediction-powered (PPI++, [`crate::analytics::ppi`])
//! from the labels plus the judge's verdicts on every combination. The
//! second interval stays valid when the judge is biased, and is narrower
//! when the judge tracks people.
//!
//! Readings (docs/design.md §7.10): AGREE or Likert ≥ 4 is 1 (the classifier was
//! right), DISAGREE or Likert ≤ 2 is 0. The judge's Likert 3 is read as 0.5
//! (half right) and kept: leaving it out would let a judge that hedges on
//! the classifier's errors look perfect, and drop exactly the combinations
//! the estimate most needs. People's reading of a combination is their
//! majority (one vote per person; a tie is undecided) or one named
//! person's; a combination people left undecided is left out and counted.
//!
//! The intervals are those of [`crate::analytics::accuracy_ci`]: normal
//! (ppi_py's) where the labels carry it, exact or finite-sample where not.

pub mod active;
mod configs;
pub mod judge_errors;
mod plan;
pub(crate) mod render;

pub(crate) use configs::owner_configurations;
pub use configs::pooled;
pub use judge_errors::JudgeErrors;
pub use plan::{PLAN_HALF_WIDTH, Plan};
pub use render::{csv, headline, headlines, table};

use super::pairs::Readings;
use crate::analytics::accuracy_ci::{AccuracyMethod, accuracy_intervals};
use crate::analytics::ppi::{MeanEstimate, PpiEstimate};
use crate::analytics::stratified::{Stratum, stratified_intervals};
use crate::domain::{Agreement, ComboKey, ReferenceCounts, ReferenceSource, Value};
use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What was left out of an estimate, and why.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LeftOut {
    /// Labelled combinations where people's reading was undecided (a tie,
    /// or only Likert 3 labels).
    pub people_undecided: usize,
    /// With `--who`: combinations labelled by others but not by that person
    /// (neither a labelled nor an unlabelled combination for this estimate).
    pub labelled_by_others: usize,
    /// With `--sampled-only`: labelled combinations none of whose labels is
    /// recorded as sampled. Their labels are left out; the judge's verdict
    /// on them stays in the population, read as unlabelled.
    pub chosen_by_hand: usize,
    /// Labelled combinations whose labels were all selected by the judge
    /// (given in a list made of its verdicts: the disagreement-first queue,
    /// the judge≠human filter...), left out unless asked for
    /// (`--include-judge-selected`); the verdict stays, read as unlabelled.
    pub judge_selected: usize,
}

/// How the labels were chosen, for the validity of the estimate.
#[derive(Debug, Clone, Default)]
pub struct Sampling {
    /// Labels recorded as a random sample (the workbench's `sample` order's
    /// next item, or an import that says so).
    pub sampled: std::collections::HashMap<crate::store::SampledKey, crate::store::SampleSeed>,
    /// Labels selected by the judge, and the list they were given in.
    pub judge_selected: std::collections::HashMap<crate::store::SampledKey, String>,
    /// Use the sampled ones alone (`--sampled-only`).
    pub only: bool,
    /// Count the judge-selected ones too (`--include-judge-selected`).
    pub include_judge_selected: bool,
    /// Labels given in the active order, with their draws (issue #33):
    /// the active line's; the other lines (and `jury trust`) leave them
    /// out, counted as selected by the judge (the order follows its
    /// uncertainty), even with `--include-judge-selected`.
    pub active: std::collections::HashMap<crate::store::SampledKey, crate::store::ActiveDraw>,
    /// The adjudicated reference reading per (persona, combination): it
    /// stands for people's where there is one (`None`: undecided, a Likert
    /// 3 or adjudications on two scales that differ).
    pub adjudicated: HashMap<(String, ComboKey), Option<bool>>,
}

impl Sampling {
    /// How the store's labels were chosen.
    pub fn read(
        store: &crate::store::Store,
        only: bool,
        include_judge_selected: bool,
    ) -> crate::store::Result<Sampling> {
        Ok(Sampling {
            sampled: store.sampled_labels()?,
            judge_selected: store.judge_selected_labels()?,
            active: store.active_labels()?,
            only,
            include_judge_selected,
            adjudicated: adjudicated_readings(store.adjudication_index()?),
        })
    }

    /// The adjudicated reading of one combination, if an adjudication stands.
    pub(crate) fn adjudicated(&self, persona: &str, key: &ComboKey) -> Option<Option<bool>> {
        if self.adjudicated.is_empty() {
            return None;
        }
        self.adjudicated
            .get(&(persona.to_string(), key.clone()))
            .copied()
    }
}

/// Each standing adjudication's reading, by (persona, combination).
pub fn adjudicated_readings(
    index: crate::domain::AdjudicationIndex,
) -> HashMap<(String, ComboKey), Option<bool>> {
    let mut out: HashMap<(String, ComboKey), Option<bool>> = HashMap::default();
    for ((key, persona, _), value) in index {
        let r = reading(&value);
        out.entry((persona, key))
            .and_modify(|e| {
                if *e != r {
                    *e = None;
                }
            })
            .or_insert(r);
    }
    out
}

/// Of one combination's labels under one persona: each person's reading
/// (those kept), whether any label was sampled, and whether labels were
/// left out because the judge selected them.
pub(crate) type LabelEntry<'a> = (PersonReadings<'a>, bool, bool);

/// (persona, combination) → its labels (see [`LabelEntry`]).
pub(crate) type LabelIndex<'a> = HashMap<(&'a str, &'a ComboKey), LabelEntry<'a>>;

/// Borrowed (item, classification, perspective, persona, who) keys.
type Keys<'a> = rustc_hash::FxHashSet<(&'a str, &'a str, &'a str, &'a str, &'a str)>;

fn keys<'a, T>(m: &'a std::collections::HashMap<crate::store::SampledKey, T>) -> Keys<'a> {
    m.keys()
        .map(|(k, persona, who)| {
            (
                k.item_id.as_str(),
                k.classification_id.as_str(),
                k.perspective_id.as_str(),
                persona.as_str(),
                who.as_str(),
            )
        })
        .collect()
}

/// People's readings by combination, what the estimates and the trust
/// thresholds both start from. A label is left out with `sampling.only`
/// unless sampled, and when the judge selected it unless asked for; a
/// combination whose labels are all left out keeps an entry with no
/// readings: read as unlabelled, and counted apart.
pub(crate) fn label_index<'a>(readings: &'a Readings, sampling: &'a Sampling) -> LabelIndex<'a> {
    // The sampled labels by borrowed key: no key is built per label.
    let sampled = keys(&sampling.sampled);
    let judge = keys(&sampling.judge_selected);
    let active = keys(&sampling.active);
    let mut labels: LabelIndex<'a> = HashMap::default();
    for (persona, key, person, value) in &readings.labels {
        let k = (
            key.item_id.as_str(),
            key.classification_id.as_str(),
            key.perspective_id.as_str(),
            &**persona,
            &**person,
        );
        let was_sampled = !sampled.is_empty() && sampled.contains(&k);
        let by_judge = !was_sampled && !judge.is_empty() && judge.contains(&k);
        let e = labels.entry((persona, key)).or_default();
        // A label of the active order is never a random sample's: only
        // the active line, which weighs it by its draw, uses it.
        if !was_sampled && !active.is_empty() && active.contains(&k) {
            e.2 = true;
            continue;
        }
        if by_judge && !sampling.include_judge_selected {
            e.2 = true;
            continue;
        }
        if sampling.only && !was_sampled {
            continue;
        }
        e.0.push((person, reading(value)));
        e.1 |= was_sampled;
    }
    labels
}

/// One classification, perspective and judge configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    pub classification: String,
    pub perspective: String,
    /// The judge as the report names it (protocol, mode, model, prompt set).
    pub judge: String,
    pub persona: String,
    /// Combinations with both people's and the judge's reading.
    pub n: usize,
    /// Of the `n`: combinations whose label was given in the random `sample`
    /// order, and those a person chose (the queue, a search, a filter).
    pub labels_sampled: usize,
    pub labels_chosen: usize,
    /// Combinations with the judge's reading only (no person labelled them).
    #[serde(rename = "N")]
    pub big_n: usize,
    pub alpha: f64,
    /// The accuracy from people's labels alone, with an interval that holds
    /// (exact, Clopper–Pearson).
    pub human_only: Option<MeanEstimate>,
    /// The prediction-powered estimate (`None` without unlabelled
    /// combinations), with an interval that holds (`ppi_method`).
    pub ppi: Option<PpiEstimate>,
    /// How the PPI++ interval was made: normal where the labels carry the
    /// approximation, betting (finite-sample) where they do not.
    pub ppi_method: Option<AccuracyMethod>,
    /// Why the normal approximation was not used (`None` when it was).
    pub not_normal: Option<&'static str>,
    /// ppi_py's normal-approximation intervals (labels alone, PPI++), for
    /// reference: the ones above are those that hold.
    pub human_only_normal_ci: Option<[f64; 2]>,
    pub ppi_normal_ci: Option<[f64; 2]>,
    /// How many labels the judge's verdicts are worth: the labels-alone
    /// normal interval's width over PPI++'s, squared (1.6: as narrow as
    /// 1.6× the labels would make it). Only where the approximation holds.
    pub worth_labels: Option<f64>,
    /// Combinations the judge answered undecided (Likert 3), kept and read
    /// as 0.5.
    pub judge_undecided: usize,
    /// How undecided answers were read, in words.
    pub undecided_reading: &'static str,
    pub left_out: LeftOut,
    /// Why there is no interval: no person labelled these combinations.
    pub not_valid: Option<&'static str>,
    /// The judge's own share of "right" on the unlabelled combinations (no
    /// estimate of accuracy by itself: shown where nothing else can be).
    pub judge_alone: Option<f64>,
    /// Of the `n`: labels the judge selected, counted because asked
    /// (`--include-judge-selected`).
    pub labels_judge_selected: usize,
    /// Of the `n`: where each combination's reference came from (an
    /// adjudication, people's majority, one person), and the ties left out.
    pub reference: ReferenceCounts,
    /// The judge's errors against people and the rate corrected for them
    /// (`None` without labels).
    pub judge_errors: Option<JudgeErrors>,
    /// How many more labels would narrow the interval to ±[`PLAN_HALF_WIDTH`]
    /// (an estimate from the labels so far; `None` when it already is).
    pub plan: Option<Plan>,
    /// The pooled estimate ([`POOLED`]): its strata, each classification
    /// weighted by its share of the combinations (`None` otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stratified: Option<Vec<StratumShare>>,
    /// The active estimate (issue #33): the active order's labels, each
    /// weighed by its draw's probability, with the random sample's
    /// (`None` without active-order labels, or pooled).
    pub active: Option<active::ActiveLine>,
    /// What `jury plan` learns from (not serialised).
    #[serde(skip)]
    pub plan_parts: Option<Arc<active::PlanParts>>,
}

/// One classification of a pooled estimate and its weight: its share of
/// all combinations (labelled and not), whatever share of the labels it has.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StratumShare {
    pub classification: String,
    pub perspective: String,
    /// Its labelled combinations.
    pub n: usize,
    /// Its combinations the judge alone read.
    #[serde(rename = "N")]
    pub big_n: usize,
    pub weight: f64,
}

/// The classification (and perspective) of an estimate pooled over every
/// classification of one judge configuration.
pub const POOLED: &str = "all classifications";

/// Fewest labels for the normal approximation (below it the intervals are
/// exact or finite-sample, see [`crate::analytics::accuracy_ci`]).
pub const MIN_LABELS: usize = crate::analytics::accuracy_ci::MIN_LABELS_NORMAL;

/// How the judge's undecided answers are read, as the output says it.
pub const UNDECIDED_READING: &str =
    "the judge's undecided answers (Likert 3) are read as 0.5, half right";

/// The reading of one value: right (1), wrong (0) or undecided.
pub(crate) fn reading(v: &Value) -> Option<bool> {
    v.as_agreement().map(|a| a == Agreement::Agree)
}

/// People's reading of one combination: the majority of each person's
/// decided reading (`who`: that person's alone). `Err(())`: undecided.
pub(crate) fn people_reading(
    labels: &[(&str, Option<bool>)],
    who: Option<&str>,
) -> Result<bool, ()> {
    let mut per_person: BTreeMap<&str, Option<bool>> = BTreeMap::new();
    for &(person, r) in labels {
        if who.is_some_and(|w| w != person) {
            continue;
        }
        let slot = per_person.entry(person).or_insert(r);
        // One person, two readings that differ (labels on two scales):
        // that person is undecided.
        if *slot != r {
            *slot = None;
        }
    }
    let (mut right, mut wrong) = (0, 0);
    for r in per_person.values().flatten() {
        if *r {
            right += 1;
        } else {
            wrong += 1;
        }
    }
    match right.cmp(&wrong) {
        std::cmp::Ordering::Greater => Ok(true),
        std::cmp::Ordering::Less => Ok(false),
        std::cmp::Ordering::Equal => Err(()),
    }
}

/// The reference reading of one combination and where it came from: the
/// adjudicator's where one stands (`adjudicated`; not with `who`, which
/// makes one person's labels the truth), else the people's majority
/// ([`people_reading`]). `Err(())`: undecided (a tie, only Likert 3s, or an
/// undecided adjudication), left out.
pub(crate) fn reference_reading(
    labels: &[(&str, Option<bool>)],
    who: Option<&str>,
    adjudicated: Option<Option<bool>>,
) -> Result<(bool, ReferenceSource), ()> {
    if who.is_none()
        && let Some(a) = adjudicated
    {
        return a.map(|r| (r, ReferenceSource::Adjudicated)).ok_or(());
    }
    let r = people_reading(labels, who)?;
    let mut people: Vec<&str> = labels
        .iter()
        .filter(|(p, _)| who.is_none_or(|w| w == *p))
        .map(|(p, _)| *p)
        .collect();
    people.sort_unstable();
    people.dedup();
    Ok((
        r,
        if people.len() > 1 {
            ReferenceSource::Majority
        } else {
            ReferenceSource::OnePerson
        },
    ))
}

/// Where the reference of every labelled combination a judge answered
/// with a right/wrong reading came from, once per (persona, combination)
/// with labels kept (however many judges answered it): what `jury
/// estimate` and `trust` say above their figures.
pub fn reference_counts(
    readings: &Readings,
    who: Option<&str>,
    sampling: &Sampling,
) -> ReferenceCounts {
    let judged: rustc_hash::FxHashSet<(&str, &ComboKey)> = readings
        .verdicts
        .iter()
        .filter(|v| crate::analytics::agreement_reading(v.3).is_some())
        .map(|v| (&*v.1, &*v.2))
        .collect();
    let mut c = ReferenceCounts::default();
    for ((persona, key), (ls, _, _)) in label_index(readings, sampling) {
        if ls.is_empty()
            || who.is_some_and(|w| ls.iter().all(|(p, _)| *p != w))
            || !judged.contains(&(persona, key))
        {
            continue;
        }
        c.add(
            reference_reading(&ls, who, sampling.adjudicated(persona, key))
                .ok()
                .map(|r| r.1),
        );
    }
    c
}

/// Each person's reading of one combination.
type PersonReadings<'a> = Vec<(&'a str, Option<bool>)>;

/// Keeps the readings of the items on one side of the split and among
/// `items` (a report's scope), verdicts and their confidences side by side.
pub fn restrict(
    readings: &mut Readings,
    on: Option<(&crate::store::Split, crate::domain::Side)>,
    items: Option<&super::ItemSet>,
) {
    if on.is_none() && items.is_none() {
        return;
    }
    let keep = |key: &ComboKey| {
        items.is_none_or(|i| i.contains(&key.item_id))
            && on.is_none_or(|(split, side)| split.item_side(&key.item_id) == side)
    };
    if readings.confidences.len() == readings.verdicts.len() {
        let mut kept = readings.verdicts.iter().map(|v| keep(&v.2));
        readings
            .confidences
            .retain(|_| kept.next().unwrap_or(false));
    }
    readings.verdicts.retain(|v| keep(&v.2));
    readings.labels.retain(|l| keep(&l.1));
}

/// Every estimate the store's readings support, at level 1 − `alpha`: per
/// classification, perspective and judge configuration.
pub fn estimates(
    readings: &Readings,
    alpha: f64,
    who: Option<&str>,
    sampling: &Sampling,
) -> Vec<Estimate> {
    estimates_by(readings, alpha, who, sampling, false)
}

pub(crate) fn estimates_by(
    readings: &Readings,
    alpha: f64,
    who: Option<&str>,
    sampling: &Sampling,
    pool: bool,
) -> Vec<Estimate> {
    let owners = owner_configurations(readings);
    // (persona, combination) → every label's (who, reading), and whether
    // any of them was given in the sample order.
    let labels = label_index(readings, sampling);
    let drawn = active::draw_index(readings, sampling);
    /// (classification, perspective, judge, persona).
    type Key = (String, String, Arc<str>, Arc<str>);
    #[derive(Default)]
    struct Collect {
        y: Vec<f64>,
        y_hat: Vec<f64>,
        y_hat_u: Vec<f64>,
        sampled: usize,
        undecided: usize,
        by_judge: usize,
        left_out: LeftOut,
        reference: ReferenceCounts,
        /// Pooled: the same readings by (classification, perspective),
        /// the strata of the pooled estimate.
        strata: BTreeMap<(String, String), Part>,
        /// The active line's population and draws (not pooled).
        active: active::Collect,
    }
    #[derive(Default)]
    struct Part {
        y: Vec<f64>,
        y_hat: Vec<f64>,
        y_hat_u: Vec<f64>,
    }
    let judge_keys = keys(&sampling.judge_selected);
    let mut groups: BTreeMap<Key, Collect> = BTreeMap::new();
    for (judge, persona, key, value) in &readings.verdicts {
        let (classification, perspective) = if pool {
            (POOLED.to_string(), POOLED.to_string())
        } else {
            (key.classification_id.clone(), key.perspective_id.clone())
        };
        // A judge run under each item's owner is one configuration.
        let config = owners.get(&**judge).unwrap_or(persona).clone();
        let g = groups
            .entry((classification, perspective, judge.clone(), config))
            .or_default();
        let mut part = pool.then(|| {
            g.strata
                .entry((key.classification_id.clone(), key.perspective_id.clone()))
                .or_default()
        });
        let Some(j) = crate::analytics::agreement_reading(*value) else {
            // A value on a scale with no right/wrong reading at all.
            g.undecided += 1;
            continue;
        };
        if j == 0.5 {
            g.undecided += 1;
        }
        if !pool {
            g.active.add(
                j,
                (persona, key),
                drawn.get(&(&**persona, &**key)),
                who,
                sampling.adjudicated(persona, key),
            );
        }
        match labels.get(&(&**persona, &**key)) {
            None => {
                g.y_hat_u.push(j);
                if let Some(p) = part.as_mut() {
                    p.y_hat_u.push(j);
                }
            }
            // Every label left out: the combination stays in the
            // population as an unlabelled one (dropping it would make the
            // population the combinations people did not label by hand).
            Some((ls, _, by_judge)) if ls.is_empty() => {
                if *by_judge {
                    g.left_out.judge_selected += 1;
                } else {
                    g.left_out.chosen_by_hand += 1;
                }
                g.y_hat_u.push(j);
                if let Some(p) = part.as_mut() {
                    p.y_hat_u.push(j);
                }
            }
            Some((ls, _, _)) if who.is_some_and(|w| ls.iter().all(|(p, _)| *p != w)) => {
                g.left_out.labelled_by_others += 1;
            }
            Some((ls, sampled, _)) => {
                match reference_reading(ls, who, sampling.adjudicated(persona, key)) {
                    Ok((p, source)) => {
                        g.reference.add(Some(source));
                        g.y.push(f64::from(u8::from(p)));
                        g.y_hat.push(j);
                        if !pool {
                            g.active
                                .add_label(f64::from(u8::from(p)), j, (persona, key));
                        }
                        if let Some(s) = part.as_mut() {
                            s.y.push(f64::from(u8::from(p)));
                            s.y_hat.push(j);
                        }
                        g.sampled += usize::from(*sampled);
                        // Counted when asked for: a kept label the judge selected.
                        if sampling.include_judge_selected && !*sampled {
                            let picked = ls.iter().any(|(person, _)| {
                                judge_keys.contains(&(
                                    key.item_id.as_str(),
                                    key.classification_id.as_str(),
                                    key.perspective_id.as_str(),
                                    &**persona,
                                    person,
                                ))
                            });
                            g.by_judge += usize::from(picked);
                        }
                    }
                    Err(()) => {
                        g.reference.add(None);
                        g.left_out.people_undecided += 1;
                    }
                }
            }
        }
    }
    groups
        .into_iter()
        .map(|((classification, perspective, judge, persona), mut c)| {
            // A classification none of whose verdicts reads as right or
            // wrong holds no combination of the population.
            c.strata
                .retain(|_, p| !p.y.is_empty() || !p.y_hat_u.is_empty());
            // Seeded by the group, so a report reads the same every time.
            let seed = format!("{classification}\u{1f}{perspective}\u{1f}{judge}\u{1f}{persona}")
                .bytes()
                .fold(0x5eed, |h: u64, b| crate::rng::splitmix64(h ^ u64::from(b)));
            // Pooled: stratified by classification (see
            // `analytics::stratified`); its reason when a stratum has no
            // labels stands for the interval's.
            let (a, stratified, unlabelled_stratum) = if pool {
                let parts: Vec<Stratum<'_>> = c
                    .strata
                    .values()
                    .map(|p| Stratum {
                        y: &p.y,
                        y_hat: &p.y_hat,
                        y_hat_u: &p.y_hat_u,
                    })
                    .collect();
                match stratified_intervals(&parts, alpha, seed) {
                    Ok((a, weights)) => {
                        let strata = c
                            .strata
                            .iter()
                            .zip(weights)
                            .map(|((k, p), weight)| StratumShare {
                                classification: k.0.clone(),
                                perspective: k.1.clone(),
                                n: p.y.len(),
                                big_n: p.y_hat_u.len(),
                                weight,
                            })
                            .collect();
                        (a, Some(strata), None)
                    }
                    Err(why) => (
                        accuracy_intervals(&[], &[], &c.y_hat_u, alpha, seed),
                        None,
                        Some(why),
                    ),
                }
            } else {
                (
                    accuracy_intervals(&c.y, &c.y_hat, &c.y_hat_u, alpha, seed),
                    None,
                    None,
                )
            };
            let human_only = a.labels_alone.map(|i| MeanEstimate {
                estimate: i.estimate,
                ci: i.ci,
            });
            let ppi = match (a.ppi, a.lambda) {
                (Some(i), Some(lambda)) => Some(PpiEstimate {
                    estimate: i.estimate,
                    ci: i.ci,
                    lambda,
                }),
                _ => None,
            };
            let width = |ci: [f64; 2]| ci[1] - ci[0];
            let worth_labels = match a.normal_cis {
                (Some(h), Some(p)) if width(p) > 0.0 && a.not_normal.is_none() => {
                    Some((width(h) / width(p)).powi(2))
                }
                _ => None,
            };
            let not_valid =
                c.y.is_empty()
                    .then_some("no person labelled these combinations")
                    .or(unlabelled_stratum);
            let judge_alone = (!c.y_hat_u.is_empty())
                .then(|| c.y_hat_u.iter().sum::<f64>() / c.y_hat_u.len() as f64);
            // Pooled, the error rates would weight each classification by
            // its labels, as the unstratified estimate did: left out.
            let judge_errors = (!c.y.is_empty() && !pool).then(|| {
                judge_errors::judge_errors(&c.y, &c.y_hat, &c.y_hat_u, alpha, super::DEFAULT_SEED)
            });
            let plan = plan::plan(&c.y, &c.y_hat, &c.y_hat_u, ppi.map(|p| p.lambda), alpha);
            Estimate {
                classification,
                perspective,
                judge: judge.to_string(),
                persona: persona.to_string(),
                n: c.y.len(),
                labels_sampled: c.sampled,
                labels_chosen: c.y.len() - c.sampled,
                big_n: c.y_hat_u.len(),
                alpha,
                human_only,
                ppi,
                ppi_method: a.ppi.map(|i| i.method),
                not_normal: a.not_normal,
                human_only_normal_ci: a.normal_cis.0,
                ppi_normal_ci: a.normal_cis.1,
                worth_labels,
                judge_undecided: c.undecided,
                undecided_reading: UNDECIDED_READING,
                left_out: c.left_out,
                not_valid,
                judge_alone,
                labels_judge_selected: c.by_judge,
                reference: c.reference,
                judge_errors,
                plan,
                stratified,
                active: c.active.finish(alpha),
                plan_parts: if pool { None } else { c.active.plan_parts() },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Agreement::*;

    fn key(item: usize) -> Arc<ComboKey> {
        Arc::new(ComboKey::new(&format!("i{item}"), "urgency", "p"))
    }

    /// The docs/design.md §7.10 fixture as a store would hold it: 12 labelled
    /// combinations (one person each) and 30 the judge alone read.
    fn fixture() -> Readings {
        let y = [1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1];
        let yh = [1, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1, 1];
        let yu = [
            1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1,
            1,
        ];
        let ag = |b: u8| Value::Agreement(if b == 1 { Agree } else { Disagree });
        let judge: Arc<str> = Arc::from("awag mode 3 · m");
        let persona: Arc<str> = Arc::from("kenton");
        let mut verdicts = Vec::new();
        let mut labels = Vec::new();
        for (i, (&a, &b)) in y.iter().zip(&yh).enumerate() {
            verdicts.push((judge.clone(), persona.clone(), key(i), ag(b)));
            labels.push((persona.clone(), key(i), Arc::from("alice"), ag(a)));
        }
        for (i, &b) in yu.iter().enumerate() {
            verdicts.push((judge.clone(), persona.clone(), key(100 + i), ag(b)));
        }
        let confidences = vec![None; verdicts.len()];
        Readings {
            verdicts,
            labels,
            confidences,
        }
    }

    #[test]
    fn the_store_shaped_fixture_gives_ppi_pythons_numbers() {
        let es = estimates(&fixture(), 0.1, None, &Sampling::default());
        assert_eq!(es.len(), 1);
        let e = &es[0];
        assert_eq!((e.n, e.big_n), (12, 30));
        let p = e.ppi.unwrap();
        assert!((p.lambda - 0.431397306397306).abs() < 1e-9);
        assert!((p.estimate - 0.771569865319865).abs() < 1e-9);
        // Twelve labels cannot carry ppi_py's normal interval (0.591,
        // 0.952 at 90 %): the interval shown is the finite-sample one,
        // and the labels alone get the exact one.
        assert_eq!(e.ppi_method, Some(AccuracyMethod::Betting));
        assert!(e.not_normal.is_some_and(|w| w.contains("fewer than 30")));
        assert!(p.ci[0] >= 0.0 && p.ci[1] <= 1.0 && p.ci[0] < p.estimate);
        let h = e.human_only.unwrap();
        let cp = crate::analytics::accuracy_ci::clopper_pearson(9, 12, 0.1).unwrap();
        assert_eq!(h.ci, cp);
        assert_eq!(e.worth_labels, None, "no width ratio off the approximation");
        assert_eq!(e.not_valid, None);
        let line = headline(e);
        assert!(
            line.starts_with("urgency: classifier right 0.77 [")
                && line.contains("finite-sample intervals (fewer than 30 labels)"),
            "{line}"
        );
    }

    #[test]
    fn people_disagreeing_and_undecided_readings_are_left_out_and_counted() {
        let mut r = fixture();
        // A second person on item 0 who disagrees with alice: a tie.
        r.labels.push((
            Arc::from("kenton"),
            key(0),
            Arc::from("bob"),
            Value::Agreement(Disagree),
        ));
        // A Likert 3 verdict.
        r.verdicts.push((
            Arc::from("awag mode 3 · m"),
            Arc::from("kenton"),
            key(500),
            Value::Likert(3),
        ));
        let e = &estimates(&r, 0.05, None, &Sampling::default())[0];
        assert_eq!(e.n, 11);
        assert_eq!(e.left_out.people_undecided, 1);
        // The Likert 3 is kept, read as 0.5, and counted.
        assert_eq!((e.judge_undecided, e.big_n), (1, 31));
        assert!(table(std::slice::from_ref(e)).contains("read as 0.5"));
        // One person named: bob labelled one combination; alice's eleven
        // others are labelled by others, not unlabelled.
        let e = &estimates(&r, 0.05, Some("bob"), &Sampling::default())[0];
        assert_eq!((e.n, e.big_n), (1, 31));
        assert_eq!(e.left_out.labelled_by_others, 11);
    }

    #[test]
    fn sampled_and_chosen_labels_are_counted_and_sampled_only_keeps_the_sample() {
        let r = fixture();
        // Alice gave the first five labels in the sample order.
        let sampled = (0..5)
            .map(|i| {
                (
                    (
                        ComboKey::new(&format!("i{i}"), "urgency", "p"),
                        "kenton".to_string(),
                        "alice".to_string(),
                    ),
                    Some(1),
                )
            })
            .collect();
        let mut sampling = Sampling {
            sampled,
            ..Sampling::default()
        };
        let e = &estimates(&r, 0.05, None, &sampling)[0];
        assert_eq!((e.n, e.labels_sampled, e.labels_chosen), (12, 5, 7));
        assert!(table(std::slice::from_ref(e)).contains("7 of 12 labels not recorded as sampled"));
        sampling.only = true;
        let e = &estimates(&r, 0.05, None, &sampling)[0];
        // The seven left out stay in the population, read as unlabelled.
        assert_eq!((e.n, e.labels_sampled, e.big_n), (5, 5, 37));
        assert_eq!(e.left_out.chosen_by_hand, 7);
    }

    #[test]
    fn enough_varying_labels_give_the_quotable_line() {
        let mut r = fixture();
        let (verdicts, labels) = (r.verdicts.clone(), r.labels.clone());
        // The twelve labelled combinations three times over (new items).
        for copy in 1..3 {
            let re = |k: &Arc<ComboKey>| {
                Arc::new(ComboKey::new(
                    &format!("{}-{copy}", k.item_id),
                    "urgency",
                    "p",
                ))
            };
            r.verdicts.extend(
                verdicts
                    .iter()
                    .take(12)
                    .map(|(j, p, k, v)| (j.clone(), p.clone(), re(k), *v)),
            );
            r.labels.extend(
                labels
                    .iter()
                    .map(|(p, k, w, v)| (p.clone(), re(k), w.clone(), *v)),
            );
        }
        let e = &estimates(&r, 0.05, None, &Sampling::default())[0];
        assert_eq!((e.n, e.big_n, e.not_valid), (36, 30, None));
        let line = headline(e);
        assert!(
            line.contains("· judge on 30 + 36 labels · labels alone ["),
            "{line}"
        );
    }
}

#[cfg(test)]
mod reference_tests;
#[cfg(test)]
mod undecided_tests;
