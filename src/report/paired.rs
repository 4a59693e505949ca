//! Two judge configurations measured against the same people, honestly: on
//! the combinations both judged only, with a paired bootstrap of the
//! difference (each resample draws combinations, and both configurations'
//! answers on a drawn combination go together). Every comparison of two
//! configurations — prompt versions, modes, personas, models — goes through
//! here, so no view ever subtracts figures computed on different item sets.

use crate::analytics::bca::{bca_interval, jackknife_t_interval};
use crate::analytics::{
    CiMethod, ConfusionMatrix, Figure, MIN_OFF_DOMINANT, NoInterval, Xoshiro256pp,
    percentile_interval,
};
use serde::Serialize;

/// One combination (and person) both configurations judged: `[first,
/// second]`, each `(judge answer, person's answer)` as category indices.
pub type Both = [(u8, u8); 2];

/// Agreement and kappa of each side and their paired differences
/// (second − first).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairedDelta {
    /// Combinations both judged (and the person labelled).
    pub n: usize,
    pub agree_from: Figure,
    pub agree_to: Figure,
    pub kappa_from: Figure,
    pub kappa_to: Figure,
    pub delta_agree: Figure,
    pub delta_kappa: Figure,
}

/// How agreement is counted on a comparison's categories.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credit {
    /// The same category agrees (1), any other does not (0).
    Exact,
    /// Agreement readings with undecided answers kept (k = 3: AGREE 0,
    /// DISAGREE 1, [`UNDECIDED`] 2), each read as 1, 0 and 0.5: a pair
    /// agrees by `1 − |a − b|` (one side undecided: 0.5). Kappa is taken
    /// over the decided pairs.
    HalfUndecided,
}

/// The undecided reading's category under [`Credit::HalfUndecided`].
pub const UNDECIDED: u8 = 2;

impl Credit {
    /// How much a pair `(a, b)` agrees.
    pub fn of(self, a: u8, b: u8) -> f64 {
        match self {
            Credit::Exact => f64::from(u8::from(a == b)),
            Credit::HalfUndecided => {
                let r = |x: u8| match x {
                    0 => 1.0,
                    1 => 0.0,
                    _ => 0.5,
                };
                1.0 - f64::abs(r(a) - r(b))
            }
        }
    }

    /// Agreement of a matrix: its pairs' mean credit.
    fn agreement(self, m: &ConfusionMatrix) -> Option<f64> {
        let n = m.n();
        if n == 0 {
            return None;
        }
        let k = m.k();
        let sum: f64 = m
            .counts()
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(i, &c)| c as f64 * self.of((i / k) as u8, (i % k) as u8))
            .sum();
        Some(sum / n as f64)
    }

    /// The matrix kappa is taken on: the decided pairs' under
    /// [`Credit::HalfUndecided`].
    fn decided(self, m: &ConfusionMatrix) -> std::borrow::Cow<'_, ConfusionMatrix> {
        match self {
            Credit::Exact => std::borrow::Cow::Borrowed(m),
            Credit::HalfUndecided => {
                let k = m.k();
                let c = m.counts();
                let mut d = ConfusionMatrix::zeros(2).expect("two categories");
                d.set_counts_from(&[c[0], c[1], c[k], c[k + 1]]);
                std::borrow::Cow::Owned(d)
            }
        }
    }
}

fn kappa(m: &ConfusionMatrix, credit: Credit) -> Option<f64> {
    credit.decided(m).cohen_kappa().filter(|v| v.is_finite())
}

fn varies(marginal: &[u64]) -> bool {
    marginal.iter().filter(|&&c| c > 0).count() > 1
}

fn sides_vary(m: &ConfusionMatrix, credit: Credit) -> bool {
    let d = credit.decided(m);
    varies(d.first_marginal()) && varies(d.second_marginal())
}

/// The two confusion matrices (first and second configuration) of joint
/// cell counts: cell `((a0·k + b0)·k + a1)·k + b1` holds the combinations
/// where the first answered `a0` against `b0` and the second `a1` against `b1`.
fn matrices(joint: &[u64], k: usize) -> (ConfusionMatrix, ConfusionMatrix) {
    let (mut first, mut second) = (vec![0u64; k * k], vec![0u64; k * k]);
    for (cell, &c) in joint.iter().enumerate() {
        if c == 0 {
            continue;
        }
        first[cell / (k * k)] += c;
        second[cell % (k * k)] += c;
    }
    let m = |counts: Vec<u64>| {
        let mut m = ConfusionMatrix::zeros(k).expect("k comes from a scale (≤ 256)");
        m.set_counts_from(&counts);
        m
    };
    (m(first), m(second))
}

/// The paired comparison of `both` (k categories), with `resamples` seeded
/// paired resamples, each unit its own combination. See
/// [`paired_delta_clustered`].
pub fn paired_delta(both: &[Both], k: usize, resamples: usize, seed: u64) -> PairedDelta {
    paired_delta_clustered(both, None, k, Credit::Exact, resamples, seed)
}

/// A share whose units come in clusters: the exact interval
/// ([`exact_share_real`](crate::analytics::exact_share_real)) at the effective sample
/// size n / deff, deff the ratio of the cluster-robust variance of the mean
/// to the independent one (Kish), never below 1. Several people on one
/// combination are not several independent observations of the judge.
pub fn clustered_share(credits: &[f64], clusters: &[u32]) -> Figure {
    let n = credits.len();
    if n == 0 {
        return Figure::NONE;
    }
    let p = credits.iter().sum::<f64>() / n as f64;
    let mut by: rustc_hash::FxHashMap<u32, (f64, f64)> = Default::default();
    for (&c, &id) in credits.iter().zip(clusters) {
        let e = by.entry(id).or_default();
        e.0 += c;
        e.1 += 1.0;
    }
    let groups = by.len() as f64;
    let nf = n as f64;
    let iid = credits.iter().map(|c| (c - p) * (c - p)).sum::<f64>() / (nf * nf);
    let robust = if groups > 1.0 {
        by.values().map(|(s, m)| (s - p * m).powi(2)).sum::<f64>() / (nf * nf) * groups
            / (groups - 1.0)
    } else {
        iid
    };
    // One unit per combination: independent units, the plain exact interval.
    let deff = if iid > 0.0 && by.len() < n {
        (robust / iid).max(1.0)
    } else {
        1.0
    };
    let n_eff = nf / deff;
    Figure {
        value: Some(p),
        ci95: crate::analytics::exact_share_real(p, n_eff),
        ci_method: Some(CiMethod::ClopperPearson),
        no_ci: None,
    }
}

/// The paired comparison of `both` (k categories), with `resamples` seeded
/// paired resamples. Intervals follow the rules of
/// [`interval`](crate::analytics::MIN_PAIRS_FOR_BOOTSTRAP): agreement gets
/// the exact interval, kappa and both differences a bootstrap from 30 combinations on,
/// and no interval with the reason otherwise (two versions that answered
/// alike everywhere get "no spread", not Δ 0 [0, 0]).
///
/// `clusters` (one id per unit) groups units that are not independent —
/// one combination labelled by several people: a resample draws clusters,
/// each with all its units, and agreement's exact interval uses the
/// effective sample size ([`clustered_share`]). `None`: every unit is its
/// own combination.
///
/// A resample draws combinations with replacement; what it needs is only how
/// many fell in each joint cell, so from [`crate::analytics::MULTINOMIAL_MIN_PAIRS`]
/// combinations on (where their distinct joint patterns are fewer than the
/// combinations) each resample is one multinomial draw over the patterns —
/// the same distribution at a cost independent of n (a ranking compares
/// 100 000 shared units).
pub fn paired_delta_clustered(
    both: &[Both],
    clusters: Option<&[u32]>,
    k: usize,
    credit: Credit,
    resamples: usize,
    seed: u64,
) -> PairedDelta {
    // k comes from a scale (at most 10 values: 10⁴ joint cells).
    let cells = k.pow(4);
    let cell_of = |b: &Both| {
        let [(a0, b0), (a1, b1)] = *b;
        ((a0 as usize * k + b0 as usize) * k + a1 as usize) * k + b1 as usize
    };
    // Units in range, with their cluster (their own index when unclustered).
    let kept: Vec<(usize, usize, u32)> = both
        .iter()
        .enumerate()
        .map(|(i, b)| (i, cell_of(b), clusters.map_or(i as u32, |c| c[i])))
        .filter(|&(_, c, _)| c < cells)
        .collect();
    let n = kept.len();
    let mut joint = vec![0u64; cells];
    for &(_, c, _) in &kept {
        joint[c] += 1;
    }
    // Each cluster's cells, clusters in order of first appearance.
    let mut slot: rustc_hash::FxHashMap<u32, usize> = Default::default();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &(_, c, id) in &kept {
        let g = *slot.entry(id).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(c);
    }
    let n_clusters = groups.len();
    let (old, new) = matrices(&joint, k);
    let ids: Vec<u32> = kept.iter().map(|u| u.2).collect();
    let share = |side: usize| {
        let credits: Vec<f64> = kept
            .iter()
            .map(|&(i, _, _)| credit.of(both[i][side].0, both[i][side].1))
            .collect();
        if clusters.is_some() {
            clustered_share(&credits, &ids)
        } else {
            let m = if side == 0 { &old } else { &new };
            match credit {
                Credit::Exact => Figure::share(m.agreeing(), m.n()),
                Credit::HalfUndecided => clustered_share(&credits, &ids),
            }
        }
    };
    let (agree_from, agree_to) = (share(0), share(1));
    let (k_old, k_new) = (kappa(&old, credit), kappa(&new, credit));
    let d = |a: Option<f64>, b: Option<f64>| Some(b? - a?);
    let (mut ko, mut kn, mut da) = (Vec::new(), Vec::new(), Vec::new());
    let wanted = n_clusters >= crate::analytics::MIN_PAIRS_FOR_BOOTSTRAP && resamples > 0;
    let (mut shapes, mut weights): (Vec<Vec<usize>>, Vec<u64>) = (Vec::new(), Vec::new());
    if wanted {
        // Clusters alike in their cells are interchangeable: a resample
        // needs only how many of each pattern it drew.
        // Kappa's jackknife (for BCa) leaves out one cluster at a time, so
        // it needs the patterns too.
        let mut patterns: std::collections::BTreeMap<Vec<usize>, u64> = Default::default();
        for g in &groups {
            let mut p = g.clone();
            p.sort_unstable();
            *patterns.entry(p).or_default() += 1;
        }
        let multinomial =
            n_clusters >= crate::analytics::MULTINOMIAL_MIN_PAIRS && patterns.len() < n_clusters;
        (shapes, weights) = patterns.into_iter().unzip();
        let mut counts = vec![0u64; weights.len()];
        let mut drawn = vec![0u64; cells];
        for r in 0..resamples {
            let mut rng = Xoshiro256pp::for_stream(seed, r as u64);
            drawn.fill(0);
            if multinomial {
                crate::analytics::multinomial(&mut rng, n_clusters as u64, &weights, &mut counts);
                for (shape, &times) in shapes.iter().zip(&counts) {
                    for &c in shape {
                        drawn[c] += times;
                    }
                }
            } else {
                for _ in 0..n_clusters {
                    for &c in &groups[rng.below(n_clusters as u64) as usize] {
                        drawn[c] += 1;
                    }
                }
            }
            let (o, w) = matrices(&drawn, k);
            let (a, b) = (kappa(&o, credit), kappa(&w, credit));
            if let Some(a) = a {
                ko.push(a);
            }
            if let Some(b) = b {
                kn.push(b);
            }
            if let (Some(a), Some(b)) = (credit.agreement(&o), credit.agreement(&w)) {
                da.push(b - a);
            }
        }
    }
    let ci = |v: &mut Vec<f64>| percentile_interval(v).map(|(a, b)| [a, b]);
    let boot = |value, vary, v: &mut Vec<f64>, method| {
        Figure::bootstrapped(value, n_clusters, vary, resamples, ci(v), method)
    };
    // Kappa: BCa over the same resamples and a jackknife-t, both leaving out
    // one combination at a time with all its people; the percentile ends
    // covered 91.2-91.7 % at n 40 (`COVERAGE_ONLY=rank-kappa cargo bench
    // --bench coverage`).
    let kappa_of = |m: &ConfusionMatrix, side: usize, v: &mut Vec<f64>| {
        let point = kappa(m, credit);
        let jack = jackknife_clusters(&joint, k, &shapes, &weights, |o, w| {
            kappa(if side == 0 { o } else { w }, credit)
        });
        // (Either alone fell short somewhere: the jackknife-t covered 92.0 %
        // at n 40 and 83 % where it was rarely shown.)
        // The hull of the BCa and jackknife-t ends, inside kappa's [-1, 1]:
        // BCa alone covered 91.2 % (4 000 studies) at n 40 with three people
        // per combination, the truth balanced and read 95 % right; the hull
        // 93.1-98.5 % over the grid (4 000 studies per cell).
        let interval = point.and_then(|p| {
            let [a, b] = bca_interval(v, p, &jack)?;
            let [c, d] = jackknife_t_interval(p, &jack).unwrap_or([a, b]);
            Some([a.min(c).max(-1.0), b.max(d).min(1.0)])
        });
        let fig = Figure::bootstrapped(
            point,
            n_clusters,
            sides_vary(m, credit),
            resamples,
            interval,
            CiMethod::BcaJackknifeT,
        );
        // As for a single configuration's kappa: off a handful of answers
        // no interval, and why.
        if fig.ci95.is_some() && credit.decided(m).off_dominant() < MIN_OFF_DOMINANT {
            Figure {
                ci95: None,
                ci_method: None,
                no_ci: Some(NoInterval::FewOffDominant),
                ..fig
            }
        } else {
            fig
        }
    };
    let (vary_old, vary_new) = (sides_vary(&old, credit), sides_vary(&new, credit));
    let (kappa_from, kappa_to) = (kappa_of(&old, 0, &mut ko), kappa_of(&new, 1, &mut kn));
    // The difference of two kappas on the same combinations: a jackknife-t
    // interval over combinations (t with G − 1 degrees of freedom, G the
    // combinations). Its percentile ends covered 91.2 % at n 40 with three
    // people per combination and BCa's 86.8 %; the jackknife-t 93.2-96.7 %
    // over the grid (`COVERAGE_ONLY=rank-kappa cargo bench --bench coverage`).
    let delta_point = d(k_old, k_new);
    let delta_interval = delta_point.filter(|_| wanted).and_then(|p| {
        let jack = jackknife_clusters(&joint, k, &shapes, &weights, |o, w| {
            d(kappa(o, credit), kappa(w, credit))
        });
        jackknife_t_interval(p, &jack)
    });
    let delta_kappa = Figure::bootstrapped(
        delta_point,
        n_clusters,
        vary_old && vary_new,
        resamples,
        delta_interval,
        CiMethod::JackknifeT,
    );
    // A difference of kappas is no firmer than either.
    let few_off = |f: &Figure| f.no_ci == Some(NoInterval::FewOffDominant);
    let delta_kappa = if delta_kappa.ci95.is_some() && (few_off(&kappa_from) || few_off(&kappa_to))
    {
        Figure {
            ci95: None,
            ci_method: None,
            no_ci: Some(NoInterval::FewOffDominant),
            ..delta_kappa
        }
    } else {
        delta_kappa
    };
    PairedDelta {
        n,
        kappa_from,
        kappa_to,
        delta_kappa,
        delta_agree: boot(
            d(agree_from.value, agree_to.value),
            true,
            &mut da,
            CiMethod::PairedBootstrap,
        ),
        agree_from,
        agree_to,
    }
}

/// Leave-one-combination-out values of `stat(first, second)` over the joint
/// cell counts `joint`: one per pattern of cells (`shapes`, a combination's
/// cells with all its people), weighted by how many combinations share it
/// (leaving out any of them leaves the same counts behind).
fn jackknife_clusters(
    joint: &[u64],
    k: usize,
    shapes: &[Vec<usize>],
    weights: &[u64],
    stat: impl Fn(&ConfusionMatrix, &ConfusionMatrix) -> Option<f64>,
) -> Vec<(f64, f64)> {
    let mut left = joint.to_vec();
    shapes
        .iter()
        .zip(weights)
        .filter_map(|(shape, &w)| {
            for &c in shape {
                left[c] -= 1;
            }
            let (o, n) = matrices(&left, k);
            let v = stat(&o, &n).filter(|v| v.is_finite());
            for &c in shape {
                left[c] += 1;
            }
            v.map(|v| (v, w as f64))
        })
        .collect()
}

/// "0.42 [0.19, 0.68]", "0.00 (n<30)" or "–": a figure with two decimals
/// and its interval or why it has none (the ranking's and the prompt
/// lines' cells).
pub fn value_and_ci(f: &Figure) -> String {
    f.value
        .map_or("–".into(), |v| format!("{v:.2}{}", ci_or_reason(f)))
}

/// " [lo, hi]" with two decimals, or " (n<30)" and the like: an interval or
/// why there is none, for lines that print a value beside it.
pub fn ci_or_reason(f: &Figure) -> String {
    match (f.ci95, f.no_ci) {
        (Some([a, b]), _) => format!(" [{a:.2}, {b:.2}]"),
        (None, Some(why)) if f.value.is_some() => format!(" ({})", why.short()),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytics::NoInterval;

    #[test]
    fn a_better_version_shows_a_positive_paired_delta() {
        // 40 combinations: the old version agrees on half, the new on all.
        let both: Vec<Both> = (0..40u8)
            .map(|i| {
                let human = i % 2;
                let old = if i % 4 < 2 { human } else { 1 - human };
                [(old, human), (human, human)]
            })
            .collect();
        let c = paired_delta(&both, 2, 500, 7);
        assert_eq!(c.n, 40);
        assert_eq!(c.kappa_to.value, Some(1.0));
        assert!(c.delta_kappa.value.unwrap() > 0.9);
        let [lo, hi] = c.delta_kappa.ci95.unwrap();
        assert!(lo > 0.5 && hi <= 2.0, "[{lo}, {hi}]");
        assert!(c.delta_agree.ci95.unwrap()[0] > 0.3);
        // Perfect agreement every time: κ 1 with no spread, not [1, 1].
        assert_eq!(c.kappa_to.no_ci, Some(NoInterval::NoSpread));
    }

    /// From 2 000 combinations on a resample is one multinomial over the
    /// joint cells: the interval still sits around the true difference.
    #[test]
    fn large_comparisons_resample_the_joint_cells() {
        // 4 000 combinations: the first agrees on 70 %, the second on 80 %.
        let both: Vec<Both> = (0..4000u32)
            .map(|i| {
                let human = (i % 2) as u8;
                let old = if i % 10 < 7 { human } else { 1 - human };
                let new = if (i / 10) % 10 < 8 { human } else { 1 - human };
                [(old, human), (new, human)]
            })
            .collect();
        let c = paired_delta(&both, 2, 1000, 5);
        let d = c.delta_agree.value.unwrap();
        assert!((d - 0.1).abs() < 1e-9, "{d}");
        let [lo, hi] = c.delta_agree.ci95.unwrap();
        assert!(lo < 0.1 && 0.1 < hi && hi - lo < 0.06, "[{lo}, {hi}]");
        assert_eq!(c.delta_agree.ci_method, Some(CiMethod::PairedBootstrap));
        assert_eq!(c, paired_delta(&both, 2, 1000, 5), "seeded");
    }

    #[test]
    fn identical_answers_are_no_change_without_a_point_interval() {
        let both: Vec<Both> = (0..40u8)
            .map(|i| [(i % 3, i % 2), (i % 3, i % 2)])
            .collect();
        let c = paired_delta(&both, 5, 300, 3);
        assert_eq!(c.delta_kappa.value, Some(0.0));
        assert_eq!(c.delta_kappa.ci95, None);
        assert_eq!(c.delta_kappa.no_ci, Some(NoInterval::NoSpread));
        assert_eq!(c, paired_delta(&both, 5, 300, 3));
        // Below 30 combinations: values, and the reason there is no interval.
        let c = paired_delta(&both[..7], 5, 300, 3);
        assert_eq!(c.n, 7);
        assert_eq!(c.delta_agree.no_ci, Some(NoInterval::FewPairs));
        assert!(
            c.agree_to.ci95.is_some(),
            "agreement keeps its exact interval"
        );
        assert_eq!(ci_or_reason(&c.delta_agree), " (n<30)");
    }

    /// Kappa's BCa jackknife leaves out one combination with all its people:
    /// unclustered it is the per-cell jackknife of a single matrix; with
    /// three people per combination each left-out pattern drops three pairs.
    #[test]
    fn kappa_is_bca_over_combinations_with_all_their_people() {
        let both: Vec<Both> = (0..60u8)
            .map(|i| [(i % 2, (i / 2) % 2), (i % 3 % 2, (i / 2) % 2)])
            .collect();
        let mut joint = vec![0u64; 16];
        let cell = |b: &Both| {
            ((b[0].0 as usize * 2 + b[0].1 as usize) * 2 + b[1].0 as usize) * 2 + b[1].1 as usize
        };
        for b in &both {
            joint[cell(b)] += 1;
        }
        let singles: Vec<(Vec<usize>, u64)> = joint
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(i, &c)| (vec![i], c))
            .collect();
        let (shapes, weights): (Vec<_>, Vec<_>) = singles.into_iter().unzip();
        let by_combination =
            jackknife_clusters(&joint, 2, &shapes, &weights, |o, _| o.cohen_kappa());
        let (old, _) = matrices(&joint, 2);
        let by_cell = crate::analytics::bca::jackknife_cells(&old, |m| m.cohen_kappa());
        // The same leave-one-out values, grouped by joint cell rather than by
        // the first matrix's cell: equal weighted sums.
        let sum = |v: &[(f64, f64)]| v.iter().map(|(x, w)| x * w).sum::<f64>();
        assert!((sum(&by_combination) - sum(&by_cell)).abs() < 1e-12);
        let c = paired_delta(&both, 2, 500, 9);
        assert_eq!(c.kappa_from.ci_method, Some(CiMethod::BcaJackknifeT));
        assert_eq!(c.kappa_to.ci_method, Some(CiMethod::BcaJackknifeT));
        // The hull holds both: BCa's ends and the jackknife-t's.
        let [lo, hi] = c.kappa_from.ci95.unwrap();
        assert!(-1.0 <= lo && lo <= c.kappa_from.value.unwrap() && hi <= 1.0);
        assert_eq!(c.delta_kappa.ci_method, Some(CiMethod::JackknifeT));
        // Three people per combination: 20 combinations of three alike pairs
        // are 20 observations, not 60 (below 30: no interval).
        let clusters: Vec<u32> = (0..60u32).map(|i| i / 3).collect();
        let c = paired_delta_clustered(&both, Some(&clusters), 2, Credit::Exact, 500, 9);
        assert_eq!(c.kappa_from.no_ci, Some(NoInterval::FewPairs));
    }

    /// A side with fewer than 10 answers off its dominant value gets no
    /// kappa interval, and neither does the difference (as a single
    /// configuration's kappa).
    #[test]
    fn kappa_off_a_handful_of_answers_has_no_interval() {
        // 100 combinations; the first configuration says 1 on 5 of them only.
        let both: Vec<Both> = (0..100u8)
            .map(|i| {
                [
                    (u8::from(i < 5), u8::from(i < 8)),
                    ((i % 2), u8::from(i < 8)),
                ]
            })
            .collect();
        let c = paired_delta(&both, 2, 300, 4);
        assert!(c.kappa_from.value.is_some());
        assert_eq!(c.kappa_from.no_ci, Some(NoInterval::FewOffDominant));
        assert_eq!(c.delta_kappa.no_ci, Some(NoInterval::FewOffDominant));
    }
}
