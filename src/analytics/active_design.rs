//! The active order's draw probabilities and its seeded draws
//! ([`super::active`] reads the labels back).
//!
//! Each combination's uncertainty is `u = √(q·(1 − q))`, `q` the judge's
//! probability that the classifier was right (its confidence, or the share
//! of its configurations and repeats that said "right"): the paper's
//! variance-optimal rule, `π ∝ √E[(Y − Ŷ)² | X]`, for a binary reading.
//! A share `floor` of every draw is spread evenly, so no combination's
//! probability falls below `floor/M` and no label weighs more than
//! `1/floor` times a uniform one (an over-confident judge is wrong exactly
//! where it says u ≈ 0). Combinations the judge gave no uncertainty for
//! get the mean of the others'.

use crate::rng::{Xoshiro256pp, unit_f64};

/// The share of each draw spread evenly over all combinations.
pub const FLOOR: f64 = 0.3;

/// The uncertainty of a probability of "right": `√(q·(1 − q))`.
pub fn uncertainty(q: f64) -> f64 {
    let q = q.clamp(0.0, 1.0);
    (q * (1.0 - q)).sqrt()
}

/// Per-draw probabilities (summing to 1) from each combination's `q`
/// (`None`: nothing known of the judge's uncertainty there). Even (1/M)
/// when no combination's uncertainty is known or all are 0. `floor` is
/// clamped to [0, 1].
pub fn draw_probabilities(q: &[Option<f64>], floor: f64) -> Vec<f64> {
    let m = q.len();
    if m == 0 {
        return Vec::new();
    }
    let floor = if floor.is_finite() {
        floor.clamp(0.0, 1.0)
    } else {
        FLOOR
    };
    let known: Vec<f64> = q.iter().flatten().map(|&q| uncertainty(q)).collect();
    let fill = if known.is_empty() {
        0.0
    } else {
        known.iter().sum::<f64>() / known.len() as f64
    };
    let u: Vec<f64> = q.iter().map(|q| q.map_or(fill, uncertainty)).collect();
    let total: f64 = u.iter().sum();
    let even = 1.0 / m as f64;
    if total <= 0.0 || !total.is_finite() {
        return vec![even; m];
    }
    u.iter()
        .map(|ui| (1.0 - floor) * ui / total + floor * even)
        .collect()
}

/// The first `n` draws (indices into `p`) of the order seeded by `seed`:
/// independent, with replacement, draw k picking i with probability
/// `p[i]`. The sequence is fixed by the seed and `p`: asking for more
/// draws extends it.
pub fn draws(p: &[f64], seed: u64, n: usize) -> Vec<usize> {
    if p.is_empty() {
        return Vec::new();
    }
    let mut cumulative = Vec::with_capacity(p.len());
    let mut acc = 0.0;
    for &pi in p {
        acc += pi.max(0.0);
        cumulative.push(acc);
    }
    let mut rng = Xoshiro256pp::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let x = unit_f64(rng.next_u64()) * acc;
            // The first i whose cumulative sum exceeds x.
            cumulative.partition_point(|&c| c <= x).min(p.len() - 1)
        })
        .collect()
}

/// The chance that `n` draws pick a combination of per-draw probability
/// `p` at least once: `1 − (1 − p)^n`.
pub fn inclusion(p: f64, n: usize) -> f64 {
    1.0 - (1.0 - p.clamp(0.0, 1.0)).powf(n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probabilities_follow_the_uncertainty_above_a_floor() {
        let p = draw_probabilities(&[Some(0.5), Some(1.0), None, Some(0.9)], 0.3);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // A sure verdict gets the floor alone: 0.3 / 4.
        assert!((p[1] - 0.075).abs() < 1e-12);
        assert!(p[0] > p[3] && p[3] > p[1]);
        // Unknown: the mean uncertainty of the known.
        let u = (0.5 + 0.0 + 0.3) / 3.0;
        let total = 0.5 + 0.0 + u + 0.3;
        assert!((p[2] - (0.7 * u / total + 0.075)).abs() < 1e-12);
        // Nothing known, or every verdict sure: even.
        assert_eq!(draw_probabilities(&[None, None], 0.3), vec![0.5, 0.5]);
        assert_eq!(draw_probabilities(&[Some(1.0); 4], 0.3), vec![0.25; 4]);
    }

    #[test]
    fn draws_are_seeded_prefix_stable_and_follow_p() {
        let p = [0.7, 0.1, 0.2];
        let a = draws(&p, 7, 20_000);
        assert_eq!(&draws(&p, 7, 50)[..], &a[..50]);
        assert_ne!(draws(&p, 8, 50), a[..50].to_vec());
        let share = a.iter().filter(|&&i| i == 0).count() as f64 / a.len() as f64;
        assert!((share - 0.7).abs() < 0.02, "{share}");
        assert!((inclusion(0.5, 2) - 0.75).abs() < 1e-12);
    }
}
