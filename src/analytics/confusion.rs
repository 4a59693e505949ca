//! The k×k confusion matrix every other figure is computed from.
//!
//! One O(n) pass over the pairs fills the matrix; after that each figure costs
//! O(k²) (or O(k²) with prefix sums for the ordinal ones), independent of n.

use serde::Serialize;

/// Why a set of pairs cannot be analysed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PairsError {
    #[error("{0} categories is more than the 256 a u8 index can address")]
    TooManyCategories(usize),
    #[error("pair {position} has category index {index}, but the scale has only {k} categories")]
    OutOfRange {
        position: usize,
        index: u8,
        k: usize,
    },
}

/// Largest category count a pair of `u8` indices can address.
pub const MAX_K: usize = 256;

/// Counts of rating pairs: `counts[i * k + j]` is how often the first rater
/// said category `i` while the second said `j` (rows = first rater).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfusionMatrix {
    k: usize,
    n: u64,
    counts: Vec<u64>,
    #[serde(skip)]
    rows: Vec<u64>,
    #[serde(skip)]
    cols: Vec<u64>,
}

impl ConfusionMatrix {
    /// An all-zero k×k matrix. `None` when `k` is larger than [`MAX_K`].
    /// (k = 0 is allowed: the empty matrix of an empty comparison.)
    pub fn zeros(k: usize) -> Option<Self> {
        if k > MAX_K {
            return None;
        }
        Some(Self {
            k,
            n: 0,
            counts: vec![0; k * k],
            rows: vec![0; k],
            cols: vec![0; k],
        })
    }

    /// Tallies `pairs` (0-based category indices) into a k×k matrix.
    ///
    /// Fails when `k` is above [`MAX_K`] or any index is `>= k`: an
    /// out-of-range index is a caller bug and must not be silently dropped.
    /// An empty slice gives an all-zero matrix (n = 0), even for k = 0.
    pub fn try_from_pairs(pairs: &[(u8, u8)], k: usize) -> Result<Self, PairsError> {
        let mut m = Self::zeros(k).ok_or(PairsError::TooManyCategories(k))?;
        for (position, &(a, b)) in pairs.iter().enumerate() {
            let (ai, bi) = (a as usize, b as usize);
            if ai >= k || bi >= k {
                let index = if ai >= k { a } else { b };
                return Err(PairsError::OutOfRange { position, index, k });
            }
            m.counts[ai * k + bi] += 1;
        }
        m.refresh();
        Ok(m)
    }

    /// [`try_from_pairs`](Self::try_from_pairs) without the reason.
    pub fn from_pairs(pairs: &[(u8, u8)], k: usize) -> Option<Self> {
        Self::try_from_pairs(pairs, k).ok()
    }

    /// Builds a matrix from row-major counts (`counts.len()` must be k²).
    pub fn from_counts(k: usize, counts: Vec<u64>) -> Option<Self> {
        if k > MAX_K || counts.len() != k * k {
            return None;
        }
        let mut m = Self::zeros(k)?;
        m.counts = counts;
        m.refresh();
        Some(m)
    }

    /// Number of categories.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Number of pairs tallied.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// Count of pairs with first rater `i`, second rater `j` (0 when out of range).
    pub fn get(&self, i: usize, j: usize) -> u64 {
        if i < self.k && j < self.k {
            self.counts[i * self.k + j]
        } else {
            0
        }
    }

    /// Row-major counts, length k².
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// The matrix as rows (first rater) of columns (second rater), for reports.
    pub fn rows(&self) -> Vec<Vec<u64>> {
        if self.k == 0 {
            return Vec::new();
        }
        self.counts.chunks(self.k).map(<[u64]>::to_vec).collect()
    }

    /// How often the first rater used each category (row sums).
    pub fn first_marginal(&self) -> &[u64] {
        &self.rows
    }

    /// How often the second rater used each category (column sums).
    pub fn second_marginal(&self) -> &[u64] {
        &self.cols
    }

    /// Recomputes n and the marginals from `counts` (no allocation).
    fn refresh(&mut self) {
        self.rows.fill(0);
        self.cols.fill(0);
        if self.k == 0 {
            self.n = 0;
            return;
        }
        for (row, r) in self.counts.chunks(self.k).zip(self.rows.iter_mut()) {
            for (c, &x) in self.cols.iter_mut().zip(row) {
                *c += x;
                *r += x;
            }
        }
        self.n = self.rows.iter().sum();
    }

    /// Sum of `w(i, j) * count(i, j)` over all cells, as f64.
    pub(crate) fn weighted_sum(&self, w: impl Fn(usize, usize) -> f64) -> f64 {
        let mut s = 0.0;
        for (idx, &c) in self.counts.iter().enumerate() {
            if c != 0 {
                s += w(idx / self.k, idx % self.k) * c as f64;
            }
        }
        s
    }

    /// Resets to `k` categories counted from `counts` without reallocating
    /// (used by the bootstrap; `counts.len()` must equal the current k²).
    pub(crate) fn set_counts_from(&mut self, counts: &[u64]) {
        debug_assert_eq!(counts.len(), self.counts.len());
        self.counts.copy_from_slice(counts);
        self.refresh();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_first_rater() {
        let m = ConfusionMatrix::from_pairs(&[(0, 1), (0, 1), (2, 0)], 3).unwrap();
        assert_eq!(m.n(), 3);
        assert_eq!(m.get(0, 1), 2);
        assert_eq!(m.get(2, 0), 1);
        assert_eq!(m.rows(), vec![vec![0, 2, 0], vec![0, 0, 0], vec![1, 0, 0]]);
        assert_eq!(m.first_marginal(), &[2, 0, 1]);
        assert_eq!(m.second_marginal(), &[1, 2, 0]);
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(
            ConfusionMatrix::try_from_pairs(&[(0, 0), (0, 3)], 3),
            Err(PairsError::OutOfRange {
                position: 1,
                index: 3,
                k: 3
            })
        );
        assert!(ConfusionMatrix::from_pairs(&[(0, 0)], 0).is_none());
        assert!(ConfusionMatrix::from_pairs(&[], 257).is_none());
        let none = ConfusionMatrix::from_pairs(&[], 0).unwrap();
        assert_eq!((none.n(), none.rows()), (0, vec![]));
        assert!(ConfusionMatrix::from_counts(2, vec![1, 2, 3]).is_none());
        let empty = ConfusionMatrix::from_pairs(&[], 5).unwrap();
        assert_eq!(empty.n(), 0);
        assert_eq!(
            ConfusionMatrix::from_pairs(&[(255, 0)], 256)
                .unwrap()
                .get(255, 0),
            1
        );
    }
}
