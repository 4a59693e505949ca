//! Krippendorff's alpha for two coders with no missing data.
//!
//! With two coders every unit has two pairable values, so the coincidence
//! matrix is `o_ck = n_ck + n_kc` (the confusion matrix plus its transpose),
//! N = 2n values, and `n_c = r_c + c_c`. Then
//! `alpha = 1 − (N − 1)·Σ o_ck·δ²_ck / Σ n_c·n_k·δ²_ck`
//! (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability").
//! Difference functions, on 0-based category positions:
//! - nominal: δ² = 1 when c ≠ k;
//! - ordinal: δ² = (Σ_{g=c..=k} n_g − (n_c + n_k)/2)²;
//! - interval: δ² = (c − k)² (equally spaced categories).
//!
//! Sums are exact integers (the ordinal δ² is scaled by 4, which cancels),
//! so results match the `krippendorff` Python package with
//! `value_domain=range(k)` to rounding.
//!
//! **Degenerate cases.** `None` when n = 0, on invalid input, and when all 2n
//! values fall in one category (expected disagreement 0: no variation to be
//! reliable about; same reasoning as kappa, see [`super::kappa`]). With n = 1
//! and two different values alpha is defined (0 for nominal data).

use super::ConfusionMatrix;
use super::confusion::MAX_K;
use serde::Serialize;

/// Level of measurement for [`krippendorff_alpha`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AlphaMetric {
    Nominal,
    Ordinal,
    Interval,
}

impl ConfusionMatrix {
    /// Krippendorff's alpha with the given metric; see the module docs.
    pub fn krippendorff_alpha(&self, metric: AlphaMetric) -> Option<f64> {
        if self.n() == 0 {
            return None;
        }
        let k = self.k();
        let rows = self.first_marginal();
        let cols = self.second_marginal();
        // Stack buffers: no allocation (this runs once per bootstrap resample).
        let mut nc = [0u128; MAX_K];
        // prefix[i] = Σ_{g<i} n_g
        let mut prefix = [0u128; MAX_K + 1];
        for i in 0..k {
            nc[i] = (rows[i] + cols[i]) as u128;
            prefix[i + 1] = prefix[i] + nc[i];
        }
        let delta = |c: usize, kk: usize| -> u128 {
            match metric {
                AlphaMetric::Nominal => u128::from(c != kk),
                AlphaMetric::Interval => {
                    let d = c.abs_diff(kk) as u128;
                    d * d
                }
                AlphaMetric::Ordinal => {
                    if c == kk {
                        return 0;
                    }
                    let (lo, hi) = (c.min(kk), c.max(kk));
                    // 2·(Σ_{g=lo..=hi} n_g − (n_lo + n_hi)/2), never negative.
                    let d = 2 * (prefix[hi + 1] - prefix[lo]) - nc[lo] - nc[hi];
                    d * d
                }
            }
        };
        let mut observed: u128 = 0;
        let mut expected: u128 = 0;
        for c in 0..k {
            for kk in 0..k {
                if c == kk {
                    continue;
                }
                let d = delta(c, kk);
                if d == 0 {
                    continue;
                }
                let o = (self.get(c, kk) + self.get(kk, c)) as u128;
                observed += o * d;
                expected += nc[c] * nc[kk] * d;
            }
        }
        if expected == 0 {
            return None;
        }
        let total_values = 2 * self.n() as u128;
        Some(1.0 - ((total_values - 1) as f64 * observed as f64) / expected as f64)
    }
}

/// Krippendorff's alpha for two coders, no missing data.
pub fn krippendorff_alpha(pairs: &[(u8, u8)], k: usize, metric: AlphaMetric) -> Option<f64> {
    ConfusionMatrix::from_pairs(pairs, k)?.krippendorff_alpha(metric)
}

/// Krippendorff's alpha, nominal metric.
pub fn krippendorff_alpha_nominal(pairs: &[(u8, u8)], k: usize) -> Option<f64> {
    krippendorff_alpha(pairs, k, AlphaMetric::Nominal)
}

/// Krippendorff's alpha, ordinal metric.
pub fn krippendorff_alpha_ordinal(pairs: &[(u8, u8)], k: usize) -> Option<f64> {
    krippendorff_alpha(pairs, k, AlphaMetric::Ordinal)
}

/// Krippendorff's alpha, interval metric.
pub fn krippendorff_alpha_interval(pairs: &[(u8, u8)], k: usize) -> Option<f64> {
    krippendorff_alpha(pairs, k, AlphaMetric::Interval)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn krippendorff_2011_binary_example() {
        // Section A: binary data, two observers, no missing data; α = 0.095.
        let a = [0u8, 1, 0, 0, 0, 0, 0, 0, 1, 0];
        let b = [1u8, 1, 1, 0, 0, 1, 0, 0, 0, 0];
        let p: Vec<_> = a.iter().copied().zip(b.iter().copied()).collect();
        let alpha = krippendorff_alpha_nominal(&p, 2).unwrap();
        // 1 − 19·8 / (2·14·6) = 8/84
        assert!((alpha - 8.0 / 84.0).abs() < 1e-12);
        // On two categories every metric agrees.
        assert!((krippendorff_alpha_ordinal(&p, 2).unwrap() - alpha).abs() < 1e-12);
        assert!((krippendorff_alpha_interval(&p, 2).unwrap() - alpha).abs() < 1e-12);
    }

    #[test]
    fn degenerate() {
        assert_eq!(krippendorff_alpha_nominal(&[], 3), None);
        assert_eq!(krippendorff_alpha_ordinal(&[(2, 2), (2, 2)], 3), None);
        assert_eq!(krippendorff_alpha_nominal(&[(0, 1)], 3), Some(0.0));
        assert_eq!(krippendorff_alpha_ordinal(&[(0, 0), (2, 2)], 3), Some(1.0));
        assert_eq!(krippendorff_alpha_interval(&[(0, 3)], 3), None);
    }
}
