//! Cohen's kappa, unweighted and weighted (linear, quadratic).
//!
//! Computed from the confusion matrix in exact integer arithmetic:
//! `kappa = 1 − n·Σ w_ij·n_ij / Σ w_ij·r_i·c_j` with disagreement weights
//! `w` (0/1 for unweighted, |i−j| linear, (i−j)² quadratic; the usual
//! normalisation by (k−1) or (k−1)² cancels). This equals the textbook
//! `(p_o − p_e) / (1 − p_e)` and matches scikit-learn's `cohen_kappa_score`
//! with `labels=range(k)` — weights use the category position on the full
//! scale, not only the categories that occur.
//!
//! **Degenerate cases.** `None` when n = 0, on invalid input, and when the
//! expected disagreement is zero. Expected disagreement is zero exactly when
//! both raters used one and the same single category for every item (expected
//! agreement p_e = 1, which forces observed p_o = 1 too). Kappa is 0/0 there;
//! we report `None` rather than 1.0, because a judge that always says the same
//! thing on an item set that always has that answer has shown no ability to
//! discriminate — percent agreement (1.0) and the base rate (1.0) already tell
//! that story. One pair (n = 1) is the same case when the raters agree and
//! gives kappa = 0 when they differ (unweighted: p_o = 0, p_e = 0); if each
//! rater uses one category but different ones, kappa is 0 as well.

use super::ConfusionMatrix;
use serde::Serialize;

/// Disagreement weighting for [`weighted_kappa`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KappaWeights {
    /// 0 on the diagonal, 1 elsewhere: plain Cohen's kappa.
    Unweighted,
    /// |i − j|.
    Linear,
    /// (i − j)².
    Quadratic,
}

impl KappaWeights {
    fn weight(self, i: usize, j: usize) -> u128 {
        let d = i.abs_diff(j) as u128;
        match self {
            KappaWeights::Unweighted => u128::from(d != 0),
            KappaWeights::Linear => d,
            KappaWeights::Quadratic => d * d,
        }
    }
}

impl ConfusionMatrix {
    /// Cohen's kappa with the given weights; see the module docs for `None`.
    pub fn weighted_kappa(&self, weights: KappaWeights) -> Option<f64> {
        let n = self.n() as u128;
        if n == 0 {
            return None;
        }
        let k = self.k();
        let cols = self.second_marginal();
        let mut observed: u128 = 0;
        let mut expected: u128 = 0;
        for (i, (&r, row)) in self
            .first_marginal()
            .iter()
            .zip(self.counts().chunks(k))
            .enumerate()
        {
            for (j, (&c, &cell)) in cols.iter().zip(row).enumerate() {
                let w = weights.weight(i, j);
                if w == 0 {
                    continue;
                }
                observed += w * cell as u128;
                expected += w * r as u128 * c as u128;
            }
        }
        if expected == 0 {
            return None;
        }
        Some(1.0 - (n * observed) as f64 / expected as f64)
    }

    /// Unweighted Cohen's kappa.
    pub fn cohen_kappa(&self) -> Option<f64> {
        self.weighted_kappa(KappaWeights::Unweighted)
    }
}

/// Cohen's (1960) unweighted kappa. See the module docs for degenerate cases.
pub fn cohen_kappa(pairs: &[(u8, u8)], k: usize) -> Option<f64> {
    ConfusionMatrix::from_pairs(pairs, k)?.cohen_kappa()
}

/// Weighted kappa (Cohen 1968) with the chosen weights.
pub fn weighted_kappa(pairs: &[(u8, u8)], k: usize, weights: KappaWeights) -> Option<f64> {
    ConfusionMatrix::from_pairs(pairs, k)?.weighted_kappa(weights)
}

/// Quadratic-weighted kappa (ordinal scales).
pub fn weighted_kappa_quadratic(pairs: &[(u8, u8)], k: usize) -> Option<f64> {
    weighted_kappa(pairs, k, KappaWeights::Quadratic)
}

/// Linear-weighted kappa (ordinal scales).
pub fn weighted_kappa_linear(pairs: &[(u8, u8)], k: usize) -> Option<f64> {
    weighted_kappa(pairs, k, KappaWeights::Linear)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from_table(a: u64, b: u64, c: u64, d: u64) -> ConfusionMatrix {
        ConfusionMatrix::from_counts(2, vec![a, b, c, d]).unwrap()
    }

    #[test]
    fn wikipedia_example() {
        // 50 proposals: both yes 20, A yes/B no 5, A no/B yes 10, both no 15.
        // p_o = 0.7, p_e = 0.5, kappa = 0.4.
        let m = from_table(20, 5, 10, 15);
        assert!((m.cohen_kappa().unwrap() - 0.4).abs() < 1e-12);
        // With two categories all weightings coincide.
        assert!((m.weighted_kappa(KappaWeights::Linear).unwrap() - 0.4).abs() < 1e-12);
        assert!((m.weighted_kappa(KappaWeights::Quadratic).unwrap() - 0.4).abs() < 1e-12);
    }

    #[test]
    fn degenerate() {
        assert_eq!(cohen_kappa(&[], 2), None);
        // Same single category everywhere: p_e = 1 → None.
        assert_eq!(cohen_kappa(&[(1, 1), (1, 1)], 3), None);
        assert_eq!(weighted_kappa_quadratic(&[(1, 1)], 3), None);
        // One pair that disagrees: 0.
        assert_eq!(cohen_kappa(&[(0, 1)], 2), Some(0.0));
        // Each rater constant but different: p_o = 0, p_e = 0 → 0.
        assert_eq!(cohen_kappa(&[(0, 1), (0, 1)], 2), Some(0.0));
        // Perfect agreement with variation: 1.
        assert_eq!(cohen_kappa(&[(0, 0), (1, 1)], 2), Some(1.0));
        // Invalid index.
        assert_eq!(cohen_kappa(&[(0, 2)], 2), None);
    }

    #[test]
    fn always_agree_judge_scores_zero() {
        // Humans: 9 AGREE, 1 DISAGREE; the judge always says AGREE.
        let mut p = vec![(0u8, 0u8); 9];
        p.push((0, 1));
        assert_eq!(cohen_kappa(&p, 2), Some(0.0));
    }
}
