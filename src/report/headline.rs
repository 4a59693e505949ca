//! Which judge configuration a headline names. The accuracy line and the
//! trust line of a classification (the agreement view, the HTML report,
//! `jury estimate` and `jury trust`) name one configuration, the same in
//! both: the one the user chose (`--judge`, a part of its name), else the
//! one the ranking puts first. A tie-break of its own (most labels, most
//! coverage) could name the configuration the ranking puts last.

use super::rank::Ranking;

/// How a headline's configuration is chosen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Choice {
    /// (judge, persona) in the rankings' order (each ranking's in its own).
    pub ranked: Vec<(String, String)>,
    /// The user's choice: a part of the judge's name (case-insensitive).
    pub user: Option<String>,
}

impl Choice {
    /// The rankings' order, and the user's choice if any. The rankings must
    /// not be split by classification or perspective (each configuration
    /// ranked once): a flattened split would rank one classification's
    /// candidates in another's order (see [`for_report`]).
    pub fn new(rankings: &[Ranking], user: Option<&str>) -> Choice {
        Choice {
            ranked: rankings
                .iter()
                .flat_map(|r| {
                    r.configurations
                        .iter()
                        .map(|c| (c.judge.clone(), c.persona.clone()))
                })
                .collect(),
            user: user.map(str::to_lowercase),
        }
    }

    /// The place of a configuration in its ranking (`None`: not ranked).
    fn place(&self, judge: &str, persona: &str) -> Option<usize> {
        self.ranked
            .iter()
            .position(|(j, p)| j == judge && p == persona)
    }

    /// Of the candidates (one classification's figures), the configuration
    /// the headline names: among the user's choice when it matches any,
    /// the one ranked first; without a ranking, `fallback`'s largest (e.g.
    /// the most labels), then the judge's name. Returns its index.
    pub fn pick<T>(
        &self,
        candidates: &[&T],
        name: fn(&T) -> (&str, &str),
        fallback: fn(&T) -> usize,
    ) -> Option<usize> {
        let mine = |c: &T| {
            self.user
                .as_ref()
                .is_some_and(|u| name(c).0.to_lowercase().contains(u.as_str()))
        };
        let any_mine = candidates.iter().any(|c| mine(c));
        (0..candidates.len())
            .filter(|&i| !any_mine || mine(candidates[i]))
            .min_by(|&a, &b| {
                let (a, b) = (candidates[a], candidates[b]);
                let (ja, pa) = name(a);
                let (jb, pb) = name(b);
                let rank = |j, p| self.place(j, p).unwrap_or(usize::MAX);
                rank(ja, pa)
                    .cmp(&rank(jb, pb))
                    .then_with(|| fallback(b).cmp(&fallback(a)))
                    .then_with(|| (ja, pa).cmp(&(jb, pb)))
            })
    }
}

/// The headline's choice for a report ranked `--by by` (`rankings`, made
/// from `pairs`): `--by classification` or `--by perspective` rank each
/// value apart, and a headline ranked in the order of all of them would
/// name, for classification B, the configuration classification A's
/// ranking puts first. There the headline ranks the pairs as one, as
/// without `--by` and as `jury estimate` and `jury trust` do, so a
/// classification's headline names the same configuration whatever `--by`.
pub fn for_report(
    pairs: &std::collections::BTreeMap<super::pairs::Comparison, Vec<super::pairs::Pair>>,
    by: Option<super::GroupBy>,
    rankings: &[Ranking],
    resamples: usize,
    seed: u64,
) -> Choice {
    use super::GroupBy;
    match by {
        Some(GroupBy::Classification | GroupBy::Perspective) => {
            Choice::new(&super::rank::rankings(pairs, None, resamples, seed), None)
        }
        // Mode, model and persona do not split the ranking (rank::rankings).
        None | Some(GroupBy::Mode | GroupBy::Model | GroupBy::Persona) => {
            Choice::new(rankings, None)
        }
    }
}

/// Configurations with verdicts that no ranking lists because no person
/// labelled what they judged: "awag mode 2 · m as kenton — not ranked: no
/// labels under persona kenton". Said, never dropped silently.
pub fn unranked(readings: &super::pairs::Readings, rankings: &[Ranking]) -> Vec<String> {
    use std::collections::{BTreeMap, BTreeSet};
    let owners = super::estimate::owner_configurations(readings);
    let labelled: rustc_hash::FxHashSet<(&str, &crate::domain::ComboKey)> = readings
        .labels
        .iter()
        .map(|(persona, key, _, _)| (&**persona, &**key))
        .collect();
    let personas_labelled: BTreeSet<&str> = labelled.iter().map(|(p, _)| *p).collect();
    // Configuration → (its personas, whether any verdict has a label).
    let mut configs: BTreeMap<(&str, &str), (BTreeSet<&str>, bool)> = BTreeMap::new();
    for (judge, persona, key, _) in &readings.verdicts {
        let config = owners.get(&**judge).map_or(&**persona, |o| &**o);
        let e = configs.entry((judge, config)).or_default();
        e.0.insert(persona);
        e.1 |= labelled.contains(&(&**persona, &**key));
    }
    let ranked: BTreeSet<(&str, &str)> = rankings
        .iter()
        .flat_map(|r| r.configurations.iter())
        .map(|c| (c.judge.as_str(), c.persona.as_str()))
        .collect();
    configs
        .into_iter()
        .filter(|(c, (_, any))| !any && !ranked.contains(c))
        .map(|((judge, config), (personas, _))| {
            let unlabelled: Vec<&str> = personas
                .iter()
                .copied()
                .filter(|p| !personas_labelled.contains(p))
                .collect();
            let why = if unlabelled.len() == personas.len() {
                format!("no labels under persona {}", unlabelled.join(", "))
            } else {
                "no combination it judged is labelled under its persona".to_string()
            };
            format!(
                "{} as {} — not ranked: {why}",
                crate::sanitize::one_line(judge, 50),
                crate::sanitize::one_line(config, 60),
            )
        })
        .collect()
}

/// One classification's headline configuration and its trust thresholds.
#[derive(Debug, Clone, Copy)]
pub struct Named<'a> {
    pub judge: &'a str,
    pub persona: &'a str,
    /// The perspective the accuracy line is about (the configuration's
    /// with the most labels); `None` when no accuracy line names one.
    pub perspective: Option<&'a str>,
    /// Its thresholds on that perspective; `None`: its verdicts there
    /// carry no confidence.
    pub trust: Option<&'a super::trust::Trust>,
}

/// Per classification, the configuration the headlines name (the one the
/// accuracy line names, [`super::estimate::render::chosen`], on the same
/// perspective; else the one the user chose or the ranking puts first
/// among those with a confidence, on its perspective with the most
/// calibration pairs) and its thresholds. The trust line and the
/// escalation queue (`jury trust --needs-person`, the workbench's "needs a
/// person") both read it, so the configuration the headline trusts is the
/// one whose verdicts the queue sends to a person, and the accuracy and
/// trust lines are about one perspective. It is one of the K
/// configurations each calibrated at δ/K, so the guarantee holds for it
/// at δ.
pub fn trusts<'a>(
    ts: &'a [super::trust::Trust],
    estimates: &'a [super::estimate::Estimate],
    choice: &Choice,
) -> std::collections::BTreeMap<&'a str, Named<'a>> {
    use std::collections::BTreeMap;
    type Who<'a> = (&'a str, &'a str, Option<&'a str>);
    let named: BTreeMap<&str, Who<'_>> = super::estimate::render::chosen(estimates, choice)
        .into_iter()
        .map(|e| {
            (
                e.classification.as_str(),
                (
                    e.judge.as_str(),
                    e.persona.as_str(),
                    Some(e.perspective.as_str()),
                ),
            )
        })
        .collect();
    let mut by_class: BTreeMap<&str, Vec<&super::trust::Trust>> = BTreeMap::new();
    for t in ts.iter().filter(|t| t.n_judged > 0) {
        by_class.entry(&t.classification).or_default().push(t);
    }
    let mut classes: std::collections::BTreeSet<&str> = by_class.keys().copied().collect();
    classes.extend(named.keys().copied());
    classes
        .into_iter()
        .filter_map(|c| {
            let candidates = by_class.get(c).map(Vec::as_slice).unwrap_or_default();
            let (judge, persona, perspective) = match named.get(c) {
                Some(&who) => who,
                None => {
                    let i = choice.pick(
                        candidates,
                        |t| (t.judge.as_str(), t.persona.as_str()),
                        |t| t.n_calibration,
                    )?;
                    (
                        candidates[i].judge.as_str(),
                        candidates[i].persona.as_str(),
                        None,
                    )
                }
            };
            let trust = candidates
                .iter()
                .copied()
                .filter(|t| {
                    t.judge == judge
                        && t.persona == persona
                        && perspective.is_none_or(|p| t.perspective == p)
                })
                .max_by(|a, b| a.n_calibration.cmp(&b.n_calibration));
            Some((
                c,
                Named {
                    judge,
                    persona,
                    perspective: perspective.or(trust.map(|t| t.perspective.as_str())),
                    trust,
                },
            ))
        })
        .collect()
}
