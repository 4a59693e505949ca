//! Intervals of the classifier's accuracy that hold: the normal-approximation
//! intervals (ppi_py's) where the labels can carry them, exact or
//! finite-sample ones where they cannot.
//!
//! `mean ± z·se` and PPI++ rest on a normal approximation. With few labels
//! of one outcome (accuracy near 0 or 1) or few disagreements between the
//! judge and people among the labels, the standard error is itself a guess
//! from a handful of values and the interval under-covers (at accuracy 0.97
//! with a judge leaning toward "right", 74 % at nominal 95 % with 30
//! labels). There jury gives:
//! - labels alone: the Clopper–Pearson interval (exact: never below the
//!   nominal level), at every n;
//! - PPI++: a betting interval ([`betting_ci`]) of the rectified mean
//!   `Y − λ(Ŷ − mean(Ŷu))` over the labelled combinations, at level
//!   0.9·α, plus the uncertainty of `mean(Ŷu)` (a betting interval at
//!   0.1·α over the unlabelled ones), joined by Bonferroni.
//!
//! Every interval is inside [0, 1]. The seeded simulation in
//! `tests/reference/coverage_*.rs` and `benches/coverage.rs` checks the
//! coverage of each.

use super::betting::betting_ci;
use super::ppi::{classical_mean_ci, ppi_lambda, ppi_mean_ci_with};
use super::trust::beta_ppf;
use serde::Serialize;

/// Fewest labels of each outcome (right and wrong), and fewest
/// disagreements between the judge and people among the labels, for the
/// normal approximation to be used.
pub const MIN_EACH_OUTCOME: usize = 10;

/// Fewest labels in all for the normal approximation.
pub const MIN_LABELS_NORMAL: usize = 30;

/// How an accuracy interval was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AccuracyMethod {
    /// `mean ± z·se` (labels alone, or PPI++), as ppi_py; clipped to [0, 1].
    Normal,
    /// Exact binomial interval of the labels alone.
    ClopperPearson,
    /// Betting interval of PPI++'s rectified mean (finite-sample).
    Betting,
}

impl AccuracyMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            AccuracyMethod::Normal => "normal",
            AccuracyMethod::ClopperPearson => "exact (Clopper–Pearson)",
            AccuracyMethod::Betting => "betting (finite-sample)",
        }
    }
}

/// A point estimate with the interval jury shows as valid.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub estimate: f64,
    /// Inside [0, 1].
    pub ci: [f64; 2],
    pub method: AccuracyMethod,
}

/// The accuracy from labels alone and prediction-powered, each with an
/// interval that holds, and the normal-approximation widths beside them
/// (what "how many labels the judge is worth" compares).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AccuracyIntervals {
    pub labels_alone: Option<Interval>,
    pub ppi: Option<Interval>,
    /// PPI++'s power-tuning λ (0: labels alone, 1: plain PPI).
    pub lambda: Option<f64>,
    /// Why the normal approximation was not used (`None` when it was).
    pub not_normal: Option<&'static str>,
    /// The normal-approximation intervals (labels alone, PPI++) exactly as
    /// ppi_py computes them, not clipped: for reference and for the width
    /// ratio; the valid ones are above.
    pub normal_cis: (Option<[f64; 2]>, Option<[f64; 2]>),
}

/// The exact two-sided 1 − `alpha` interval of `k` successes in `n`
/// (Clopper–Pearson): `[Beta(α/2; k, n−k+1), Beta(1−α/2; k+1, n−k)]`.
pub fn clopper_pearson(k: u64, n: u64, alpha: f64) -> Option<[f64; 2]> {
    if n == 0 || k > n || !(alpha > 0.0 && alpha < 1.0) {
        return None;
    }
    let (k, n) = (k as f64, n as f64);
    let lo = if k == 0.0 {
        0.0
    } else {
        beta_ppf(alpha / 2.0, k, n - k + 1.0)
    };
    let hi = if k == n {
        1.0
    } else {
        beta_ppf(1.0 - alpha / 2.0, k + 1.0, n - k)
    };
    Some([lo, hi])
}

fn clip(ci: [f64; 2]) -> [f64; 2] {
    [ci[0].clamp(0.0, 1.0), ci[1].clamp(0.0, 1.0)]
}

/// Why the labels cannot carry a normal approximation, or `None` when they
/// can: `y` people's readings (0 or 1), `y_hat` the judge's (0, 0.5 or 1).
pub fn normal_fails(y: &[f64], y_hat: &[f64]) -> Option<&'static str> {
    let right = y.iter().filter(|&&v| v >= 0.5).count();
    let wrong = y.len() - right;
    let disagreements = y
        .iter()
        .zip(y_hat)
        .filter(|(a, b)| (*a - *b).abs() > 1e-9)
        .count();
    if y.len() < MIN_LABELS_NORMAL {
        Some("fewer than 30 labels")
    } else if right.min(wrong) < MIN_EACH_OUTCOME {
        Some("fewer than 10 labels of one outcome (accuracy near 0 or 1)")
    } else if !y_hat.is_empty() && disagreements < MIN_EACH_OUTCOME {
        Some("fewer than 10 disagreements between the judge and people among the labels")
    } else {
        None
    }
}

/// The betting interval of PPI++ at λ (see the module docs).
fn ppi_betting(
    y: &[f64],
    y_hat: &[f64],
    y_hat_u: &[f64],
    alpha: f64,
    lambda: f64,
    seed: u64,
) -> Option<[f64; 2]> {
    let m_u = y_hat_u.iter().sum::<f64>() / y_hat_u.len() as f64;
    if lambda <= 0.0 {
        return betting_ci(y, alpha, seed);
    }
    // X = Y − λ(Ŷ − m̂) lies in [−λ(1 − m̂), 1 + λ·m̂]: scaled to [0, 1].
    let low = -lambda * (1.0 - m_u);
    let width = 1.0 + lambda;
    let z: Vec<f64> = y
        .iter()
        .zip(y_hat)
        .map(|(a, b)| ((a - lambda * (b - m_u) - low) / width).clamp(0.0, 1.0))
        .collect();
    let [zl, zu] = betting_ci(&z, 0.9 * alpha, seed)?;
    let [ml, mu] = betting_ci(y_hat_u, 0.1 * alpha, seed ^ 1)?;
    // θ = E[X] − λ(m̂ − μ), μ the judge's mean reading.
    let (xl, xu) = (zl * width + low, zu * width + low);
    Some([xl - lambda * (m_u - ml), xu + lambda * (mu - m_u)])
}

/// Labels alone and PPI++ at level 1 − `alpha`, each with an interval that
/// holds (see the module docs). `y` are people's readings (0 or 1) on the
/// labelled combinations, `y_hat` the judge's on the same (0, 0.5 or 1),
/// `y_hat_u` the judge's on the unlabelled ones. `seed` fixes the betting
/// order. `alpha` must be in (0, 1).
pub fn accuracy_intervals(
    y: &[f64],
    y_hat: &[f64],
    y_hat_u: &[f64],
    alpha: f64,
    seed: u64,
) -> AccuracyIntervals {
    let not_normal = normal_fails(y, y_hat);
    let classical = classical_mean_ci(y, alpha);
    let lambda = (!y.is_empty() && y.len() == y_hat.len() && !y_hat_u.is_empty())
        .then(|| ppi_lambda(y, y_hat, y_hat_u));
    let normal_ppi = lambda.and_then(|l| ppi_mean_ci_with(y, y_hat, y_hat_u, alpha, l));
    let k = y.iter().filter(|&&v| v >= 0.5).count() as u64;
    let labels_alone = classical.and_then(|c| {
        Some(Interval {
            estimate: c.estimate,
            ci: clopper_pearson(k, y.len() as u64, alpha)?,
            method: AccuracyMethod::ClopperPearson,
        })
    });
    let ppi = match (normal_ppi, not_normal) {
        (Some(p), None) => Some(Interval {
            estimate: p.estimate,
            ci: clip(p.ci),
            method: AccuracyMethod::Normal,
        }),
        (Some(p), Some(_)) => {
            ppi_betting(y, y_hat, y_hat_u, alpha, p.lambda, seed).map(|ci| Interval {
                estimate: p.estimate.clamp(0.0, 1.0),
                ci: clip([ci[0].min(p.estimate), ci[1].max(p.estimate)]),
                method: AccuracyMethod::Betting,
            })
        }
        (None, _) => None,
    };
    AccuracyIntervals {
        labels_alone,
        ppi,
        lambda,
        not_normal,
        normal_cis: (classical.map(|c| c.ci), normal_ppi.map(|p| p.ci)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against scipy: `beta.ppf(0.025, k, n-k+1)`, `beta.ppf(0.975, k+1, n-k)`.
    #[test]
    fn clopper_pearson_matches_scipy() {
        let [lo, hi] = clopper_pearson(29, 30, 0.05).unwrap();
        assert!((lo - 0.827_830_544_366_587_3).abs() < 1e-10, "{lo}");
        assert!((hi - 0.999_156_429_073_369_5).abs() < 1e-10, "{hi}");
        assert_eq!(clopper_pearson(30, 30, 0.05).unwrap()[1], 1.0);
        assert_eq!(clopper_pearson(0, 30, 0.05).unwrap()[0], 0.0);
        assert_eq!(clopper_pearson(1, 0, 0.05), None);
    }

    #[test]
    fn few_wrong_labels_get_a_finite_sample_interval_inside_the_unit_range() {
        // 30 labels all right; the judge says right everywhere but twice.
        let y = vec![1.0; 30];
        let mut yh = vec![1.0; 30];
        yh[3] = 0.0;
        let yu: Vec<f64> = (0..500)
            .map(|i| if i % 25 == 0 { 0.0 } else { 1.0 })
            .collect();
        let a = accuracy_intervals(&y, &yh, &yu, 0.05, 1);
        assert!(a.not_normal.is_some());
        let l = a.labels_alone.unwrap();
        assert_eq!(l.method, AccuracyMethod::ClopperPearson);
        assert!(l.ci[0] > 0.8 && l.ci[1] == 1.0, "{:?}", l.ci);
        let p = a.ppi.unwrap();
        assert_eq!(p.method, AccuracyMethod::Betting);
        assert!(
            p.ci[0] >= 0.0 && p.ci[1] <= 1.0 && p.ci[0] < 0.95,
            "{:?}",
            p.ci
        );
    }
}
