//! Two judge configurations measured against the same people, honestly: on
//! the combinations both judged only, with a paired bootstrap of the
//! difference (each resample draws combinations, and both configurations'
//! answers on a drawn combination go together). Every comparison of two
//! configurations — prompt versions, modes, personas, models — goes through
//! here, so no view ever subtracts figures computed on different item sets.

use crate::analytics::{CiMethod, ConfusionMatrix, Figure, Xoshiro256pp, percentile_interval};
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

fn kappa(m: &ConfusionMatrix) -> Option<f64> {
    m.cohen_kappa().filter(|v| v.is_finite())
}

fn varies(marginal: &[u64]) -> bool {
    marginal.iter().filter(|&&c| c > 0).count() > 1
}

fn sides_vary(m: &ConfusionMatrix) -> bool {
    varies(m.first_marginal()) && varies(m.second_marginal())
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
/// paired resamples. Intervals follow the rules of
/// [`interval`](crate::analytics::MIN_PAIRS_FOR_BOOTSTRAP): agreement gets
/// Wilson, kappa and both differences a bootstrap from 30 combinations on,
/// and no interval with the reason otherwise (two versions that answered
/// alike everywhere get "no spread", not Δ 0 [0, 0]).
///
/// A resample draws combinations with replacement; what it needs is only how
/// many fell in each joint cell, so from [`crate::analytics::MULTINOMIAL_MIN_PAIRS`]
/// combinations on (where the k⁴ cells are fewer than the combinations) each
/// resample is one multinomial draw over the cells — the same distribution
/// at a cost independent of n (a ranking compares 100 000 shared units).
pub fn paired_delta(both: &[Both], k: usize, resamples: usize, seed: u64) -> PairedDelta {
    let n = both.len();
    // k comes from a scale (at most 10 values: 10⁴ joint cells).
    let cells = k.pow(4);
    let cell_of = |b: &Both| {
        let [(a0, b0), (a1, b1)] = *b;
        ((a0 as usize * k + b0 as usize) * k + a1 as usize) * k + b1 as usize
    };
    let index: Vec<usize> = both.iter().map(cell_of).filter(|&c| c < cells).collect();
    let n = index.len().min(n);
    let mut joint = vec![0u64; cells];
    for &c in &index {
        joint[c] += 1;
    }
    let (old, new) = matrices(&joint, k);
    let share = |m: &ConfusionMatrix| Figure::share(m.agreeing(), m.n());
    let (agree_from, agree_to) = (share(&old), share(&new));
    let (k_old, k_new) = (kappa(&old), kappa(&new));
    let d = |a: Option<f64>, b: Option<f64>| Some(b? - a?);
    let (mut ko, mut kn, mut dk, mut da) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let wanted = n >= crate::analytics::MIN_PAIRS_FOR_BOOTSTRAP && resamples > 0;
    if wanted {
        let multinomial = n >= crate::analytics::MULTINOMIAL_MIN_PAIRS && cells < n;
        let mut drawn = vec![0u64; cells];
        for r in 0..resamples {
            let mut rng = Xoshiro256pp::for_stream(seed, r as u64);
            if multinomial {
                crate::analytics::multinomial(&mut rng, n as u64, &joint, &mut drawn);
            } else {
                drawn.fill(0);
                for _ in 0..n {
                    drawn[index[rng.below(n as u64) as usize]] += 1;
                }
            }
            let (o, w) = matrices(&drawn, k);
            let (a, b) = (kappa(&o), kappa(&w));
            if let Some(a) = a {
                ko.push(a);
            }
            if let Some(b) = b {
                kn.push(b);
            }
            if let Some(x) = d(a, b) {
                dk.push(x);
            }
            if let (Some(a), Some(b)) = (o.percent_agreement(), w.percent_agreement()) {
                da.push(b - a);
            }
        }
    }
    let ci = |v: &mut Vec<f64>| percentile_interval(v).map(|(a, b)| [a, b]);
    let boot = |value, vary, v: &mut Vec<f64>, method| {
        Figure::bootstrapped(value, n, vary, resamples, ci(v), method)
    };
    let (vary_old, vary_new) = (sides_vary(&old), sides_vary(&new));
    PairedDelta {
        n,
        kappa_from: boot(k_old, vary_old, &mut ko, CiMethod::Bootstrap),
        kappa_to: boot(k_new, vary_new, &mut kn, CiMethod::Bootstrap),
        delta_kappa: boot(
            d(k_old, k_new),
            vary_old && vary_new,
            &mut dk,
            CiMethod::PairedBootstrap,
        ),
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
            "agreement keeps its Wilson interval"
        );
        assert_eq!(ci_or_reason(&c.delta_agree), " (n<30)");
    }
}
