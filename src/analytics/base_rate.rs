//! Marginal distributions and base rates: how often each rater used each
//! category, and the share of its most common one. A judge that always says
//! the majority answer scores the base rate in raw agreement and zero kappa,
//! so the base rate is shown beside every raw agreement figure.

use super::ConfusionMatrix;
use serde::Serialize;

/// One rater's use of the categories.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Marginal {
    /// Count per category (length k).
    pub counts: Vec<u64>,
    /// Share per category; `None` when n = 0.
    pub shares: Option<Vec<f64>>,
    /// The most common category (lowest index on ties); `None` when n = 0.
    pub mode: Option<u8>,
    /// Share of the most common category (the base rate); `None` when n = 0.
    pub mode_share: Option<f64>,
}

impl Marginal {
    /// Summarises per-category counts.
    pub fn from_counts(counts: Vec<u64>) -> Self {
        let n: u64 = counts.iter().sum();
        if n == 0 {
            return Self {
                counts,
                shares: None,
                mode: None,
                mode_share: None,
            };
        }
        let mut mode = 0usize;
        for (i, &c) in counts.iter().enumerate() {
            if c > counts[mode] {
                mode = i;
            }
        }
        let shares = counts.iter().map(|&c| c as f64 / n as f64).collect();
        Self {
            mode_share: Some(counts[mode] as f64 / n as f64),
            mode: u8::try_from(mode).ok(),
            shares: Some(shares),
            counts,
        }
    }
}

/// Base rates of both raters (first = rows of the confusion matrix).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BaseRate {
    pub first: Marginal,
    pub second: Marginal,
}

impl ConfusionMatrix {
    /// Marginal distributions and base rates of both raters.
    pub fn base_rate(&self) -> BaseRate {
        BaseRate {
            first: Marginal::from_counts(self.first_marginal().to_vec()),
            second: Marginal::from_counts(self.second_marginal().to_vec()),
        }
    }
}

/// Marginals and base rates; `None` only on invalid input (k > 256,
/// an index `>= k`). With n = 0 the counts are zeros and the shares `None`.
pub fn base_rate(pairs: &[(u8, u8)], k: usize) -> Option<BaseRate> {
    Some(ConfusionMatrix::from_pairs(pairs, k)?.base_rate())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_and_modes() {
        let b = base_rate(&[(0, 1), (0, 1), (2, 1), (1, 0)], 3).unwrap();
        assert_eq!(b.first.counts, vec![2, 1, 1]);
        assert_eq!(b.first.mode, Some(0));
        assert_eq!(b.first.mode_share, Some(0.5));
        assert_eq!(b.second.mode, Some(1));
        assert_eq!(b.second.mode_share, Some(0.75));
        assert_eq!(b.second.shares, Some(vec![0.25, 0.75, 0.0]));
    }

    #[test]
    fn ties_pick_lowest_and_empty_is_none() {
        let b = base_rate(&[(0, 1), (1, 0)], 2).unwrap();
        assert_eq!(b.first.mode, Some(0));
        let e = base_rate(&[], 4).unwrap();
        assert_eq!(e.first.counts, vec![0; 4]);
        assert_eq!(e.first.mode_share, None);
        assert!(base_rate(&[(4, 0)], 4).is_none());
    }
}
