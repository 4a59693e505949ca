//! Agreement robust to prevalence: Gwet's AC1 and PABAK (Brennan–Prediger),
//! shown beside Cohen's kappa, and when one value's prevalence makes kappa
//! misleading.
//!
//! Kappa's chance agreement `Σ p1k·p2k` goes to 1 when both raters mostly
//! use one value, so kappa is low — even negative — at high agreement
//! (TriviaQA, Llama3-8B on gpt-4t answers: agreement 0.91, κ 0.55, AC1
//! 0.89). AC1 takes chance agreement as `Σ πk(1 − πk)/(q − 1)`, πk the mean
//! of the raters' shares of category k; PABAK as `1/q`. q is the scale's
//! category count. Both match `irrCAC` (`gwet`, `bp`) on two raters.

use super::ConfusionMatrix;

/// A pooled share of one value at or above which kappa is read with care.
pub const DOMINANT_SHARE: f64 = 0.8;

/// Fewest answers off the dominant value, on each side, for kappa to get an
/// interval: below it kappa rests on a handful of answers, its bootstrap
/// drops the resamples that lack them (kappa is undefined there) and its
/// interval can end at or below 0 at 95 % raw agreement.
pub const MIN_OFF_DOMINANT: u64 = 10;

impl ConfusionMatrix {
    /// Gwet's AC1; `None` when n = 0 or k < 2.
    pub fn gwet_ac1(&self) -> Option<f64> {
        let pe = self.ac1_chance()?;
        let pa = self.agreeing() as f64 / self.n() as f64;
        Some((pa - pe) / (1.0 - pe))
    }

    /// AC1's chance agreement `Σ πk(1 − πk)/(q − 1)` (below 1 always);
    /// `None` when n = 0 or k < 2.
    pub fn ac1_chance(&self) -> Option<f64> {
        let (n, q) = (self.n() as f64, self.k());
        if n == 0.0 || q < 2 {
            return None;
        }
        let pe = self
            .first_marginal()
            .iter()
            .zip(self.second_marginal())
            .map(|(&a, &b)| {
                let pi = (a + b) as f64 / (2.0 * n);
                pi * (1.0 - pi)
            })
            .sum::<f64>()
            / (q as f64 - 1.0);
        (pe < 1.0).then_some(pe)
    }

    /// A 95 % interval of AC1: agreement's Wilson interval through AC1,
    /// with the chance term at the end of its own 95 % range that widens
    /// it (AC1 falls as chance agreement rises). The chance term's standard
    /// error is `Σ |1 − 2πk|/(q − 1) · sqrt(πk(1 − πk)/n)` (delta method,
    /// conservative); its uncertainty is what a Wilson interval of
    /// agreement alone missed (89 % coverage at agreement 0.8 on one
    /// value 80 % of the time, n 300: benches/coverage.rs).
    pub fn ac1_interval(&self) -> Option<[f64; 2]> {
        let pe = self.ac1_chance()?;
        let [lo, hi] = super::wilson(self.agreeing(), self.n())?;
        let (n, q) = (self.n() as f64, self.k() as f64);
        let se = self
            .first_marginal()
            .iter()
            .zip(self.second_marginal())
            .map(|(&a, &b)| {
                let pi = (a + b) as f64 / (2.0 * n);
                (1.0 - 2.0 * pi).abs() * (pi * (1.0 - pi) / n).sqrt()
            })
            .sum::<f64>()
            / (q - 1.0);
        let spread = super::Z95 * se;
        let (pe_lo, pe_hi) = ((pe - spread).max(0.0), (pe + spread).min(0.999_999));
        let ac1 = |pa: f64, pe: f64| (pa - pe) / (1.0 - pe);
        Some([ac1(lo, pe_hi).max(-1.0), ac1(hi, pe_lo).min(1.0)])
    }

    /// PABAK (Brennan–Prediger): `(q·pa − 1)/(q − 1)`; `None` when n = 0 or
    /// k < 2.
    pub fn pabak(&self) -> Option<f64> {
        let (n, q) = (self.n(), self.k());
        if n == 0 || q < 2 {
            return None;
        }
        Some(pabak_of(self.agreeing() as f64 / n as f64, q))
    }

    /// The pooled share of the most used value (both raters together).
    pub fn dominant_share(&self) -> Option<f64> {
        let n = self.n();
        if n == 0 {
            return None;
        }
        let top = self
            .first_marginal()
            .iter()
            .zip(self.second_marginal())
            .map(|(a, b)| a + b)
            .max()
            .unwrap_or(0);
        Some(top as f64 / (2 * n) as f64)
    }

    /// Answers off each side's most used value: the fewer of the two.
    pub fn off_dominant(&self) -> u64 {
        let off = |m: &[u64]| self.n() - m.iter().copied().max().unwrap_or(0);
        off(self.first_marginal()).min(off(self.second_marginal()))
    }
}

/// PABAK from raw agreement `pa` on q categories (a rising line: an
/// interval of `pa` maps onto one of PABAK).
pub fn pabak_of(pa: f64, q: usize) -> f64 {
    (q as f64 * pa - 1.0) / (q as f64 - 1.0)
}

/// Why kappa is misleading here, when it is: one value dominates and kappa
/// sits far below raw agreement.
pub fn prevalence_note(m: &ConfusionMatrix, kappa: Option<f64>) -> Option<String> {
    let share = m.dominant_share()?;
    let pa = m.percent_agreement()?;
    let kappa = kappa?;
    (share >= DOMINANT_SHARE && pa - kappa >= 0.2).then(|| {
        format!(
            "one value is {:.0} % of the answers: kappa {kappa:.2} far below agreement {pa:.2} (chance agreement near 1); read AC1, PABAK",
            share * 100.0
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn high_agreement_on_one_dominant_value() {
        // 100 pairs: 90 both AGREE, 5 both DISAGREE, 5 split.
        let m = ConfusionMatrix::from_counts(2, vec![90, 3, 2, 5]).unwrap();
        let kappa = m.cohen_kappa().unwrap();
        let ac1 = m.gwet_ac1().unwrap();
        assert!((m.pabak().unwrap() - 0.9).abs() < 1e-12);
        assert!(ac1 > 0.9 && kappa < 0.7, "AC1 {ac1}, κ {kappa}");
        assert!(prevalence_note(&m, Some(kappa)).is_some());
        assert_eq!(m.off_dominant(), 7);
        let balanced = ConfusionMatrix::from_counts(2, vec![45, 5, 5, 45]).unwrap();
        assert!(prevalence_note(&balanced, balanced.cohen_kappa()).is_none());
    }
}
