//! Pairs into groups (comparison, sides, scale, `--by`), and each group's
//! figures.

use super::pairs::{Comparison, Pair};
use super::{Ceiling, GroupBy, GroupFigures};
use crate::analytics;
use crate::domain::{Agreement, Mode, Scale, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One group: `--by` value, left side, right side, scale.
type GroupKey = (Arc<str>, Arc<str>, Arc<str>, &'static str);

/// A group key by the identity of its shared names (by, left, right) and scale.
type NameIds = (usize, usize, usize, &'static str);

/// One group's key and its pairs.
type Group<'a> = (GroupKey, Vec<&'a Pair>);

/// Resamples for a report whose groups below
/// [`analytics::MULTINOMIAL_MIN_PAIRS`] hold `small_group_pairs` pairs in
/// all, when the user chose none. Larger groups resample their confusion
/// matrix at a cost independent of n, so only the small ones draw pair by
/// pair: the full [`analytics::DEFAULT_RESAMPLES`] while those draws fit in
/// [`analytics::DRAW_BUDGET`], fewer above (many small groups, e.g. `--by
/// classification` over thousands of classifications), never under 50.
pub fn auto_resamples(small_group_pairs: usize) -> usize {
    if small_group_pairs == 0 {
        return analytics::DEFAULT_RESAMPLES;
    }
    (analytics::DRAW_BUDGET / small_group_pairs).clamp(50, analytics::DEFAULT_RESAMPLES)
}

/// Groups pairs and computes figures per group (pure; used by tests too).
pub fn compute_from(
    all: &BTreeMap<Comparison, Vec<Pair>>,
    by: Option<GroupBy>,
    resamples: Option<usize>,
    seed: u64,
) -> Vec<GroupFigures> {
    // Comparisons are grouped, then groups computed, each spread over the cores.
    let grouped: Vec<(Comparison, Vec<Group<'_>>)> = crate::par::map_weighted(
        all.iter().collect(),
        |(_, pairs)| pairs.len(),
        |(comparison, pairs)| (*comparison, group_pairs(pairs, by)),
    );
    let resamples = resamples.unwrap_or_else(|| {
        auto_resamples(
            grouped
                .iter()
                .flat_map(|(_, gs)| gs.iter().map(|(_, ps)| ps.len()))
                .filter(|&n| n < analytics::MULTINOMIAL_MIN_PAIRS)
                .sum(),
        )
    });
    let jobs: Vec<(Comparison, GroupKey, Vec<&Pair>)> = grouped
        .into_iter()
        .flat_map(|(c, gs)| gs.into_iter().map(move |(k, ps)| (c, k, ps)))
        .collect();
    let people = PeoplePairs::index(all);
    crate::par::map_weighted(
        jobs,
        |(_, _, ps)| ps.len(),
        |(comparison, key, ps)| {
            let mut g = group_figures(comparison, key, &ps, resamples, seed);
            if comparison == Comparison::JudgeVsHuman {
                g.ceiling = Some(people.ceiling(&ps, g.mapped, g.scale, resamples, seed));
            }
            g
        },
    )
}

/// Every pair of people, by the combination and persona they labelled: what
/// a judge group's human ceiling is made of.
pub(super) struct PeoplePairs<'a> {
    by_combo: rustc_hash::FxHashMap<(&'a crate::domain::ComboKey, &'a str), Vec<&'a Pair>>,
}

impl<'a> PeoplePairs<'a> {
    pub(super) fn index(all: &'a BTreeMap<Comparison, Vec<Pair>>) -> Self {
        let mut by_combo: rustc_hash::FxHashMap<_, Vec<&Pair>> = Default::default();
        for p in all.get(&Comparison::HumanVsHuman).into_iter().flatten() {
            by_combo
                .entry((&*p.ctx.key, &*p.ctx.persona))
                .or_default()
                .push(p);
        }
        PeoplePairs { by_combo }
    }

    /// The human ceiling of a judge group (see [`Ceiling`]): every pair of
    /// people on the combinations (and personas) the group's pairs cover,
    /// on the group's scale — read as AGREE/DISAGREE when the group is.
    fn ceiling(
        &self,
        ps: &[&Pair],
        mapped: bool,
        scale: Scale,
        resamples: usize,
        seed: u64,
    ) -> Ceiling {
        let units: rustc_hash::FxHashSet<(&crate::domain::ComboKey, &str)> =
            ps.iter().map(|p| (&*p.ctx.key, &*p.ctx.persona)).collect();
        self.ceiling_on(&units, scale, mapped, resamples, seed)
    }

    /// The ceiling over the given (combination, persona) units.
    pub(super) fn ceiling_on(
        &self,
        units: &rustc_hash::FxHashSet<(&crate::domain::ComboKey, &str)>,
        scale: Scale,
        mapped: bool,
        resamples: usize,
        seed: u64,
    ) -> Ceiling {
        let mut values = Vec::new();
        let mut people: std::collections::BTreeSet<&str> = Default::default();
        // Each unit's people and values, for α over all of them.
        let mut raters: Vec<Vec<Value>> = Vec::new();
        for key in units {
            let mut unit: BTreeMap<&str, Value> = BTreeMap::new();
            for h in self.by_combo.get(key).into_iter().flatten() {
                unit.insert(&h.left, h.a);
                unit.insert(&h.right, h.b);
                let pair = if mapped {
                    match (h.a.as_agreement(), h.b.as_agreement()) {
                        (Some(a), Some(b)) => (Value::Agreement(a), Value::Agreement(b)),
                        _ => continue,
                    }
                } else if h.a.scale() == scale {
                    (h.a, h.b)
                } else {
                    continue;
                };
                people.insert(&h.left);
                people.insert(&h.right);
                values.push(pair);
            }
            if unit.len() >= 2 {
                raters.push(unit.into_values().collect());
            }
        }
        // Sorted, so the bootstrap draws the same units whatever the hash order.
        raters.sort_unstable();
        let all = super::people::all_raters(&raters, scale, mapped, resamples, seed);
        let (pairs, k, ordinal) = analytics::pairs_from_values(&values);
        let k = if values.is_empty() {
            scale.values().len()
        } else {
            k
        };
        let f = analytics::Figures::compute(&pairs, k, ordinal, resamples, seed)
            .expect("indices come from the scale itself");
        Ceiling {
            n: f.n,
            people: people.len(),
            percent_agreement: f.percent_agreement,
            cohen_kappa: f.cohen_kappa,
            units: all.pairable_units,
            krippendorff_alpha: all.krippendorff_alpha,
            fleiss_kappa: all.fleiss_kappa,
        }
    }
}

/// Each group's pairs, in the order [`compute_from`] gives the groups (so
/// `group_members(..)[i]` made `compute_from(..)[i]`): what the workbench
/// lists when a figure is opened.
pub fn group_members(
    all: &BTreeMap<Comparison, Vec<Pair>>,
    by: Option<GroupBy>,
) -> Vec<Vec<&Pair>> {
    all.values()
        .flat_map(|pairs| group_pairs(pairs, by).into_iter().map(|(_, ps)| ps))
        .collect()
}

/// The confusion-matrix cell `(row, column)` a pair counts in, on its
/// group's scale (`mapped`: read as AGREE/DISAGREE); `None` for a pair left
/// out as undecided.
pub fn cell_of(p: &Pair, mapped: bool) -> Option<(usize, usize)> {
    if mapped {
        let (a, b) = (p.a.as_agreement()?, p.b.as_agreement()?);
        Some((
            analytics::agreement_index(a) as usize,
            analytics::agreement_index(b) as usize,
        ))
    } else {
        Some((p.a.ordinal() as usize, p.b.ordinal() as usize))
    }
}

/// One comparison's pairs by group: one pair of sides (e.g. "awag mode 2 ·
/// model" vs "alice") on one scale — pairs on a shared scale keep it,
/// cross-scale pairs are read as agreement — optionally split further by
/// `--by`; sorted, so the report reads the same every time.
fn group_pairs(pairs: &[Pair], by: Option<GroupBy>) -> Vec<Group<'_>> {
    // Pairs share their side names (one Arc per judge, person, run...), so
    // they are grouped by the names' identity first — no string hashing per
    // pair — and groups whose names are equal are then merged by value.
    let ptr = |a: &Arc<str>| Arc::as_ptr(a) as *const u8 as usize;
    let empty: Arc<str> = Arc::from("");
    let mut by_names: rustc_hash::FxHashMap<&str, Arc<str>> = Default::default();
    let mut fast: rustc_hash::FxHashMap<NameIds, (GroupKey, Vec<usize>)> = Default::default();
    for (i, p) in pairs.iter().enumerate() {
        let by_value: Arc<str> = match by {
            None => empty.clone(),
            Some(GroupBy::Classification) => intern(&mut by_names, &p.ctx.key.classification_id),
            Some(GroupBy::Perspective) => intern(&mut by_names, &p.ctx.key.perspective_id),
            Some(GroupBy::Persona) => p.ctx.persona.clone(),
            Some(GroupBy::Mode) => match p.ctx.mode {
                Some(Mode::One) => intern(&mut by_names, "mode 1"),
                Some(Mode::Two) => intern(&mut by_names, "mode 2"),
                Some(Mode::Three) => intern(&mut by_names, "mode 3"),
                None => intern(&mut by_names, "-"),
            },
            Some(GroupBy::Model) if p.ctx.model.is_empty() => intern(&mut by_names, "-"),
            Some(GroupBy::Model) => p.ctx.model.clone(),
        };
        let scale = if p.a.scale() == p.b.scale() {
            p.a.scale().as_str()
        } else {
            "cross-scale"
        };
        fast.entry((ptr(&by_value), ptr(&p.left), ptr(&p.right), scale))
            .or_insert_with(|| {
                (
                    (by_value, p.left.clone(), p.right.clone(), scale),
                    Vec::new(),
                )
            })
            .1
            .push(i);
    }
    let mut groups: BTreeMap<GroupKey, Vec<usize>> = BTreeMap::new();
    for (key, idx) in fast.into_values() {
        match groups.entry(key) {
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(idx);
            }
            // Equal names held in different Arcs: merged, in pair order, so
            // the figures never depend on where the Arcs were allocated.
            std::collections::btree_map::Entry::Occupied(mut o) => {
                o.get_mut().extend(idx);
                o.get_mut().sort_unstable();
            }
        }
    }
    groups
        .into_iter()
        .map(|(k, idx)| (k, idx.into_iter().map(|i| &pairs[i]).collect()))
        .collect()
}

/// A shared `Arc` per distinct `--by` value.
fn intern<'a>(names: &mut rustc_hash::FxHashMap<&'a str, Arc<str>>, s: &'a str) -> Arc<str> {
    names.entry(s).or_insert_with(|| Arc::from(s)).clone()
}

/// The figures of one group.
fn group_figures(
    comparison: Comparison,
    (by_value, left, right, _): GroupKey,
    ps: &[&Pair],
    resamples: usize,
    seed: u64,
) -> GroupFigures {
    let sides = format!("{left} vs {right}");
    let group = if by_value.is_empty() {
        sides
    } else {
        format!("{by_value} · {sides}")
    };
    let (scale, values, undecided, mapped) = common_scale(ps);
    let (pairs, k, ordinal) = analytics::pairs_from_values(&values);
    let k = if values.is_empty() {
        scale.values().len()
    } else {
        k
    };
    let figures = analytics::Figures::compute(&pairs, k, ordinal, resamples, seed)
        .expect("indices come from the scale itself");
    let (evalgen, accuracy) = if comparison == Comparison::JudgeVsHuman {
        let readings: Vec<_> = ps
            .iter()
            .map(|p| (p.a.as_agreement(), p.b.as_agreement()))
            .collect();
        (
            Some(wrong_as_positive(&readings)),
            Some(analytics::accuracy_by_rater(&readings)),
        )
    } else {
        (None, None)
    };
    let agreement_undecided_half = (mapped && undecided > 0).then(|| half_credit(ps));
    GroupFigures {
        comparison,
        group,
        left: left.to_string(),
        right: right.to_string(),
        scale,
        mapped,
        undecided,
        agreement_undecided_half,
        figures,
        evalgen,
        accuracy,
        ceiling: None,
        disagreement_tags: Vec::new(),
    }
}

/// Agreement over every pair both sides of which have a right/wrong
/// reading, an undecided answer (Likert 3) read as 0.5; its exact interval
/// at the pairs' count.
fn half_credit(ps: &[&Pair]) -> crate::analytics::Figure {
    let credits: Vec<f64> = ps
        .iter()
        .filter_map(|p| {
            let (a, b) = (
                analytics::agreement_reading(p.a)?,
                analytics::agreement_reading(p.b)?,
            );
            Some(1.0 - (a - b).abs())
        })
        .collect();
    if credits.is_empty() {
        return crate::analytics::Figure::NONE;
    }
    let n = credits.len() as f64;
    let share = credits.iter().sum::<f64>() / n;
    crate::analytics::Figure {
        value: Some(share),
        ci95: analytics::exact_share_real(share, n),
        ci_method: Some(analytics::CiMethod::ClopperPearson),
        no_ci: None,
    }
}

/// EvalGen counts with DISAGREE ("the classifier was wrong") as positive,
/// over the pairs both sides decided.
fn wrong_as_positive(readings: &[(Option<Agreement>, Option<Agreement>)]) -> analytics::EvalGen {
    let decided: Vec<(bool, bool)> = readings
        .iter()
        .filter_map(|r| match r {
            (Some(a), Some(b)) => Some((*a == Agreement::Disagree, *b == Agreement::Disagree)),
            _ => None,
        })
        .collect();
    analytics::evalgen(&decided)
}

/// The pairs on one scale: their own when both sides share it, else the
/// agreement reading, with undecided pairs counted and left out.
fn common_scale(ps: &[&Pair]) -> (Scale, Vec<(Value, Value)>, usize, bool) {
    let first = ps.first().map(|p| p.a.scale());
    let same = ps
        .iter()
        .all(|p| Some(p.a.scale()) == first && Some(p.b.scale()) == first);
    if let (true, Some(scale)) = (same, first) {
        return (scale, ps.iter().map(|p| (p.a, p.b)).collect(), 0, false);
    }
    let mut values = Vec::new();
    let mut undecided = 0;
    for p in ps {
        match (p.a.as_agreement(), p.b.as_agreement()) {
            (Some(a), Some(b)) => values.push((Value::Agreement(a), Value::Agreement(b))),
            _ => undecided += 1,
        }
    }
    (Scale::Agreement, values, undecided, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{ComboKey, Protocol};
    use crate::report::pairs::PairContext;

    fn pair(item: usize, left: &str, right: &str, a: u8, b: u8) -> Pair {
        Pair {
            ctx: PairContext {
                key: Arc::new(ComboKey::new(&format!("i{item}"), "urgency", "p")),
                protocol: Protocol::Awag,
                persona: Arc::from("kenton"),
                mode: None,
                model: Arc::from(""),
                run: None,
            },
            left: Arc::from(left),
            right: Arc::from(right),
            a: Value::Likert(a),
            b: Value::Likert(b),
        }
    }

    /// The ceiling beside a judge pools every pair of people on the judge's
    /// combinations: root vs alice, root vs bob and alice vs bob alike, not
    /// one person picked.
    #[test]
    fn the_human_ceiling_pools_every_pair_of_people_on_the_judges_combinations() {
        let mut people = Vec::new();
        for i in 0..6 {
            people.push(pair(i, "alice", "root", 4, 4));
            people.push(pair(i, "bob", "root", 2, 4));
            people.push(pair(i, "alice", "bob", 4, 2));
        }
        // Another combination the judge never saw.
        people.push(pair(99, "alice", "root", 1, 1));
        let judge: Vec<Pair> = (0..6).map(|i| pair(i, "judge", "root", 4, 4)).collect();
        let all = BTreeMap::from([
            (Comparison::JudgeVsHuman, judge),
            (Comparison::HumanVsHuman, people),
        ]);
        let groups = compute_from(&all, None, Some(100), 1);
        let g = groups
            .iter()
            .find(|g| g.comparison == Comparison::JudgeVsHuman)
            .unwrap();
        let c = g.ceiling.as_ref().unwrap();
        assert_eq!((c.n, c.people), (18, 3));
        // Six of eighteen pairs agree (alice and root).
        assert!((c.percent_agreement.value.unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert!(c.percent_agreement.ci95.is_some());
        assert!(
            groups
                .iter()
                .filter(|g| g.comparison != Comparison::JudgeVsHuman)
                .all(|g| g.ceiling.is_none())
        );
    }

    /// The ceiling's figure is Krippendorff's α over all three people at
    /// once on the judge's combinations, not a pooled pairwise figure.
    #[test]
    fn the_human_ceiling_is_krippendorff_alpha_over_all_people() {
        let mut people = Vec::new();
        for i in 0..6 {
            people.push(pair(i, "alice", "root", 4, 4));
            people.push(pair(i, "bob", "root", 2, 4));
            people.push(pair(i, "alice", "bob", 4, 2));
        }
        let judge: Vec<Pair> = (0..6).map(|i| pair(i, "judge", "root", 4, 4)).collect();
        let all = BTreeMap::from([
            (Comparison::JudgeVsHuman, judge),
            (Comparison::HumanVsHuman, people),
        ]);
        let groups = compute_from(&all, None, Some(100), 1);
        let c = groups[0].ceiling.as_ref().unwrap();
        assert_eq!(c.units, 6);
        // Each unit holds 4, 4, 2: o(4,4) = o(4,2) = o(2,4) = 6, n_4 = 12,
        // n_2 = 6, n = 18; α = 1 − 17·12 / (2·6·12) = −5/12.
        let alpha = c.krippendorff_alpha.value.unwrap();
        assert!((alpha + 5.0 / 12.0).abs() < 1e-12, "{alpha}");
        assert!(c.fleiss_kappa.value.is_some());
        assert!(c.describe().starts_with("α -0.417"), "{}", c.describe());
    }
}

#[cfg(test)]
mod undecided_tests;
