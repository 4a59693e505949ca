//! Fleiss' κ for several raters, generalised to a varying number of raters
//! per unit (missing labels), exactly as Gwet's `irrCAC` computes it
//! (`CAC(...).fleiss()`; Gwet 2014, *Handbook of Inter-Rater Reliability*,
//! ch. 2):
//!
//! - `r_ik`: raters who put unit i in category k, `r_i = Σ_k r_ik`;
//!   `r*_ik = Σ_l w_kl·r_il` with agreement weights `w` (`w_kk = 1`);
//! - observed `p_a` = mean, over the units with `r_i ≥ 2`, of
//!   `Σ_k r_ik·(r*_ik − 1) / (r_i·(r_i − 1))`;
//! - `π_k` = mean over **all** rated units of `r_ik / r_i` (a unit with one
//!   rating counts here though it has no pair);
//! - chance `p_e = Σ_kl w_kl·π_k·π_l`; `κ = (p_a − p_e)/(1 − p_e)`.
//!
//! With every unit rated by the same m raters and no weights this is
//! Fleiss (1971). **Degenerate cases:** `None` when no unit has two
//! ratings, or when `p_e = 1` (one category only: nothing to correct for
//! chance against; kappa's reasoning, [`super::kappa`]).

use super::KappaWeights;
use super::units::{UnitCounts, agreement_weight};

impl UnitCounts {
    /// Fleiss' κ with the given weights (positions on the full scale of
    /// [`UnitCounts::k`] categories); see the module docs.
    pub fn fleiss_kappa(&self, weights: KappaWeights) -> Option<f64> {
        let k = self.k();
        let w: Vec<f64> = (0..k * k)
            .map(|i| agreement_weight(weights, k, i / k, i % k))
            .collect();
        let mut pa_sum = 0.0;
        let mut pairable = 0u64;
        let mut pi = vec![0.0; k];
        for (row, weight) in self.rows() {
            let ri: u32 = row.iter().sum();
            if weight == 0 || ri == 0 {
                continue;
            }
            let (rf, wf) = (f64::from(ri), weight as f64);
            for (p, &c) in pi.iter_mut().zip(row) {
                *p += wf * f64::from(c) / rf;
            }
            if ri < 2 {
                continue;
            }
            let mut sum_q = 0.0;
            for (a, &c) in row.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                let weighted: f64 = row
                    .iter()
                    .enumerate()
                    .map(|(b, &cb)| w[a * k + b] * f64::from(cb))
                    .sum();
                sum_q += f64::from(c) * (weighted - 1.0);
            }
            pa_sum += wf * sum_q / (rf * (rf - 1.0));
            pairable += weight;
        }
        if pairable == 0 {
            return None;
        }
        let n = self.n() as f64;
        pi.iter_mut().for_each(|p| *p /= n);
        let pa = pa_sum / pairable as f64;
        let mut pe = 0.0;
        for a in 0..k {
            for b in 0..k {
                pe += w[a * k + b] * pi[a] * pi[b];
            }
        }
        // p_e reaches 1 only with one category; rounding can leave it a hair under.
        if 1.0 - pe <= 1e-12 {
            return None;
        }
        Some((pa - pe) / (1.0 - pe))
    }
}

/// Fleiss' κ (unweighted) over units of several raters with missing labels;
/// each unit is the 0-based categories its raters gave. `None` on invalid
/// input and in the module docs' degenerate cases.
pub fn fleiss_kappa(units: &[Vec<u8>], k: usize) -> Option<f64> {
    UnitCounts::new(units, k)?.fleiss_kappa(KappaWeights::Unweighted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fleiss_1971_with_complete_data() {
        // Wikipedia's worked example (10 subjects, 14 raters, 5 categories): κ = 0.210.
        let table = [
            [0, 0, 0, 0, 14],
            [0, 2, 6, 4, 2],
            [0, 0, 3, 5, 6],
            [0, 3, 9, 2, 0],
            [2, 2, 8, 1, 1],
            [7, 7, 0, 0, 0],
            [3, 2, 6, 3, 0],
            [2, 5, 3, 2, 2],
            [6, 5, 2, 1, 0],
            [0, 2, 2, 3, 7],
        ];
        let units: Vec<Vec<u8>> = table
            .iter()
            .map(|row| {
                row.iter()
                    .enumerate()
                    .flat_map(|(c, &n)| std::iter::repeat_n(c as u8, n))
                    .collect()
            })
            .collect();
        let kappa = fleiss_kappa(&units, 5).unwrap();
        assert!((kappa - 0.209_930_704_421_955_2).abs() < 1e-9, "{kappa}");
    }

    #[test]
    fn degenerate() {
        assert_eq!(fleiss_kappa(&[], 2), None);
        assert_eq!(fleiss_kappa(&[vec![0], vec![1]], 2), None);
        assert_eq!(fleiss_kappa(&[vec![1, 1], vec![1, 1, 1]], 2), None);
        assert_eq!(fleiss_kappa(&[vec![0, 1]], 2).map(|k| k < 0.0), Some(true));
        assert_eq!(fleiss_kappa(&[vec![0, 0], vec![1, 1]], 2), Some(1.0));
    }
}
