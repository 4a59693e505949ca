//! Selective trust ("Trust or Escalate", Jung, Brahman and Choi, ICLR
//! 2025): the lowest confidence threshold above which the judge's verdicts
//! agree with people at a rate ≥ 1 − α, with probability ≥ 1 − δ.
//!
//! Candidates are a grid fixed before the data, as the paper's code has it:
//! [`GRID_POINTS`] points evenly in [0, 1], keeping those with at least
//! [`TrustThreshold::start`] calibration pairs at or above. Walking every
//! distinct confidence instead stops at the first local dip (on the paper's
//! GPT-4-turbo judgements it kept 11 % of the held-out items where the grid
//! keeps 53 %, under the same guarantee). At each candidate the exact
//! (Clopper–Pearson) one-sided upper bound of the disagreement rate at level
//! 1 − δ, `Beta.ppf(1 − δ, k + 1, m − k)` (1 when k = m), must be ≤ α.
//! Fixed-sequence testing walks down from the highest candidate while
//! candidates pass and stops at the first failure; the threshold is the
//! last candidate that passed.
//!
//! With no disagreement among m pairs the bound is `1 − δ^(1/m)`, so α is
//! reachable only from `⌈ln δ / ln(1 − α)⌉` pairs ([`reachable_from`]): a
//! walk that started with fewer would fail its first step whatever the
//! judge did, so the walk starts there (or at `min_calibration`, if larger).

use serde::Serialize;

/// The candidate grid: `i / (GRID_POINTS − 1)` for `i` in `0..GRID_POINTS`
/// (the paper's `linspace(0, 1, 5000)`).
pub const GRID_POINTS: usize = 5000;

/// The smallest α or δ jury takes: below it no number of labels a person
/// could give reaches the guarantee (α = 10⁻⁶ at δ = 0.1 already needs 2.3
/// million pairs without a disagreement), and the arithmetic loses meaning.
pub const LEVEL_MIN: f64 = 1e-6;

/// Checks a risk level (α or δ): a number in [`LEVEL_MIN`], 1); the error
/// says why, for the caller to prefix with the name and value as given.
pub fn check_level(x: f64) -> Result<f64, &'static str> {
    if x.is_finite() && (LEVEL_MIN..1.0).contains(&x) {
        Ok(x)
    } else {
        Err("must be between 0 and 1 (e.g. 0.1) and at least 1e-6: \
             below that no number of labels reaches the guarantee")
    }
}

/// One candidate threshold the walk tested.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Candidate {
    pub threshold: f64,
    /// Calibration pairs at or above it, and their disagreements.
    pub n: usize,
    pub disagreements: usize,
    /// Their Clopper–Pearson upper bound at level 1 − δ.
    pub upper_bound: f64,
}

/// The outcome of the procedure.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrustThreshold {
    /// The threshold, or `None` when no candidate passed.
    pub threshold: Option<f64>,
    /// Calibration pairs at or above the threshold (0 without one).
    pub n_trusted: usize,
    /// Disagreements among them.
    pub disagreements: usize,
    /// Their Clopper–Pearson upper bound (`None` without a threshold).
    pub upper_bound: Option<f64>,
    /// Fewest pairs with which α can be met at all ([`reachable_from`]).
    pub reachable_from: usize,
    /// Fewest pairs at or above a candidate: the larger of
    /// `min_calibration` and `reachable_from`.
    pub start: usize,
    /// The first candidate the walk tested (`None`: no grid point has
    /// `start` pairs at or above it).
    pub first: Option<Candidate>,
}

/// The fewest calibration pairs from which the bound can be ≤ `alpha` at
/// level 1 − `delta`: with no disagreement among m it is `1 − δ^(1/m)`, so
/// `⌈ln δ / ln(1 − α)⌉` (45 at α 0.05, δ 0.1; 22 at α = δ = 0.1).
pub fn reachable_from(alpha: f64, delta: f64) -> usize {
    let passes = |m: usize| m > 0 && 1.0 - delta.powf(1.0 / m as f64) <= alpha;
    let guess = (delta.ln() / (-alpha).ln_1p()).ceil();
    if !guess.is_finite() || guess >= usize::MAX as f64 {
        return usize::MAX;
    }
    // The closed form in floating point may sit one off either way.
    let mut m = (guess as usize).max(1);
    while m > 1 && passes(m - 1) {
        m -= 1;
    }
    while !passes(m) && m < usize::MAX {
        m += 1;
    }
    m
}

/// About how many calibration pairs at or above a threshold would bring
/// the bound to `alpha` if they disagreed at `rate` (the smallest m with
/// `upper(⌈rate·m⌉, m) ≤ α`, by doubling then bisection); `None` when the
/// rate is α or more (no number of labels would), or beyond ten million.
pub fn pairs_to_reach(rate: f64, alpha: f64, delta: f64) -> Option<usize> {
    if rate <= 0.0 {
        return Some(reachable_from(alpha, delta));
    }
    // (A NaN rate, like one at α or more, never reaches it.)
    if rate.is_nan() || rate >= alpha {
        return None;
    }
    let passes = |m: usize| {
        let k = ((rate * m as f64).ceil() as usize).min(m);
        bound_passes(k, m, alpha, delta)
    };
    let mut hi = 1usize;
    while !passes(hi) {
        hi *= 2;
        if hi > 10_000_000 {
            return None;
        }
    }
    let mut lo = hi / 2;
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if passes(mid) { hi = mid } else { lo = mid }
    }
    Some(hi)
}

/// Whether `clopper_pearson_upper(k, m, delta) ≤ alpha`, read from the
/// distribution function (`I_α(k + 1, m − k) ≥ 1 − δ`, the same statement)
/// at one evaluation instead of a bisection.
fn bound_passes(k: usize, m: usize, alpha: f64, delta: f64) -> bool {
    k < m && regularized_beta(alpha, (k + 1) as f64, (m - k) as f64) >= 1.0 - delta
}

/// Runs the procedure on `calibration` (the judge's confidence, and whether
/// it agreed with people) at risk `alpha` and error `delta`.
pub fn trust_threshold(
    calibration: &[(f64, bool)],
    alpha: f64,
    delta: f64,
    min_calibration: usize,
) -> TrustThreshold {
    let mut sorted: Vec<(f64, bool)> = calibration
        .iter()
        .copied()
        .filter(|(c, _)| c.is_finite())
        .collect();
    sorted.sort_by(|a, b| b.0.total_cmp(&a.0));
    let reachable = reachable_from(alpha, delta);
    let start = min_calibration.max(reachable).max(1);
    let mut out = TrustThreshold {
        threshold: None,
        n_trusted: 0,
        disagreements: 0,
        upper_bound: None,
        reachable_from: reachable,
        start,
        first: None,
    };
    if sorted.len() < start {
        return out;
    }
    let (mut m, mut k) = (0usize, 0usize);
    // The (m, k) last tested: grid points between two confidences hold the
    // same pairs and pass or fail together.
    let mut tested: Option<(usize, usize)> = None;
    for i in (0..GRID_POINTS).rev() {
        let lambda = i as f64 / (GRID_POINTS - 1) as f64;
        while m < sorted.len() && sorted[m].0 >= lambda {
            k += usize::from(!sorted[m].1);
            m += 1;
        }
        if m < start {
            continue;
        }
        if tested != Some((m, k)) {
            if !bound_passes(k, m, alpha, delta) {
                if out.first.is_none() {
                    out.first = Some(candidate(lambda, m, k, delta));
                }
                break;
            }
            tested = Some((m, k));
        }
        if out.first.is_none() {
            out.first = Some(candidate(lambda, m, k, delta));
        }
        out.threshold = Some(lambda);
        out.n_trusted = m;
        out.disagreements = k;
    }
    if out.threshold.is_some() {
        out.upper_bound = Some(clopper_pearson_upper(
            out.disagreements,
            out.n_trusted,
            delta,
        ));
    }
    out
}

fn candidate(threshold: f64, n: usize, disagreements: usize, delta: f64) -> Candidate {
    Candidate {
        threshold,
        n,
        disagreements,
        upper_bound: clopper_pearson_upper(disagreements, n, delta),
    }
}

/// The exact one-sided upper bound at level 1 − `delta` of a rate seen `k`
/// times in `m`: `Beta.ppf(1 − delta, k + 1, m − k)`, 1 when k = m.
pub fn clopper_pearson_upper(k: usize, m: usize, delta: f64) -> f64 {
    if k >= m {
        return 1.0;
    }
    beta_ppf(1.0 - delta, (k + 1) as f64, (m - k) as f64)
}

/// The share of `all` confidences at or above `threshold`.
pub fn coverage(all: &[f64], threshold: f64) -> Option<f64> {
    if all.is_empty() {
        return None;
    }
    Some(all.iter().filter(|&&c| c >= threshold).count() as f64 / all.len() as f64)
}

/// The quantile of the Beta(a, b) distribution: the x with I_x(a, b) = p,
/// by bisection to machine precision (I is monotone in x).
pub fn beta_ppf(p: f64, a: f64, b: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) || a <= 0.0 || b <= 0.0 {
        return f64::NAN;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if regularized_beta(mid, a, b) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// I_x(a, b), the regularised incomplete beta function, by its continued
/// fraction (Lentz), on the side where it converges fast.
pub fn regularized_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    if x < (a + 1.0) / (a + b + 2.0) {
        (ln_front.exp() * beta_cf(x, a, b) / a).clamp(0.0, 1.0)
    } else {
        (1.0 - ln_front.exp() * beta_cf(1.0 - x, b, a) / b).clamp(0.0, 1.0)
    }
}

fn beta_cf(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..10_000 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-16 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9; ~1e-15 relative).
#[allow(clippy::excessive_precision, clippy::unreadable_literal)]
pub fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_571_6e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection.
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut acc = G[0];
    for (i, g) in G.iter().enumerate().skip(1) {
        acc += g / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + acc.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_and_beta_basics() {
        assert!((ln_gamma(1.0)).abs() < 1e-14);
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-13);
        assert!((regularized_beta(0.5, 2.0, 2.0) - 0.5).abs() < 1e-14);
        // Beta(1, m): I_x = 1 − (1 − x)^m.
        let x = beta_ppf(0.9, 1.0, 30.0);
        assert!((x - (1.0 - 0.1f64.powf(1.0 / 30.0))).abs() < 1e-12, "{x}");
    }

    /// Against scipy's `beta.ppf(1 − δ, k + 1, m − k)`.
    #[test]
    fn upper_bounds_match_scipy() {
        const SCIPY: &[(usize, usize, f64, f64)] = &[
            (0, 30, 0.1, 0.07388127187120652),
            (1, 30, 0.1, 0.12356999067525615),
            (3, 50, 0.05, 0.14783717636418123),
            (10, 100, 0.1, 0.14988259230162024),
            (0, 1000, 0.01, 0.004594582648473037),
            (7, 12, 0.2, 0.7306873688383859),
            (199, 200, 0.05, 0.9997435664127765),
            (2, 500, 0.001, 0.02225156374129838),
        ];
        for &(k, m, d, want) in SCIPY {
            let got = clopper_pearson_upper(k, m, d);
            assert!((got - want).abs() < 1e-10, "{k}/{m} δ {d}: {got} vs {want}");
        }
        assert_eq!(clopper_pearson_upper(5, 5, 0.1), 1.0);
    }

    #[test]
    fn the_walk_stops_at_the_first_failure() {
        // 100 pairs: the top 60 confident ones all agree, the rest half.
        let mut cal: Vec<(f64, bool)> = (0..60).map(|i| (0.99 - i as f64 * 0.001, true)).collect();
        cal.extend((0..40).map(|i| (0.5 - i as f64 * 0.001, i % 2 == 0)));
        let t = trust_threshold(&cal, 0.1, 0.1, 30);
        // 0 disagreements in m: bound 1 − 0.1^(1/m) ≤ 0.1 from m = 22 on;
        // the walk goes down to the 60th pair and fails in the noisy half.
        let lam = t.threshold.unwrap();
        assert!(
            (0.5 - 40.0 * 0.001..=0.99 - 29.0 * 0.001).contains(&lam),
            "{t:?}"
        );
        assert!(t.upper_bound.unwrap() <= 0.1);
        // Fewer than 30 pairs: no candidate is tried.
        assert_eq!(trust_threshold(&cal[..29], 0.1, 0.1, 30).threshold, None);
        // All wrong: nothing passes.
        let bad: Vec<(f64, bool)> = (0..50).map(|i| (i as f64 / 50.0, false)).collect();
        assert_eq!(trust_threshold(&bad, 0.1, 0.1, 30).threshold, None);
        assert_eq!(coverage(&[0.2, 0.6, 0.9, 0.95], 0.9), Some(0.5));
    }
}
