//! Spearman rank correlation with average ranks for ties.
//!
//! Ratings are categories, so every item in category i of a rater shares the
//! average rank `S_<i + (r_i + 1)/2` (S_<i = items in lower categories). The
//! coefficient is the Pearson correlation of those ranks, summed over the k×k
//! cells. Centred ranks times two are integers (`2·S_<i + r_i − n`), so the
//! sums are exact; this matches `scipy.stats.spearmanr`.
//!
//! **Degenerate cases.** `None` when n = 0, on invalid input, or when either
//! rater used a single category (zero rank variance — includes n = 1).

use super::ConfusionMatrix;
use super::confusion::MAX_K;

impl ConfusionMatrix {
    /// Spearman's rho with tie-averaged ranks; see the module docs.
    pub fn spearman(&self) -> Option<f64> {
        let n = self.n() as i128;
        if n == 0 {
            return None;
        }
        // Stack buffers: no allocation (this runs once per bootstrap resample).
        let centred = |marginal: &[u64]| -> [i128; MAX_K] {
            let mut out = [0i128; MAX_K];
            let mut below: i128 = 0;
            for (o, &m) in out.iter_mut().zip(marginal) {
                let m = m as i128;
                *o = 2 * below + m - n;
                below += m;
            }
            out
        };
        let rows = self.first_marginal();
        let cols = self.second_marginal();
        let a = centred(rows);
        let b = centred(cols);
        let var = |marginal: &[u64], r: &[i128]| -> i128 {
            marginal
                .iter()
                .zip(r)
                .map(|(&m, &x)| m as i128 * x * x)
                .sum()
        };
        let var_a = var(rows, &a);
        let var_b = var(cols, &b);
        if var_a == 0 || var_b == 0 {
            return None;
        }
        let k = self.k();
        let mut cov: i128 = 0;
        for (row, &ai) in self.counts().chunks(k).zip(&a) {
            for (&c, &bj) in row.iter().zip(&b) {
                if c != 0 {
                    cov += c as i128 * ai * bj;
                }
            }
        }
        // Exact ±1 for perfectly monotone data when the products fit.
        if let (Some(c2), Some(vv)) = (cov.checked_mul(cov), var_a.checked_mul(var_b))
            && c2 == vv
        {
            return Some(if cov > 0 { 1.0 } else { -1.0 });
        }
        let rho = cov as f64 / ((var_a as f64).sqrt() * (var_b as f64).sqrt());
        Some(rho.clamp(-1.0, 1.0))
    }
}

/// Spearman rank correlation (average ranks for ties). See the module docs.
pub fn spearman(pairs: &[(u8, u8)], k: usize) -> Option<f64> {
    ConfusionMatrix::from_pairs(pairs, k)?.spearman()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotone_is_one() {
        assert_eq!(spearman(&[(0, 1), (1, 2), (2, 4)], 5), Some(1.0));
        assert_eq!(spearman(&[(0, 2), (1, 1), (2, 0)], 3), Some(-1.0));
    }

    #[test]
    fn ties_use_average_ranks() {
        // x = [0,0,1,1], y = [0,1,0,1]: rho = 0.
        assert_eq!(spearman(&[(0, 0), (0, 1), (1, 0), (1, 1)], 2), Some(0.0));
        // x = [0,0,1], y = [0,1,1]: ranks x = [1.5,1.5,3], y = [1,2.5,2.5]; rho = 0.5.
        assert!((spearman(&[(0, 0), (0, 1), (1, 1)], 2).unwrap() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn degenerate() {
        assert_eq!(spearman(&[], 3), None);
        assert_eq!(spearman(&[(1, 2)], 3), None);
        assert_eq!(spearman(&[(1, 0), (1, 2)], 3), None);
        assert_eq!(spearman(&[(0, 5)], 3), None);
    }
}
