//! Every figure for one comparison group, with bootstrap intervals.

use super::bca::{bca_interval, jackknife_cells};
use super::bootstrap::{bootstrap_matrices, percentile_interval};
use super::interval::{CiMethod, NoInterval, bootstrap_rule, exact_share};
use super::{AlphaMetric, BaseRate, ConfusionMatrix, KappaWeights, PairsError};
use serde::Serialize;

/// A point estimate and its 95 % interval, made by the rules of
/// [`interval`](super::interval): exact (Clopper–Pearson) for shares, a bootstrap for the
/// rest from 30 pairs on, or no interval and the reason.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Figure {
    /// `None` when the figure is undefined for these data (see each
    /// function's docs) or does not apply to the scale.
    pub value: Option<f64>,
    /// `None` when `value` is `None`, when the rules give none (`no_ci`
    /// says why), or when the figure was undefined on every resample.
    pub ci95: Option<[f64; 2]>,
    /// How `ci95` was made.
    pub ci_method: Option<CiMethod>,
    /// Why a figure with a value has no interval.
    pub no_ci: Option<NoInterval>,
}

impl Figure {
    /// Neither a value nor an interval.
    pub const NONE: Figure = Figure {
        value: None,
        ci95: None,
        ci_method: None,
        no_ci: None,
    };

    /// A share of `successes` in `n` with its exact interval.
    pub fn share(successes: u64, n: u64) -> Figure {
        if n == 0 {
            return Figure::NONE;
        }
        Figure {
            value: Some(successes as f64 / n as f64),
            ci95: exact_share(successes, n),
            ci_method: Some(CiMethod::ClopperPearson),
            no_ci: None,
        }
    }

    /// A value whose bootstrap interval (`interval`, from `resamples`
    /// resamples over `n` pairs) passes [`bootstrap_rule`], or the reason it
    /// does not.
    pub fn bootstrapped(
        value: Option<f64>,
        n: usize,
        sides_vary: bool,
        resamples: usize,
        interval: Option<[f64; 2]>,
        method: CiMethod,
    ) -> Figure {
        if value.is_none() {
            return Figure::NONE;
        }
        match bootstrap_rule(n, sides_vary, resamples, interval) {
            Ok(ci) => Figure {
                value,
                ci95: ci,
                ci_method: ci.map(|_| method),
                no_ci: None,
            },
            Err(why) => Figure {
                value,
                ci95: None,
                ci_method: None,
                no_ci: Some(why),
            },
        }
    }
}

/// All agreement figures for one comparison (e.g. judge vs human on one
/// classification). Ordinal-only figures (`within_one`,
/// `weighted_kappa_quadratic`, `spearman`, `mean_abs_diff`) are
/// [`Figure::NONE`] on nominal scales.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figures {
    /// Number of pairs.
    pub n: usize,
    /// Category count.
    pub k: usize,
    pub ordinal: bool,
    pub percent_agreement: Figure,
    pub within_one: Figure,
    pub cohen_kappa: Figure,
    pub weighted_kappa_quadratic: Figure,
    /// Ordinal metric on ordinal scales, nominal otherwise (see
    /// `krippendorff_metric`).
    pub krippendorff_alpha: Figure,
    pub krippendorff_metric: AlphaMetric,
    pub spearman: Figure,
    pub mean_abs_diff: Figure,
    /// Gwet's AC1 (robust to one dominant value); its interval is
    /// agreement's Wilson interval through AC1, the chance term at the end
    /// of its own range that widens it.
    pub gwet_ac1: Figure,
    /// PABAK, `(k·agreement − 1)/(k − 1)`, its interval agreement's exact
    /// (Clopper–Pearson) interval mapped onto it.
    pub pabak: Figure,
    /// Why kappa misleads here (one value dominates), when it does.
    pub prevalence: Option<String>,
    /// k×k counts, rows = first rater.
    pub confusion_matrix: Vec<Vec<u64>>,
    pub base_rate: BaseRate,
    /// Resamples used for the intervals (0 = none computed).
    pub bootstrap_resamples: usize,
    pub seed: u64,
}

/// Number of bootstrapped figures, in the order of [`point_values`].
const F: usize = 8;

/// The bootstrapped figures of one matrix, in a fixed order:
/// percent, within-one, kappa, quadratic kappa, alpha, Spearman, MAD, AC1.
fn point_values(m: &ConfusionMatrix, ordinal: bool) -> [Option<f64>; F] {
    let ord = |v: Option<f64>| if ordinal { v } else { None };
    let metric = if ordinal {
        AlphaMetric::Ordinal
    } else {
        AlphaMetric::Nominal
    };
    [
        m.percent_agreement(),
        ord(m.within_one()),
        m.cohen_kappa(),
        if ordinal {
            m.weighted_kappa(KappaWeights::Quadratic)
        } else {
            None
        },
        m.krippendorff_alpha(metric),
        if ordinal { m.spearman() } else { None },
        ord(m.mean_abs_diff()),
        m.gwet_ac1(),
    ]
}

impl Figures {
    /// Computes every figure for `pairs` (0-based category indices, k
    /// categories) and, when `bootstrap_resamples > 0`, 95 % intervals from
    /// a seeded bootstrap over pairs: percentile ends, BCa ends for kappa
    /// and weighted kappa (`analytics::bca`; the percentile ends
    /// under-covered where kappa is skewed).
    ///
    /// Cost: one O(n) pass builds the confusion matrix; each figure is then
    /// O(k²). Below [`MULTINOMIAL_MIN_PAIRS`](super::MULTINOMIAL_MIN_PAIRS)
    /// pairs the bootstrap draws n cell indices per resample (O(n), no
    /// allocation in the loop, spread over the cores for large jobs; results
    /// do not depend on the core count) and its intervals match
    /// [`bootstrap_ci`](super::bootstrap_ci) called with the same seed and
    /// resample count on the matching figure function. From that size on each
    /// resampled matrix is one multinomial draw over the k² cells — the same
    /// distribution at O(k²) per resample — so even n = 1e6 gets the full
    /// [`DEFAULT_RESAMPLES`](super::DEFAULT_RESAMPLES) in milliseconds.
    ///
    /// Errors only on invalid input (k > 256 or an index `>= k`). With no
    /// pairs every figure is [`Figure::NONE`] and n = 0.
    pub fn compute(
        pairs: &[(u8, u8)],
        k: usize,
        ordinal: bool,
        bootstrap_resamples: usize,
        seed: u64,
    ) -> Result<Figures, PairsError> {
        let m = ConfusionMatrix::try_from_pairs(pairs, k)?;
        let points = point_values(&m, ordinal);
        let mut intervals: [Option<[f64; 2]>; F] = [None; F];
        let varies = |marginal: &[u64]| marginal.iter().filter(|&&c| c > 0).count() > 1;
        let sides_vary = varies(m.first_marginal()) && varies(m.second_marginal());
        // Shares take exact intervals; only the rest need resamples, and
        // only where the rules would keep their interval.
        let wanted = pairs.len() >= super::MIN_PAIRS_FOR_BOOTSTRAP
            && sides_vary
            && points[2..7].iter().any(Option::is_some);
        if wanted && bootstrap_resamples > 0 {
            // k ≤ 256, so a cell index a·k + b fits in u16.
            let cells: Vec<u16> = pairs
                .iter()
                .map(|&(a, b)| (a as usize * k + b as usize) as u16)
                .collect();
            let replicates = bootstrap_matrices(&cells, &m, bootstrap_resamples, seed, |rm| {
                point_values(rm, ordinal)
            });
            let mut samples: Vec<Vec<f64>> = (0..F)
                .map(|f| {
                    if points[f].is_some() {
                        replicates.iter().filter_map(|r| r[f]).collect()
                    } else {
                        Vec::new()
                    }
                })
                .collect();
            for (f, s) in samples.iter_mut().enumerate().skip(2) {
                match points[f] {
                    // Kappa: BCa, where the percentile ends under-covered
                    // (see `bca`); the resamples are the same.
                    Some(point) if f == 2 || f == 3 => {
                        let jack = jackknife_cells(&m, |rm| point_values(rm, ordinal)[f]);
                        intervals[f] = bca_interval(s, point, &jack);
                    }
                    Some(_) => intervals[f] = percentile_interval(s).map(|(lo, hi)| [lo, hi]),
                    None => {}
                }
            }
        }
        let n = pairs.len();
        let fig_of = |f: usize| {
            Figure::bootstrapped(
                points[f],
                n,
                sides_vary,
                bootstrap_resamples,
                intervals[f],
                CiMethod::Bootstrap,
            )
        };
        // Kappa off a handful of answers: no interval, and why.
        let few_off = m.off_dominant() < super::MIN_OFF_DOMINANT;
        let kappa_fig = |f: usize| {
            let fig = Figure::bootstrapped(
                points[f],
                n,
                sides_vary,
                bootstrap_resamples,
                intervals[f],
                CiMethod::Bca,
            );
            if few_off && fig.ci95.is_some() {
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
        // AC1's interval (see `ConfusionMatrix::ac1_interval`): a
        // percentile bootstrap covered 88.7 % at 95 % agreement on 100 pairs.
        let ac1 = match (points[7], m.ac1_interval()) {
            (Some(v), Some(ci)) => Figure {
                value: Some(v),
                ci95: Some([ci[0].min(v), ci[1].max(v)]),
                ci_method: Some(CiMethod::Wilson),
                no_ci: None,
            },
            (v, _) => Figure {
                value: v,
                ..Figure::NONE
            },
        };
        // PABAK rises with agreement: agreement's exact interval mapped onto
        // it covers as that one does, never below 95 % (Wilson's dipped to
        // 92.6 % at 40 pairs).
        let exact = super::accuracy_ci::clopper_pearson(m.agreeing(), m.n(), 0.05);
        let pabak = match (m.pabak(), exact) {
            (Some(v), Some([lo, hi])) => Figure {
                value: Some(v),
                ci95: Some([super::pabak_of(lo, k), super::pabak_of(hi, k)]),
                ci_method: Some(CiMethod::ClopperPearson),
                no_ci: None,
            },
            _ => Figure::NONE,
        };
        let prevalence = super::prevalence_note(&m, points[2]);

        Ok(Figures {
            n: pairs.len(),
            k,
            ordinal,
            percent_agreement: Figure::share(m.agreeing(), m.n()),
            within_one: if ordinal {
                Figure::share(m.within_one_count(), m.n())
            } else {
                Figure::NONE
            },
            cohen_kappa: kappa_fig(2),
            weighted_kappa_quadratic: kappa_fig(3),
            krippendorff_alpha: fig_of(4),
            krippendorff_metric: if ordinal {
                AlphaMetric::Ordinal
            } else {
                AlphaMetric::Nominal
            },
            spearman: fig_of(5),
            mean_abs_diff: fig_of(6),
            gwet_ac1: ac1,
            pabak,
            prevalence,
            confusion_matrix: m.rows(),
            base_rate: m.base_rate(),
            bootstrap_resamples,
            seed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytics::*;

    type Stat = fn(&[(u8, u8)], usize) -> Option<f64>;

    fn likert() -> Vec<(u8, u8)> {
        (0..60u32)
            .map(|i| {
                let a = (i * 7 % 5) as u8;
                let b = if i % 4 == 0 { (a + 1).min(4) } else { a };
                (a, b)
            })
            .collect()
    }

    #[test]
    fn points_match_functions_and_cis_match_bootstrap_ci() {
        let p = likert();
        let f = Figures::compute(&p, 5, true, 300, 11).unwrap();
        assert_eq!(f.n, 60);
        assert_eq!(f.percent_agreement.value, percent_agreement(&p, 5));
        assert_eq!(f.within_one.value, within_one(&p, 5));
        assert_eq!(f.cohen_kappa.value, cohen_kappa(&p, 5));
        assert_eq!(
            f.weighted_kappa_quadratic.value,
            weighted_kappa_quadratic(&p, 5)
        );
        assert_eq!(
            f.krippendorff_alpha.value,
            krippendorff_alpha_ordinal(&p, 5)
        );
        assert_eq!(f.spearman.value, spearman(&p, 5));
        assert_eq!(f.mean_abs_diff.value, mean_abs_diff(&p, 5));
        let ci = |stat: Stat| bootstrap_ci(&p, 5, stat, 300, 11).map(|(a, b)| [a, b]);
        // Shares: exact; the rest: the pairwise bootstrap (60 pairs ≥ the floor).
        let hits = p.iter().filter(|(a, b)| a == b).count() as u64;
        assert_eq!(f.percent_agreement.ci95, exact_share(hits, 60));
        assert_eq!(
            f.percent_agreement.ci_method,
            Some(CiMethod::ClopperPearson)
        );
        // Kappa: BCa over the very resamples `bootstrap_ci` draws.
        let m = ConfusionMatrix::from_pairs(&p, 5).unwrap();
        let cells: Vec<u16> = p
            .iter()
            .map(|&(a, b)| u16::from(a) * 5 + u16::from(b))
            .collect();
        let bca = |stat: fn(&ConfusionMatrix) -> Option<f64>| {
            let mut v: Vec<f64> = super::bootstrap_matrices(&cells, &m, 300, 11, stat)
                .into_iter()
                .flatten()
                .collect();
            let pct = percentile_interval(&mut v.clone()).map(|(a, b)| [a, b]);
            let jack = super::jackknife_cells(&m, stat);
            (bca_interval(&mut v, stat(&m).unwrap(), &jack), pct)
        };
        let (kappa_bca, kappa_pct) = bca(ConfusionMatrix::cohen_kappa);
        assert_eq!(kappa_pct, ci(cohen_kappa));
        assert_eq!(f.cohen_kappa.ci95, kappa_bca);
        assert_eq!(f.cohen_kappa.ci_method, Some(CiMethod::Bca));
        let (quadratic_bca, _) = bca(|m| m.weighted_kappa(KappaWeights::Quadratic));
        assert_eq!(f.weighted_kappa_quadratic.ci95, quadratic_bca);
        assert_eq!(f.krippendorff_alpha.ci95, ci(krippendorff_alpha_ordinal));
        assert_eq!(f.spearman.ci95, ci(spearman));
        assert_eq!(f.mean_abs_diff.ci95, ci(mean_abs_diff));
        for fig in [f.percent_agreement, f.cohen_kappa, f.spearman] {
            let [lo, hi] = fig.ci95.unwrap();
            assert!(lo <= fig.value.unwrap() && fig.value.unwrap() <= hi);
        }
        assert_eq!(Figures::compute(&p, 5, true, 300, 11).unwrap(), f);
    }

    #[test]
    fn threaded_bootstrap_equals_sequential() {
        // 1_500 pairs × 3_000 resamples = 4.5e6 draws: the threaded path.
        let p: Vec<(u8, u8)> = (0..1_500u32)
            .map(|i| ((i % 3) as u8, ((i / 3 + i % 7) % 3) as u8))
            .collect();
        let f = Figures::compute(&p, 3, true, 3_000, 5).unwrap();
        let seq = bootstrap_ci(&p, 3, spearman, 3_000, 5).map(|(a, b)| [a, b]);
        assert_eq!(f.spearman.ci95, seq);
    }

    #[test]
    fn large_groups_resample_the_matrix_with_the_same_distribution() {
        // 40_000 pairs: the multinomial path. Its interval must be the
        // pairwise bootstrap's up to Monte Carlo noise (kappa's standard
        // error here is about 0.005; 1000 resamples place the ends to a
        // small fraction of that).
        let p: Vec<(u8, u8)> = (0..40_000u32)
            .map(|i| ((i % 3) as u8, ((i / 3 + i % 7) % 3) as u8))
            .collect();
        let f = Figures::compute(&p, 3, true, 1000, 5).unwrap();
        for (fig, stat) in [
            (f.cohen_kappa, cohen_kappa as Stat),
            (f.percent_agreement, percent_agreement as Stat),
            (f.spearman, spearman as Stat),
        ] {
            let [lo, hi] = fig.ci95.unwrap();
            let (plo, phi) = bootstrap_ci(&p, 3, stat, 1000, 6).unwrap();
            assert!((lo - plo).abs() < 0.002, "low end {lo} vs pairwise {plo}");
            assert!((hi - phi).abs() < 0.002, "high end {hi} vs pairwise {phi}");
            assert!(lo < fig.value.unwrap() && fig.value.unwrap() < hi);
        }
        assert_eq!(Figures::compute(&p, 3, true, 1000, 5).unwrap(), f);
    }

    #[test]
    fn nominal_hides_ordinal_figures() {
        let p = [(0u8, 0u8), (1, 1), (0, 1), (1, 1)];
        let f = Figures::compute(&p, 2, false, 100, 1).unwrap();
        assert_eq!(f.within_one, Figure::NONE);
        assert_eq!(f.weighted_kappa_quadratic, Figure::NONE);
        assert_eq!(f.spearman, Figure::NONE);
        assert_eq!(f.mean_abs_diff, Figure::NONE);
        assert_eq!(f.krippendorff_metric, AlphaMetric::Nominal);
        assert_eq!(
            f.krippendorff_alpha.value,
            krippendorff_alpha_nominal(&p, 2)
        );
        assert!(f.cohen_kappa.value.is_some());
        assert_eq!(f.confusion_matrix, vec![vec![1, 1], vec![0, 2]]);
    }

    #[test]
    fn degenerate_groups() {
        let f = Figures::compute(&[], 5, true, 100, 1).unwrap();
        assert_eq!(f.n, 0);
        assert_eq!(f.percent_agreement, Figure::NONE);
        assert_eq!(f.cohen_kappa, Figure::NONE);
        assert_eq!(f.base_rate.first.mode_share, None);
        let f = Figures::compute(&[], 0, false, 100, 1).unwrap();
        assert_eq!(f.confusion_matrix, Vec::<Vec<u64>>::new());
        // One category only: raw agreement 1 (with an exact interval, never
        // a point), chance-corrected figures None.
        let f = Figures::compute(&[(2, 2); 4], 5, true, 100, 1).unwrap();
        assert_eq!(f.percent_agreement.value, Some(1.0));
        assert_eq!(f.percent_agreement.ci95, exact_share(4, 4));
        assert_eq!(f.cohen_kappa, Figure::NONE);
        assert_eq!(f.krippendorff_alpha, Figure::NONE);
        assert_eq!(f.spearman, Figure::NONE);
        assert_eq!(f.base_rate.second.mode_share, Some(1.0));
        // No resamples: values, no bootstrap intervals, and the reason.
        let f = Figures::compute(&likert(), 5, true, 0, 1).unwrap();
        assert!(f.cohen_kappa.value.is_some() && f.cohen_kappa.ci95.is_none());
        assert_eq!(f.cohen_kappa.no_ci, Some(NoInterval::NotComputed));
        assert!(f.percent_agreement.ci95.is_some());
        // Invalid input is an error, not a panic.
        assert!(Figures::compute(&[(0, 5)], 5, true, 10, 1).is_err());
        assert!(Figures::compute(&[], 300, true, 10, 1).is_err());
    }

    #[test]
    fn small_samples_never_get_a_point_interval() {
        // n = 2, the judge wrong both times, the human varying: agreement 0
        // with an exact interval; kappa 0 with no interval and the reason.
        let f = Figures::compute(&[(0, 1), (1, 0)], 2, false, 1000, 1).unwrap();
        assert_eq!(f.percent_agreement.value, Some(0.0));
        let [lo, hi] = f.percent_agreement.ci95.unwrap();
        assert!(lo == 0.0 && hi > 0.6);
        assert!(f.cohen_kappa.value.is_some());
        assert_eq!(f.cohen_kappa.ci95, None);
        assert_eq!(f.cohen_kappa.no_ci, Some(NoInterval::FewPairs));
        // 40 pairs, the judge always says the same: kappa 0, no interval.
        let one: Vec<(u8, u8)> = (0..40u8).map(|i| (1, i % 2)).collect();
        let f = Figures::compute(&one, 2, false, 1000, 1).unwrap();
        assert_eq!(f.cohen_kappa.value, Some(0.0));
        assert_eq!(f.cohen_kappa.no_ci, Some(NoInterval::OneValue));
        // 40 pairs in perfect agreement: every resample gives 1.
        let same: Vec<(u8, u8)> = (0..40u8).map(|i| (i % 2, i % 2)).collect();
        let f = Figures::compute(&same, 2, false, 1000, 1).unwrap();
        assert_eq!(f.cohen_kappa.value, Some(1.0));
        assert_eq!(f.cohen_kappa.no_ci, Some(NoInterval::NoSpread));
        // No figure anywhere has a zero-width interval from under 30 pairs.
        for n in 1..30u8 {
            let p: Vec<(u8, u8)> = (0..n).map(|i| (i % 3, (i / 2) % 3)).collect();
            let f = Figures::compute(&p, 3, true, 200, 3).unwrap();
            for fig in [
                f.percent_agreement,
                f.within_one,
                f.cohen_kappa,
                f.weighted_kappa_quadratic,
                f.krippendorff_alpha,
                f.spearman,
                f.mean_abs_diff,
            ] {
                if let Some([lo, hi]) = fig.ci95 {
                    assert!(hi > lo, "n {n}: [{lo}, {hi}]");
                }
            }
        }
    }

    #[test]
    fn serializes_without_nan() {
        let f = Figures::compute(&[(1, 1)], 3, true, 10, 1).unwrap();
        let json = serde_json::to_string(&f).unwrap();
        assert!(
            json.contains(
                "\"cohen_kappa\":{\"value\":null,\"ci95\":null,\"ci_method\":null,\"no_ci\":null}"
            ),
            "{json}"
        );
        assert!(!json.contains("NaN"));
    }
}
