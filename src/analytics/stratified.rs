//! The classifier's accuracy over several strata (classifications) labelled
//! at different rates: each stratum's estimate weighted by its share of the
//! population, variances combined.
//!
//! Pooling the labels of every stratum into one sample weights each stratum
//! by its share of the *labels*, not of the combinations: with 100 labels
//! on a classification right 90 % of the time and 20 on one right 50 %,
//! each with 1 000 combinations, the pooled labels read 0.83 where the
//! accuracy is 0.70, and PPI pooled the same way is off whenever the
//! judge's errors differ between strata. Stratified, the estimate is
//! `Σ W_h·θ_h`, `W_h = N_h/N` (`N_h` the stratum's labelled and unlabelled
//! combinations), and its variance `Σ W_h²·se_h²`.
//!
//! Intervals that hold (as [`accuracy_intervals`]): where each stratum's
//! labels carry a normal approximation ([`normal_fails`]), the normal
//! interval of the stratified estimate; otherwise each stratum's interval
//! that holds at level `1 − α/H` (exact for labels alone, betting or
//! normal for PPI++, by the stratum's own labels), combined as
//! `[Σ W_h·lo_h, Σ W_h·hi_h]`: all H cover together with probability at
//! least 1 − α (Bonferroni), and then so does the weighted sum. Wider, as
//! the price of holding where a stratum has few labels.

use super::accuracy_ci::{
    AccuracyIntervals, AccuracyMethod, Interval, accuracy_intervals, clopper_pearson, normal_fails,
};
use super::ppi::{classical_mean_ci, ppi_lambda, ppi_mean_ci_with, z_two_sided};

/// One stratum's readings: people's on the labelled combinations (`y`, 0
/// or 1), the judge's on the same (`y_hat`) and on the unlabelled ones
/// (`y_hat_u`).
#[derive(Debug, Clone, Copy)]
pub struct Stratum<'a> {
    pub y: &'a [f64],
    pub y_hat: &'a [f64],
    pub y_hat_u: &'a [f64],
}

impl Stratum<'_> {
    /// Labelled and unlabelled combinations.
    pub fn size(&self) -> usize {
        self.y.len() + self.y_hat_u.len()
    }
}

/// Why a stratified estimate cannot be made: a stratum nobody labelled.
pub const UNLABELLED_STRATUM: &str = "a classification has no labels: the accuracy over all of them cannot be estimated without assuming it";

/// The stratified estimates (labels alone and PPI++) at level 1 − `alpha`,
/// with the population weights `W_h` in the strata's order; `Err` with the
/// reason when a stratum has no labels. `seed` fixes the betting orders.
pub fn stratified_intervals(
    strata: &[Stratum<'_>],
    alpha: f64,
    seed: u64,
) -> Result<(AccuracyIntervals, Vec<f64>), &'static str> {
    if strata.is_empty() || strata.iter().any(|s| s.y.is_empty()) {
        return Err(UNLABELLED_STRATUM);
    }
    let total: f64 = strata.iter().map(|s| s.size() as f64).sum();
    let weights: Vec<f64> = strata.iter().map(|s| s.size() as f64 / total).collect();
    // A stratum's normal interval is used only where its own labels carry
    // it (as for one classification): with 20 labels and a leaning judge
    // in one stratum, the combined normal PPI++ interval covered 89 %
    // (tests/reference/stratified.rs).
    let not_normal = strata.iter().find_map(|s| normal_fails(s.y, s.y_hat));
    let any_unlabelled = strata.iter().any(|s| !s.y_hat_u.is_empty());
    let lambdas: Vec<f64> = strata
        .iter()
        .map(|s| {
            if s.y_hat_u.is_empty() || s.y.len() != s.y_hat.len() {
                0.0
            } else {
                ppi_lambda(s.y, s.y_hat, s.y_hat_u)
            }
        })
        .collect();
    let lambda = any_unlabelled.then(|| weights.iter().zip(&lambdas).map(|(w, l)| w * l).sum());

    // The normal intervals: Σ W·θ ± z·sqrt(Σ W²·se²), each stratum's se
    // from its own normal interval (ppi_py's formulas).
    let z = z_two_sided(alpha);
    let normal = |ppi: bool| -> Option<(f64, [f64; 2])> {
        let (mut est, mut var) = (0.0, 0.0);
        for ((s, w), &l) in strata.iter().zip(&weights).zip(&lambdas) {
            let (e, ci) = if ppi && !s.y_hat_u.is_empty() {
                let p = ppi_mean_ci_with(s.y, s.y_hat, s.y_hat_u, alpha, l)?;
                (p.estimate, p.ci)
            } else {
                let m = classical_mean_ci(s.y, alpha)?;
                (m.estimate, m.ci)
            };
            let se = (ci[1] - ci[0]) / (2.0 * z);
            est += w * e;
            var += w * w * se * se;
        }
        let half = z * var.sqrt();
        Some((est, [est - half, est + half]))
    };
    let normal_labels = normal(false);
    let normal_ppi = if any_unlabelled { normal(true) } else { None };

    let clip = |e: f64, ci: [f64; 2]| [ci[0].min(e).clamp(0.0, 1.0), ci[1].max(e).clamp(0.0, 1.0)];
    let (labels_alone, ppi) = if not_normal.is_none() {
        (
            normal_labels.map(|(e, ci)| Interval {
                estimate: e,
                ci: clip(e, ci),
                method: AccuracyMethod::Normal,
            }),
            normal_ppi.map(|(e, ci)| Interval {
                estimate: e.clamp(0.0, 1.0),
                ci: clip(e, ci),
                method: AccuracyMethod::Normal,
            }),
        )
    } else {
        // Each stratum's interval that holds at α/H, weighted.
        let each = alpha / strata.len() as f64;
        let (mut l_est, mut l_ci) = (0.0, [0.0, 0.0]);
        let (mut p_est, mut p_ci, mut p_ok) = (0.0, [0.0, 0.0], any_unlabelled);
        let mut finite_sample = false;
        for (h, (s, w)) in strata.iter().zip(&weights).enumerate() {
            let k = s.y.iter().filter(|&&v| v >= 0.5).count() as u64;
            let n = s.y.len() as u64;
            let cp = clopper_pearson(k, n, each).ok_or(UNLABELLED_STRATUM)?;
            let mean = k as f64 / n as f64;
            l_est += w * mean;
            l_ci = [l_ci[0] + w * cp[0], l_ci[1] + w * cp[1]];
            let (e, ci) = if s.y_hat_u.is_empty() {
                (mean, cp)
            } else {
                let a = accuracy_intervals(s.y, s.y_hat, s.y_hat_u, each, seed ^ h as u64);
                match a.ppi {
                    Some(i) => {
                        finite_sample |= i.method == AccuracyMethod::Betting;
                        (i.estimate, i.ci)
                    }
                    None => {
                        p_ok = false;
                        (mean, cp)
                    }
                }
            };
            p_est += w * e;
            p_ci = [p_ci[0] + w * ci[0], p_ci[1] + w * ci[1]];
        }
        (
            Some(Interval {
                estimate: l_est,
                ci: clip(l_est, l_ci),
                method: AccuracyMethod::ClopperPearson,
            }),
            p_ok.then(|| Interval {
                estimate: p_est.clamp(0.0, 1.0),
                ci: clip(p_est, p_ci),
                method: if finite_sample {
                    AccuracyMethod::Betting
                } else {
                    AccuracyMethod::ClopperPearson
                },
            }),
        )
    };
    Ok((
        AccuracyIntervals {
            labels_alone,
            ppi,
            lambda,
            not_normal,
            normal_cis: (
                normal_labels.map(|(_, ci)| ci),
                normal_ppi.map(|(_, ci)| ci),
            ),
        },
        weights,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ones(k: usize, n: usize) -> Vec<f64> {
        (0..n).map(|i| if i < k { 1.0 } else { 0.0 }).collect()
    }

    /// Two classifications, 1 000 combinations each; 100 labels on one
    /// right 90 %, 40 on the other right 50 %: the accuracy is 0.70.
    #[test]
    fn each_stratum_counts_by_its_share_of_the_combinations() {
        let (ya, yb) = (ones(90, 100), ones(20, 40));
        // The judge: right on all but 10 labels of each, its share of
        // "right" the same on the unlabelled ones (0.8, 0.75).
        let (ha, hb) = (ones(80, 100), ones(30, 40));
        let (ua, ub) = (ones(720, 900), ones(720, 960));
        let strata = [
            Stratum {
                y: &ya,
                y_hat: &ha,
                y_hat_u: &ua,
            },
            Stratum {
                y: &yb,
                y_hat: &hb,
                y_hat_u: &ub,
            },
        ];
        let (a, w) = stratified_intervals(&strata, 0.05, 1).unwrap();
        assert_eq!(w, vec![0.5, 0.5]);
        let l = a.labels_alone.unwrap();
        assert!((l.estimate - 0.70).abs() < 1e-12, "{}", l.estimate);
        assert_eq!(l.method, AccuracyMethod::Normal);
        assert!(l.ci[0] < 0.7 && l.ci[1] > 0.7);
        let p = a.ppi.unwrap();
        assert!((p.estimate - 0.70).abs() < 1e-12, "{}", p.estimate);
        assert_eq!(p.method, AccuracyMethod::Normal);
        // Pooled labels would read 110/140.
        let empty: [f64; 0] = [];
        let none = [
            strata[0],
            Stratum {
                y: &empty,
                y_hat: &empty,
                y_hat_u: &ub,
            },
        ];
        assert_eq!(
            stratified_intervals(&none, 0.05, 1).unwrap_err(),
            UNLABELLED_STRATUM
        );
    }

    #[test]
    fn few_labels_combine_each_strata_interval_that_holds() {
        let (ya, yb) = (ones(9, 9), ones(5, 8));
        let (ua, ub) = (ones(90, 100), ones(50, 100));
        let strata = [
            Stratum {
                y: &ya,
                y_hat: &ya,
                y_hat_u: &ua,
            },
            Stratum {
                y: &yb,
                y_hat: &yb,
                y_hat_u: &ub,
            },
        ];
        let (a, _) = stratified_intervals(&strata, 0.05, 1).unwrap();
        assert!(a.not_normal.is_some());
        let l = a.labels_alone.unwrap();
        assert_eq!(l.method, AccuracyMethod::ClopperPearson);
        let (a_cp, b_cp) = (
            clopper_pearson(9, 9, 0.025).unwrap(),
            clopper_pearson(5, 8, 0.025).unwrap(),
        );
        let w = [109.0 / 217.0, 108.0 / 217.0];
        assert!((l.ci[0] - (w[0] * a_cp[0] + w[1] * b_cp[0])).abs() < 1e-12);
        assert!(a.ppi.is_some_and(|p| p.ci[0] >= 0.0 && p.ci[1] <= 1.0));
    }
}
