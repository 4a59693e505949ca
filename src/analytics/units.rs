//! Several raters on shared units, some labels missing: the per-unit
//! category counts that Fleiss' κ ([`super::fleiss`]) and Krippendorff's α
//! ([`super::krippendorff`]) are computed from, and their bootstrap over
//! units.
//!
//! Both figures treat raters as exchangeable (who gave a value does not
//! enter, only how many of each value a unit got), so a unit is its row of
//! counts `r_ik`: how many raters put unit i in category k. A unit nobody
//! rated is dropped (as `irrCAC` drops an all-missing row); a unit with one
//! rating stays: it carries no pair to agree on, but `irrCAC`'s Fleiss κ
//! counts it in the category shares its chance agreement is made of.

use super::MAX_K;
use super::figures::Figure;
use super::interval::CiMethod;
use super::rng::Xoshiro256pp;
use super::{AlphaMetric, KappaWeights, MULTINOMIAL_MIN_PAIRS, multinomial, percentile_interval};
use serde::Serialize;

/// Per-unit category counts (units with at least one rating), row-major,
/// each row standing for `weights[i]` identical units (1 unless the rows
/// were folded into distinct patterns for a large bootstrap).
#[derive(Debug, Clone, PartialEq)]
pub struct UnitCounts {
    k: usize,
    counts: Vec<u32>,
    weights: Vec<u64>,
}

impl UnitCounts {
    /// From each unit's ratings (0-based category indices; missing ratings
    /// are simply absent). `None` when `k` is 0 or above [`MAX_K`], or an
    /// index is `>= k`.
    pub fn new(units: &[Vec<u8>], k: usize) -> Option<UnitCounts> {
        if k == 0 || k > MAX_K {
            return None;
        }
        let mut counts = Vec::with_capacity(units.len() * k);
        for u in units.iter().filter(|u| !u.is_empty()) {
            let start = counts.len();
            counts.resize(start + k, 0);
            for &v in u {
                if usize::from(v) >= k {
                    return None;
                }
                counts[start + usize::from(v)] += 1;
            }
        }
        let weights = vec![1; counts.len() / k];
        Some(UnitCounts { k, counts, weights })
    }

    pub fn k(&self) -> usize {
        self.k
    }

    /// Units with at least one rating.
    pub fn n(&self) -> usize {
        self.weights.iter().sum::<u64>() as usize
    }

    /// Each distinct row's counts and how many units it stands for.
    pub fn rows(&self) -> impl Iterator<Item = (&[u32], u64)> {
        self.counts.chunks(self.k).zip(self.weights.iter().copied())
    }

    /// Units with two ratings or more: the ones agreement is observed on.
    pub fn pairable(&self) -> usize {
        self.rows()
            .filter(|(r, _)| r.iter().sum::<u32>() >= 2)
            .map(|(_, w)| w as usize)
            .sum()
    }

    /// Ratings in all.
    pub fn ratings(&self) -> usize {
        self.rows()
            .map(|(r, w)| r.iter().sum::<u32>() as usize * w as usize)
            .sum()
    }

    /// Whether the pairable ratings use more than one category (otherwise a
    /// chance-corrected figure has nothing to work on).
    pub fn varies(&self) -> bool {
        let mut seen = None;
        for (r, _) in self
            .rows()
            .filter(|(r, w)| *w > 0 && r.iter().sum::<u32>() >= 2)
        {
            for (c, &n) in r.iter().enumerate() {
                if n > 0 && *seen.get_or_insert(c) != c {
                    return true;
                }
            }
        }
        false
    }

    /// The units at `idx` (with repeats): one bootstrap resample.
    fn pick(&self, idx: impl Iterator<Item = usize>, into: &mut UnitCounts) {
        into.k = self.k;
        into.counts.clear();
        into.weights.clear();
        for i in idx {
            into.counts
                .extend_from_slice(&self.counts[i * self.k..(i + 1) * self.k]);
            into.weights.push(1);
        }
    }

    /// The same units with identical rows folded into one, weighted by how
    /// many there are (sorted, so the fold does not depend on input order).
    fn patterns(&self) -> UnitCounts {
        let mut folded: std::collections::BTreeMap<&[u32], u64> = Default::default();
        for (r, w) in self.rows() {
            *folded.entry(r).or_default() += w;
        }
        UnitCounts {
            k: self.k,
            counts: folded.keys().flat_map(|r| r.iter().copied()).collect(),
            weights: folded.into_values().collect(),
        }
    }
}

/// How far apart two categories are for Fleiss' κ: agreement weights
/// `w_kl` with `w_kk = 1`, as `irrCAC` makes them on the full scale of `k`
/// categories (unweighted: identity; linear `1 − |k−l|/(q−1)`; quadratic
/// `1 − (k−l)²/(q−1)²`).
pub(super) fn agreement_weight(weights: KappaWeights, q: usize, a: usize, b: usize) -> f64 {
    let d = a.abs_diff(b) as f64;
    let span = q.saturating_sub(1).max(1) as f64;
    match weights {
        KappaWeights::Unweighted => f64::from(u8::from(a == b)),
        KappaWeights::Linear => 1.0 - d / span,
        KappaWeights::Quadratic => 1.0 - (d * d) / (span * span),
    }
}

/// Fleiss' κ and Krippendorff's α among every rater of a set of units, with
/// the counts a reader needs to weigh them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeveralRaters {
    /// Units with at least one rating.
    pub units: usize,
    /// Units with two ratings or more (agreement is observed on these).
    pub pairable_units: usize,
    /// Ratings in all.
    pub ratings: usize,
    /// Fleiss' κ generalised to a varying number of raters per unit
    /// (`irrCAC`'s `fleiss`), unweighted.
    pub fleiss_kappa: Figure,
    /// Krippendorff's α at `metric`.
    pub krippendorff_alpha: Figure,
    pub metric: AlphaMetric,
}

impl SeveralRaters {
    /// Both figures on `units`, each with a seeded percentile bootstrap over
    /// units (resample `r` draws with [`Xoshiro256pp::for_stream`]`(seed, r)`,
    /// as every other bootstrap in jury), kept under the usual rules
    /// ([`Figure::bootstrapped`]: 30 pairable units, ratings that vary).
    pub fn compute(
        units: &UnitCounts,
        metric: AlphaMetric,
        resamples: usize,
        seed: u64,
    ) -> SeveralRaters {
        let kappa = units.fleiss_kappa(KappaWeights::Unweighted);
        let alpha = units.krippendorff_alpha(metric);
        let n = units.n();
        let (mut ks, mut alphas) = (Vec::new(), Vec::new());
        if n > 0 && (kappa.is_some() || alpha.is_some()) {
            // From many units on, a resample is one multinomial draw over
            // the distinct rows (the same distribution as drawing n units
            // one by one, at a cost independent of n), as the confusion
            // matrices' bootstrap does.
            let folded = (n >= MULTINOMIAL_MIN_PAIRS).then(|| units.patterns());
            let mut buf = folded.clone().unwrap_or_else(|| UnitCounts {
                k: units.k,
                counts: Vec::with_capacity(units.counts.len()),
                weights: Vec::with_capacity(n),
            });
            for r in 0..resamples {
                let mut rng = Xoshiro256pp::for_stream(seed, r as u64);
                match &folded {
                    Some(f) => multinomial(&mut rng, n as u64, &f.weights, &mut buf.weights),
                    None => units.pick((0..n).map(|_| rng.below(n as u64) as usize), &mut buf),
                }
                if let Some(v) = buf
                    .fleiss_kappa(KappaWeights::Unweighted)
                    .filter(|v| v.is_finite())
                {
                    ks.push(v);
                }
                if let Some(v) = buf.krippendorff_alpha(metric).filter(|v| v.is_finite()) {
                    alphas.push(v);
                }
            }
        }
        let pairable = units.pairable();
        let varies = units.varies();
        let figure = |value, values: &mut Vec<f64>| {
            let ci = percentile_interval(values).map(|(lo, hi)| [lo, hi]);
            Figure::bootstrapped(value, pairable, varies, resamples, ci, CiMethod::Bootstrap)
        };
        SeveralRaters {
            units: n,
            pairable_units: pairable,
            ratings: units.ratings(),
            fleiss_kappa: figure(kappa, &mut ks),
            krippendorff_alpha: figure(alpha, &mut alphas),
            metric,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Folding identical rows changes no figure; a large set's bootstrap
    /// (one multinomial draw over the distinct rows) stays about the value.
    #[test]
    fn folded_rows_give_the_same_figures_and_a_large_bootstrap_stays_about_the_value() {
        let units: Vec<Vec<u8>> = (0..5000)
            .map(|i| match i % 7 {
                0 => vec![0, 0, 1],
                1 | 2 => vec![1, 1],
                3 => vec![2, 2, 2],
                4 => vec![2],
                5 => vec![0, 2],
                _ => vec![1, 2, 1],
            })
            .collect();
        let u = UnitCounts::new(&units, 3).unwrap();
        let f = u.patterns();
        assert_eq!(f.weights.len(), 6);
        assert_eq!(
            (f.n(), f.pairable(), f.ratings()),
            (u.n(), u.pairable(), u.ratings())
        );
        for m in [
            AlphaMetric::Nominal,
            AlphaMetric::Ordinal,
            AlphaMetric::Interval,
        ] {
            let (a, b) = (
                u.krippendorff_alpha(m).unwrap(),
                f.krippendorff_alpha(m).unwrap(),
            );
            assert!((a - b).abs() < 1e-9, "{m:?} {a} {b}");
        }
        let (a, b) = (
            u.fleiss_kappa(KappaWeights::Quadratic).unwrap(),
            f.fleiss_kappa(KappaWeights::Quadratic).unwrap(),
        );
        assert!((a - b).abs() < 1e-9);
        let s = SeveralRaters::compute(&u, AlphaMetric::Ordinal, 1000, 3);
        let [lo, hi] = s.krippendorff_alpha.ci95.unwrap();
        let v = s.krippendorff_alpha.value.unwrap();
        assert!(lo < v && v < hi && hi - lo < 0.1, "{lo} {v} {hi}");
    }

    #[test]
    fn empty_units_are_dropped_and_bad_indices_refused() {
        let u = UnitCounts::new(&[vec![0, 1], vec![], vec![1]], 2).unwrap();
        assert_eq!((u.n(), u.pairable()), (2, 1));
        assert!(u.varies());
        assert_eq!(UnitCounts::new(&[vec![2]], 2), None);
        assert_eq!(UnitCounts::new(&[vec![0]], 0), None);
        // One value only among the pairable units: nothing varies.
        let same = UnitCounts::new(&[vec![1, 1], vec![0]], 2).unwrap();
        assert!(!same.varies());
    }

    #[test]
    fn the_bootstrap_is_seeded_and_needs_thirty_units() {
        let units: Vec<Vec<u8>> = (0..40)
            .map(|i| match i % 4 {
                0 => vec![0, 0, 0],
                1 => vec![1, 1],
                2 => vec![0, 1, 1],
                _ => vec![1, 0],
            })
            .collect();
        let u = UnitCounts::new(&units, 2).unwrap();
        let a = SeveralRaters::compute(&u, AlphaMetric::Nominal, 200, 7);
        let b = SeveralRaters::compute(&u, AlphaMetric::Nominal, 200, 7);
        assert_eq!(a, b);
        let [lo, hi] = a.krippendorff_alpha.ci95.unwrap();
        let v = a.krippendorff_alpha.value.unwrap();
        assert!(lo < v && v < hi, "{lo} {v} {hi}");
        assert!(a.fleiss_kappa.ci95.is_some());
        let few = UnitCounts::new(&units[..10], 2).unwrap();
        let f = SeveralRaters::compute(&few, AlphaMetric::Nominal, 200, 7);
        assert!(f.krippendorff_alpha.value.is_some());
        assert_eq!(
            f.krippendorff_alpha.no_ci,
            Some(super::super::NoInterval::FewPairs)
        );
    }
}
