//! Which judge agrees best with people: the AwAg study's question.
//!
//! A judge configuration is a judge (protocol, mode, model, prompt set) and
//! the persona it role-played. A judge that played several personas but each
//! combination under one of them only (`--persona owner`, the workbench's
//! "each item's owner") is one configuration, "one persona per item": split
//! by persona its parts would share no combination, and nothing could be
//! ranked. Each is read the way the modes can be
//! compared at all: the classifier right or wrong (AGREE / Likert ≥ 4 vs
//! DISAGREE / Likert ≤ 2; Likert 3 is undecided, read as 0.5 and kept: a
//! judge that hedges on the hard cases must not look perfect), against each
//! person's reading of the same combination. The unit is one combination and
//! one person; the units of one combination are not independent, so every
//! interval resamples combinations, each with all its people.
//!
//! Configurations are ranked by agreement on the units *every* ranked
//! configuration judged (the only fair race), with each one's agreement on
//! its own units beside it, the paired difference from the best (a paired
//! bootstrap over shared units, [`paired`](super::paired)) and the human
//! ceiling on the shared combinations. Rankings are made per protocol (and
//! per `--by` value): a rubric score and an AwAg verdict are not about the
//! same combinations.

use super::paired::{
    Both, Credit, PairedDelta, UNDECIDED, ci_or_reason, clustered_share, paired_delta_clustered,
    value_and_ci,
};
use super::pairs::{Comparison, Pair};
use super::{Ceiling, GroupBy};
use crate::analytics::{ConfusionMatrix, Figure};
use crate::domain::{ComboKey, Scale};
use serde::Serialize;
use std::collections::BTreeMap;

/// One configuration's place in a ranking.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranked {
    /// The judge as the report names it ("awag mode 2 · gpt-4o-mini").
    pub judge: String,
    pub persona: String,
    /// Decided units this configuration has (its own).
    pub n_own: usize,
    /// Agreement with people on its own units.
    pub agreement_own: Figure,
    /// Agreement and kappa on the units every ranked configuration judged.
    pub agreement: Figure,
    pub kappa: Figure,
    /// This configuration against the best on the shared units (its
    /// `delta_*` are this one minus the best). `None` for the best.
    pub behind_best: Option<PairedDelta>,
    /// What the interval of the difference says.
    pub separation: Separation,
    /// The prompt version `judge` names by hash, as people know it
    /// (`prompts-v2 (34eb1475)`, [`prompt_names`](super::prompt_names));
    /// absent when the judge ran one prompt set or its folder is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_version: Option<String>,
}

impl Ranked {
    /// The judge as the tables show it: its prompt version by name when
    /// it has one (`awag mode 2 · demo · prompts-v2 (34eb1475)`).
    pub fn shown_judge(&self) -> String {
        super::prompt_names::shown_judge(&self.judge, self.prompt_version.as_deref())
    }

    /// "best", or "Δ -0.05 [-0.12, 0.02] not separable": its gap from the
    /// best and what the interval says.
    pub fn gap_text(&self) -> String {
        let Some(d) = &self.behind_best else {
            return "best".into();
        };
        format!(
            "Δ {}{} {}",
            d.delta_agree
                .value
                .map_or("–".into(), |v| format!("{v:+.2}")),
            ci_or_reason(&d.delta_agree),
            match self.separation {
                Separation::Behind => "behind",
                Separation::NotSeparable => "not separable",
                _ => "cannot tell",
            }
        )
    }
}

/// Whether a configuration can be told apart from the best.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Separation {
    /// The best itself.
    Best,
    /// The paired interval of its difference lies below zero.
    Behind,
    /// The interval includes zero: these data cannot separate it from the best.
    NotSeparable,
    /// Too few shared units (or no spread) for an interval: cannot tell.
    CannotTell,
}

/// One ranking: configurations of one protocol (and `--by` value).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranking {
    /// The protocol, and the `--by` value when there is one.
    pub scope: String,
    /// Units (combination, person) every configuration judged and decided.
    pub n_shared: usize,
    pub configurations: Vec<Ranked>,
    /// People against people on the shared combinations (AGREE/DISAGREE reading).
    pub human_ceiling: Ceiling,
    /// The ranking in one plain sentence.
    pub summary: String,
}

/// A unit: combination and person.
type Unit<'a> = (&'a ComboKey, &'a str);

/// A configuration: judge name and the persona it played (or "one persona
/// per item (…)", see the module docs).
type Config<'a> = (&'a str, std::borrow::Cow<'a, str>);

/// One configuration's (judge, person) reading per unit, and the persona the
/// unit was judged as. Hashed, not ordered: a ranking over a million verdicts
/// holds 100 000 units per configuration (the shared units are sorted once,
/// for a stable bootstrap).
type UnitReadings<'a> = rustc_hash::FxHashMap<Unit<'a>, ((u8, u8), &'a str)>;

/// One judge's readings per persona it played.
type ByPersona<'a> = BTreeMap<&'a str, UnitReadings<'a>>;

/// The configurations of one scope: per judge, one per persona it played,
/// or one in all when it judged every combination under one persona only.
fn configurations<'a>(
    judges: BTreeMap<&'a str, ByPersona<'a>>,
) -> BTreeMap<Config<'a>, UnitReadings<'a>> {
    let mut out = BTreeMap::new();
    for (judge, personas) in judges {
        let one_per_combination = personas.len() > 1 && {
            let mut seen: rustc_hash::FxHashMap<&ComboKey, &str> = Default::default();
            personas.iter().all(|(persona, units)| {
                units
                    .keys()
                    .all(|(key, _)| *seen.entry(key).or_insert(persona) == *persona)
            })
        };
        if !one_per_combination {
            for (persona, units) in personas {
                out.insert((judge, std::borrow::Cow::Borrowed(persona)), units);
            }
            continue;
        }
        let names: Vec<&str> = personas.keys().copied().collect();
        let merged: UnitReadings<'a> = personas.into_values().flatten().collect();
        out.insert(
            (judge, std::borrow::Cow::Owned(one_persona_per_item(&names))),
            merged,
        );
    }
    out
}

/// How undecided answers are read in a ranking, as the report says it.
pub const UNDECIDED_READING: &str =
    "undecided answers (Likert 3) read as 0.5: half agreement with a decided answer";

/// A side's reading: AGREE 0, DISAGREE 1, undecided (Likert 3) [`UNDECIDED`];
/// `None` for a value with no right/wrong reading.
fn side(v: &crate::domain::Value) -> Option<u8> {
    match (v.as_agreement(), v) {
        (Some(a), _) => Some(crate::analytics::agreement_index(a)),
        (None, crate::domain::Value::Likert(3)) => Some(UNDECIDED),
        _ => None,
    }
}

/// The persona of a configuration that judged each combination under its
/// owner's persona (`names` sorted): one name wherever it is shown (the
/// ranking, the estimates, the trust lines), so a headline can find it.
pub fn one_persona_per_item(names: &[&str]) -> String {
    let shown = match names.len() {
        0..=3 => names.join(", "),
        n => format!("{}, +{} more", names[..3].join(", "), n - 3),
    };
    format!("one persona per item ({shown})")
}

fn reading(p: &Pair) -> Option<(u8, u8)> {
    Some((side(&p.a)?, side(&p.b)?))
}

/// Mean agreement of readings (undecided as 0.5) and kappa on the decided
/// ones: what a ranking sorts by.
fn rank_key(units: &[(u8, u8)]) -> (f64, f64) {
    if units.is_empty() {
        return (-1.0, -2.0);
    }
    let credit = Credit::HalfUndecided;
    let agree = units.iter().map(|&(a, b)| credit.of(a, b)).sum::<f64>() / units.len() as f64;
    let decided: Vec<(u8, u8)> = units
        .iter()
        .copied()
        .filter(|&(a, b)| a != UNDECIDED && b != UNDECIDED)
        .collect();
    let kappa = ConfusionMatrix::from_pairs(&decided, 2)
        .and_then(|m| m.cohen_kappa())
        .unwrap_or(-2.0);
    (agree, kappa)
}

/// One cluster id per combination, in the order the units name them.
fn cluster_ids(units: &[Unit<'_>]) -> Vec<u32> {
    let mut ids: rustc_hash::FxHashMap<&ComboKey, u32> = Default::default();
    units
        .iter()
        .map(|u| {
            let next = ids.len() as u32;
            *ids.entry(u.0).or_insert(next)
        })
        .collect()
}

/// A ranking's scope: the protocol, and the `--by` value when it splits.
type Scope<'a> = (crate::domain::Protocol, Option<&'a str>);

fn scope_of(p: &Pair, by: Option<GroupBy>) -> Scope<'_> {
    let by_value = match by {
        None | Some(GroupBy::Mode) | Some(GroupBy::Model) | Some(GroupBy::Persona) => None,
        Some(GroupBy::Classification) => Some(p.ctx.key.classification_id.as_str()),
        Some(GroupBy::Perspective) => Some(p.ctx.key.perspective_id.as_str()),
    };
    (p.ctx.protocol, by_value)
}

fn scope_name((protocol, by_value): Scope<'_>) -> String {
    match by_value {
        Some(v) => format!("{protocol} · {v}"),
        None => protocol.to_string(),
    }
}

/// Every ranking the pairs support (scopes with at least two configurations).
/// `--by mode|model|persona` would split the very configurations being
/// ranked, so those rank across them as without `--by`.
pub fn rankings(
    all: &BTreeMap<Comparison, Vec<Pair>>,
    by: Option<GroupBy>,
    resamples: usize,
    seed: u64,
) -> Vec<Ranking> {
    // scope → judge → persona → unit → (judge, person) reading.
    // Borrowed keys: a million pairs make no string of their own.
    type Judges<'a> = BTreeMap<&'a str, ByPersona<'a>>;
    let mut scopes: BTreeMap<Scope<'_>, Judges<'_>> = BTreeMap::new();
    for p in all.get(&Comparison::JudgeVsHuman).into_iter().flatten() {
        let Some(r) = reading(p) else { continue };
        scopes
            .entry(scope_of(p, by))
            .or_default()
            .entry(&*p.left)
            .or_default()
            .entry(&*p.ctx.persona)
            .or_default()
            .insert((&*p.ctx.key, &*p.right), (r, &*p.ctx.persona));
    }
    let people = super::groups::PeoplePairs::index(all);
    scopes
        .into_iter()
        .map(|(scope, judges)| (scope, configurations(judges)))
        .filter(|(_, configs)| configs.len() > 1)
        .map(|(scope, configs)| rank_one(scope_name(scope), &configs, &people, resamples, seed))
        .collect()
}

fn rank_one(
    scope: String,
    configs: &BTreeMap<Config<'_>, UnitReadings<'_>>,
    people: &super::groups::PeoplePairs<'_>,
    resamples: usize,
    seed: u64,
) -> Ranking {
    // Units every configuration judged, in a stable order.
    let mut shared: Vec<Unit<'_>> = configs
        .values()
        .next()
        .map(|m| m.keys().copied().collect())
        .unwrap_or_default();
    for m in configs.values().skip(1) {
        shared.retain(|u| m.contains_key(u));
    }
    // In key order, so the resamples never depend on the hash map's.
    shared.sort_unstable();
    let shared_ids = cluster_ids(&shared);
    let on_shared =
        |m: &UnitReadings<'_>| -> Vec<(u8, u8)> { shared.iter().map(|u| m[u].0).collect() };
    // Each configuration: its own units' agreement (clustered by
    // combination) and its sort key on the shared units.
    let mut rows: Vec<(Config, Figure, usize, (f64, f64))> = configs
        .iter()
        .map(|(c, m)| {
            let mut own: Vec<(Unit<'_>, (u8, u8))> = m.iter().map(|(u, r)| (*u, r.0)).collect();
            own.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            let units: Vec<Unit<'_>> = own.iter().map(|o| o.0).collect();
            let credits: Vec<f64> = own
                .iter()
                .map(|o| Credit::HalfUndecided.of(o.1.0, o.1.1))
                .collect();
            let readings: Vec<(u8, u8)> = own.iter().map(|o| o.1).collect();
            let own_fig = clustered_share(&credits, &cluster_ids(&units));
            let key = if shared.is_empty() {
                rank_key(&readings)
            } else {
                rank_key(&on_shared(m))
            };
            (c.clone(), own_fig, own.len(), key)
        })
        .collect();
    rows.sort_by(|a, b| {
        b.3.partial_cmp(&a.3)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.0.cmp(&b.0))
    });
    let best = &configs[&rows[0].0];
    // Each configuration against the best, resampling combinations.
    let deltas: Vec<PairedDelta> = rows
        .iter()
        .skip(1)
        .map(|(c, ..)| {
            let mine = &configs[c];
            let both: Vec<Both> = shared.iter().map(|u| [best[u].0, mine[u].0]).collect();
            paired_delta_clustered(
                &both,
                Some(&shared_ids),
                3,
                Credit::HalfUndecided,
                resamples,
                seed,
            )
        })
        .collect();
    let ranked: Vec<Ranked> = rows
        .iter()
        .enumerate()
        .map(|(i, (c, own, n_own, _))| {
            let behind_best = i.checked_sub(1).map(|j| deltas[j].clone());
            let (agreement, kappa) = match (&behind_best, deltas.first()) {
                (Some(d), _) => (d.agree_to, d.kappa_to),
                (None, Some(d)) => (d.agree_from, d.kappa_from),
                (None, None) => (Figure::NONE, Figure::NONE),
            };
            let separation = match &behind_best {
                None => Separation::Best,
                Some(d) => match d.delta_agree.ci95 {
                    Some([_, hi]) if hi < 0.0 => Separation::Behind,
                    Some(_) => Separation::NotSeparable,
                    None => Separation::CannotTell,
                },
            };
            Ranked {
                judge: c.0.to_string(),
                persona: c.1.to_string(),
                n_own: *n_own,
                agreement_own: *own,
                agreement,
                kappa,
                behind_best,
                separation,
                prompt_version: None,
            }
        })
        .collect();
    // The ceiling on the shared combinations, under each persona they were
    // judged as.
    let units: rustc_hash::FxHashSet<(&ComboKey, &str)> = configs
        .values()
        .flat_map(|m| shared.iter().map(move |u| (u.0, m[u].1)))
        .collect();
    let human_ceiling = people.ceiling_on(&units, Scale::Agreement, true, resamples, seed);
    let summary = summary(&ranked, shared.len());
    Ranking {
        scope,
        n_shared: shared.len(),
        configurations: ranked,
        human_ceiling,
        summary,
    }
}

fn name(r: &Ranked) -> String {
    format!("{} as {}", r.shown_judge(), r.persona)
}

/// The ranking in words: who is best, and whether the data can say so
/// (made again once prompt versions are named, to name them alike).
pub(super) fn summary(ranked: &[Ranked], shared: usize) -> String {
    if shared == 0 {
        return "no combination was judged by every configuration: each is shown on its own units only, and these cannot be compared".into();
    }
    let best = name(&ranked[0]);
    let leaders: Vec<String> = ranked
        .iter()
        .take_while(|r| r.agreement.value == ranked[0].agreement.value)
        .map(name)
        .collect();
    if leaders.len() == ranked.len() {
        return format!(
            "all {} configurations agree with people equally often on the {shared} shared unit(s): these data do not rank them",
            ranked.len()
        );
    }
    let rest = &ranked[1..];
    let tied: Vec<String> = rest
        .iter()
        .filter(|r| r.separation != Separation::Behind)
        .map(name)
        .collect();
    if tied.is_empty() {
        format!(
            "{best} agrees best with people on the {shared} shared unit(s), ahead of every other configuration (each paired interval lies below zero)"
        )
    } else if tied.len() == rest.len() {
        format!(
            "{best} leads on the {shared} shared unit(s), but the intervals cannot separate it from any other configuration: no judge can be called better on these data"
        )
    } else {
        format!(
            "{best} leads on the {shared} shared unit(s); the intervals cannot separate it from {}",
            tied.join(", ")
        )
    }
}

/// Table lines for the rankings (empty when nothing can be ranked).
pub fn table(rankings: &[Ranking]) -> Vec<String> {
    let mut out = Vec::new();
    let g = value_and_ci;
    for r in rankings {
        out.push(String::new());
        out.push(format!(
            "which judge agrees best · {} · on {} unit(s) every configuration judged (combination × person, read right/wrong)",
            crate::sanitize::one_line(&r.scope, 40),
            r.n_shared
        ));
        out.push(format!(
            "  {UNDECIDED_READING}; intervals resample combinations"
        ));
        for (i, c) in r.configurations.iter().enumerate() {
            let gap = c.gap_text();
            out.push(format!(
                "  {}. {} as {}",
                i + 1,
                crate::sanitize::one_line(&c.shown_judge(), 80),
                crate::sanitize::one_line(&c.persona, 60),
            ));
            out.push(format!(
                "       agree {}  kappa {}  ·  {}  ·  own: agree {} on {}",
                g(&c.agreement),
                g(&c.kappa),
                gap,
                g(&c.agreement_own),
                c.n_own
            ));
        }
        out.extend(super::people::wrap(
            &format!("human ceiling: {}", r.human_ceiling.describe()),
            118,
            2,
            4,
        ));
        out.push(format!("  {}", crate::sanitize::one_line(&r.summary, 400)));
    }
    out
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod hedge_tests;
