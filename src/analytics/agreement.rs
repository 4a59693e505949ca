//! Raw (not chance-corrected) agreement: exact, within one step, and the mean
//! distance in category steps.
//!
//! All three are `None` when there are no pairs (n = 0) or the input is
//! invalid (k > 256, an index `>= k`). With one pair they are defined
//! (0 or 1 for the shares). They never look at chance: show them beside
//! [`cohen_kappa`](super::cohen_kappa) and the [`BaseRate`](super::BaseRate).

use super::ConfusionMatrix;

impl ConfusionMatrix {
    /// Share of pairs on the same category. `None` when n = 0.
    pub fn percent_agreement(&self) -> Option<f64> {
        self.share(|i, j| i == j)
    }

    /// Share of pairs at most one category apart (meaningful on ordinal
    /// scales only; on a 2-category scale it is always 1). `None` when n = 0.
    pub fn within_one(&self) -> Option<f64> {
        self.share(|i, j| i.abs_diff(j) <= 1)
    }

    /// Mean |first − second| in category steps (ordinal scales; on Likert
    /// 1–5 this is the mean absolute difference in points). `None` when n = 0.
    pub fn mean_abs_diff(&self) -> Option<f64> {
        if self.n() == 0 {
            return None;
        }
        Some(self.weighted_sum(|i, j| i.abs_diff(j) as f64) / self.n() as f64)
    }

    /// Pairs on the same category (the count behind
    /// [`percent_agreement`](Self::percent_agreement), for its exact interval).
    pub fn agreeing(&self) -> u64 {
        self.count_where(|i, j| i == j)
    }

    /// Pairs at most one category apart (behind [`within_one`](Self::within_one)).
    pub fn within_one_count(&self) -> u64 {
        self.count_where(|i, j| i.abs_diff(j) <= 1)
    }

    fn count_where(&self, hit: impl Fn(usize, usize) -> bool) -> u64 {
        let k = self.k();
        self.counts()
            .iter()
            .enumerate()
            .filter(|(idx, _)| hit(idx / k, idx % k))
            .map(|(_, &c)| c)
            .sum()
    }

    fn share(&self, hit: impl Fn(usize, usize) -> bool) -> Option<f64> {
        if self.n() == 0 {
            return None;
        }
        Some(self.count_where(hit) as f64 / self.n() as f64)
    }
}

/// Exact agreement: share of pairs where both raters chose the same category.
/// `None` for n = 0 or invalid input.
pub fn percent_agreement(pairs: &[(u8, u8)], k: usize) -> Option<f64> {
    ConfusionMatrix::from_pairs(pairs, k)?.percent_agreement()
}

/// Share of pairs at most one category apart (ordinal scales).
/// `None` for n = 0 or invalid input.
pub fn within_one(pairs: &[(u8, u8)], k: usize) -> Option<f64> {
    ConfusionMatrix::from_pairs(pairs, k)?.within_one()
}

/// Mean absolute difference in category steps (ordinal scales).
/// `None` for n = 0 or invalid input.
pub fn mean_abs_diff(pairs: &[(u8, u8)], k: usize) -> Option<f64> {
    ConfusionMatrix::from_pairs(pairs, k)?.mean_abs_diff()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_example() {
        let p = [(0, 0), (1, 2), (4, 1), (3, 3)];
        assert_eq!(percent_agreement(&p, 5), Some(0.5));
        assert_eq!(within_one(&p, 5), Some(0.75));
        assert_eq!(mean_abs_diff(&p, 5), Some(1.0));
    }

    #[test]
    fn degenerate() {
        assert_eq!(percent_agreement(&[], 5), None);
        assert_eq!(within_one(&[], 5), None);
        assert_eq!(mean_abs_diff(&[], 5), None);
        assert_eq!(percent_agreement(&[(1, 1)], 5), Some(1.0));
        assert_eq!(percent_agreement(&[(1, 7)], 5), None);
        assert_eq!(mean_abs_diff(&[(0, 4)], 5), Some(4.0));
    }
}
