//! A cascade of judges ("Trust or Escalate", Jung, Brahman and Choi, ICLR
//! 2025, §3.2): judges in a fixed order, each with its own confidence
//! threshold. A combination is kept by the first judge whose confidence on
//! it is at or above that judge's threshold; when none is, it goes to a
//! person.
//!
//! Calibration follows the paper's code (`CascadedClassifier.calibrate`):
//! judge 1 is calibrated on every calibration pair, judge j on the pairs
//! the judges before it did not keep, each by the single-judge procedure
//! ([`super::trust::trust_threshold`]: the fixed grid, fixed-sequence
//! testing from the top with the Clopper–Pearson bound). Unlike the paper's
//! code, each judge is calibrated at δ/J (Bonferroni over the J judges), so
//! the guarantee holds end to end: with probability ≥ 1 − δ every stage's
//! kept verdicts disagree with people at a rate ≤ α, and so does their
//! union (a mixture of rates ≤ α). And a judge no threshold passes for
//! keeps nothing (the paper's code kept the top candidate's anyway, or the
//! previous judge's threshold when too few pairs remained).

use super::trust::{TrustThreshold, trust_threshold};

/// One calibration pair of the cascade: per judge, in cascade order, its
/// confidence and whether its reading agreed with people's (`None`: that
/// judge has no decided verdict with a confidence here).
pub type CascadeUnit = Vec<Option<(f64, bool)>>;

/// Calibrates the judges' thresholds in order on `units`, each at level
/// `delta / judges`. One result per judge.
pub fn calibrate_cascade(
    units: &[CascadeUnit],
    judges: usize,
    alpha: f64,
    delta: f64,
    min_calibration: usize,
) -> Vec<TrustThreshold> {
    let delta_each = delta / judges.max(1) as f64;
    let mut open = vec![true; units.len()];
    let mut out = Vec::with_capacity(judges);
    for j in 0..judges {
        let pairs: Vec<(f64, bool)> = units
            .iter()
            .zip(&open)
            .filter(|(_, o)| **o)
            .filter_map(|(u, _)| u.get(j).copied().flatten())
            .collect();
        let t = trust_threshold(&pairs, alpha, delta_each, min_calibration);
        if let Some(lambda) = t.threshold {
            for (u, o) in units.iter().zip(open.iter_mut()) {
                if *o
                    && u.get(j)
                        .copied()
                        .flatten()
                        .is_some_and(|(c, _)| c >= lambda)
                {
                    *o = false;
                }
            }
        }
        out.push(t);
    }
    out
}

/// Which judge keeps a combination given each judge's confidence on it
/// (`None`: no decided verdict with a confidence): the first whose
/// confidence is at or above its threshold; `None` when it goes to a person.
pub fn keeper(confidences: &[Option<f64>], thresholds: &[Option<f64>]) -> Option<usize> {
    confidences
        .iter()
        .zip(thresholds)
        .position(|(c, t)| matches!((c, t), (Some(c), Some(t)) if c >= t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    fn unit_f(r: &mut SplitMix64) -> f64 {
        (r.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A judge whose confidence c is calibrated-ish: it agrees with people
    /// with probability `skill(c)`.
    fn population(n: usize, seed: u64) -> Vec<CascadeUnit> {
        let mut r = SplitMix64::new(seed);
        (0..n)
            .map(|_| {
                // A weaker judge: right as often as c², its confidence uniform.
                let c0 = 0.5 + 0.5 * unit_f(&mut r);
                let a0 = unit_f(&mut r) < c0 * c0;
                // A strong judge: mostly sure and mostly right.
                let c1 = 0.5 + 0.5 * unit_f(&mut r).sqrt();
                let a1 = unit_f(&mut r) < c1;
                vec![Some((c0, a0)), Some((c1, a1))]
            })
            .collect()
    }

    #[test]
    fn the_second_judge_is_calibrated_on_what_the_first_left() {
        let units = population(2000, 7);
        let t = calibrate_cascade(&units, 2, 0.1, 0.1, 30);
        assert_eq!(t.len(), 2);
        // The second judge's calibration excludes the pairs the first kept.
        let first = t[0].threshold.expect("the first judge keeps some");
        let left = units
            .iter()
            .filter(|u| u[0].is_none_or(|(c, _)| c < first))
            .count();
        assert!(t[1].n_trusted <= left, "{t:?}");
        // Each stage's own bound is at δ/2.
        for s in &t {
            if let (Some(_), Some(b)) = (s.threshold, s.upper_bound) {
                assert!(b <= 0.1, "{s:?}");
            }
        }
        assert_eq!(
            keeper(&[Some(0.99), Some(0.2)], &[Some(0.9), Some(0.1)]),
            Some(0)
        );
        assert_eq!(
            keeper(&[Some(0.5), Some(0.2)], &[Some(0.9), Some(0.1)]),
            Some(1)
        );
        assert_eq!(keeper(&[None, Some(0.05)], &[Some(0.9), Some(0.1)]), None);
        assert_eq!(
            keeper(&[Some(1.0), Some(1.0)], &[None, Some(0.99)]),
            Some(1)
        );
    }

    /// The guarantee, by simulation: calibrated on 400 pairs, the kept
    /// verdicts of a large fresh population disagree with people at more
    /// than α in at most a δ share of 300 calibrations (here: far fewer,
    /// as Bonferroni and Clopper–Pearson are conservative).
    #[test]
    fn the_cascade_keeps_its_guarantee_over_many_calibrations() {
        let (alpha, delta) = (0.15, 0.1);
        let fresh = population(20_000, 99);
        let mut failures = 0;
        let trials = 300;
        for seed in 0..trials {
            let cal = population(400, 1000 + seed);
            let t = calibrate_cascade(&cal, 2, alpha, delta, 30);
            let th: Vec<Option<f64>> = t.iter().map(|s| s.threshold).collect();
            let (mut kept, mut wrong) = (0usize, 0usize);
            for u in &fresh {
                let cs: Vec<Option<f64>> = u.iter().map(|p| p.map(|(c, _)| c)).collect();
                if let Some(j) = keeper(&cs, &th) {
                    kept += 1;
                    wrong += usize::from(!u[j].expect("kept by a judge with a verdict").1);
                }
            }
            if kept > 0 && wrong as f64 / kept as f64 > alpha {
                failures += 1;
            }
        }
        assert!(
            (failures as f64) <= delta * trials as f64,
            "{failures} of {trials} calibrations broke the guarantee"
        );
    }
}
