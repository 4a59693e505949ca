//! Confidence intervals for the mean of bounded values by betting
//! (Waudby-Smith & Ramdas, "Estimating means of bounded random variables by
//! betting", JRSS-B 2024): the hedged capital process with the predictable
//! plug-in bets of their §4 (fixed-n version) and the clopper-pearson-like
//! guarantee that comes with it — the interval covers with probability at
//! least 1 − α at every n, whatever the distribution on [0, 1].
//!
//! This is what jury falls back to where a normal approximation cannot be
//! trusted (few labels, few disagreements, an estimate near 0 or 1).
//!
//! For a candidate mean m the capital betting on "above m" is
//! `K⁺(m) = Π (1 + b⁺ᵢ(m)·(xᵢ − m))` and on "below m"
//! `K⁻(m) = Π (1 − b⁻ᵢ(m)·(xᵢ − m))`, with `b⁺ᵢ = min(λᵢ, c/m)`,
//! `b⁻ᵢ = min(λᵢ, c/(1 − m))`, c = 0.9, and
//! `λᵢ = sqrt(2·ln(2/α) / (n·σ̂²ᵢ₋₁))` from the values before i. m is
//! rejected when `max(K⁺, K⁻)/2 ≥ 1/α`. Each factor is positive and K⁺
//! falls as m rises (K⁻ rises), so the values not rejected form an interval
//! whose ends are found by bisection. The values are taken in a seeded
//! random order (the guarantee holds for any order fixed before looking).

use super::rng::Xoshiro256pp;

/// How far a bet may go towards the edge (c in the module docs): 0.9 rather
/// than the paper's 1/2, so that a sample with no value of one kind (30
/// labels all right) bounds the mean nearly as tightly as Clopper–Pearson.
const TRUNCATION: f64 = 0.9;

/// The bets λᵢ for the values in order (predictable: λᵢ uses x₁..xᵢ₋₁).
fn bets(x: &[f64], alpha: f64) -> Vec<f64> {
    let n = x.len() as f64;
    let log_term = 2.0 * (2.0 / alpha).ln();
    let (mut sum, mut sq) = (0.0, 0.25);
    let mut out = Vec::with_capacity(x.len());
    for (i, &xi) in x.iter().enumerate() {
        let t = i as f64;
        let var = sq / (t + 1.0);
        out.push((log_term / (n * var)).sqrt());
        let mu = (0.5 + sum) / (t + 1.0);
        sum += xi;
        sq += (xi - mu) * (xi - mu);
    }
    out
}

/// ln K⁺(m) (`up`) or ln K⁻(m).
fn log_capital(x: &[f64], lambdas: &[f64], m: f64, up: bool) -> f64 {
    let cap = if up {
        TRUNCATION / m
    } else {
        TRUNCATION / (1.0 - m)
    };
    x.iter()
        .zip(lambdas)
        .map(|(&xi, &l)| {
            let b = l.min(cap);
            let step = if up { b * (xi - m) } else { -b * (xi - m) };
            step.ln_1p()
        })
        .sum()
}

/// The two-sided 1 − `alpha` betting interval of the mean of `x`, every
/// value in [0, 1]. `None` for no values, a value outside [0, 1] or NaN,
/// or `alpha` outside (0, 1). `seed` fixes the order the values are taken in.
pub fn betting_ci(x: &[f64], alpha: f64, seed: u64) -> Option<[f64; 2]> {
    if x.is_empty() || !(alpha > 0.0 && alpha < 1.0) {
        return None;
    }
    if x.iter().any(|v| !(0.0..=1.0).contains(v)) {
        return None;
    }
    // A seeded shuffle (Fisher–Yates): the bets should not follow the
    // order the store happened to return.
    let mut order = x.to_vec();
    let mut rng = Xoshiro256pp::for_stream(seed, 0xbe77);
    for i in (1..order.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    let lambdas = bets(&order, alpha);
    // Rejected when max(K⁺, K⁻)/2 ≥ 1/α, i.e. one of them ≥ 2/α.
    let bar = (2.0 / alpha).ln();
    let mean = order.iter().sum::<f64>() / order.len() as f64;
    // Lower end: the smallest m (≤ mean) with ln K⁺(m) < bar; K⁺ falls in m.
    let lower = if log_capital(&order, &lambdas, 1e-12, true) < bar {
        0.0
    } else {
        bisect(1e-12, mean.max(1e-12), |m| {
            log_capital(&order, &lambdas, m, true) >= bar
        })
    };
    // Upper end: the largest m (≥ mean) with ln K⁻(m) < bar; K⁻ rises in m.
    let upper = if log_capital(&order, &lambdas, 1.0 - 1e-12, false) < bar {
        1.0
    } else {
        1.0 - bisect(1e-12, (1.0 - mean).max(1e-12), |d| {
            log_capital(&order, &lambdas, 1.0 - d, false) >= bar
        })
    };
    Some([lower.min(mean), upper.max(mean)])
}

/// The boundary between `rejected(lo) == true` and `rejected(hi) == false`
/// on [lo, hi] (rejected is monotone): the first m not rejected.
fn bisect(mut lo: f64, mut hi: f64, rejected: impl Fn(f64) -> bool) -> f64 {
    if rejected(hi) {
        return hi;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if rejected(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_ones_reach_one_and_stay_off_zero() {
        let [lo, hi] = betting_ci(&[1.0; 30], 0.05, 1).unwrap();
        assert_eq!(hi, 1.0);
        // Clopper–Pearson gives 0.884 here; betting is a little wider.
        assert!(lo > 0.8 && lo < 0.9, "{lo}");
    }

    #[test]
    fn a_balanced_sample_is_around_a_half() {
        let x: Vec<f64> = (0..200).map(|i| f64::from(i % 2)).collect();
        let [lo, hi] = betting_ci(&x, 0.05, 3).unwrap();
        assert!(
            lo > 0.35 && lo < 0.5 && hi > 0.5 && hi < 0.65,
            "[{lo}, {hi}]"
        );
        assert_eq!(betting_ci(&x, 0.05, 3), betting_ci(&x, 0.05, 3));
    }

    #[test]
    fn refuses_what_it_cannot_bound() {
        assert_eq!(betting_ci(&[], 0.05, 1), None);
        assert_eq!(betting_ci(&[1.5], 0.05, 1), None);
        assert_eq!(betting_ci(&[f64::NAN], 0.05, 1), None);
        assert_eq!(betting_ci(&[0.5], 0.0, 1), None);
    }
}
