//! Krippendorff's α for any number of raters with missing labels
//! (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"; the
//! `krippendorff` Python package is the reference). The two-coder,
//! complete-data case is [`super::alpha`].
//!
//! Only pairable values count: a unit with `m_u ≥ 2` ratings adds, for every
//! ordered pair of its ratings from different raters, `1/(m_u − 1)` to the
//! coincidence matrix `o_ck`; `n_c = Σ_k o_ck`, `n = Σ_c n_c`. Then
//! `α = 1 − (n − 1)·Σ o_ck·δ²_ck / Σ n_c·n_k·δ²_ck`, with δ² on 0-based
//! positions of the full scale (the package's `value_domain=range(k)`):
//! nominal `[c ≠ k]`; ordinal `(Σ_{g=c..=k} n_g − (n_c + n_k)/2)²`;
//! interval `(c − k)²`.
//!
//! **Degenerate cases:** `None` when no unit has two ratings, and when the
//! expected disagreement is 0 (every pairable value in one category).

use super::AlphaMetric;
use super::units::UnitCounts;

impl UnitCounts {
    /// Krippendorff's α at `metric`; see the module docs.
    pub fn krippendorff_alpha(&self, metric: AlphaMetric) -> Option<f64> {
        let k = self.k();
        let mut o = vec![0.0f64; k * k];
        for (row, weight) in self.rows() {
            let m: u32 = row.iter().sum();
            if m < 2 || weight == 0 {
                continue;
            }
            let scale = weight as f64 / f64::from(m - 1);
            for (c, &nc) in row.iter().enumerate().filter(|(_, n)| **n > 0) {
                for (d, &nd) in row.iter().enumerate().filter(|(_, n)| **n > 0) {
                    let pairs = f64::from(nc) * f64::from(if c == d { nd - 1 } else { nd });
                    o[c * k + d] += pairs * scale;
                }
            }
        }
        let nc: Vec<f64> = o.chunks(k).map(|r| r.iter().sum()).collect();
        let n: f64 = nc.iter().sum();
        if n == 0.0 {
            return None;
        }
        let mut prefix = vec![0.0; k + 1];
        for (i, v) in nc.iter().enumerate() {
            prefix[i + 1] = prefix[i] + v;
        }
        let delta = |c: usize, d: usize| -> f64 {
            match metric {
                AlphaMetric::Nominal => f64::from(u8::from(c != d)),
                AlphaMetric::Interval => {
                    let x = c.abs_diff(d) as f64;
                    x * x
                }
                AlphaMetric::Ordinal => {
                    let (lo, hi) = (c.min(d), c.max(d));
                    let x = prefix[hi + 1] - prefix[lo] - (nc[lo] + nc[hi]) / 2.0;
                    x * x
                }
            }
        };
        let (mut observed, mut expected) = (0.0, 0.0);
        for c in 0..k {
            for d in (0..k).filter(|&d| d != c) {
                let dd = delta(c, d);
                observed += o[c * k + d] * dd;
                expected += nc[c] * nc[d] * dd;
            }
        }
        if expected <= 0.0 {
            return None;
        }
        Some(1.0 - (n - 1.0) * observed / expected)
    }
}

/// Krippendorff's α over units of several raters with missing labels; each
/// unit is the 0-based categories its raters gave. `None` on invalid input
/// and in the module docs' degenerate cases.
pub fn krippendorff_alpha_units(units: &[Vec<u8>], k: usize, metric: AlphaMetric) -> Option<f64> {
    UnitCounts::new(units, k)?.krippendorff_alpha(metric)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Krippendorff (2011), section C: four coders, 12 units, missing values, α
    /// nominal 0.743.
    fn section_c() -> Vec<Vec<u8>> {
        // Values 1..5 as positions 0..4; the unit with one value stays (it is
        // not pairable).
        [
            vec![1, 1, 1],
            vec![2, 2, 3, 2],
            vec![3, 3, 3, 3],
            vec![3, 3, 3, 3],
            vec![2, 2, 2, 2],
            vec![1, 2, 3, 4],
            vec![4, 4, 4, 4],
            vec![1, 1, 2, 1],
            vec![2, 2, 2, 2],
            vec![5, 5, 5],
            vec![1, 1],
            vec![3],
        ]
        .into_iter()
        .map(|u| u.into_iter().map(|v| v - 1).collect())
        .collect()
    }

    #[test]
    fn krippendorff_2011_section_c() {
        let u = section_c();
        let nominal = krippendorff_alpha_units(&u, 5, AlphaMetric::Nominal).unwrap();
        assert!((nominal - 0.743).abs() < 5e-4, "{nominal}");
        let interval = krippendorff_alpha_units(&u, 5, AlphaMetric::Interval).unwrap();
        assert!((interval - 0.849).abs() < 5e-4, "{interval}");
    }

    #[test]
    fn two_coders_complete_is_the_two_coder_alpha() {
        let a = [0u8, 1, 0, 0, 0, 0, 0, 0, 1, 0];
        let b = [1u8, 1, 1, 0, 0, 1, 0, 0, 0, 0];
        let units: Vec<Vec<u8>> = a.iter().zip(&b).map(|(x, y)| vec![*x, *y]).collect();
        let pairs: Vec<(u8, u8)> = a.iter().copied().zip(b.iter().copied()).collect();
        for m in [
            AlphaMetric::Nominal,
            AlphaMetric::Ordinal,
            AlphaMetric::Interval,
        ] {
            let several = krippendorff_alpha_units(&units, 2, m).unwrap();
            let two = super::super::krippendorff_alpha(&pairs, 2, m).unwrap();
            assert!((several - two).abs() < 1e-12, "{m:?}");
        }
    }

    #[test]
    fn degenerate() {
        assert_eq!(krippendorff_alpha_units(&[], 2, AlphaMetric::Nominal), None);
        assert_eq!(
            krippendorff_alpha_units(&[vec![0], vec![1]], 2, AlphaMetric::Nominal),
            None
        );
        assert_eq!(
            krippendorff_alpha_units(&[vec![1, 1], vec![1, 1, 1]], 3, AlphaMetric::Ordinal),
            None
        );
    }
}
